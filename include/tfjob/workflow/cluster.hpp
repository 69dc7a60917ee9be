#pragma once
/// \file The cluster side of the training workflow: find a job's pods and events, check a
/// submission before anything is created (CRD served, namespace, permission, GPUs, TF2 +
/// Master), and submit with server-side apply so that resubmitting the same spec changes
/// nothing and a different spec is refused unless the caller asks to replace the job.
///
/// Everything here goes through `kube::Client` with JSON objects, so it works with any
/// TFJob a server holds, including fields this SDK does not model.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/tfjob_resource.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/discovery.hpp>
#include <tfjob/kube/pager.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/api/lint.hpp>
#include <tfjob/workflow/pods.hpp>
#include <tfjob/workflow/progress.hpp>
#include <tfjob/workflow/preflight.hpp>
#include <tfjob/workflow/status.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace tfjob::workflow {

/// The kinds the workflow reads and writes, each from its one description (resource_traits).
namespace resources {
kube::ResourceInfo tfjobs();
kube::ResourceInfo pods();
kube::ResourceInfo events();
kube::ResourceInfo nodes();
kube::ResourceInfo namespaces();
kube::ResourceInfo pvcs();
kube::ResourceInfo configmaps();
}  // namespace resources

/// Every item of a list, read page by page (kube::list_pages) and held together: for lists
/// whose length the caller bounds (a job's pods, a selector's few objects). A list that
/// grows with the cluster is read with kube::list_pages, each page decoded into what the
/// caller needs (list_nodes, gpu::run_top).
std::vector<nlohmann::json> list_items(kube::Client& c, const kube::ResourceInfo& res, const std::string& ns,
                                       kube::ListParams p = {});

/// What the workflow reads of a node (scheduling fit, GPUs, lint): its name, labels,
/// taints, cordon, conditions, capacity and allocatable, and nothing else (not its images,
/// annotations or managed fields, most of a real node's bytes).
nlohmann::json node_facts(const nlohmann::json& node);

/// Every node, each decoded into node_facts as its page arrives.
std::vector<nlohmann::json> list_nodes(kube::Client& c);

/// What the GPU checks read of a pod: its name, namespace and labels, node, phase, and its
/// containers' resources (pod_spec_gpus), nothing else.
nlohmann::json pod_gpu_facts(const nlohmann::json& pod);

/// The pods in every namespace that hold resources, as kubectl describe node selects them
/// (field selector status.phase!=Succeeded,status.phase!=Failed: kubectl describe.go,
/// describeNode), each decoded into pod_gpu_facts as its page arrives.
std::vector<nlohmann::json> list_active_pods(kube::Client& c);

/// The object, or std::nullopt when the server says NotFound.
std::optional<nlohmann::json> get_opt(kube::Client& c, const kube::ResourceInfo& res, const std::string& ns,
                                      const std::string& name);

/// A job's pods: by the current operator's labels, else by the older operators' labels.
std::vector<nlohmann::json> job_pods(kube::Client& c, const std::string& ns, const std::string& job);

/// The events about one object (kube::events_about: kubectl describe's field selector), one
/// list that holds nothing else of the namespace.
/// None when the user may not read events (they explain, they are not required).
std::vector<nlohmann::json> object_events(kube::Client& c, const std::string& ns, const std::string& kind,
                                          const std::string& name, const std::string& uid = {});

/// Whose events job_events reads besides the job's own.
enum class PodEvents {
  all,      ///< every pod's (describe, explain, the archive)
  pending,  ///< only pods Pending and not yet bound to a node: those progress explains
  none,
};

/// The events of a job (its JSON) and of its pods, each object's read by its own field
/// selector (object_events): one request for the job, one per pod `which` picks, so what
/// it costs follows the job and never the namespace. Oldest first.
std::vector<nlohmann::json> job_events(kube::Client& c, const std::string& ns, const nlohmann::json& job,
                                       const std::vector<nlohmann::json>& pods, PodEvents which = PodEvents::all);

/// Whether the server serves kubeflow.org/v1 tfjobs (API discovery).
bool tfjobs_served(kube::Client& c);

/// The message for a 403 on TFJobs in `ns`, naming who and what to ask for.
Text forbidden_message(const std::string& verb, const std::string& ns, const std::string& server_message);

/// Whether the current user may `verb` TFJobs in `ns` (SelfSubjectAccessReview); std::nullopt
/// when the server cannot say (no authorization API).
std::optional<std::pair<bool, std::string>> can_i(kube::Client& c, const std::string& verb, const std::string& ns);

/// What `preflight_submit` found.
struct PreflightReport {
  std::vector<Finding> findings;
  std::optional<GpuPreflight> gpu;
  bool ok() const;
  /// Every error message with its fix, joined (for an exception).
  Text errors() const;
};

