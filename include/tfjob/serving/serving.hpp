#pragma once
/// \file TF Serving on a cluster: apply the Deployment and Service (server-side apply), wait
/// for the rollout as `kubectl rollout status` does (plus crash-looping pods, with their
/// events and last logs), wait until TF Serving reports a model version AVAILABLE, and send
/// predictions — all through the API server (the service proxy reaches TF Serving's REST
/// port, so no port-forward is needed).

#include <tfjob/error.hpp>
#include <tfjob/kube/api.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/detail/util.hpp>
#include <tfjob/kube/logs.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/serving/manifests.hpp>
#include <tfjob/serving/status.hpp>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace tfjob::serving {

namespace resources {
inline kube::ResourceInfo deployments() { return {"apps", "v1", "deployments", "Deployment", true}; }
inline kube::ResourceInfo services() { return {"", "v1", "services", "Service", true}; }
inline kube::ResourceInfo pods() { return {"", "v1", "pods", "Pod", true}; }
inline kube::ResourceInfo events() { return {"", "v1", "events", "Event", true}; }
}  // namespace resources

/// Server-side apply of every object (field manager kubectl-tfjob); returns what the server
/// stored. `dry_run` = the server's dry run (nothing persisted).
inline std::vector<nlohmann::json> apply_objects(kube::Client& c, const std::string& ns, const std::vector<nlohmann::json>& objs,
                                                 bool force = false, bool dry_run = false) {
  std::vector<nlohmann::json> out;
  for (auto o : objs) {
    const std::string kind = o.value("kind", "");
    auto res = kind == "Deployment" ? resources::deployments() : resources::services();
    o["metadata"]["namespace"] = ns;
    kube::ApplyParams ap;
    ap.force = force;
    ap.dry_run = dry_run;
    out.push_back(c.request_json(kube::RequestBuilder(res, ns).apply(o["metadata"]["name"].get<std::string>(), o, ap)));
  }
  return out;
}

/// The REST path of TF Serving behind the API server's service proxy.
inline std::string proxy_path(const std::string& ns, const std::string& service, const std::string& rest_path) {
  return "/api/v1/namespaces/" + ns + "/services/" + service + ":" + std::to_string(rest_port) + "/proxy" + rest_path;
}

/// A raw answer from TF Serving (or from the proxy in front of it).
struct ProxyAnswer {
  int status = 0;
  std::string body;
  /// The API server's own Status (no endpoints, no such service) rather than TF Serving's.
  bool from_apiserver() const {
    auto j = nlohmann::json::parse(body, nullptr, false);
    return !j.is_discarded() && j.is_object() && j.value("kind", "") == "Status";
  }
  std::string apiserver_message() const {
    auto j = nlohmann::json::parse(body, nullptr, false);
    return j.is_discarded() || !j.is_object() ? body : j.value("message", body);
  }
};

inline ProxyAnswer proxy_call(kube::Client& c, const std::string& ns, const std::string& service, const std::string& method,
                              const std::string& rest_path, const std::string& body = {}) {
  kube::Request r;
  r.method = method;
  r.path = proxy_path(ns, service, rest_path);
  r.what = method + " " + rest_path + " on service " + ns + "/" + service;
  r.idempotent = method == "GET";
  if (!body.empty()) {
    r.body = body;
    r.content_type = "application/json";
  }
  auto resp = c.send(r);
  if (resp.status == 401 || resp.status == 403) c.throw_for(r, resp.status, resp.reason, resp.body);
  return {resp.status, resp.body};
}

/// The Service, or nullopt.
inline std::optional<nlohmann::json> get_service(kube::Client& c, const std::string& ns, const std::string& name) {
  try {
    return c.request_json(kube::RequestBuilder(resources::services(), ns).get(name));
  } catch (const api_error& e) {
    if (e.is_not_found()) return std::nullopt;
    throw;
  }
}

/// The model name TF Serving serves behind `service` (its annotation, else the name).
inline std::string model_name_of(const nlohmann::json& obj) {
  std::string n = obj.value("/metadata/annotations"_json_pointer, nlohmann::json::object()).value(keys::model_name, "");
  return n.empty() ? obj.value("/metadata/name"_json_pointer, std::string()) : n;
}

