// TF Serving's REST API behind the fake API server's service proxy (see fake_tfserving.hpp).
// Shapes follow tensorflow_serving/model_servers/http_rest_api_handler.cc: GetModelStatus
// answers {"model_version_status":[{"version","state","status":{"error_code","error_message"}}]},
// errors are {"error": "..."}, Predict takes {"instances": [...]} with {"b64": ...} binaries
// and answers {"predictions": [...]}.
#include "support/fake_tfserving.hpp"

#include <tfjob/kube/detail/util.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>

namespace tfjob::test {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct FakeTfServing::State {
  FakeApiServer* server = nullptr;
  mutable std::mutex mu;
  std::map<std::string, FakeModel> models;
  struct Load {
    std::string template_hash;
    Clock::time_point since;
  };
  std::map<std::string, Load> loads;  ///< ns/service/model → current load
  int status_requests = 0, loading_answers = 0, predict_requests = 0;
};

namespace {

std::uint32_t fnv(const std::string& s) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

ProxyResponse error_response(int status, const std::string& message) {
  ProxyResponse r;
  r.status = status;
  r.body = json{{"error", message}}.dump();
  return r;
}

/// A model status entry.
json version_status(int version, const std::string& state, const std::string& code = "OK", const std::string& msg = "") {
  return {{"version", std::to_string(version)}, {"state", state}, {"status", {{"error_code", code}, {"error_message", msg}}}};
}

/// 1001 probabilities: the scripted (or hashed) top classes, the rest share the remainder.
json softmax_1001(const std::string& bytes, const std::vector<std::pair<int, double>>& scripted) {
  std::vector<std::pair<int, double>> top = scripted;
  if (top.empty()) {
    std::uint32_t h = fnv(bytes);
    top = {{1 + static_cast<int>(h % 1000), 0.55}, {1 + static_cast<int>((h / 1000) % 1000), 0.2}};
    if (top[1].first == top[0].first) top.pop_back();
  }
  std::vector<double> p(1001, 0.0);
  double used = 0;
  for (const auto& [i, v] : top) {
    p[i] = v;
    used += v;
  }
  double rest = std::max(0.0, 1.0 - used) / static_cast<double>(1001 - top.size());
  std::uint32_t h = fnv(bytes);
  for (int i = 0; i < 1001; ++i) {
    bool is_top = false;
    for (const auto& t : top) is_top |= t.first == i;
    if (!is_top) p[i] = rest * (0.5 + ((h ^ static_cast<std::uint32_t>(i * 2654435761u)) % 1000) / 1000.0);
  }
  return p;
}

}  // namespace

FakeTfServing::FakeTfServing(FakeApiServer& server, const std::string& service_glob) : s_(std::make_shared<State>()) {
  s_->server = &server;
  std::weak_ptr<State> weak = s_;
  server.set_proxy_handler(service_glob, [weak](const ProxyRequest& req) -> ProxyResponse {
    auto s = weak.lock();
    if (!s) return error_response(503, "TF Serving is gone");
    if (req.port != "8501" && req.port != "http")
      return error_response(400, "the fake TF Serving answers REST on port 8501 (\"http\"), not \"" + req.port + "\"");
    const std::string prefix = "/v1/models/";
    if (req.path.rfind(prefix, 0) != 0) return error_response(404, "Malformed request: " + req.method + " " + req.path);
    std::string rest = req.path.substr(prefix.size());
    std::string verb;
    if (auto colon = rest.find(':'); colon != std::string::npos) {
      verb = rest.substr(colon + 1);
      rest = rest.substr(0, colon);
    }
    const std::string model = rest;

    // The Deployment behind the service decides the version and when a (re)load began.
    auto dep = s->server->get_object("deployments.apps", req.ns, req.service);
    std::lock_guard<std::mutex> lk(s->mu);
    FakeModel m = s->models.count(model) ? s->models[model] : FakeModel{};
    int version = m.version;
    std::string hash = "none";
    if (dep) {
      const json& tmpl = (*dep)["spec"]["template"];
      hash = std::to_string(fnv(tmpl.dump()));
      for (const auto& ic : tmpl["spec"].value("initContainers", json::array()))
        for (const auto& e : ic.value("env", json::array()))
          if (e.value("name", "") == "MODEL_VERSION") version = std::stoi(e.value("value", "1"));
      std::string served = "";
      for (const auto& c : tmpl["spec"].value("containers", json::array()))
        for (const auto& a : c.value("args", json::array()))
          if (a.is_string() && a.get<std::string>().rfind("--model_name=", 0) == 0) served = a.get<std::string>().substr(13);
      if (!served.empty() && served != model)
        return error_response(404, "Servable not found for request: Latest(" + model + ")");
    }
    auto& load = s->loads[req.ns + "/" + req.service + "/" + model];
    if (load.template_hash != hash) {
      load.template_hash = hash;
      load.since = Clock::now();
    }
    const bool loading = Clock::now() < load.since + m.load_time;
    const bool failed = !loading && !m.fail_message.empty();

    if (verb.empty() && req.method == "GET") {
      ++s->status_requests;
      ProxyResponse r;
      json vs;
      if (loading) {
        ++s->loading_answers;
        vs = version_status(version, "LOADING");
      } else if (failed) {
        vs = version_status(version, "END", "UNKNOWN", m.fail_message);
      } else {
        vs = version_status(version, "AVAILABLE");
      }
      r.body = json{{"model_version_status", json::array({vs})}}.dump();
      return r;
    }
    if (verb == "predict" && req.method == "POST") {
      ++s->predict_requests;
      if (loading || failed) return error_response(404, "Servable not found for request: Latest(" + model + ")");
      auto body = json::parse(req.body, nullptr, false);
      if (body.is_discarded()) return error_response(400, "JSON Parse error: Invalid value. at offset: 0");
      if (!body.is_object() || !body.contains("instances") || !body["instances"].is_array())
        return error_response(400, "Missing 'inputs' or 'instances' key");
      json preds = json::array();
      for (const auto& inst : body["instances"]) {
        if (inst.is_object() && inst.contains("b64")) {
          auto bytes = tfjob::kube::detail::base64_decode(inst["b64"].get<std::string>());
          if (!bytes) return error_response(400, "Unable to base64 decode");
          if (bytes->size() < 3 || static_cast<unsigned char>((*bytes)[0]) != 0xFF || static_cast<unsigned char>((*bytes)[1]) != 0xD8)
            return error_response(400, "Invalid JPEG data or crop window, data size " + std::to_string(bytes->size()) +
                                           "\n\t [[{{node map/while/DecodeJpeg}}]]");
          json probs = softmax_1001(*bytes, m.top);
          int best = 0;
          for (int i = 1; i < 1001; ++i)
            if (probs[i].get<double>() > probs[best].get<double>()) best = i;
          preds.push_back({{"classes", best}, {"probabilities", probs}});
        } else if (inst.is_array() || (inst.is_object() && inst.contains("images"))) {  // a numeric tensor (MNIST)
          json probs = json::array();
          std::uint32_t h = fnv(inst.dump());
          for (int i = 0; i < 10; ++i) probs.push_back(i == static_cast<int>(h % 10) ? 0.91 : 0.01);
          preds.push_back({{"classes", static_cast<int>(h % 10)}, {"probabilities", probs}});
        } else {
          return error_response(400, "Failed to process element: 0 of 'instances' list. Error: Invalid argument: "
                                     "JSON object: does not have named input: image_bytes");
        }
      }
      ProxyResponse r;
      r.body = json{{"predictions", preds}}.dump();
      return r;
    }
    return error_response(404, "Malformed request: " + req.method + " " + req.path);
  });
}

void FakeTfServing::set_model(const std::string& model, FakeModel m) {
  std::lock_guard<std::mutex> lk(s_->mu);
  s_->models[model] = std::move(m);
  for (auto& [k, l] : s_->loads)
    if (k.size() > model.size() && k.compare(k.size() - model.size() - 1, std::string::npos, "/" + model) == 0) l.since = Clock::now();
}
int FakeTfServing::status_requests() const {
  std::lock_guard<std::mutex> lk(s_->mu);
  return s_->status_requests;
}
int FakeTfServing::loading_answers() const {
  std::lock_guard<std::mutex> lk(s_->mu);
  return s_->loading_answers;
}
int FakeTfServing::predict_requests() const {
  std::lock_guard<std::mutex> lk(s_->mu);
  return s_->predict_requests;
}

}  // namespace tfjob::test