/// What preflight_submit reads of the cluster that is the same for every job of one submit
/// (the namespace, the access review, the nodes, the pods that hold resources): shared by
/// the jobs of a submit of several, each is read once (safe to share between threads).
struct PreflightShared {
  std::mutex mu;
  std::map<std::string, nlohmann::json> kept;  ///< what was read, by what it is ("nodes", "namespace/NS", ...)
};

/// Checks before submitting `job` (TFJob JSON) to `ns`. Stops at the first fatal finding
/// that makes later checks meaningless (no CRD, no namespace, no permission). `logs_kept`:
/// the caller saves every replica's log while the job runs (lint::Context::logs_kept).
/// `shared`: what other jobs of the same submit read already. `server_dry_run` false: no
/// dry run of the apply, for a caller whose next request is the apply itself (nothing is
/// created before it, so the server's answer to the apply says the same).
PreflightReport preflight_submit(kube::Client& c, const std::string& ns, const nlohmann::json& job,
                                 bool check_gpus = true, bool logs_kept = false,
                                 const std::string& field_validation = {}, PreflightShared* shared = nullptr,
                                 bool server_dry_run = true);

/// What submitting did.
enum class SubmitOutcome { created, unchanged, replaced };
const char* to_string(SubmitOutcome o);

struct SubmitOptions {
  bool replace = false;         ///< delete an existing job with a different spec, then submit
  bool rerun = false;           ///< delete an existing job even with the same spec, then submit (run it again)
  bool dry_run = false;         ///< server-side dry run: validate and default, persist nothing
  std::string field_manager;  ///< "" = the client's (RestConfig::field_manager)
  /// The apply's fieldValidation (kube::ApplyParams::field_validation): "Strict", "Warn",
  /// "Ignore" (to_query_value(FieldValidation)), "" = the server's default.
  std::string field_validation;
  std::function<void(const std::string&)> progress;  ///< stderr lines ("deleting ...")
  std::chrono::seconds delete_timeout{120};
};

struct SubmitResult {
  SubmitOutcome outcome = SubmitOutcome::created;
  nlohmann::json object;  ///< as the server returned (or would return, for a dry run)
};

/// Paths (JSON pointers) where two specs differ, for the "different spec" message.
std::vector<std::string> spec_differences(const nlohmann::json& a, const nlohmann::json& b);

/// Wait until `name` no longer exists (after a delete); false on timeout.
bool wait_gone(kube::Client& c, const kube::ResourceInfo& res, const std::string& ns, const std::string& name,
               std::chrono::milliseconds timeout, const std::string& uid = {});

/// How many TFJobs a submit of several (`submit -f` of many documents) applies at once.
// 8: under client-go's default Burst of 10 (rest.DefaultBurst), so the submit never sends more at once than a default client-go client may; kubectl apply sends one object at a time
inline constexpr std::size_t apply_concurrency = 8;

/// Runs `work(i)` for each i in [0, n), at most `limit` at once on threads of their own;
/// `done(i)` runs on the caller's thread in the order of i, as soon as work(0..i) have
/// ended (results said in input order as they come, as kubectl says each object's).
/// `work` should catch what one item throws; an exception that escapes it is rethrown
/// here after every started item has ended.
void for_each_bounded(std::size_t n, std::size_t limit, const std::function<void(std::size_t)>& work,
                      const std::function<void(std::size_t)>& done);

/// Submit `job` (TFJob JSON with metadata.name) to `ns` with server-side apply.
/// - absent → created;
/// - present with the same spec → unchanged (nothing is sent but a dry run);
/// - present with another spec → `tfjob::error` naming the differences, unless
///   `replace`, which deletes the old job (foreground: its pods go first), waits, and applies.
SubmitResult submit_job(kube::Client& c, const std::string& ns, nlohmann::json job, const SubmitOptions& o = {});

/// The access mode of a claim created for a job: its replicas run on different nodes and
/// all mount the claim, which only ReadWriteMany allows (Kubernetes' access modes).
inline constexpr const char* default_claim_access_mode = "ReadWriteMany";

/// Make sure PVC `name` exists in `ns`: create it (`access_mode`, `size`, `storage_class`
/// or the cluster default when "") when absent, leave it alone when present. Returns the
/// PVC and whether it was created.
std::pair<nlohmann::json, bool> ensure_pvc(kube::Client& c, const std::string& ns, const std::string& name,
                                           const std::string& size, const std::string& storage_class,
                                           bool dry_run = false,
                                           const std::string& access_mode = default_claim_access_mode);