/// Diagnosis text for pods that will not come up: each problem, the pod's events and the
/// last lines of the failing container's previous (or current) log.
inline std::string diagnose(kube::Client& c, const std::string& ns, const std::vector<nlohmann::json>& pods,
                            const std::vector<PodProblem>& problems, int log_lines = 20) {
  std::string s;
  std::vector<nlohmann::json> events;
  try {
    kube::RequestBuilder eb(resources::events(), ns);
    events = c.request_json(eb.list({})).value("items", nlohmann::json::array()).get<std::vector<nlohmann::json>>();
  } catch (const std::exception&) {
  }
  for (const auto& p : problems) {
    s += "pod " + p.pod + ": " + (p.init ? "init container " : "container ") + p.container + " is " + p.reason;
    if (p.restarts) s += " (restarted " + std::to_string(p.restarts) + " times";
    if (p.last_exit_code) s += std::string(p.restarts ? ", " : " (") + "last exit code " + std::to_string(*p.last_exit_code);
    if (p.restarts || p.last_exit_code) s += ")";
    if (!p.message.empty()) s += ": " + p.message;
    s += "\n";
    for (const auto& e : events)
      if (e.value("/involvedObject/name"_json_pointer, std::string()) == p.pod)
        s += "  event " + e.value("type", "") + " " + e.value("reason", "") + ": " + e.value("message", "") + "\n";
    kube::LogParams lp;
    lp.container = p.container;
    lp.tail_lines = log_lines;
    lp.previous = p.restarts > 0;
    std::string logs;
    // The kubelet answers 200 with its own error as the body when the runtime has no log
    // for the container it picked (kubelet server.go getContainerLogs writes the error into
    // the stream); on a crash loop that happens for previous=true while the current log
    // (lastState.terminated's container, kubelet validateContainerLogStatus) still has it.
    auto unreadable = [](const std::string& body) {
      return body.empty() || kube::detail::kubelet_log_unavailable(body);  // (get_logs throws on it too)
    };
    try {
      logs = kube::get_logs(c, ns, p.pod, lp);
      if (lp.previous && unreadable(logs)) throw tfjob::error("the previous attempt's log is gone");
    } catch (const std::exception&) {
      try {
        lp.previous = false;
        logs = kube::get_logs(c, ns, p.pod, lp);
      } catch (const std::exception& e2) {
        logs = std::string("(no logs: ") + e2.what() + ")\n";
      }
    }
    if (!logs.empty()) {
      s += "  last log lines of " + p.container + ":\n";
      std::string line;
      for (char ch : logs) {
        if (ch == '\n') {
          s += "    " + line + "\n";
          line.clear();
        } else {
          line += ch;
        }
      }
      if (!line.empty()) s += "    " + line + "\n";
    }
  }
  (void)pods;
  return s;
}

/// Pending pods' scheduling reasons (e.g. "0/2 nodes are available: 2 Insufficient nvidia.com/gpu").
inline std::string scheduling_reasons(const std::vector<nlohmann::json>& pods) {
  std::string s;
  for (const auto& p : pods)
    for (const auto& c : p.value("/status/conditions"_json_pointer, nlohmann::json::array()))
      if (c.value("type", "") == "PodScheduled" && c.value("status", "") == "False" && !c.value("message", "").empty())
        s += "pod " + p.value("/metadata/name"_json_pointer, std::string()) + " is not scheduled: " + c.value("message", "") + "\n";
  return s;
}

/// The scheduler's and kubelet's Warning events about these pods, one line each ("" when
/// there are none or events cannot be read: they explain, they are not required).
inline std::string warning_events(kube::Client& c, const std::string& ns, const std::vector<nlohmann::json>& pods) {
  std::string s;
  try {
    auto events = c.request_json(kube::RequestBuilder(resources::events(), ns).list({})).value("items", nlohmann::json::array());
    for (const auto& p : pods)
      for (const auto& e : events)
        if (e.value("type", "") == "Warning" &&
            e.value("/involvedObject/name"_json_pointer, std::string()) == p.value("/metadata/name"_json_pointer, std::string()))
          s += "pod " + p.value("/metadata/name"_json_pointer, std::string()) + ": " + e.value("reason", "") + ": " +
               e.value("message", "") + "\n";
  } catch (const std::exception&) {
  }
  return s;
}

/// How a wait ended.
enum class WaitResult { ready, failed, timeout, not_found };
struct WaitReport {
  WaitResult result = WaitResult::timeout;
  std::string message;       ///< last status line, or the failure
  std::string diagnosis;     ///< pods, events and logs when it failed or timed out
  std::string version;       ///< model wait: the AVAILABLE version
};

