#pragma once
/// \file TF Serving on a cluster: apply the Deployment and Service (server-side apply), wait
/// for the rollout as `kubectl rollout status` does (plus crash-looping pods, with their
/// events and last logs), wait until TF Serving reports a model version AVAILABLE, and send
/// predictions — all through the API server (the service proxy reaches TF Serving's REST
/// port, so no port-forward is needed), checked first against the model's signatures.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/api.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/discovery.hpp>
#include <tfjob/kube/detail/util.hpp>
#include <tfjob/kube/logs.hpp>
#include <tfjob/kube/pager.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/kube/side_task.hpp>
#include <tfjob/serving/manifests.hpp>
#include <tfjob/serving/metrics.hpp>
#include <tfjob/serving/model_config.hpp>
#include <tfjob/serving/signature.hpp>
#include <tfjob/serving/status.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tfjob::serving {

/// The kinds serve reads and writes: the typed ones from their one description
/// (resource_traits), the rest (no typed object) declared here once.
namespace resources {
kube::ResourceInfo deployments();
kube::ResourceInfo services();
kube::ResourceInfo pods();
kube::ResourceInfo events();
kube::ResourceInfo config_maps();
kube::ResourceInfo pod_disruption_budgets();
kube::ResourceInfo horizontal_pod_autoscalers();
/// Everything serve creates for a server, all named like it (build_objects' kinds).
std::vector<kube::ResourceInfo> server_kinds();
/// The resource of one of build_objects' kinds; throws for any other kind.
kube::ResourceInfo for_kind(const std::string& kind);
}  // namespace resources

/// The versions of the PodDisruptionBudget and HorizontalPodAutoscaler kinds, newest first:
/// policy/v1 and autoscaling/v2 are GA from Kubernetes 1.21 and 1.23; older servers serve only
/// policy/v1beta1 and autoscaling/v2beta2 (removed in 1.25 and 1.26), with the same fields serve uses.
std::vector<std::string> kind_versions(const std::string& kind);

/// Rewrites each PDB/HPA to the newest version the server serves (discovery); throws
/// tfjob::error naming the kind when it serves none.
void use_served_versions(kube::Client& c, std::vector<nlohmann::json>& objs);

/// Server-side apply of every object (the client's field manager); returns what the server
/// stored. `dry_run` = the server's dry run (nothing persisted).
std::vector<nlohmann::json> apply_objects(kube::Client& c, const std::string& ns, const std::vector<nlohmann::json>& objs,
                                          bool force = false, bool dry_run = false);

/// The REST path of TF Serving behind the API server's service proxy. `service` is NAME (its
/// REST port, 8501) or NAME:PORT, the proxy's own syntax (a KServe predictor's Service: 80).
std::string proxy_path(const std::string& ns, const std::string& service, const std::string& rest_path);

/// A raw answer from TF Serving (or from the proxy in front of it).
struct ProxyAnswer {
  int status = 0;
  std::string body;
  /// The API server's own Status (no endpoints, no such service) rather than TF Serving's.
  bool from_apiserver() const;
  std::string apiserver_message() const;
};

/// One call to TF Serving's REST API through the API server's service proxy. None of its calls
/// has an effect, so a broken connection or a 5xx is retried like any read.
ProxyAnswer proxy_call(kube::Client& c, const std::string& ns, const std::string& service, const std::string& method,
                       const std::string& rest_path, const std::string& body = {});

/// The Service, or nullopt.
std::optional<nlohmann::json> get_service(kube::Client& c, const std::string& ns, const std::string& name);

/// The model name TF Serving serves behind `service` (its annotation, else the name).
std::string model_name_of(const nlohmann::json& obj);

/// Diagnosis text for pods that will not come up: each problem, the pod's events and the
/// last lines of the failing container's previous (or current) log.
std::string diagnose(kube::Client& c, const std::string& ns, const std::vector<nlohmann::json>& pods,
                     const std::vector<PodProblem>& problems, int log_lines = 20);

/// Pending pods' scheduling reasons (e.g. "0/2 nodes are available: 2 Insufficient nvidia.com/gpu").
std::string scheduling_reasons(const std::vector<nlohmann::json>& pods);

/// The scheduler's and kubelet's Warning events about these pods, one line each ("" when
/// there are none or events cannot be read: they explain, they are not required).
std::string warning_events(kube::Client& c, const std::string& ns, const std::vector<nlohmann::json>& pods);

/// How a wait ended.
enum class WaitResult { ready, failed, timeout, not_found, cancelled };  ///< cancelled: WaitOptions::cancel
struct WaitReport {
  WaitResult result = WaitResult::timeout;
  std::string message;       ///< last status line, or the failure
  std::string diagnosis;     ///< pods, events and logs when it failed or timed out
  std::string version;       ///< model wait: the AVAILABLE version
  /// A rollout's or InferenceService's timeout: what held each pod not ready back, from the
  /// pods as their watch last delivered them (blocker_hints words them).
  std::vector<PodBlocker> blockers;
};

struct WaitOptions {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::chrono::milliseconds interval{500};  ///< between looks where TF Serving is asked (no watch exists)
  int crashloop_restarts = 2;  ///< a CrashLoopBackOff with this many restarts fails the wait
  std::function<void(const std::string&)> on_progress;
  const std::atomic<bool>* cancel = nullptr;  ///< raise to end the wait (WaitResult::cancelled)
};

/// The label selector of serve's server pods.
std::string server_pod_selector(const std::string& name);

/// One look at the object a wait is about (a Deployment's rollout, an InferenceService's
/// conditions): still waiting, ready, or failed for good; its message is the progress line.
struct ObjectVerdict {
  enum class Kind { waiting, ready, failed } kind = Kind::waiting;
  std::string message;
};