/// Server-side apply `obj` (a namespaced object of `res`) into `ns` with an ownerReference
/// to `owner` (the job as the server returned it), so it is garbage-collected with the job.
/// Returns the object as the server answered (a dry run: as it would be).
nlohmann::json apply_owned(kube::Client& c, const kube::ResourceInfo& res, const std::string& ns,
                           nlohmann::json obj, const nlohmann::json& owner, const SubmitOptions& o = {});

/// Why a PVC is not Bound, from its phase and events (e.g. "no persistent volumes available
/// for this claim and no storage class is set"); "" when Bound or not yet explained.
std::string pvc_pending_reason(const nlohmann::json& pvc, const std::vector<nlohmann::json>& events);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
namespace tfjob::workflow {

namespace resources {

TFJOB_INLINE kube::ResourceInfo tfjobs() { return kube::resource_info<TFJob>(); }
TFJOB_INLINE kube::ResourceInfo pods() { return kube::resource_info<k8s::Pod>(); }
TFJOB_INLINE kube::ResourceInfo events() { return kube::resource_info<k8s::Event>(); }
TFJOB_INLINE kube::ResourceInfo nodes() { return kube::resource_info<k8s::Node>(); }
TFJOB_INLINE kube::ResourceInfo namespaces() { return kube::resource_info<k8s::Namespace>(); }
TFJOB_INLINE kube::ResourceInfo pvcs() { return kube::resource_info<k8s::PersistentVolumeClaim>(); }
TFJOB_INLINE kube::ResourceInfo configmaps() { return kube::resource_info<k8s::ConfigMap>(); }

}  // namespace resources

TFJOB_INLINE std::vector<nlohmann::json> list_items(kube::Client& c, const kube::ResourceInfo& res, const std::string& ns,
                                                    kube::ListParams p) {
  std::vector<nlohmann::json> out;
  kube::list_pages(c, kube::RequestBuilder(res, ns), std::move(p), [&](kube::ListPage& page) {
    for (auto& i : page.items) out.push_back(std::move(i));
    return true;
  });
  return out;
}

TFJOB_INLINE nlohmann::json node_facts(const nlohmann::json& node) {
  nlohmann::json f = nlohmann::json::object();
  auto copy = [](const nlohmann::json& from, nlohmann::json& to, std::initializer_list<const char*> keys) {
    if (!from.is_object()) return;
    for (const char* k : keys)
      if (auto it = from.find(k); it != from.end()) to[k] = *it;
  };
  copy(node, f, {"apiVersion", "kind"});
  if (auto md = node.find("metadata"); md != node.end() && md->is_object()) {
    f["metadata"] = nlohmann::json::object();
    copy(*md, f["metadata"], {"name", "uid", "resourceVersion", "creationTimestamp", "labels"});
  }
  if (auto sp = node.find("spec"); sp != node.end() && sp->is_object()) {
    f["spec"] = nlohmann::json::object();
    copy(*sp, f["spec"], {"taints", "unschedulable", "providerID"});
  }
  if (auto st = node.find("status"); st != node.end() && st->is_object()) {
    f["status"] = nlohmann::json::object();
    copy(*st, f["status"], {"capacity", "allocatable", "conditions", "nodeInfo"});
  }
  return f;
}

TFJOB_INLINE nlohmann::json pod_gpu_facts(const nlohmann::json& pod) {
  nlohmann::json f = nlohmann::json::object();
  auto copy = [](const nlohmann::json& from, nlohmann::json& to, std::initializer_list<const char*> keys) {
    if (!from.is_object()) return;
    for (const char* k : keys)
      if (auto it = from.find(k); it != from.end()) to[k] = *it;
  };
  copy(pod, f, {"apiVersion", "kind"});
  if (auto md = pod.find("metadata"); md != pod.end() && md->is_object()) {
    f["metadata"] = nlohmann::json::object();
    copy(*md, f["metadata"], {"name", "namespace", "uid", "labels"});
  }
  if (auto sp = pod.find("spec"); sp != pod.end() && sp->is_object()) {
    f["spec"] = nlohmann::json::object();
    copy(*sp, f["spec"], {"nodeName"});
    for (const char* list : {"containers", "initContainers"}) {
      auto cs = sp->find(list);
      if (cs == sp->end() || !cs->is_array()) continue;
      nlohmann::json kept = nlohmann::json::array();
      for (const auto& c : *cs) {
        nlohmann::json k = nlohmann::json::object();
        copy(c, k, {"name", "resources"});
        kept.push_back(std::move(k));
      }
      f["spec"][list] = std::move(kept);
    }
  }
  if (auto st = pod.find("status"); st != pod.end() && st->is_object()) {
    f["status"] = nlohmann::json::object();
    copy(*st, f["status"], {"phase"});
  }
  return f;
}

TFJOB_INLINE std::vector<nlohmann::json> list_active_pods(kube::Client& c) {
  std::vector<nlohmann::json> out;
  kube::ListParams p;
  p.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
  kube::list_pages(c, kube::RequestBuilder(resources::pods(), ""), p, [&](kube::ListPage& page) {
    for (const auto& i : page.items) out.push_back(pod_gpu_facts(i));
    return true;
  });
  return out;
}

TFJOB_INLINE std::vector<nlohmann::json> list_nodes(kube::Client& c) {
  std::vector<nlohmann::json> out;
  kube::list_pages(c, kube::RequestBuilder(resources::nodes(), ""), {}, [&](kube::ListPage& page) {
    for (const auto& n : page.items) out.push_back(node_facts(n));
    return true;
  });
  return out;
}

TFJOB_INLINE std::optional<nlohmann::json> get_opt(kube::Client& c, const kube::ResourceInfo& res, const std::string& ns,
                                                   const std::string& name) {
  try {
    return c.request_json(kube::RequestBuilder(res, ns).get(name));
  } catch (const api_error& e) {
    if (e.is_not_found()) return std::nullopt;
    throw;
  }
}

TFJOB_INLINE std::vector<nlohmann::json> job_pods(kube::Client& c, const std::string& ns, const std::string& job) {
  for (const auto& sel : pod_selectors(job)) {
    kube::ListParams p;
    p.label_selector = sel;
    auto pods = list_items(c, resources::pods(), ns, p);
    if (!pods.empty()) return pods;
  }
  return {};
}

TFJOB_INLINE std::vector<nlohmann::json> object_events(kube::Client& c, const std::string& ns, const std::string& kind,
                                                       const std::string& name, const std::string& uid) {
  try {
    return list_items(c, resources::events(), ns, kube::events_about(kind, name, ns, uid));
  } catch (const api_error& e) {
    if (e.is_forbidden()) return {};  // events are nice to have; a user may not read them
    throw;
  }
}

TFJOB_INLINE std::vector<nlohmann::json> job_events(kube::Client& c, const std::string& ns, const nlohmann::json& job,
                                                    const std::vector<nlohmann::json>& pods, PodEvents which) {
  auto str = [](const nlohmann::json& o, const nlohmann::json::json_pointer& p) { return tfjob::detail::value_at(o, p, std::string()); };
  std::vector<nlohmann::json> out = object_events(c, ns, tfjob::kind, str(job, "/metadata/name"_json_pointer), str(job, "/metadata/uid"_json_pointer));
  for (const auto& p : pods) {
    if (which == PodEvents::none) break;
    if (which == PodEvents::pending &&
        (str(p, "/status/phase"_json_pointer) != "Pending" || !str(p, "/spec/nodeName"_json_pointer).empty()))
      continue;
    for (auto& e : object_events(c, ns, "Pod", str(p, "/metadata/name"_json_pointer), str(p, "/metadata/uid"_json_pointer)))
      out.push_back(std::move(e));
  }
  std::stable_sort(out.begin(), out.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return detail::event_time(a) < detail::event_time(b);
  });
  return out;
}