struct WaitOptions {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::chrono::milliseconds interval{500};
  int crashloop_restarts = 2;  ///< a CrashLoopBackOff with this many restarts fails the wait
  std::function<void(const std::string&)> on_progress;
};

/// The server's pods (by the selector labels serve puts on them).
inline std::vector<nlohmann::json> server_pods(kube::Client& c, const std::string& ns, const std::string& name) {
  kube::ListParams lp;
  lp.label_selector = std::string(keys::instance) + "=" + name + "," + keys::name + "=tensorflow-serving";
  return c.request_json(kube::RequestBuilder(resources::pods(), ns).list(lp))
      .value("items", nlohmann::json::array())
      .get<std::vector<nlohmann::json>>();
}

/// Waits for the Deployment's rollout as `kubectl rollout status` does: driven by a watch on
/// the Deployment (its status judged by kubectl's rules on every change, not polled), and
/// fails early on ProgressDeadlineExceeded. Pods do not change the Deployment when they
/// crash-loop or cannot pull their image, so a side thread looks at the server's pods every
/// `o.interval` and fails the wait on such a pod; it also ends the wait at `o.deadline`.
inline WaitReport wait_rollout(kube::Client& c, const std::string& ns, const std::string& name, const WaitOptions& o) {
  WaitReport rep;
  try {
    (void)c.request_json(kube::RequestBuilder(resources::deployments(), ns).get(name));
  } catch (const api_error& e) {
    if (!e.is_not_found()) throw;
    rep.result = WaitResult::not_found;
    rep.message = "deployment \"" + name + "\" not found in namespace \"" + ns + "\"";
    return rep;
  }

  std::atomic<bool> stop{false};
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::vector<PodProblem> problems;
  std::thread side([&] {
    kube::Client pc = c;  // its own connection
    std::unique_lock<std::mutex> lk(mu);
    while (!done) {
      if (std::chrono::steady_clock::now() >= o.deadline) {
        stop = true;
        return;
      }
      lk.unlock();
      std::vector<PodProblem> found;
      try {
        for (const auto& p : server_pods(pc, ns, name))
          for (auto& pr : pod_problems(p, o.crashloop_restarts)) found.push_back(std::move(pr));
      } catch (const std::exception&) {
        // the pods explain; the watch decides (a failed look is tried again)
      }
      lk.lock();
      if (!found.empty()) {
        problems = std::move(found);
        stop = true;
        return;
      }
      auto next = std::min(o.deadline, std::chrono::steady_clock::now() + o.interval);
      cv.wait_until(lk, next, [&] { return done; });
    }
  });
  struct Joiner {
    std::thread& t;
    std::mutex& mu;
    bool& done;
    std::condition_variable& cv;
    void operator()() {
      {
        std::lock_guard<std::mutex> lk(mu);
        done = true;
      }
      cv.notify_all();
      if (t.joinable()) t.join();
    }
    ~Joiner() { (*this)(); }
  } join{side, mu, done, cv};

  bool finished = false;
  kube::Api<kube::DynamicObject> api(c, resources::deployments(), ns);
  kube::WatchParams wp;
  wp.field_selector = "metadata.name=" + name;
  kube::StreamOptions so;
  so.cancel = &stop;
  api.watch(wp, [&](const kube::WatchEvent<kube::DynamicObject>& ev) {
    if (ev.type == "BOOKMARK") return true;
    if (ev.type == "DELETED") {
      rep.result = WaitResult::not_found;
      rep.message = "deployment \"" + name + "\" was deleted while waiting for its rollout";
      finished = true;
      return false;
    }
    auto st = rollout_status(ev.object.json);
    rep.message = st.message;
    if (o.on_progress) o.on_progress(st.message);
    if (st.done || st.failed) {
      rep.result = st.done ? WaitResult::ready : WaitResult::failed;
      finished = true;
      return false;
    }
    return true;
  }, so);
  join();
  if (finished && rep.result != WaitResult::failed) return rep;

  auto pods = server_pods(c, ns, name);
  if (finished) {  // ProgressDeadlineExceeded: the failing pods if any, else why nothing started
    std::vector<PodProblem> now;
    for (const auto& p : pods)
      for (auto& pr : pod_problems(p, o.crashloop_restarts)) now.push_back(std::move(pr));
    rep.diagnosis = diagnose(c, ns, pods, now) + scheduling_reasons(pods);
    if (now.empty()) rep.diagnosis += warning_events(c, ns, pods);
  } else if (!problems.empty()) {
    rep.result = WaitResult::failed;
    rep.message = "deployment \"" + name + "\" will not become ready: its pods are failing";
    rep.diagnosis = diagnose(c, ns, pods, problems) + scheduling_reasons(pods);
  } else {
    rep.result = WaitResult::timeout;  // the side thread stopped the watch at the deadline
    rep.diagnosis = scheduling_reasons(pods) + warning_events(c, ns, pods);
  }
  return rep;
}

