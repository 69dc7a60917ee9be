// TF Serving's REST API behind the fake API server's service proxy (see fake_tfserving.hpp):
// the model's state follows the Deployment; the answers themselves are tfserving_rest.cpp's.
#include "support/fake_tfserving.hpp"
#include "support/tfserving_rest.hpp"

#include <nlohmann/json.hpp>

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
    if (req.port != "8501" && req.port != "http")
      return proxy_reply(rest_error(400, "the fake TF Serving answers REST on port 8501 (\"http\"), not \"" + req.port + "\""));
    auto parsed = parse_model_path(req.path);
    if (!parsed) return proxy_reply(rest_error(404, "Malformed request: " + req.method + " " + req.path));
    const auto& [model, verb] = *parsed;

    // The Deployment behind the service decides the version and when a (re)load began.
    auto dep = s->server->get_object("deployments.apps", req.ns, req.service);
    std::lock_guard<std::mutex> lk(s->mu);
    FakeModel m = s->models.count(model) ? s->models[model] : FakeModel{};
    int version = m.version;
    std::string hash = "none";
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
    return proxy_reply(model_rest(req.method, model, verb, req.body, view));
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