TFJOB_INLINE bool tfjobs_served(kube::Client& c) {
  const auto r = resources::tfjobs();
  return kube::serves(c, r.group, r.version, r.plural);
}

TFJOB_INLINE Text forbidden_message(const std::string& verb, const std::string& ns, const std::string& server_message) {
  return "you may not " + verb + " TFJobs in namespace \"" + ns + "\" (403 Forbidden: " + server_message +
         ").\nAsk a cluster admin for a Role granting '" + verb +
         "' on tfjobs.kubeflow.org there (for example the \"kubeflow-edit\" ClusterRole bound in that namespace), "
         "or pick a namespace you may use with " + setting::config_namespace + ". Check with: kubectl auth can-i " + verb +
         " tfjobs.kubeflow.org -n " + ns;
}

TFJOB_INLINE std::optional<std::pair<bool, std::string>> can_i(kube::Client& c, const std::string& verb, const std::string& ns) {
  const auto tj = resources::tfjobs();
  kube::ResourceInfo ssar{"authorization.k8s.io", "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview", false};
  nlohmann::json review = {
      {"apiVersion", ssar.api_version()},
      {"kind", ssar.kind},
      {"spec", {{"resourceAttributes", {{"namespace", ns}, {"verb", verb}, {"group", tj.group}, {"resource", tj.plural}}}}}};
  try {
    kube::PostParams pp;
    pp.field_manager = "";
    auto r = c.request_json(kube::RequestBuilder(ssar, "").create(review, pp));
    return std::make_pair(tfjob::detail::value_at(r, "/status/allowed"_json_pointer, false),
                          tfjob::detail::value_at(r, "/status/reason"_json_pointer, std::string()));
  } catch (const api_error&) {
    return std::nullopt;
  }
}