/// One look at the model's status through the proxy.
struct ModelProbe {
  enum class Kind { available, loading, failed, no_version, unreachable } kind = Kind::unreachable;
  std::string message;  ///< for people
  std::string version;  ///< when available
};

inline ModelProbe probe_model(kube::Client& c, const std::string& ns, const std::string& service, const std::string& model) {
  ModelProbe p;
  auto a = proxy_call(c, ns, service, "GET", "/v1/models/" + model);
  if (a.from_apiserver()) {
    p.message = "the service proxy answered " + std::to_string(a.status) + ": " + a.apiserver_message();
    return p;
  }
  if (a.status == 404) {
    p.kind = ModelProbe::Kind::no_version;
    std::string e = tf_serving_error(a.body);
    p.message = "TF Serving has no version of model \"" + model + "\"" + (e.empty() ? "" : " (" + e + ")");
    return p;
  }
  if (a.status != 200) {
    std::string e = tf_serving_error(a.body);
    p.message = "TF Serving answered " + std::to_string(a.status) + (e.empty() ? "" : ": " + e);
    return p;
  }
  ModelStatus m = parse_model_status(a.body);
  if (auto v = m.available_version()) {
    p.kind = ModelProbe::Kind::available;
    p.version = *v;
    p.message = "model \"" + model + "\" version " + *v + " is AVAILABLE";
  } else if (auto f = m.failed_version()) {
    p.kind = ModelProbe::Kind::failed;
    p.message = "model \"" + model + "\" version " + f->version + " failed to load (" + f->error_code + "): " + f->error_message;
  } else {
    p.kind = ModelProbe::Kind::loading;
    p.message = "model \"" + model + "\": " + m.summary();
  }
  return p;
}

/// Waits until TF Serving reports a version of `model` AVAILABLE (HTTP 200 with LOADING is
/// not ready); fails at once when a version ends with an error.
inline WaitReport wait_model(kube::Client& c, const std::string& ns, const std::string& service, const std::string& model,
                             const WaitOptions& o) {
  WaitReport rep;
  for (;;) {
    ModelProbe p = probe_model(c, ns, service, model);
    rep.message = p.message;
    if (o.on_progress) o.on_progress(p.message);
    if (p.kind == ModelProbe::Kind::available) {
      rep.result = WaitResult::ready;
      rep.version = p.version;
      return rep;
    }
    if (p.kind == ModelProbe::Kind::failed) {
      rep.result = WaitResult::failed;
      // TF Serving's words for a wrong layout: "Could not find SavedModel .pb or .pbtxt at
      // supplied export directory path", "No versions of servable ... found", "... not found".
      if (p.message.find("saved_model.pb") != std::string::npos || p.message.find("No versions") != std::string::npos ||
          p.message.find("Could not find SavedModel") != std::string::npos ||
          p.message.find("not found") != std::string::npos)
        rep.diagnosis = layout_hint(model);
      return rep;
    }
    if (std::chrono::steady_clock::now() + o.interval >= o.deadline) {
      rep.result = WaitResult::timeout;
      if (p.kind == ModelProbe::Kind::no_version) rep.diagnosis = layout_hint(model);
      return rep;
    }
    std::this_thread::sleep_for(o.interval);
  }
}

/// A prediction request's outcome.
struct PredictResult {
  nlohmann::json response;  ///< TF Serving's JSON
};

