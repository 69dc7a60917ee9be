// TF Serving's REST API behind the fake API server's service proxy (see fake_tfserving.hpp):
// the model's state follows the Deployment; the answers themselves are tfserving_rest.cpp's.
#include "support/fake_tfserving.hpp"
#include "support/tfserving_rest.hpp"

#include <nlohmann/json.hpp>

#include <optional>

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
  std::map<std::string, std::map<std::string, std::map<std::string, int>>> labels;  ///< ns/service → model → labels in force
  int status_requests = 0, loading_answers = 0, predict_requests = 0;
  std::map<std::string, RestMetrics> metrics;  ///< ns/service → what its TF Serving answered
  std::string config_error;  ///< the last model config read's error (what TF Serving would log)
};

namespace {

ProxyResponse proxy_reply(const RestReply& r) {
  ProxyResponse p;
  p.status = r.status;
  p.body = r.body;
  return p;
}

}  // namespace

FakeTfServing::FakeTfServing(FakeApiServer& server, const std::string& service_glob) : s_(std::make_shared<State>()) {
  s_->server = &server;
  std::weak_ptr<State> weak = s_;
  server.set_proxy_handler(service_glob, [weak](const ProxyRequest& req) -> ProxyResponse {
    auto s = weak.lock();
    if (!s) return proxy_reply(rest_error(503, "TF Serving is gone"));
    // A KServe predictor's Service (fake KServe controller) sends its port 80 to TF Serving's
    // REST port 8080; serve's own Service names REST port 8501 "http".
    bool kserve_port = false;
    if (req.port == "80")
      if (auto svc = s->server->get_object("services", req.ns, req.service))
        kserve_port = (*svc)["metadata"].value("labels", json::object()).contains("serving.kserve.io/inferenceservice");
    if (req.port != "8501" && req.port != "http" && !kserve_port)
      return proxy_reply(rest_error(400, "the fake TF Serving answers REST on port 8501 (\"http\"), not \"" + req.port + "\""));
    const auto started = Clock::now();
    if (is_prometheus_path(req.path)) {
      // Served only when the server was started with --monitoring_config_file (main.cc);
      // otherwise TF Serving's HTTP server has no such handler.
      auto dep = s->server->get_object("deployments.apps", req.ns, req.service);
      bool on = false;
      if (dep)
        for (const auto& c : (*dep)["spec"]["template"]["spec"].value("containers", json::array()))
          for (const auto& a : c.value("args", json::array()))
            on |= a.is_string() && a.get<std::string>().rfind("--monitoring_config_file=", 0) == 0;
      if (!on || req.method != "GET") return proxy_reply(rest_error(404, "Malformed request: " + req.method + " " + req.path));
      std::lock_guard<std::mutex> lk(s->mu);
      ProxyResponse p;
      p.content_type = "text/plain; version=0.0.4";
      p.body = s->metrics[req.ns + "/" + req.service].prometheus_text();
      return p;
    }
    auto parsed = parse_model_path(req.path);
    if (!parsed) return proxy_reply(rest_error(404, "Malformed request: " + req.method + " " + req.path));
    const std::string model = parsed->model, verb = parsed->verb;

    // The Deployment behind the service decides the version and when a (re)load began.
    auto dep = s->server->get_object("deployments.apps", req.ns, req.service);
    std::lock_guard<std::mutex> lk(s->mu);
    FakeModel m = s->models.count(model) ? s->models[model] : FakeModel{};
    int version = m.version;
    std::string hash = "none";
    std::optional<ConfiguredModel> configured;  // set when the server reads a model config file
    if (dep) {
      const json& tmpl = (*dep)["spec"]["template"];
      hash = std::to_string(tfserving_hash(tmpl.dump()));
      for (const auto& ic : tmpl["spec"].value("initContainers", json::array()))
        for (const auto& e : ic.value("env", json::array()))
          if (e.value("name", "") == "MODEL_VERSION") version = std::stoi(e.value("value", "1"));
      std::string served = "";
      for (const auto& c : tmpl["spec"].value("containers", json::array()))
        for (const auto& a : c.value("args", json::array()))
          if (a.is_string() && a.get<std::string>().rfind("--model_name=", 0) == 0) served = a.get<std::string>().substr(13);
      if (!served.empty() && served != model)
        return proxy_reply(servable_not_found(model));
      bool config_file = false, allow_unavailable = false;
      for (const auto& c : tmpl["spec"].value("containers", json::array()))
        for (const auto& a : c.value("args", json::array())) {
          if (a.is_string() && a.get<std::string>().rfind("--model_config_file=", 0) == 0) config_file = true;
          if (a == "--allow_version_labels_for_unavailable_models") allow_unavailable = true;
        }
      if (config_file) {
        std::string cm_name;
        for (const auto& v : tmpl["spec"].value("volumes", json::array()))
          if (v.contains("configMap")) cm_name = v["configMap"].value("name", "");
        auto cm = s->server->get_object("configmaps", req.ns, cm_name);
        std::string text;
        if (cm && (*cm).contains("data") && (*cm)["data"].contains("models.config")) text = (*cm)["data"]["models.config"];
        auto& in_force = s->labels[req.ns + "/" + req.service];
        auto load = load_model_config(
            text,
            [&](const std::string& base) {
              std::string name = base.substr(base.rfind('/') + 1);
              FakeModel fm = s->models.count(name) ? s->models[name] : FakeModel{};
              return fm.disk_versions.empty() ? std::vector<int>{fm.version} : fm.disk_versions;
            },
            in_force, allow_unavailable);
        if (!load.error.empty()) s->config_error = load.error;
        for (const auto& c : load.models) in_force[c.name] = c.labels;
        for (const auto& c : load.models)
          if (c.name == model) configured = c;
        if (!configured) return proxy_reply(servable_not_found(model));
        if (configured->versions.empty())
          return proxy_reply(rest_error(404, "Could not find any versions of model " + model));
      }
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
      if (loading) ++s->loading_answers;
    }
    if (verb == "predict" && req.method == "POST") ++s->predict_requests;
    ServedModel view;
    view.version = version;
    view.state = loading ? ServedModel::State::loading : failed ? ServedModel::State::failed : ServedModel::State::available;
    view.fail_message = m.fail_message;
    view.top = m.top;
    view.signature_def = m.signature_def;
    view.labels = m.labels;
    view.version_signatures = m.version_signatures;
    if (configured) {
      view.versions = configured->versions;
      view.labels = configured->labels;
    }
    RestReply reply = model_rest(req.method, *parsed, req.body, view);
    s->metrics[req.ns + "/" + req.service].record(
        *parsed, reply.status, std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started).count());
    return proxy_reply(reply);
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
std::string FakeTfServing::config_error() const {
  std::lock_guard<std::mutex> lk(s_->mu);
  return s_->config_error;
}
int FakeTfServing::predict_requests() const {
  std::lock_guard<std::mutex> lk(s_->mu);
  return s_->predict_requests;
}

}  // namespace tfjob::test