TFJOB_INLINE bool PreflightReport::ok() const {
  for (const auto& f : findings) if (f.is_error()) return false;
  return true;
}

TFJOB_INLINE Text PreflightReport::errors() const {
  Text s;
  for (const auto& f : findings) {
    if (!f.is_error()) continue;
    s += (s.empty() ? "" : "\n") + f.message;
    if (!f.fix.empty()) s += "\nfix: " + f.fix;
  }
  return s;
}

namespace detail {

/// One preflight_submit run: where the job goes, what the cluster has said so far (the
/// namespace, the lint context) and the report; one method per check, called in the order
/// preflight_submit lists them.
struct Preflight {
  kube::Client& c;
  const std::string& ns;
  const nlohmann::json& job;
  PreflightReport r;
  std::optional<nlohmann::json> ns_object;  ///< the namespace as read (nullopt: reading it is forbidden)
  lint::Context lc;
  std::string field_validation;  ///< the dry run's fieldValidation ("" = the server's default)
  PreflightShared* shared = nullptr;  ///< what the other jobs of the submit read already
  bool server_dry_run = true;

  Preflight(kube::Client& client, const std::string& n, const nlohmann::json& j) : c(client), ns(n), job(j) {}

  /// `read()`, or what it gave another job of the same submit (read once, under the lock).
  template <class Read>
  nlohmann::json remember(const std::string& key, Read&& read) {
    if (!shared) return read();
    std::lock_guard<std::mutex> lk(shared->mu);
    auto it = shared->kept.find(key);
    if (it != shared->kept.end()) return it->second;
    return shared->kept[key] = read();
  }

  /// Add a fatal finding; false, so that a check says `return fail(...)` and preflight stops.
  bool fail(Text message) {
    r.findings.push_back({Finding::Severity::error, std::move(message)});
    return false;
  }

  /// The finding for a namespace that does not exist (the read and the dry run say it alike).
  Text namespace_missing() const {
    return "namespace \"" + ns + "\" does not exist. Create it with: kubectl create namespace " + ns + "  (or choose another with " + setting::config_namespace + ")";
  }

  /// The server serves TFJobs (the operator's CRD is installed).
  bool crd_served() {
    if (!tfjobs_served(c)) return fail(crd_missing_message(c.config().server));
    return true;
  }

  /// The namespace exists, or may not be read; kept in ns_object for lint.
  bool namespace_exists() {
    const nlohmann::json got = remember("namespace/" + ns, [&]() -> nlohmann::json {
      try {
        auto o = get_opt(c, resources::namespaces(), "", ns);
        return o ? nlohmann::json{{"object", *o}} : nlohmann::json{{"missing", true}};
      } catch (const api_error& e) {
        if (!e.is_forbidden()) throw;  // a namespaced user may not read namespaces: the access review decides
        return nlohmann::json{{"forbidden", true}};
      }
    });
    if (got.contains("missing")) return fail(namespace_missing());
    if (got.contains("object")) ns_object = got["object"];
    return true;
  }

  /// The access review does not deny creating TFJobs in the namespace.
  bool create_allowed() {
    const nlohmann::json got = remember("can-i-create/" + ns, [&]() -> nlohmann::json {
      auto allowed = can_i(c, "create", ns);
      return allowed ? nlohmann::json{{"allowed", allowed->first}, {"reason", allowed->second}} : nlohmann::json();
    });
    if (got.is_object() && !got["allowed"].get<bool>()) {
      const std::string why = got["reason"].get<std::string>();
      return fail(forbidden_message("create", ns, why.empty() ? "denied by the access review" : why));
    }
    return true;
  }

  /// The server accepts the job in a dry run (a job without metadata.name is not sent).
  bool dry_run_accepted() {
    // A server-side dry run of the apply: the server's own answer on permission, namespace
    // and validity (admission webhooks included), with nothing persisted.
    if (!server_dry_run || !(job.contains("metadata") && job["metadata"].contains("name"))) return true;
    try {
      kube::ApplyParams ap;
      ap.dry_run = true;
      ap.field_validation = field_validation;
      nlohmann::json j = job;
      j["metadata"]["namespace"] = ns;
      c.request_json(kube::RequestBuilder(resources::tfjobs(), ns).apply(job["metadata"]["name"].get<std::string>(), j, ap));
    } catch (const api_error& e) {
      if (e.is_forbidden()) return fail(forbidden_message("create", ns, e.status().message));
      if (e.is_not_found() && e.status().details_kind == "namespaces") return fail(namespace_missing());
      if (e.is_invalid()) return fail(std::string("the server rejected the TFJob: ") + e.what());
      if (!e.is_conflict()) throw;  // a conflict with another field manager is submit_job's to explain
    }
    return true;
  }