/// What a wait on an object and its pods (wait_object_and_pods) says: what the object is
/// called in messages, and what to say when its pods fail or none exists at a timeout.
struct ObjectWaitWords {
  std::string what;     ///< `deployment "x"`: "... not found in namespace", "... was deleted"
  std::string failing;  ///< the message when its pods crash-loop or cannot pull their image
  std::string no_pods;  ///< a timeout's diagnosis when it has no pod yet ("": the pods' own)
};

/// Waits on the object `name` of `res` and on its pods (`pod_selector`) through two
/// long-lived watches however long it lasts, never a periodic request: `judge` reads each
/// change of the object (ready or failed ends the wait); a pod that crash-loops or cannot
/// pull its image (pod_problems) ends it at once, since the object does not change for that.
/// Ends at `o.deadline`, or when `o.cancel` is raised (seen within 100 ms). `on_progress` gets
/// each new verdict's message on this thread. After the end: one list of the namespace's
/// events and, for failing pods, their logs (the diagnosis).
WaitReport wait_object_and_pods(kube::Client& c, const std::string& ns, const kube::ResourceInfo& res,
                                const std::string& name, const std::string& pod_selector, const WaitOptions& o,
                                const std::function<ObjectVerdict(const nlohmann::json&)>& judge,
                                const ObjectWaitWords& words);

/// Waits for the Deployment's rollout as `kubectl rollout status` does: its status judged by
/// kubectl's rules on every change the watch delivers (not polled), failed early on
/// ProgressDeadlineExceeded, and on a pod that crash-loops or cannot pull its image (the
/// server's pods watched beside it: pods do not change the Deployment when they do).
WaitReport wait_rollout(kube::Client& c, const std::string& ns, const std::string& name, const WaitOptions& o);

/// One look at the model's status through the proxy.
struct ModelProbe {
  enum class Kind { available, loading, failed, no_version, unreachable } kind = Kind::unreachable;
  std::string message;  ///< for people
  std::string version;  ///< when available
  ModelStatus status;   ///< TF Serving's answer, when it gave one
};

ModelProbe probe_model(kube::Client& c, const std::string& ns, const std::string& service, const std::string& model);

/// Waits until TF Serving reports a version of `model` AVAILABLE (HTTP 200 with LOADING is
/// not ready); fails at once when a version ends with an error.
WaitReport wait_model(kube::Client& c, const std::string& ns, const std::string& service, const std::string& model,
                      const WaitOptions& o);

/// A prediction request's outcome.
struct PredictResult {
  nlohmann::json response;  ///< TF Serving's JSON
  std::string signature;    ///< the signature the request was checked against ("" when not checked)
};

/// Which version of a model a request is for: the latest (both empty), a version number or
/// a version label (TF Serving's /versions/N and /labels/L paths).
struct ModelRef {
  std::string version, label;
};

/// The model TF Serving serves behind `service`; throws tfjob::error saying how to start one
/// when the service does not exist.
std::string served_model(kube::Client& c, const std::string& ns, const std::string& service);

namespace detail {

/// Why a request to TF Serving (answer `a` to `what`) did not succeed, as a tfjob::error:
/// the proxy could not reach a pod, the model is still loading, it failed to load, or TF
/// Serving's own message.
[[noreturn]] void throw_for_answer(kube::Client& c, const std::string& ns, const std::string& service,
                                   const std::string& model, const ProxyAnswer& a, const std::string& what);

}  // namespace detail

/// GET /v1/models/MODEL[/versions/V|/labels/L]/metadata through the proxy: the signatures
/// of the version that answers (the latest AVAILABLE one when `ref` is empty).
ModelMetadata get_model_metadata(kube::Client& c, const std::string& ns, const std::string& service,
                                 const std::string& model, const ModelRef& ref = {});

/// How predict picks and checks its signature.
struct PredictTarget {
  std::string model;      ///< "" = the server's (first) model; a server with a model config serves several
  ModelRef ref;
  std::string signature;  ///< "" = serving_default
  bool check = true;      ///< check the body against the signature before sending
};

/// POST /v1/models/MODEL[/versions/V|/labels/L]:predict through the proxy, after checking
/// the body against the signature from the model's metadata (a missing input, a wrong rank,
/// size or dtype is an error naming what the signature takes, and nothing is sent).
/// Throws tfjob::error with a clear message: service not found, model not loaded yet, TF
/// Serving's own error message.
PredictResult predict(kube::Client& c, const std::string& ns, const std::string& service, nlohmann::json body,
                      const PredictTarget& t = {});

/// One port of a server's Service.
struct ServerPort {
  std::string name;  ///< "http" (REST) or "grpc"
  int port = 0;
};

/// One row of `serve list`.
struct ServerInfo {
  std::string name, model, age_timestamp;
  int ready = 0, desired = 0;
  std::string gpus;  ///< nvidia.com/gpu per replica ("0" for CPU)
  std::string model_name;  ///< the name TF Serving serves it under
  /// The Service's in-cluster DNS name, NAME.NS.svc.CLUSTER-DOMAIN ("" when the Service is gone).
  std::string address;
  std::vector<ServerPort> ports;  ///< the Service's ports
  // with ListOptions::models: what TF Serving says (GET /v1/models/MODEL through the proxy)
  std::vector<std::string> available_versions;
  std::string model_state;  ///< probe_model's message ("" when not asked)
  bool kserve = false;      ///< a KServe InferenceService (kserve.hpp), not serve's Deployment
};

/// What `list_servers` looks at beyond the Deployments.
struct ListOptions {
  bool models = false;  ///< ask each server's TF Serving for its AVAILABLE versions (one proxy call each)
  std::string cluster_domain = "cluster.local";  ///< Kubernetes' default (kubelet --cluster-domain)
};