/// POST /v1/models/MODEL:predict through the proxy. Throws tfjob::error with a clear
/// message: service not found, model not loaded yet, TF Serving's own error message.
inline PredictResult predict(kube::Client& c, const std::string& ns, const std::string& service, const nlohmann::json& body) {
  auto svc = get_service(c, ns, service);
  if (!svc)
    throw tfjob::error("service \"" + service + "\" not found in namespace \"" + ns +
                       "\": start the model server with `kubectl tfjob serve " + service +
                       " --model resnet` (or --model-url/--pvc), or pick the namespace with -n; `kubectl tfjob serve list` shows what is served");
  const std::string model = model_name_of(*svc);
  auto a = proxy_call(c, ns, service, "POST", "/v1/models/" + model + ":predict", body.dump());
  if (a.status >= 200 && a.status < 300) {
    auto j = nlohmann::json::parse(a.body, nullptr, false);
    if (j.is_discarded()) throw tfjob::error("TF Serving's answer is not JSON: " + a.body.substr(0, 200));
    return {j};
  }
  if (a.from_apiserver())
    throw tfjob::error("cannot reach TF Serving behind service \"" + service + "\" (" + std::to_string(a.status) + ": " +
                       a.apiserver_message() + "): its pods are not ready yet; wait with `kubectl tfjob serve " + service +
                       " ...` or check `kubectl get pods -l " + keys::instance + "=" + service + "`");
  // Not loaded yet, or a model error: the model status tells which.
  std::string tf_err = tf_serving_error(a.body);
  ModelProbe p;
  try {
    p = probe_model(c, ns, service, model);
  } catch (const std::exception&) {
    p.kind = ModelProbe::Kind::unreachable;
  }
  if (p.kind == ModelProbe::Kind::loading || p.kind == ModelProbe::Kind::no_version)
    throw tfjob::error("model \"" + model + "\" is not loaded yet (" + p.message + "); wait until `kubectl tfjob serve " + service +
                       "` reports it AVAILABLE, then retry");
  if (p.kind == ModelProbe::Kind::failed) throw tfjob::error(p.message);
  throw tfjob::error("TF Serving rejected the prediction (HTTP " + std::to_string(a.status) + "): " +
                     (tf_err.empty() ? a.body.substr(0, 500) : tf_err));
}

/// One row of `serve list`.
struct ServerInfo {
  std::string name, model, age_timestamp;
  int ready = 0, desired = 0;
  std::string gpus;  ///< nvidia.com/gpu per replica ("0" for CPU)
};

/// Deployments created by serve in `ns` ("" = all namespaces).
inline std::vector<std::pair<std::string, ServerInfo>> list_servers(kube::Client& c, const std::string& ns) {
  kube::ListParams lp;
  lp.label_selector = std::string(keys::managed_by) + "=kubectl-tfjob," + keys::name + "=tensorflow-serving";
  auto items = c.request_json(kube::RequestBuilder(resources::deployments(), ns).list(lp)).value("items", nlohmann::json::array());
  std::vector<std::pair<std::string, ServerInfo>> out;
  for (const auto& d : items) {
    ServerInfo s;
    s.name = d.value("/metadata/name"_json_pointer, std::string());
    s.model = d.value("/metadata/annotations"_json_pointer, nlohmann::json::object()).value(keys::model, "");
    s.age_timestamp = d.value("/metadata/creationTimestamp"_json_pointer, std::string());
    s.desired = d.value("/spec/replicas"_json_pointer, 1);
    s.ready = d.value("/status/readyReplicas"_json_pointer, 0);
    s.gpus = "0";
    for (const auto& ct : d.value("/spec/template/spec/containers"_json_pointer, nlohmann::json::array()))
      if (ct.contains("resources") && ct["resources"].contains("limits") && ct["resources"]["limits"].contains("nvidia.com/gpu")) {
        const auto& g = ct["resources"]["limits"]["nvidia.com/gpu"];
        s.gpus = g.is_string() ? g.get<std::string>() : g.dump();
      }
    out.emplace_back(d.value("/metadata/namespace"_json_pointer, std::string()), std::move(s));
  }
  return out;
}

/// Deletes the Deployment and Service (background cascade); returns which existed.
inline std::vector<std::string> delete_server(kube::Client& c, const std::string& ns, const std::string& name) {
  std::vector<std::string> gone;
  kube::DeleteParams dp;
  dp.propagation_policy = "Background";
  for (const auto& [res, label] : {std::pair<kube::ResourceInfo, const char*>{resources::deployments(), "deployment.apps"},
                                   {resources::services(), "service"}}) {
    try {
      c.request_json(kube::RequestBuilder(res, ns).remove(name, dp));
      gone.push_back(std::string(label) + "/" + name);
    } catch (const api_error& e) {
      if (!e.is_not_found()) throw;
    }
  }
  return gone;
}

}  // namespace tfjob::serving