  /// What the cluster says, for lint and the GPU check: the namespace, the nodes, the claims
  /// the job mounts.
  void read_lint_context(bool logs_kept) {
    // what the cluster says, for lint and the GPU check; each part is optional (403)
    lc.namespace_object = ns_object;
    lc.skip_gpu_fit = true;  // gpu_preflight (check_gpus) says it, with the GPU nodes' table
    lc.logs_kept = logs_kept;
    const nlohmann::json nodes = remember("nodes", [&]() -> nlohmann::json {
      try {
        return list_nodes(c);
      } catch (const api_error& e) {
        if (!e.is_forbidden()) throw;  // a namespaced user may not read nodes: those rules do not run
        return nullptr;
      }
    });
    if (nodes.is_array()) lc.nodes = nodes.get<std::vector<nlohmann::json>>();
    read_claims();
  }

  /// The PersistentVolumeClaims the job's replicas mount, each once, as far as they may be read.
  void read_claims() {
    const nlohmann::json specs = tfjob::detail::value_at(job, "/spec/tfReplicaSpecs"_json_pointer, nlohmann::json::object());
    for (const auto& [t, rs] : specs.items())
      for (const auto& v : tfjob::detail::value_at(rs, "/template/spec/volumes"_json_pointer, nlohmann::json::array())) {
        if (!v.contains("persistentVolumeClaim")) continue;
        const std::string claim = tfjob::detail::value_at(v["persistentVolumeClaim"], "claimName", "");
        if (claim.empty() || lc.claims.count(claim)) continue;
        try {
          if (auto pvc = get_opt(c, resources::pvcs(), ns, claim)) lc.claims[claim] = *pvc;
        } catch (const api_error& e) {
          if (!e.is_forbidden()) throw;
        }
      }
  }

  /// The cluster's pods that hold resources (not Succeeded or Failed); nullopt when forbidden.
  std::optional<std::vector<nlohmann::json>> active_pods() {
    const nlohmann::json got = remember("active-pods", [&]() -> nlohmann::json {
      try {
        return list_active_pods(c);
      } catch (const api_error& e) {
        if (!e.is_forbidden()) throw;
        return nullptr;
      }
    });
    if (!got.is_array()) return std::nullopt;
    return got.get<std::vector<nlohmann::json>>();
  }

  /// The GPU check (gpu_preflight), when some replica asks for GPUs and the nodes were read:
  /// its findings replace lint's of the same fact; GpuCheckSkipped when the nodes were not.
  void check_gpus() {
    bool wants_gpus = false;
    for (const auto& g : replica_gpus(job)) wants_gpus |= g.gpus_per_pod > 0;
    if (wants_gpus && lc.nodes) {
      std::optional<std::vector<nlohmann::json>> pods = active_pods();
      nlohmann::json j = job;
      j["metadata"]["namespace"] = ns;
      auto g = gpu_preflight(j, *lc.nodes, pods);
      // a fact the GPU check states (with its node table) is not said again by lint
      for (const auto& f : g.findings)
        r.findings.erase(std::remove_if(r.findings.begin(), r.findings.end(),
                                        [&](const Finding& l) { return !l.is_error() && l.code == f.code && l.replica == f.replica; }),
                         r.findings.end());
      for (const auto& f : g.findings) r.findings.push_back(f);
      r.gpu = std::move(g);
    } else if (wants_gpus) {
      Finding f{Finding::Severity::warning,
                "cannot list nodes (403), so the GPU check was skipped: make sure nodes expose nvidia.com/gpu"};
      f.code = "GpuCheckSkipped";
      r.findings.push_back(f);
    }
  }
};

}  // namespace detail

TFJOB_INLINE PreflightReport preflight_submit(kube::Client& c, const std::string& ns, const nlohmann::json& job,
                                              bool check_gpus, bool logs_kept, const std::string& field_validation,
                                              PreflightShared* shared, bool server_dry_run) {
  detail::Preflight p(c, ns, job);
  p.field_validation = field_validation;
  p.shared = shared;
  p.server_dry_run = server_dry_run;
  // each check stops preflight at a fatal finding that makes the later ones meaningless
  if (!p.crd_served() || !p.namespace_exists() || !p.create_allowed() || !p.dry_run_accepted()) return std::move(p.r);
  p.read_lint_context(logs_kept);
  for (auto& f : lint::lint(job, p.lc)) p.r.findings.push_back(std::move(f));
  if (check_gpus && !replica_gpus(job).empty()) p.check_gpus();
  p.r.findings = dedupe(std::move(p.r.findings));
  return std::move(p.r);
}

TFJOB_INLINE const char* to_string(SubmitOutcome o) {
  switch (o) {
    case SubmitOutcome::created: return "created";
    case SubmitOutcome::unchanged: return "unchanged";
    case SubmitOutcome::replaced: return "replaced";
  }
  return "";
}