/// Deployments created by serve in `ns` ("" = all namespaces), with their Services' address
/// and ports.
std::vector<std::pair<std::string, ServerInfo>> list_servers(kube::Client& c, const std::string& ns,
                                                             const ListOptions& lo = {});

/// Deletes the Deployment, Service and what serve added (ConfigMap, PodDisruptionBudget,
/// HorizontalPodAutoscaler), background cascade, and the model config ConfigMap serve made
/// for them (only when its labels say so); returns which existed ("deployment.apps/NAME").
/// Does this object carry the labels `serve NAME` puts on what it creates
/// (app.kubernetes.io/managed-by=kubectl-tfjob, app.kubernetes.io/instance=NAME)? A server's
/// answer is read totally: labels of any other shape are "no".
bool created_by_serve(const nlohmann::json& obj, const std::string& name);

/// What `serve delete NAME` did.
struct DeleteReport {
  std::vector<std::string> deleted;  ///< "deployment.apps/NAME", "configmap/NAME-models", ...
  std::vector<std::string> kept;     ///< ConfigMaps of that name that serve did not create (no serve labels)
};

/// Deletes the server's Deployment (its pods follow), Service, PodDisruptionBudget and
/// HorizontalPodAutoscaler, and the ConfigMaps NAME (batching, monitoring) and NAME-models
/// (the model config) only when they carry serve's labels: a ConfigMap of the same name that
/// a user made is theirs, kept and reported in `kept`.
DeleteReport delete_server_report(kube::Client& c, const std::string& ns, const std::string& name);

/// delete_server_report's deleted names.
std::vector<std::string> delete_server(kube::Client& c, const std::string& ns, const std::string& name);

/// What `serve status NAME` reports: the rollout, the model's state and, with
/// `serve --monitoring`, TF Serving's request counts and latency.
struct ServerStatus {
  std::string name, model;
  int ready = 0, desired = 0;
  std::string model_state;  ///< probe_model's message
  bool monitoring = false;  ///< the server runs with --monitoring_config_file
  std::vector<ModelRequestMetrics> metrics;  ///< from the pod the service proxy reached
  std::optional<AutoscalerStatus> autoscaler;  ///< serve --autoscale: the HPA and what its controller reports
};

/// Does the Deployment's serving container run with TF Serving's monitoring config?
bool has_monitoring(const nlohmann::json& deployment);