TFJOB_INLINE std::vector<std::string> spec_differences(const nlohmann::json& a, const nlohmann::json& b) {
  std::vector<std::string> out;
  for (const auto& op : nlohmann::json::diff(a, b)) {
    std::string p = "spec" + tfjob::detail::value_at(op, "path", "");
    for (auto& ch : p) if (ch == '/') ch = '.';
    out.push_back(p);
    if (out.size() >= 5) break;
  }
  return out;
}

TFJOB_INLINE bool wait_gone(kube::Client& c, const kube::ResourceInfo& res, const std::string& ns, const std::string& name,
                            std::chrono::milliseconds timeout, const std::string& uid) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto o = get_opt(c, res, ns, name);
    if (!o) return true;
    if (!uid.empty() && tfjob::detail::value_at(*o, "/metadata/uid"_json_pointer, std::string()) != uid) return true;  // recreated
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

TFJOB_INLINE void for_each_bounded(std::size_t n, std::size_t limit, const std::function<void(std::size_t)>& work,
                                   const std::function<void(std::size_t)>& done) {
  if (limit <= 1 || n <= 1) {
    for (std::size_t i = 0; i < n; ++i) {
      work(i);
      done(i);
    }
    return;
  }
  std::mutex mu;
  std::condition_variable cv;
  std::vector<char> finished(n, 0);
  std::atomic<std::size_t> next{0};
  std::exception_ptr escaped;
  auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        work(i);
      } catch (...) {
        std::lock_guard<std::mutex> lk(mu);
        if (!escaped) escaped = std::current_exception();
      }
      std::lock_guard<std::mutex> lk(mu);
      finished[i] = 1;
      cv.notify_one();
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < std::min(limit, n); ++t) threads.emplace_back(worker);
  for (std::size_t i = 0; i < n; ++i) {
    {
      std::unique_lock<std::mutex> lk(mu);
      cv.wait(lk, [&] { return finished[i] != 0; });
    }
    done(i);
  }
  for (auto& t : threads) t.join();
  if (escaped) std::rethrow_exception(escaped);
}

TFJOB_INLINE SubmitResult submit_job(kube::Client& c, const std::string& ns, nlohmann::json job, const SubmitOptions& o) {
  const std::string name = tfjob::detail::value_at(job, "/metadata/name"_json_pointer, std::string());
  if (name.empty()) throw tfjob::error("cannot submit a TFJob without metadata.name");
  job["metadata"]["namespace"] = ns;
  kube::RequestBuilder b(resources::tfjobs(), ns);
  kube::ApplyParams ap;
  ap.field_manager = o.field_manager;
  ap.field_validation = o.field_validation;
  auto apply = [&](bool dry) {
    ap.dry_run = dry;
    try {
      return c.request_json(b.apply(name, job, ap));
    } catch (const api_error& e) {
      if (e.is_forbidden()) throw tfjob::error(forbidden_message("create", ns, e.status().message));
      throw;
    }
  };
  auto existing = get_opt(c, resources::tfjobs(), ns, name);
  SubmitResult r;
  if (!existing) {
    r.outcome = SubmitOutcome::created;
    r.object = apply(o.dry_run);
    return r;
  }
  // What the job would look like after this apply, against what it is.
  std::optional<nlohmann::json> would;
  std::string conflict;
  try {
    would = apply(true);
  } catch (const api_error& e) {
    if (!e.is_conflict()) throw;
    conflict = e.status().message;  // fields owned by another manager (kubectl apply, an editor...)
  }
  const nlohmann::json old_spec = tfjob::detail::value_at(*existing, "spec", nlohmann::json::object());
  if (would && tfjob::detail::value_at(*would, "spec", nlohmann::json::object()) == old_spec && !o.rerun) {
    r.outcome = SubmitOutcome::unchanged;
    r.object = *existing;
    return r;
  }
  if (!o.replace && !o.rerun) {
    std::string why;
    if (would) {
      auto d = spec_differences(old_spec, tfjob::detail::value_at(*would, "spec", nlohmann::json::object()));
      for (size_t i = 0; i < d.size(); ++i) why += (i ? ", " : "") + d[i];
      why = " (differs at " + why + ")";
    } else {
      why = " (" + conflict + ")";
    }
    throw tfjob::error(reasons::spec_conflict,
                       "TFJob \"" + name + "\" already exists in namespace \"" + ns + "\" with a different spec" + why +
                           ".\nA running TFJob's spec cannot be changed in place",
                       ". Set " + setting::submit_replace + " to delete it and its pods and submit this one, or give it another name.");
  }
  if (o.dry_run) {
    r.outcome = SubmitOutcome::replaced;
    r.object = would ? *would : job;
    return r;
  }
  const std::string uid = tfjob::detail::value_at(*existing, "/metadata/uid"_json_pointer, std::string());
  if (o.progress)
    o.progress("deleting TFJob " + ns + "/" + name + " and its pods to " + (o.rerun ? "run it again" : "replace it"));
  kube::DeleteParams dp;
  dp.propagation_policy = "Foreground";
  try {
    c.request_json(b.remove(name, dp));
  } catch (const api_error& e) {
    if (!e.is_not_found()) throw;
  }
  if (!wait_gone(c, resources::tfjobs(), ns, name, o.delete_timeout, uid))
    throw tfjob::error("timed out waiting for the old TFJob \"" + name + "\" to be deleted; try again later");
  r.outcome = SubmitOutcome::replaced;
  r.object = apply(false);
  return r;
}

TFJOB_INLINE std::pair<nlohmann::json, bool> ensure_pvc(kube::Client& c, const std::string& ns, const std::string& name,
                                                        const std::string& size, const std::string& storage_class,
                                                        bool dry_run,
                                                        const std::string& access_mode) {
  if (auto pvc = get_opt(c, resources::pvcs(), ns, name)) return {*pvc, false};
  nlohmann::json pvc = {{"apiVersion", "v1"},
                        {"kind", "PersistentVolumeClaim"},
                        {"metadata", {{"name", name}, {"namespace", ns}, {"labels", {{"app.kubernetes.io/created-by", "kubectl-tfjob"}}}}},
                        {"spec", {{"accessModes", {access_mode}}, {"resources", {{"requests", {{"storage", size}}}}}}}};
  if (!storage_class.empty()) pvc["spec"]["storageClassName"] = storage_class;
  kube::PostParams pp;
  pp.dry_run = dry_run;
  try {
    return {c.request_json(kube::RequestBuilder(resources::pvcs(), ns).create(pvc, pp)), true};
  } catch (const api_error& e) {
    // another job of the same submit (applied at the same time) created it first
    if (!e.is_already_exists()) throw;
    if (auto got = get_opt(c, resources::pvcs(), ns, name)) return {*got, false};
    throw;
  }
}

TFJOB_INLINE nlohmann::json apply_owned(kube::Client& c, const kube::ResourceInfo& res, const std::string& ns,
                                        nlohmann::json obj, const nlohmann::json& owner, const SubmitOptions& o) {
  const std::string name = tfjob::detail::value_at(obj, "/metadata/name"_json_pointer, std::string());
  obj["metadata"]["namespace"] = ns;
  if (!tfjob::detail::value_at(owner, "/metadata/uid"_json_pointer, std::string()).empty())
    obj["metadata"]["ownerReferences"] = nlohmann::json::array({kube::owner_reference(owner)});
  kube::ApplyParams ap;
  ap.field_manager = o.field_manager;
  ap.dry_run = o.dry_run;
  ap.force = true;  // ours alone: take the fields back from whoever edited them
  try {
    return c.request_json(kube::RequestBuilder(res, ns).apply(name, obj, ap));
  } catch (const api_error& e) {
    if (e.is_forbidden())
      throw tfjob::error("you may not create " + res.plural + " in namespace \"" + ns + "\" (403 Forbidden: " +
                         e.status().message + "): the job needs " + res.kind + " \"" + name +
                         "\". Check with: kubectl auth can-i create " + res.plural + " -n " + ns);
    throw;
  }
}

TFJOB_INLINE std::string pvc_pending_reason(const nlohmann::json& pvc, const std::vector<nlohmann::json>& events) {
  if (tfjob::detail::value_at(pvc, "/status/phase"_json_pointer, std::string("Pending")) == "Bound") return "";
  std::string name = tfjob::detail::value_at(pvc, "/metadata/name"_json_pointer, std::string());
  std::string uid = tfjob::detail::value_at(pvc, "/metadata/uid"_json_pointer, std::string());
  std::string msg;
  // events_for matches the uid too: an event about an earlier claim of the same name
  // (deleted, then created again) says nothing about this one
  for (const auto& e : events_for(events, "PersistentVolumeClaim", name, uid)) {
    // WaitForFirstConsumer: binding waits for the first pod, which is normal
    msg = tfjob::detail::value_at(e, "reason", "") == "WaitForFirstConsumer" ? "" : tfjob::detail::value_at(e, "reason", "") + ": " + tfjob::detail::value_at(e, "message", "");
  }
  if (!msg.empty()) return msg;
  if (!pvc.contains("spec") || !pvc["spec"].contains("storageClassName"))
    return "no storage class is set and the cluster has no default StorageClass to provision a volume";
  return "";
}

}  // namespace tfjob::workflow
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