/// GET the Prometheus endpoint through the service proxy and sum TF Serving's request
/// metrics per model. The proxy reaches one ready pod per request (the Service picks), so
/// with several replicas these are that pod's counters. Throws tfjob::error saying what is
/// wrong: no such server, its pods unreachable, an answer that is not the text format.
ServerStatus server_status(kube::Client& c, const std::string& ns, const std::string& name);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
namespace tfjob::serving {

namespace resources {

TFJOB_INLINE kube::ResourceInfo deployments() { return kube::resource_info<k8s::Deployment>(); }

TFJOB_INLINE kube::ResourceInfo services() { return kube::resource_info<k8s::Service>(); }

TFJOB_INLINE kube::ResourceInfo pods() { return kube::resource_info<k8s::Pod>(); }

TFJOB_INLINE kube::ResourceInfo events() { return kube::resource_info<k8s::Event>(); }

TFJOB_INLINE kube::ResourceInfo config_maps() { return kube::resource_info<k8s::ConfigMap>(); }

TFJOB_INLINE kube::ResourceInfo pod_disruption_budgets() { return {"policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true}; }

TFJOB_INLINE kube::ResourceInfo horizontal_pod_autoscalers() {
  return {"autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true};
}

TFJOB_INLINE std::vector<kube::ResourceInfo> server_kinds() {
  return {config_maps(), deployments(), services(), pod_disruption_budgets(), horizontal_pod_autoscalers()};
}

TFJOB_INLINE kube::ResourceInfo for_kind(const std::string& kind) {
  for (const auto& r : server_kinds())
    if (r.kind == kind) return r;
  throw tfjob::error("serve does not apply objects of kind \"" + kind + "\"");
}

}  // namespace resources

TFJOB_INLINE std::vector<std::string> kind_versions(const std::string& kind) {
  if (kind == "PodDisruptionBudget") return {"v1", "v1beta1"};
  if (kind == "HorizontalPodAutoscaler") return {"v2", "v2beta2"};
  return {};
}

TFJOB_INLINE void use_served_versions(kube::Client& c, std::vector<nlohmann::json>& objs) {
  for (auto& o : objs) {
    const std::string kind = tfjob::detail::value_at(o, "kind", "");
    auto versions = kind_versions(kind);
    if (versions.empty()) continue;
    const auto res = resources::for_kind(kind);
    std::string chosen;
    for (const auto& v : versions)
      if (kube::serves(c, res.group, v, res.plural)) {
        chosen = v;
        break;
      }
    if (chosen.empty())
      throw tfjob::error("this cluster serves no " + res.plural + "." + res.group + " (" + res.group + "/" + versions[0] + " or " +
                         res.group + "/" + versions[1] + "), so serve cannot create the " + kind);
    o["apiVersion"] = res.group + "/" + chosen;
  }
}

TFJOB_INLINE std::vector<nlohmann::json> apply_objects(kube::Client& c, const std::string& ns, const std::vector<nlohmann::json>& objs,
                                                       bool force, bool dry_run) {
  std::vector<nlohmann::json> out;
  for (auto o : objs) {
    const std::string kind = tfjob::detail::value_at(o, "kind", "");
    auto res = resources::for_kind(kind);
    const std::string av = tfjob::detail::value_at(o, "apiVersion", "");
    if (auto slash = av.find('/'); slash != std::string::npos) res.version = av.substr(slash + 1);  // use_served_versions
    o["metadata"]["namespace"] = ns;
    kube::ApplyParams ap;
    ap.force = force;
    ap.dry_run = dry_run;
    out.push_back(c.request_json(kube::RequestBuilder(res, ns).apply(o["metadata"]["name"].get<std::string>(), o, ap)));
  }
  return out;
}

TFJOB_INLINE std::string proxy_path(const std::string& ns, const std::string& service, const std::string& rest_path) {
  const std::string target = service.find(':') == std::string::npos ? service + ":" + std::to_string(rest_port) : service;
  return "/api/v1/namespaces/" + ns + "/services/" + target + "/proxy" + rest_path;
}

TFJOB_INLINE bool ProxyAnswer::from_apiserver() const {
  auto j = nlohmann::json::parse(body, nullptr, false);
  return !j.is_discarded() && j.is_object() && tfjob::detail::value_at(j, "kind", "") == "Status";
}

TFJOB_INLINE std::string ProxyAnswer::apiserver_message() const {
  auto j = nlohmann::json::parse(body, nullptr, false);
  return j.is_discarded() || !j.is_object() ? body : tfjob::detail::value_at(j, "message", body);
}

TFJOB_INLINE ProxyAnswer proxy_call(kube::Client& c, const std::string& ns, const std::string& service, const std::string& method,
                                    const std::string& rest_path, const std::string& body) {
  kube::Request r;
  r.method = method;
  r.path = proxy_path(ns, service, rest_path);
  r.what = method + " " + rest_path + " on service " + ns + "/" + service;
  // TF Serving's REST API has no call with an effect (api_rest.md: status, metadata and the
  // :predict/:classify/:regress inferences), so an answer cut short (kube-apiserver's proxy
  // losing its connection to the pod mid-body, seen on the real node) is asked again
  r.idempotent = true;
  if (!body.empty()) {
    r.body = body;
    r.content_type = "application/json";
  }
  auto resp = c.send(r);
  if (resp.status == 401 || resp.status == 403) c.throw_for(r, resp.status, resp.reason, resp.body);
  return {resp.status, resp.body};
}

TFJOB_INLINE std::optional<nlohmann::json> get_service(kube::Client& c, const std::string& ns, const std::string& name) {
  try {
    return c.request_json(kube::RequestBuilder(resources::services(), ns).get(name));
  } catch (const api_error& e) {
    if (e.is_not_found()) return std::nullopt;
    throw;
  }
}

TFJOB_INLINE std::string model_name_of(const nlohmann::json& obj) {
  std::string n = tfjob::detail::value_at(obj, "/metadata/annotations"_json_pointer, nlohmann::json::object()).value(keys::model_name, "");
  return n.empty() ? tfjob::detail::value_at(obj, "/metadata/name"_json_pointer, std::string()) : n;
}

namespace detail {
/// The events about pod `name` (one of `pods`, whose uid narrows them), by kubectl describe's
/// field selector; none when they may not be read.
TFJOB_INLINE std::vector<nlohmann::json> pod_events(kube::Client& c, const std::string& ns, const std::vector<nlohmann::json>& pods,
                                                    const std::string& name) {
  std::string uid;
  for (const auto& p : pods)
    if (tfjob::detail::value_at(p, "/metadata/name"_json_pointer, std::string()) == name)
      uid = tfjob::detail::value_at(p, "/metadata/uid"_json_pointer, std::string());
  std::vector<nlohmann::json> out;
  try {
    kube::list_pages(c, kube::RequestBuilder(resources::events(), ns), kube::events_about("Pod", name, ns, uid), [&](kube::ListPage& page) {
      for (auto& e : page.items) out.push_back(std::move(e));
      return true;
    });
  } catch (const std::exception&) {
  }
  return out;
}
}  // namespace detail

TFJOB_INLINE std::string diagnose(kube::Client& c, const std::string& ns, const std::vector<nlohmann::json>& pods,
                                  const std::vector<PodProblem>& problems, int log_lines) {
  std::string s;
  // the events of the pods with a problem, each pod's by its own field selector
  std::vector<nlohmann::json> events;
  std::set<std::string> seen;
  for (const auto& p : problems)
    if (seen.insert(p.pod).second)
      for (auto& e : detail::pod_events(c, ns, pods, p.pod)) events.push_back(std::move(e));
  for (const auto& p : problems) {
    s += "pod " + p.pod + ": " + (p.init ? "init container " : "container ") + p.container + " is " + p.reason;
    if (p.restarts) s += " (restarted " + std::to_string(p.restarts) + " times";
    if (p.last_exit_code) s += std::string(p.restarts ? ", " : " (") + "last exit code " + std::to_string(*p.last_exit_code);
    if (p.restarts || p.last_exit_code) s += ")";
    if (!p.message.empty()) s += ": " + p.message;
    s += "\n";
    for (const auto& e : events)
      if (tfjob::detail::value_at(e, "/involvedObject/name"_json_pointer, std::string()) == p.pod)
        s += "  event " + tfjob::detail::value_at(e, "type", "") + " " + tfjob::detail::value_at(e, "reason", "") + ": " + tfjob::detail::value_at(e, "message", "") + "\n";
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

TFJOB_INLINE std::string scheduling_reasons(const std::vector<nlohmann::json>& pods) {
  std::string s;
  for (const auto& p : pods)
    for (const auto& c : tfjob::detail::value_at(p, "/status/conditions"_json_pointer, nlohmann::json::array()))
      if (tfjob::detail::value_at(c, "type", "") == "PodScheduled" && tfjob::detail::value_at(c, "status", "") == "False" && !tfjob::detail::value_at(c, "message", "").empty())
        s += "pod " + tfjob::detail::value_at(p, "/metadata/name"_json_pointer, std::string()) + " is not scheduled: " + tfjob::detail::value_at(c, "message", "") + "\n";
  return s;
}

TFJOB_INLINE std::string warning_events(kube::Client& c, const std::string& ns, const std::vector<nlohmann::json>& pods) {
  std::string s;
  try {
    for (const auto& p : pods)
      for (const auto& e : detail::pod_events(c, ns, pods, tfjob::detail::value_at(p, "/metadata/name"_json_pointer, std::string())))
        if (tfjob::detail::value_at(e, "type", "") == "Warning" &&
            tfjob::detail::value_at(e, "/involvedObject/name"_json_pointer, std::string()) == tfjob::detail::value_at(p, "/metadata/name"_json_pointer, std::string()))
          s += "pod " + tfjob::detail::value_at(p, "/metadata/name"_json_pointer, std::string()) + ": " + tfjob::detail::value_at(e, "reason", "") + ": " +
               tfjob::detail::value_at(e, "message", "") + "\n";
  } catch (const std::exception&) {
  }
  return s;
}

TFJOB_INLINE std::string server_pod_selector(const std::string& name) {
  return std::string(keys::instance) + "=" + name + "," + keys::name + "=tensorflow-serving";
}

namespace detail {

/// What wait_object_and_pods waits on, and how: its arguments, as its steps read them.
struct ObjectWaitArgs {
  const std::string& ns;
  const kube::ResourceInfo& res;
  const std::string& name;
  const std::string& pod_selector;
  const WaitOptions& o;
  const std::function<ObjectVerdict(const nlohmann::json&)>& judge;
};

/// What the watches of wait_object_and_pods delivered; guarded by mu.
struct ObjectWaitState {
  std::mutex mu;
  std::condition_variable cv;
  std::uint64_t generation = 0;
  bool listed = false, found = false, decided = false, deleted = false, ended = false;
  ObjectVerdict verdict;
  std::exception_ptr error;
  std::map<std::string, nlohmann::json> pods;  ///< by name
  std::vector<PodProblem> problems;
  void changed() {
    ++generation;
    cv.notify_all();
  }
};

/// The object's watch (a SideTask's task, on its own connection `oc`): each change judged
/// until one decides, the object is deleted, the deadline passes or `stop` is raised; a
/// failure of the watch is kept in s.error.
TFJOB_INLINE void watch_waited_object(kube::Client& oc, const ObjectWaitArgs& a, ObjectWaitState& s,
                                      const std::atomic<bool>& stop) {
  try {
    kube::WatchParams wp;
    wp.field_selector = "metadata.name=" + a.name;
    auto w = kube::Api<kube::DynamicObject>(oc, a.res, a.ns).watcher(wp);
    w.on_synced = [&] {  // the first list tells "not there" from "not listed yet"
      std::lock_guard<std::mutex> lk(s.mu);
      s.listed = true;
      s.changed();
    };
    kube::StreamOptions so;
    so.cancel = &stop;
    so.deadline = a.o.deadline;  // the watch ends there: a timeout
    w.run([&](const kube::WatchEvent<kube::DynamicObject>& ev) {
      std::lock_guard<std::mutex> lk(s.mu);
      s.found = true;
      s.changed();
      if (ev.type == kube::EventType::deleted) {
        s.deleted = true;
        return false;
      }
      s.verdict = a.judge(ev.object.json);
      s.decided = s.verdict.kind != ObjectVerdict::Kind::waiting;
      return !s.decided;
    }, so);
  } catch (...) {
    std::lock_guard<std::mutex> lk(s.mu);
    s.error = std::current_exception();
  }
  std::lock_guard<std::mutex> lk(s.mu);
  s.ended = true;
  s.changed();
}

/// The pods' watch (a SideTask's task, on its own connection `pc`): the pods by name, until
/// one crash-loops or cannot pull its image (s.problems), the deadline passes or `stop` is raised.
TFJOB_INLINE void watch_waited_pods(kube::Client& pc, const ObjectWaitArgs& a, ObjectWaitState& s,
                                    const std::atomic<bool>& stop) {
  try {
    kube::WatchParams wp;
    wp.label_selector = a.pod_selector;
    kube::StreamOptions so;
    so.cancel = &stop;
    so.deadline = a.o.deadline;
    kube::Api<kube::DynamicObject>(pc, resources::pods(), a.ns).watch(wp, [&](const kube::WatchEvent<kube::DynamicObject>& ev) {
      std::lock_guard<std::mutex> lk(s.mu);
      const std::string pod = tfjob::detail::value_at(ev.object.json, "/metadata/name"_json_pointer, std::string());
      if (ev.type == kube::EventType::deleted) s.pods.erase(pod);
      else s.pods[pod] = ev.object.json;
      std::vector<PodProblem> found;
      for (const auto& [n, p] : s.pods) {
        try {
          for (auto& pr : pod_problems(p, a.o.crashloop_restarts)) found.push_back(std::move(pr));
        } catch (const std::exception&) {
          // a pod of another shape explains nothing
        }
      }
      s.changed();
      if (found.empty()) return true;
      s.problems = std::move(found);
      return false;
    }, so);
  } catch (const std::exception&) {
    // the pods explain; the object decides (a pods watch refused leaves the diagnosis poorer)
  }
}

/// Waits (looking at least every 100 ms) until what the watches delivered ends the wait, the
/// caller cancels or the deadline passes; each new verdict's message goes to on_progress.
TFJOB_INLINE void await_object_wait_end(const WaitOptions& o, ObjectWaitState& s) {
  std::uint64_t seen = 0;
  std::string shown;
  for (;;) {
    std::unique_lock<std::mutex> lk(s.mu);
    s.cv.wait_for(lk, std::chrono::milliseconds(100), [&] { return s.generation != seen; });
    seen = s.generation;
    const std::string line = s.verdict.message;
    const bool over = s.ended || s.deleted || s.decided || !s.problems.empty() || (s.listed && !s.found);
    lk.unlock();
    if (o.on_progress && !line.empty() && line != shown) o.on_progress(shown = line);
    if (over || (o.cancel && o.cancel->load()) || std::chrono::steady_clock::now() >= o.deadline) break;
  }
}

/// The wait's report from what the watches delivered (both stopped, `s` the caller's alone):
/// not found, ready, failed (with the pods' problems and logs) or timed out/cancelled.
TFJOB_INLINE WaitReport object_wait_report(kube::Client& c, const ObjectWaitArgs& a, const ObjectWaitWords& words,
                                           ObjectWaitState& s) {
  const std::string& ns = a.ns;
  const WaitOptions& o = a.o;
  WaitReport rep;
  rep.message = s.verdict.message;
  std::vector<nlohmann::json> pods;
  for (auto& [n, p] : s.pods) pods.push_back(std::move(p));
  if (s.deleted || (s.listed && !s.found)) {
    rep.result = WaitResult::not_found;
    rep.message = words.what + (s.deleted ? " was deleted while waiting for it" : " not found in namespace \"" + ns + "\"");
  } else if (s.verdict.kind == ObjectVerdict::Kind::ready) {
    rep.result = WaitResult::ready;
  } else if (s.verdict.kind == ObjectVerdict::Kind::failed) {  // e.g. ProgressDeadlineExceeded: failing pods if any, else why nothing started
    rep.result = WaitResult::failed;
    std::vector<PodProblem> now;
    for (const auto& p : pods) {
      try {
        for (auto& pr : pod_problems(p, o.crashloop_restarts)) now.push_back(std::move(pr));
      } catch (const std::exception&) {
      }
    }
    rep.diagnosis = diagnose(c, ns, pods, now) + scheduling_reasons(pods);
    if (now.empty()) rep.diagnosis += warning_events(c, ns, pods);
  } else if (!s.problems.empty()) {
    rep.result = WaitResult::failed;
    rep.message = words.failing;
    rep.diagnosis = diagnose(c, ns, pods, s.problems) + scheduling_reasons(pods);
  } else {  // the watches ended at the deadline, or the caller cancelled
    rep.result = o.cancel && o.cancel->load() ? WaitResult::cancelled : WaitResult::timeout;
    rep.diagnosis = pods.empty() && !words.no_pods.empty() ? words.no_pods : scheduling_reasons(pods) + warning_events(c, ns, pods);
    try {
      rep.blockers = pod_blockers(pods);
    } catch (const std::exception&) {
      // a pod of another shape: the diagnosis above still says what the server said
    }
  }
  return rep;
}

}  // namespace detail

TFJOB_INLINE WaitReport wait_object_and_pods(kube::Client& c, const std::string& ns, const kube::ResourceInfo& res,
                                             const std::string& name, const std::string& pod_selector, const WaitOptions& o,
                                             const std::function<ObjectVerdict(const nlohmann::json&)>& judge,
                                             const ObjectWaitWords& words) {
  const detail::ObjectWaitArgs a{ns, res, name, pod_selector, o, judge};
  detail::ObjectWaitState s;
  kube::Client oc = c, pc = c;  // each watch its own connection
  kube::SideTask object_watch([&](const std::atomic<bool>& stop) {
    detail::watch_waited_object(oc, a, s, stop);
    return false;
  });
  kube::SideTask pods_watch([&](const std::atomic<bool>& stop) {
    detail::watch_waited_pods(pc, a, s, stop);
    return false;
  });
  detail::await_object_wait_end(o, s);
  object_watch.stop();
  pods_watch.stop();  // both joined: `s` is ours alone from here

  if (s.error) std::rethrow_exception(s.error);  // the object's watch failed: nothing was decided
  return detail::object_wait_report(c, a, words, s);
}

TFJOB_INLINE WaitReport wait_rollout(kube::Client& c, const std::string& ns, const std::string& name, const WaitOptions& o) {
  ObjectWaitWords words;
  words.what = "deployment \"" + name + "\"";
  words.failing = words.what + " will not become ready: its pods are failing";
  return wait_object_and_pods(c, ns, resources::deployments(), name, server_pod_selector(name), o, [](const nlohmann::json& d) {
    const auto st = rollout_status(d);
    return ObjectVerdict{st.done ? ObjectVerdict::Kind::ready : st.failed ? ObjectVerdict::Kind::failed : ObjectVerdict::Kind::waiting,
                         st.message};
  }, words);
}

TFJOB_INLINE ModelProbe probe_model(kube::Client& c, const std::string& ns, const std::string& service, const std::string& model) {
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
  p.status = m;
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

TFJOB_INLINE WaitReport wait_model(kube::Client& c, const std::string& ns, const std::string& service, const std::string& model,
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
    if (!kube::sleep_for(o.interval, o.cancel, o.deadline) && o.cancel && o.cancel->load()) {
      rep.result = WaitResult::cancelled;
      return rep;
    }
  }
}

TFJOB_INLINE std::string served_model(kube::Client& c, const std::string& ns, const std::string& service) {
  auto svc = get_service(c, ns, service);
  if (!svc)
    throw tfjob::error(reasons::service_not_found, "service \"" + service + "\" not found in namespace \"" + ns + "\"",
                       ": start the model server (" + setting::serve + "), or name the namespace it runs in", service);
  return model_name_of(*svc);
}

namespace detail {

TFJOB_INLINE void throw_for_answer(kube::Client& c, const std::string& ns, const std::string& service,
                                   const std::string& model, const ProxyAnswer& a, const std::string& what) {
  if (a.from_apiserver())
    throw tfjob::error("cannot reach TF Serving behind service \"" + service + "\" (" + std::to_string(a.status) + ": " +
                       a.apiserver_message() + "): its pods are not ready yet; wait for its rollout (" + setting::wait_rollout + " " + service +
                       ") or check `kubectl get pods -l " + keys::instance + "=" + service + "`");
  // Not loaded yet, or a model error: the model status tells which.
  std::string tf_err = tf_serving_error(a.body);
  ModelProbe p;
  try {
    p = probe_model(c, ns, service, model);
  } catch (const std::exception&) {
    p.kind = ModelProbe::Kind::unreachable;
  }
  if (p.kind == ModelProbe::Kind::loading || p.kind == ModelProbe::Kind::no_version)
    throw tfjob::error("model \"" + model + "\" is not loaded yet (" + p.message + "); wait until it is AVAILABLE (" + setting::wait_rollout + " " +
                       service + "), then retry");
  if (p.kind == ModelProbe::Kind::failed) throw tfjob::error(p.message);
  throw tfjob::error("TF Serving rejected " + what + " (HTTP " + std::to_string(a.status) + "): " +
                     (tf_err.empty() ? a.body.substr(0, 500) : tf_err));
}

}  // namespace detail

TFJOB_INLINE ModelMetadata get_model_metadata(kube::Client& c, const std::string& ns, const std::string& service,
                                              const std::string& model, const ModelRef& ref) {
  validate_version(ref.version);
  auto a = proxy_call(c, ns, service, "GET", model_rest_path(model, ref.version, ref.label) + "/metadata");
  if (a.status != 200) detail::throw_for_answer(c, ns, service, model, a, "the metadata request");
  ModelMetadata m = parse_model_metadata(a.body);
  if (m.model.empty()) m.model = model;
  return m;
}

TFJOB_INLINE PredictResult predict(kube::Client& c, const std::string& ns, const std::string& service, nlohmann::json body,
                                   const PredictTarget& t) {
  const std::string model = t.model.empty() ? served_model(c, ns, service) : t.model;
  validate_version(t.ref.version);
  PredictResult r;
  if (t.check) {
    const ModelMetadata meta = get_model_metadata(c, ns, service, model, t.ref);
    const Signature& sig = pick_signature(meta, t.signature);
    check_request(sig, body);
    r.signature = sig.key;
  }
  if (!t.signature.empty() && body.is_object()) body["signature_name"] = t.signature;  // api_rest.md: the request's signature_name
  auto a = proxy_call(c, ns, service, "POST", model_rest_path(model, t.ref.version, t.ref.label) + ":predict", body.dump());
  if (a.status >= 200 && a.status < 300) {
    auto j = nlohmann::json::parse(a.body, nullptr, false);
    if (j.is_discarded()) throw tfjob::error("TF Serving's answer is not JSON: " + a.body.substr(0, 200));
    r.response = std::move(j);
    return r;
  }
  detail::throw_for_answer(c, ns, service, model, a, "the prediction");
}

TFJOB_INLINE std::vector<std::pair<std::string, ServerInfo>> list_servers(kube::Client& c, const std::string& ns,
                                                                          const ListOptions& lo) {
  kube::ListParams lp;
  lp.label_selector = std::string(keys::managed_by) + "=kubectl-tfjob," + keys::name + "=tensorflow-serving";
  auto all = [&](const kube::ResourceInfo& res) {
    nlohmann::json items = nlohmann::json::array();
    kube::list_pages(c, kube::RequestBuilder(res, ns), lp, [&](kube::ListPage& page) {
      for (auto& i : page.items) items.push_back(std::move(i));
      return true;
    });
    return items;
  };
  auto items = all(resources::deployments());
  nlohmann::json services = nlohmann::json::array();
  try {
    services = all(resources::services());
  } catch (const api_error&) {
    // the Deployments are the servers; a Service that cannot be read leaves its columns empty
  }
  std::vector<std::pair<std::string, ServerInfo>> out;
  for (const auto& d : items) {
    ServerInfo s;
    s.name = tfjob::detail::value_at(d, "/metadata/name"_json_pointer, std::string());
    const std::string dns = tfjob::detail::value_at(d, "/metadata/namespace"_json_pointer, std::string());
    s.model = tfjob::detail::value_at(d, "/metadata/annotations"_json_pointer, nlohmann::json::object()).value(keys::model, "");
    s.model_name = model_name_of(d);
    s.age_timestamp = tfjob::detail::value_at(d, "/metadata/creationTimestamp"_json_pointer, std::string());
    s.desired = tfjob::detail::value_at(d, "/spec/replicas"_json_pointer, 1);
    s.ready = tfjob::detail::value_at(d, "/status/readyReplicas"_json_pointer, 0);
    s.gpus = "0";
    for (const auto& ct : tfjob::detail::value_at(d, "/spec/template/spec/containers"_json_pointer, nlohmann::json::array()))
      if (ct.contains("resources") && ct["resources"].contains("limits") && ct["resources"]["limits"].contains("nvidia.com/gpu")) {
        const auto& g = ct["resources"]["limits"]["nvidia.com/gpu"];
        s.gpus = g.is_string() ? g.get<std::string>() : g.dump();
      }
    for (const auto& svc : services) {
      if (tfjob::detail::value_at(svc, "/metadata/name"_json_pointer, std::string()) != s.name ||
          tfjob::detail::value_at(svc, "/metadata/namespace"_json_pointer, std::string()) != dns)
        continue;
      // A Service's DNS name (Kubernetes DNS spec: <service>.<ns>.svc.<zone>).
      s.address = s.name + "." + dns + ".svc." + lo.cluster_domain;
      s.model_name = model_name_of(svc);  // predict's source of the name
      for (const auto& p : tfjob::detail::value_at(svc, "/spec/ports"_json_pointer, nlohmann::json::array()))
        s.ports.push_back({tfjob::detail::value_at(p, "name", std::string()), tfjob::detail::value_at(p, "port", 0)});
    }
    if (lo.models) {
      try {
        ModelProbe p = probe_model(c, dns, s.name, s.model_name);
        s.model_state = p.message;
        s.available_versions = p.status.available_versions();
      } catch (const std::exception& e) {
        s.model_state = e.what();  // a server that cannot answer is listed without versions
      }
    }
    out.emplace_back(dns, std::move(s));
  }
  return out;
}

TFJOB_INLINE bool created_by_serve(const nlohmann::json& obj, const std::string& name) {
  if (!obj.is_object() || !obj.contains("metadata") || !obj["metadata"].is_object()) return false;
  const auto& meta = obj["metadata"];
  if (!meta.contains("labels") || !meta["labels"].is_object()) return false;
  const auto& l = meta["labels"];
  auto is = [&](const char* k, const std::string& v) { return l.contains(k) && l[k].is_string() && l[k].get<std::string>() == v; };
  return is(keys::managed_by, "kubectl-tfjob") && is(keys::instance, name);
}

TFJOB_INLINE DeleteReport delete_server_report(kube::Client& c, const std::string& ns, const std::string& name) {
  DeleteReport rep;
  auto& gone = rep.deleted;
  kube::DeleteParams dp;
  dp.propagation_policy = "Background";
  std::vector<kube::ResourceInfo> all = {resources::deployments(), resources::services()};
  for (const auto& res : {resources::pod_disruption_budgets(), resources::horizontal_pod_autoscalers()})
    for (const auto& v : kind_versions(res.kind)) {  // whichever version the server has it under
      auto r = res;
      r.version = v;
      all.push_back(r);
    }
  for (const auto& res : all) {
    std::string label = res.plural.substr(0, res.plural.size() - 1) + (res.group.empty() ? "" : "." + res.group);
    if (std::find(gone.begin(), gone.end(), label + "/" + name) != gone.end()) continue;  // deleted under a newer version
    try {
      c.request_json(kube::RequestBuilder(res, ns).remove(name, dp));
      gone.push_back(label + "/" + name);
    } catch (const api_error& e) {
      if (!e.is_not_found()) throw;  // 404 also when the server does not serve that version
    }
  }
  const kube::ResourceInfo cms = resources::config_maps();
  for (const std::string& cm : {name, model_config_map_name(name)}) {
    try {
      auto obj = c.request_json(kube::RequestBuilder(cms, ns).get(cm));
      if (!created_by_serve(obj, name)) {
        rep.kept.push_back("configmap/" + cm);
        continue;
      }
      c.request_json(kube::RequestBuilder(cms, ns).remove(cm, dp));
      gone.push_back("configmap/" + cm);
    } catch (const api_error& e) {
      if (!e.is_not_found()) throw;
    }
  }
  return rep;
}

TFJOB_INLINE std::vector<std::string> delete_server(kube::Client& c, const std::string& ns, const std::string& name) {
  return delete_server_report(c, ns, name).deleted;
}

TFJOB_INLINE bool has_monitoring(const nlohmann::json& deployment) {
  for (const auto& c : tfjob::detail::value_at(deployment, "/spec/template/spec/containers"_json_pointer, nlohmann::json::array()))
    for (const auto& a : tfjob::detail::value_at(c, "args", nlohmann::json::array()))
      if (a.is_string() && a.get<std::string>().rfind("--monitoring_config_file=", 0) == 0) return true;
  return false;
}

TFJOB_INLINE ServerStatus server_status(kube::Client& c, const std::string& ns, const std::string& name) {
  ServerStatus st;
  st.name = name;
  nlohmann::json dep;
  try {
    dep = c.request_json(kube::RequestBuilder(resources::deployments(), ns).get(name));
  } catch (const api_error& e) {
    if (!e.is_not_found()) throw;
    throw tfjob::error("model server \"" + name + "\" not found in namespace \"" + ns + "\" (no deployment of that name)");
  }
  st.model = served_model(c, ns, name);
  st.desired = tfjob::detail::value_at(dep, "/spec/replicas"_json_pointer, 1);
  st.ready = tfjob::detail::value_at(dep, "/status/readyReplicas"_json_pointer, 0);
  try {
    st.model_state = probe_model(c, ns, name, st.model).message;
  } catch (const std::exception& e) {
    st.model_state = e.what();
  }
  for (const auto& v : kind_versions("HorizontalPodAutoscaler")) {  // the newest version the server has
    auto res = resources::horizontal_pod_autoscalers();
    res.version = v;
    try {
      auto hpa = c.request_json(kube::RequestBuilder(res, ns).get(name));
      if (created_by_serve(hpa, name)) st.autoscaler = autoscaler_status(hpa);
      break;
    } catch (const api_error& e) {
      if (!e.is_not_found() && !e.is_forbidden()) throw;  // 404 also when the server does not serve that version
    }
  }
  st.monitoring = has_monitoring(dep);
  if (!st.monitoring) return st;
  auto a = proxy_call(c, ns, name, "GET", prometheus_path);
  if (a.from_apiserver())
    throw tfjob::error("cannot reach TF Serving's metrics behind service \"" + name + "\" (" + std::to_string(a.status) + ": " +
                       a.apiserver_message() + ")");
  if (a.status != 200)
    throw tfjob::error("TF Serving answered " + std::to_string(a.status) + " for " + prometheus_path + ": " +
                       a.body.substr(0, 200));
  st.metrics = request_metrics(parse_prometheus_text(a.body));
  return st;
}

}  // namespace tfjob::serving
#endif  // TFJOB_SDK_DEFINE_SERVING
