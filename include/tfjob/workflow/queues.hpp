#pragma once
/// \file What queues and gang schedulers a cluster runs, from API discovery, and what that
/// means for a job before it is submitted: Kueue (LocalQueue, ClusterQueue, Workload),
/// Volcano (PodGroup, Queue), scheduler-plugins' coscheduling (PodGroup).
///
/// `queue_findings` is pure (what the cluster serves and which named queues exist, in; the
/// findings, out); `check_queues` asks the server for those facts.

#include <tfjob/api/builder.hpp>  // kueue_queue_name_label
#include <tfjob/api/findings.hpp>
#include <tfjob/api/quantity.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/discovery.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/workflow/cluster.hpp>  // get_opt, list_items
#include <tfjob/workflow/pods.hpp>     // pod_info
#include <tfjob/workflow/progress.hpp>  // events_for
#include <tfjob/workflow/status.hpp>  // replica_gpus

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::workflow {

namespace resources {
/// Kueue's (kueue.x-k8s.io/v1beta1, the version Kueue serves since v0.3).
kube::ResourceInfo kueue_local_queues();
kube::ResourceInfo kueue_cluster_queues();
kube::ResourceInfo kueue_workloads();
/// Volcano's (scheduling.volcano.sh/v1beta1: what the operator v1.9 creates).
kube::ResourceInfo volcano_pod_groups();
kube::ResourceInfo volcano_queues();
/// scheduler-plugins' coscheduling (scheduling.x-k8s.io/v1alpha1: the operator v1.9's).
kube::ResourceInfo scheduler_plugins_pod_groups();
/// The leader-election Leases schedulers hold (coordination.k8s.io/v1).
kube::ResourceInfo leases();
}  // namespace resources

/// What a Kueue ClusterQueue can give of one resource (kueue apis/kueue/v1beta1/clusterqueue_types.go:
/// spec.resourceGroups[].coveredResources, .flavors[].resources[] {name, nominalQuota, borrowingLimit};
/// spec.cohort, v1beta2's spec.cohortName: borrowing from the cohort, unlimited without a borrowingLimit).
struct KueueQuota {
  bool covered = false;       ///< some resourceGroup covers the resource
  double largest_flavor = 0;  ///< the most one flavor can give (nominalQuota + borrowingLimit)
  double total = 0;           ///< over every flavor
  bool unbounded = false;     ///< in a cohort, a flavor without borrowingLimit: no set upper bound
  std::vector<std::string> evidence;  ///< "flavor default: nominalQuota 8"
};

namespace detail {
using tfjob::detail::bool_at;
using tfjob::detail::str_at;
using tfjob::detail::value_at;
}  // namespace detail

/// `resource`'s quota in ClusterQueue `cq` (JSON as served). Pure.
KueueQuota kueue_quota(const nlohmann::json& cq, const std::string& resource);

/// The queueing and gang-scheduling systems a cluster serves.
struct QueueSystems {
  bool kueue = false;              ///< LocalQueue, ClusterQueue and Workload served
  bool volcano = false;            ///< Volcano's PodGroup and Queue served
  bool scheduler_plugins = false;  ///< scheduler-plugins' PodGroup served
  bool known = true;               ///< false: some discovery was forbidden (absence unknown)
  bool gang() const { return volcano || scheduler_plugins; }
};

/// What discovery says (404 = not installed; a discovery the user may not read leaves
/// `known` false, so no absence is claimed).
QueueSystems detect_queue_systems(kube::Client& c);

/// The facts about the queues a job names: whether each exists (nullopt: not asked, e.g.
/// the system is not installed or reading it was forbidden).
struct QueueFacts {
  QueueSystems systems;
  std::optional<bool> local_queue_exists;   ///< the job's Kueue LocalQueue, in its namespace
  std::optional<bool> volcano_queue_exists; ///< schedulingPolicy.queue as a Volcano Queue
  std::string cluster_queue_name;            ///< the LocalQueue's spec.clusterQueue ("" = not read)
  std::optional<nlohmann::json> cluster_queue;  ///< that ClusterQueue as served (nullopt: absent or not read)
  bool cluster_queue_missing = false;         ///< the LocalQueue names a ClusterQueue that does not exist
  /// Whether the scheduler the pods name (spec.schedulerName, not default-scheduler) was
  /// seen: a Lease of that name or a pod named after it (nullopt: forbidden to look).
  std::optional<bool> scheduler_found;
};

/// The schedulerName the job's pods ask for, when not the default ("" for default-scheduler).
std::string custom_scheduler(const nlohmann::json& job);

namespace detail {

/// One queue_findings pass: what the job says about where it waits (namespace, Kueue
/// LocalQueue, suspend, schedulingPolicy), the facts, and one method per check, each adding
/// its findings to `out` in the order queue_findings calls them.
struct QueueCheck {
  const nlohmann::json& job;
  const QueueFacts& facts;
  std::vector<Finding> out;
  std::string ns, local_queue, queue, ev_label;
  bool suspended = false;
  nlohmann::json sp;  ///< runPolicy.schedulingPolicy

  /// Read the job's namespace, LocalQueue label, runPolicy.suspend and schedulingPolicy.
  QueueCheck(const nlohmann::json& j, const QueueFacts& f);

  /// Add a warning.
  void add(const char* code, std::string msg, std::vector<std::string> evidence, Text fix);

  /// KueueMissing or LocalQueueNotFound: the LocalQueue the job names cannot admit it.
  void check_local_queue();

  /// VolcanoQueueNotFound: schedulingPolicy.queue names a Volcano Queue that does not exist.
  void check_volcano_queue();

  /// ClusterQueueNotFound: the job's LocalQueue points to a ClusterQueue that does not exist.
  void check_cluster_queue();

  /// NoGpuQuota or GpuQuotaTooSmall: the ClusterQueue's nvidia.com/gpu quota can never cover the job.
  void check_gpu_quota();

  /// SchedulerNotFound or SchedulerUnknown: the custom scheduler the pods name was not seen.
  void check_scheduler();

  /// NoGangScheduling: several GPU pods, a gang scheduler installed, and no minAvailable.
  void check_gang();
};

}  // namespace detail

/// Findings about where `job` (TFJob JSON) would wait, from `facts`. Pure.
std::vector<Finding> queue_findings(const nlohmann::json& job, const QueueFacts& facts);

/// Whether a scheduler named `name` shows in the cluster, as a user would look for it: a
/// leader-election Lease of that name in any namespace (kube-scheduler's
/// leaderElection.resourceName, as the "configure multiple schedulers" guide sets it), a
/// pod in kube-system named after it, or an event it recorded. nullopt when neither may be read; a cluster without
/// Leases (404) is only asked for pods.
std::optional<bool> scheduler_seen(kube::Client& c, const std::string& name);

/// Asks the server the facts `queue_findings` needs for `job` in `ns`, and returns its
/// findings. A 403 on any lookup leaves that fact unknown (no finding from it).
std::vector<Finding> check_queues(kube::Client& c, const std::string& ns, const nlohmann::json& job);

// ---- a job that exists: where it waits ------------------------------------------------

/// What the queues say about one submitted job: its Kueue Workload with the LocalQueue and
/// ClusterQueue it waits in, and its PodGroup (Volcano's or scheduler-plugins'), as the
/// server has them. Empty where the system is not installed or may not be read.
struct QueueState {
  bool workloads_read = false;                  ///< Kueue is served and its Workloads were listed
  std::vector<nlohmann::json> workloads;        ///< Workloads the job owns (ownerReferences)
  std::optional<nlohmann::json> local_queue, cluster_queue;
  std::optional<nlohmann::json> pod_group;      ///< named after the job (the operator v1.9 names it so)
  std::string pod_group_system;                 ///< "Volcano" or "scheduler-plugins"
};

/// The label Kueue puts on a job's Workload: the job's uid (kueue pkg/controller/constants JobUIDLabel).
inline constexpr const char* kueue_job_uid_label = "kueue.x-k8s.io/job-uid";

/// Reads `QueueState` for `job` (as served) in `ns`. Best effort: what may not be read, or
/// fails to be read, stays empty (the queue's word makes an explanation more precise; its
/// absence never fails `explain`, `describe` or `wait`).
QueueState gather_queue_state(kube::Client& c, const std::string& ns, const nlohmann::json& job);

/// The events of the job's PodGroup (queue_wait_findings reads them), by their own field
/// selector; none when there is no PodGroup or they may not be read.
std::vector<nlohmann::json> queue_events(kube::Client& c, const std::string& ns, const QueueState& q);

/// Findings that say a job waits in a queue and not for a node, from its Kueue Workload
/// (QuotaReserved, Admitted, Evicted; the queue's pending count and the position where the
/// ClusterQueue's status lists it) and its PodGroup's phase and events; and a job partly
/// Running while the rest waits, holding GPUs for nothing. Pure.
std::vector<Finding> queue_wait_findings(const nlohmann::json& job, const std::vector<nlohmann::json>& pods,
                                         const std::vector<nlohmann::json>& events, const QueueState& q);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
namespace tfjob::workflow {

namespace resources {

TFJOB_INLINE kube::ResourceInfo kueue_local_queues() { return {"kueue.x-k8s.io", "v1beta1", "localqueues", "LocalQueue", true}; }
TFJOB_INLINE kube::ResourceInfo kueue_cluster_queues() { return {"kueue.x-k8s.io", "v1beta1", "clusterqueues", "ClusterQueue", false}; }
TFJOB_INLINE kube::ResourceInfo kueue_workloads() { return {"kueue.x-k8s.io", "v1beta1", "workloads", "Workload", true}; }
TFJOB_INLINE kube::ResourceInfo volcano_pod_groups() { return {"scheduling.volcano.sh", "v1beta1", "podgroups", "PodGroup", true}; }
TFJOB_INLINE kube::ResourceInfo volcano_queues() { return {"scheduling.volcano.sh", "v1beta1", "queues", "Queue", false}; }
TFJOB_INLINE kube::ResourceInfo scheduler_plugins_pod_groups() { return {"scheduling.x-k8s.io", "v1alpha1", "podgroups", "PodGroup", true}; }
TFJOB_INLINE kube::ResourceInfo leases() { return {"coordination.k8s.io", "v1", "leases", "Lease", true}; }

}  // namespace resources

namespace detail {

/// A quota as the API serves it (a number or a quantity string); nullopt when unreadable.
TFJOB_INLINE std::optional<double> quota_value(const nlohmann::json& v) {
  std::optional<Quantity> q = v.is_string() ? Quantity::try_parse(v.get<std::string>())
                              : v.is_number() ? Quantity::try_parse(v.dump()) : std::nullopt;
  if (!q || !std::isfinite(q->value()) || q->value() < 0) return std::nullopt;
  return q->value();
}

TFJOB_INLINE std::string count_text(double v) {
  if (v >= 0 && v < 1e15 && v == std::floor(v)) return std::to_string(static_cast<long long>(v));
  return std::to_string(v);
}

}  // namespace detail

TFJOB_INLINE KueueQuota kueue_quota(const nlohmann::json& cq, const std::string& resource) {
  KueueQuota q;
  const bool cohort = !detail::str_at(cq, "/spec/cohort"_json_pointer).empty() || !detail::str_at(cq, "/spec/cohortName"_json_pointer).empty();
  const auto groups = tfjob::detail::value_at(cq, "/spec/resourceGroups"_json_pointer, nlohmann::json::array());
  if (!groups.is_array()) return q;
  for (const auto& g : groups) {
    if (!g.is_object()) continue;
    const auto flavors = tfjob::detail::value_at(g, "flavors", nlohmann::json::array());
    if (!flavors.is_array()) continue;
    for (const auto& f : flavors) {
      if (!f.is_object()) continue;
      const auto res = tfjob::detail::value_at(f, "resources", nlohmann::json::array());
      if (!res.is_array()) continue;
      for (const auto& r : res) {
        if (!r.is_object() || tfjob::detail::value_at(r, "name", nlohmann::json()) != resource) continue;
        q.covered = true;
        const double nominal = detail::quota_value(tfjob::detail::value_at(r, "nominalQuota", nlohmann::json())).value_or(0);
        std::string ev = "flavor " + detail::value_at(f, "name", "?") + ": nominalQuota " + detail::count_text(nominal);
        double cap = nominal;
        if (cohort) {
          if (auto b = detail::quota_value(tfjob::detail::value_at(r, "borrowingLimit", nlohmann::json()))) {
            cap += *b;
            ev += ", borrowingLimit " + detail::count_text(*b);
          } else {
            q.unbounded = true;
            ev += ", may borrow from its cohort without limit";
          }
        }
        q.largest_flavor = std::max(q.largest_flavor, cap);
        q.total += cap;
        q.evidence.push_back(std::move(ev));
      }
    }
  }
  return q;
}

TFJOB_INLINE QueueSystems detect_queue_systems(kube::Client& c) {
  QueueSystems q;
  auto has = [&](const kube::ResourceInfo& r) {
    try {
      return kube::serves(c, r.group, r.version, r.plural);
    } catch (const api_error& e) {
      if (!e.is_forbidden()) throw;
      q.known = false;
      return false;
    }
  };
  q.kueue = has(resources::kueue_local_queues()) && has(resources::kueue_cluster_queues()) && has(resources::kueue_workloads());
  q.volcano = has(resources::volcano_pod_groups()) && has(resources::volcano_queues());
  q.scheduler_plugins = has(resources::scheduler_plugins_pod_groups());
  return q;
}

TFJOB_INLINE std::string custom_scheduler(const nlohmann::json& job) {
  const auto specs = tfjob::detail::value_at(job, "/spec/tfReplicaSpecs"_json_pointer, nlohmann::json::object());
  if (!specs.is_object()) return "";
  for (const auto& [t, rs] : specs.items()) {
    const std::string n = detail::str_at(rs, "/template/spec/schedulerName"_json_pointer);
    if (!n.empty() && n != "default-scheduler") return n;
  }
  return "";
}

namespace detail {

TFJOB_INLINE QueueCheck::QueueCheck(const nlohmann::json& j, const QueueFacts& f) : job(j), facts(f) {
  ns = str_at(job, "/metadata/namespace"_json_pointer);
  const auto labels = tfjob::detail::value_at(job, "/metadata/labels"_json_pointer, nlohmann::json::object());
  local_queue = labels.is_object() ? str_at(labels, kueue_queue_name_label) : "";
  const auto rp = tfjob::detail::value_at(job, "/spec/runPolicy"_json_pointer, nlohmann::json::object());
  suspended = bool_at(rp, "/suspend"_json_pointer);
  sp = rp.is_object() ? tfjob::detail::value_at(rp, "schedulingPolicy", nlohmann::json::object()) : nlohmann::json::object();
  queue = sp.is_object() ? str_at(sp, "queue") : "";
  ev_label = std::string("label ") + kueue_queue_name_label + "=" + local_queue;
}

TFJOB_INLINE void QueueCheck::add(const char* code, std::string msg, std::vector<std::string> evidence, Text fix) {
  Finding f{Finding::Severity::warning, std::move(msg)};
  f.code = code;
  f.evidence = std::move(evidence);
  f.fix = std::move(fix);
  out.push_back(std::move(f));
}

TFJOB_INLINE void QueueCheck::check_local_queue() {
  if (!local_queue.empty() && !facts.systems.kueue && facts.systems.known) {
    add("KueueMissing",
        "the job names Kueue LocalQueue \"" + local_queue + "\", but this cluster does not serve Kueue (kueue.x-k8s.io " +
            "LocalQueue, ClusterQueue, Workload)" + (suspended ? ": nothing will unsuspend it" : ""),
        {ev_label}, "install Kueue, or drop the label" + std::string(suspended ? " and runPolicy.suspend" : ""));
  } else if (!local_queue.empty() && facts.local_queue_exists == false) {
    add("LocalQueueNotFound",
        "Kueue LocalQueue \"" + local_queue + "\" does not exist in namespace \"" + ns +
            "\": Kueue admits no Workload from it, so the job stays suspended",
        {ev_label}, "kubectl get localqueues -n " + ns + " (the queues this namespace has)");
  }
}

TFJOB_INLINE void QueueCheck::check_volcano_queue() {
  if (!queue.empty() && facts.systems.volcano && facts.volcano_queue_exists == false)
    add("VolcanoQueueNotFound",
        "Volcano Queue \"" + queue + "\" does not exist: the job's PodGroup would wait in it for good",
        {"runPolicy.schedulingPolicy.queue: " + queue}, "kubectl get queues.scheduling.volcano.sh (the cluster's queues)");
}

TFJOB_INLINE void QueueCheck::check_cluster_queue() {
  if (!local_queue.empty() && facts.cluster_queue_missing)
    add("ClusterQueueNotFound",
        "Kueue LocalQueue \"" + local_queue + "\" points to ClusterQueue \"" + facts.cluster_queue_name +
            "\", which does not exist: Kueue admits nothing from it, so the job stays suspended",
        {"localqueue/" + local_queue + ": spec.clusterQueue " + facts.cluster_queue_name},
        "ask the cluster's admins to create ClusterQueue " + facts.cluster_queue_name + ", or use another LocalQueue");
}

TFJOB_INLINE void QueueCheck::check_gpu_quota() {
  double need_total = 0, need_largest = 0;
  std::string largest_type;
  for (const auto& g : replica_gpus(job)) {
    const double n = static_cast<double>(std::max(0, g.replicas)) * static_cast<double>(std::max(0LL, g.gpus_per_pod));
    need_total += n;
    if (n > need_largest) { need_largest = n; largest_type = g.type; }
  }
  if (local_queue.empty() || !facts.cluster_queue || need_total <= 0) return;
  const std::string gpu = "nvidia.com/gpu", cqn = facts.cluster_queue_name;
  const KueueQuota q = kueue_quota(*facts.cluster_queue, gpu);
  const std::string asks = "the job asks for " + count_text(need_total) + " " + gpu;
  if (!q.covered) {
    add("NoGpuQuota",
        "ClusterQueue \"" + cqn + "\" (of LocalQueue \"" + local_queue + "\") has no " + gpu + " quota: Kueue can never admit this job, " +
            "which asks for " + count_text(need_total) + " GPUs, so it stays suspended",
        {"clusterqueue/" + cqn + ": no flavor of spec.resourceGroups has " + gpu, ev_label},
        "ask the cluster's admins for " + gpu + " quota in ClusterQueue " + cqn +
            ", or use a LocalQueue whose ClusterQueue has it (kubectl get clusterqueues)");
  } else if (!q.unbounded && (need_total > q.total + 1e-9 || need_largest > q.largest_flavor + 1e-9)) {
    std::vector<std::string> ev = q.evidence;
    ev.insert(ev.begin(), asks + " (" + largest_type + ": " + count_text(need_largest) + ")");
    const bool by_flavor = need_total <= q.total + 1e-9;
    add("GpuQuotaTooSmall",
        by_flavor ? largest_type + " asks for " + count_text(need_largest) + " " + gpu + ", more than any one flavor of ClusterQueue \"" +
                        cqn + "\" gives (at most " + count_text(q.largest_flavor) +
                        "), and Kueue gives a replica type one flavor: it can never admit this job, so it stays suspended"
                  : asks + ", more than ClusterQueue \"" + cqn + "\" can ever give (" + count_text(q.total) +
                        "): Kueue can never admit it, so it stays suspended",
        ev, "ask for fewer GPUs (" + setting::builder_workers + ", " + setting::builder_gpus + "), or ask the cluster's admins for more " + gpu +
                " quota in ClusterQueue " + cqn);
  }
}

TFJOB_INLINE void QueueCheck::check_scheduler() {
  // a scheduler the pods name that nobody runs: they stay Pending with no event at all
  const std::string sched = custom_scheduler(job);
  if (sched.empty()) return;
  if (facts.scheduler_found == false)
    add("SchedulerNotFound",
        "the pods ask for scheduler \"" + sched + "\", but none of that name was found: if it does not run, they stay Pending for good, " +
            "with no event saying why",
        {"spec.schedulerName: " + sched,
         "no Lease named " + sched + " in any namespace, no pod named " + sched + "* in kube-system, no event from " + sched},
        "check the name (kubectl get pods -A | grep " + sched + "), or leave schedulerName out for the default-scheduler");
  else if (!facts.scheduler_found) {
    Finding f{Finding::Severity::info, "whether scheduler \"" + sched + "\" runs cannot be known: reading Leases or kube-system's pods is forbidden"};
    f.code = "SchedulerUnknown";
    f.evidence = {"spec.schedulerName: " + sched};
    out.push_back(std::move(f));
  }
}

TFJOB_INLINE void QueueCheck::check_gang() {
  // A job whose GPU pods may start partly: several pods with GPUs and no gang
  long long gpu_pods = 0, pods = 0;  // each count is bounded (replica_gpus): a sum of them cannot overflow
  for (const auto& g : replica_gpus(job)) {
    pods += g.replicas;
    if (g.gpus_per_pod > 0) gpu_pods += g.replicas;
  }
  const bool gang = sp.is_object() && sp.contains("minAvailable");
  if (facts.systems.gang() && gpu_pods > 1 && !gang && local_queue.empty()) {
    const std::string which = facts.systems.volcano ? "Volcano" : "scheduler-plugins' coscheduling";
    add("NoGangScheduling",
        std::to_string(gpu_pods) + " pods ask for GPUs without gang scheduling, on a cluster that has " + which +
            ": some may start and hold their GPUs while the rest wait, and two such jobs can block each other",
        {std::to_string(gpu_pods) + " GPU pods of " + std::to_string(pods)},
        "set runPolicy.schedulingPolicy.minAvailable to " + std::to_string(pods) + " (every replica)");
  }
}

}  // namespace detail

TFJOB_INLINE std::vector<Finding> queue_findings(const nlohmann::json& job, const QueueFacts& facts) {
  detail::QueueCheck q(job, facts);
  q.check_local_queue();
  q.check_volcano_queue();
  // Kueue admits a Workload only when its ClusterQueue's quota covers it, each pod set from
  // one flavor (pkg/scheduler/flavorassigner): a quota that can never cover the job is said now
  q.check_cluster_queue();
  q.check_gpu_quota();
  q.check_scheduler();
  q.check_gang();
  return std::move(q.out);
}

TFJOB_INLINE std::optional<bool> scheduler_seen(kube::Client& c, const std::string& name) {
  bool readable = false;
  try {
    for (const auto& l : list_items(c, resources::leases(), ""))
      if (detail::str_at(l, "/metadata/name"_json_pointer) == name) return true;
    readable = true;
  } catch (const api_error& e) {
    if (!e.is_forbidden() && !e.is_not_found()) throw;
  }
  try {
    for (const auto& p : list_items(c, resources::pods(), "kube-system"))
      if (detail::str_at(p, "/metadata/name"_json_pointer).rfind(name, 0) == 0) return true;
    readable = true;
  } catch (const api_error& e) {
    if (!e.is_forbidden()) throw;
  }
  // a scheduler records its events as its schedulerName (kube-scheduler's per-profile
  // recorder; Volcano's "volcano"): one event from that source in any namespace is enough
  // (the core/v1 Event field selector `source`; events expire, so none proves nothing alone)
  try {
    kube::ListParams p;
    p.field_selector = "source=" + name;
    p.limit = 1;
    const auto page = c.request_json(kube::RequestBuilder(resources::events(), "").list(p));
    const auto items = tfjob::detail::value_at(page, "items", nlohmann::json::array());
    if (items.is_array() && !items.empty()) return true;
    readable = true;
  } catch (const api_error& e) {
    if (!e.is_forbidden() && e.code() != 400) throw;  // 400: a server that cannot select events by source
  }
  return readable ? std::optional<bool>(false) : std::nullopt;
}

TFJOB_INLINE std::vector<Finding> check_queues(kube::Client& c, const std::string& ns, const nlohmann::json& job) {
  QueueFacts f;
  f.systems = detect_queue_systems(c);
  auto exists = [&](const kube::ResourceInfo& r, const std::string& in_ns, const std::string& name) -> std::optional<bool> {
    try {
      c.request_json(kube::RequestBuilder(r, in_ns).get(name));
      return true;
    } catch (const api_error& e) {
      if (e.is_not_found()) return false;
      if (e.is_forbidden()) return std::nullopt;
      throw;
    }
  };
  const auto labels = tfjob::detail::value_at(job, "/metadata/labels"_json_pointer, nlohmann::json::object());
  const std::string local_queue = labels.is_object() ? detail::str_at(labels, kueue_queue_name_label) : "";
  if (f.systems.kueue && !local_queue.empty()) {
    try {
      auto lq = get_opt(c, resources::kueue_local_queues(), ns, local_queue);
      f.local_queue_exists = lq.has_value();
      if (lq) f.cluster_queue_name = detail::str_at(*lq, "/spec/clusterQueue"_json_pointer);
      if (!f.cluster_queue_name.empty()) {
        f.cluster_queue = get_opt(c, resources::kueue_cluster_queues(), "", f.cluster_queue_name);
        f.cluster_queue_missing = !f.cluster_queue;
      }
    } catch (const api_error& e) {
      if (!e.is_forbidden()) throw;  // a ClusterQueue a user may not read: its quota is unknown, nothing said
    }
  }
  if (const std::string sched = custom_scheduler(job); !sched.empty()) f.scheduler_found = scheduler_seen(c, sched);
  const std::string queue = detail::str_at(job, "/spec/runPolicy/schedulingPolicy/queue"_json_pointer);
  if (f.systems.volcano && !queue.empty()) f.volcano_queue_exists = exists(resources::volcano_queues(), "", queue);
  nlohmann::json j = job;
  j["metadata"]["namespace"] = ns;
  return queue_findings(j, f);
}

namespace detail {

/// A condition of `type` in `obj`'s status.conditions, or null.
TFJOB_INLINE nlohmann::json condition(const nlohmann::json& obj, const std::string& type) {
  const auto cs = tfjob::detail::value_at(obj, "/status/conditions"_json_pointer, nlohmann::json::array());
  if (cs.is_array())
    for (const auto& c : cs)
      if (c.is_object() && tfjob::detail::value_at(c, "type", nlohmann::json()) == type) return c;
  return nlohmann::json::object();  // absent: an empty object, so value() stays safe
}

TFJOB_INLINE std::string cond_text(const nlohmann::json& c, const std::string& type) {
  if (!c.is_object() || c.empty()) return type + " not set";
  std::string s = type + " " + detail::value_at(c, "status", "Unknown");
  const std::string r = detail::str_at(c, "reason"), m = detail::str_at(c, "message");
  if (!r.empty()) s += " (" + r + ")";
  if (!m.empty()) s += ": " + m;
  return s;
}

TFJOB_INLINE bool owned_by(const nlohmann::json& obj, const nlohmann::json& job) {
  const std::string uid = str_at(job, "/metadata/uid"_json_pointer), name = str_at(job, "/metadata/name"_json_pointer);
  const auto refs = tfjob::detail::value_at(obj, "/metadata/ownerReferences"_json_pointer, nlohmann::json::array());
  if (!refs.is_array()) return false;
  for (const auto& r : refs) {
    if (!r.is_object()) continue;
    if (!uid.empty() && detail::str_at(r, "uid") == uid) return true;
    if (uid.empty() && detail::str_at(r, "kind") == tfjob::kind && detail::str_at(r, "name") == name) return true;
  }
  return false;
}

/// A count the server reports at `p`, or -1 when there is none.
TFJOB_INLINE long long count_at(const nlohmann::json& o, const nlohmann::json::json_pointer& p) { return value_at(o, p, -1LL); }

}  // namespace detail

TFJOB_INLINE QueueState gather_queue_state(kube::Client& c, const std::string& ns, const nlohmann::json& job) {
  QueueState q;
  QueueSystems sys;
  try {
    sys = detect_queue_systems(c);
  } catch (const tfjob::error&) {
    return q;
  }
  auto optional_read = [](auto fn) {
    try {
      fn();
    } catch (const tfjob::error&) {
      // 403, 404, or a server error: that fact stays unknown
    }
  };
  const std::string name = detail::str_at(job, "/metadata/name"_json_pointer);
  if (sys.kueue) {
    optional_read([&] {
      // Kueue labels a job's Workload with the job's uid (kueue pkg/controller/constants:
      // JobUIDLabel), so one selector finds it in a namespace of any size; only when it finds
      // none (no Workload yet, or a Kueue older than the label) is the namespace's list read
      const std::string uid = detail::str_at(job, "/metadata/uid"_json_pointer);
      kube::ListParams lp;
      if (!uid.empty()) lp.label_selector = std::string(kueue_job_uid_label) + "=" + uid;
      for (auto& w : list_items(c, resources::kueue_workloads(), ns, lp))
        if (detail::owned_by(w, job)) q.workloads.push_back(std::move(w));
      if (q.workloads.empty() && !uid.empty())
        for (auto& w : list_items(c, resources::kueue_workloads(), ns))
          if (detail::owned_by(w, job)) q.workloads.push_back(std::move(w));
      q.workloads_read = true;
    });
    std::string lq = detail::str_at(job, nlohmann::json::json_pointer("/metadata/labels/" + std::string("kueue.x-k8s.io~1queue-name")));
    if (!q.workloads.empty() && lq.empty()) lq = detail::str_at(q.workloads.front(), "/spec/queueName"_json_pointer);
    if (!lq.empty()) optional_read([&] { q.local_queue = get_opt(c, resources::kueue_local_queues(), ns, lq); });
    std::string cq = q.local_queue ? detail::str_at(*q.local_queue, "/spec/clusterQueue"_json_pointer) : "";
    if (cq.empty() && !q.workloads.empty()) cq = detail::str_at(q.workloads.front(), "/status/admission/clusterQueue"_json_pointer);
    if (!cq.empty()) optional_read([&] { q.cluster_queue = get_opt(c, resources::kueue_cluster_queues(), "", cq); });
  }
  if (!name.empty() && sys.volcano)
    optional_read([&] {
      q.pod_group = get_opt(c, resources::volcano_pod_groups(), ns, name);
      if (q.pod_group) q.pod_group_system = "Volcano";
    });
  if (!name.empty() && !q.pod_group && sys.scheduler_plugins)
    optional_read([&] {
      q.pod_group = get_opt(c, resources::scheduler_plugins_pod_groups(), ns, name);
      if (q.pod_group) q.pod_group_system = "scheduler-plugins";
    });
  return q;
}

TFJOB_INLINE std::vector<nlohmann::json> queue_events(kube::Client& c, const std::string& ns, const QueueState& q) {
  if (!q.pod_group) return {};
  try {
    return object_events(c, ns, "PodGroup", detail::str_at(*q.pod_group, "/metadata/name"_json_pointer),
                         detail::str_at(*q.pod_group, "/metadata/uid"_json_pointer));
  } catch (const tfjob::error&) {
    return {};  // best effort, as the rest of the queue state
  }
}

namespace detail {

/// One queue_wait_findings pass over a job that has not finished: what the job says about
/// where it waits (namespace, runPolicy.suspend, Kueue LocalQueue label), the queues' state,
/// and one method per part (Kueue's Workloads, the PodGroup, pods partly Running), each adding
/// its findings to `out` in the order queue_wait_findings calls them.
struct QueueWait {
  const nlohmann::json& job;
  const JobSummary& s;
  const QueueState& q;
  std::vector<Finding> out;
  std::string ns, lq_label;
  bool suspended = false;

  QueueWait(const nlohmann::json& j, const JobSummary& summary, const QueueState& state) : job(j), s(summary), q(state) {
    ns = s.namespace_;
    suspended = detail::bool_at(job, "/spec/runPolicy/suspend"_json_pointer);
    lq_label = detail::str_at(job, nlohmann::json::json_pointer("/metadata/labels/kueue.x-k8s.io~1queue-name"));
  }

  void add(Finding::Severity sev, const char* code, std::string msg, std::vector<std::string> evidence, Text fix) {
    Finding f{sev, std::move(msg)};
    f.code = code;
    f.evidence = std::move(evidence);
    f.fix = std::move(fix);
    out.push_back(std::move(f));
  }

  /// NoWorkload: the job is suspended for Kueue, and Kueue has made no Workload for it.
  void check_no_workload() {
    if (q.workloads_read && q.workloads.empty() && !lq_label.empty() && suspended)
      add(Finding::Severity::warning, "NoWorkload",
          "Kueue has made no Workload for the job, so nothing will admit it: Kueue's TFJob integration may be off",
          {"label kueue.x-k8s.io/queue-name=" + lq_label, "no Workload in namespace " + ns + " owned by the job"},
          "ask the cluster's admins to enable kubeflow.org/tfjob in the Kueue Configuration's integrations.frameworks");
  }

  /// KueueAdmitted (still suspended), or KueueEvicted or QueuedInKueue: where Workload `w`
  /// stands; another job's Workload, or a Finished one, says nothing.
  void check_workload(const nlohmann::json& w) {
    if (!detail::owned_by(w, job)) return;  // another job's
    const std::string wn = detail::str_at(w, "/metadata/name"_json_pointer);
    if (detail::str_at(detail::condition(w, "Finished"), "status") == "True") return;
    const auto reserved = detail::condition(w, "QuotaReserved"), admitted = detail::condition(w, "Admitted"),
               evicted = detail::condition(w, "Evicted");
    const std::string lqn = detail::str_at(w, "/spec/queueName"_json_pointer);
    std::string cqn = q.local_queue ? detail::str_at(*q.local_queue, "/spec/clusterQueue"_json_pointer) : "";
    if (cqn.empty()) cqn = detail::str_at(w, "/status/admission/clusterQueue"_json_pointer);
    std::vector<std::string> ev = {"workload/" + wn + ": " + detail::cond_text(reserved, "QuotaReserved"),
                                   "workload/" + wn + ": " + detail::cond_text(admitted, "Admitted")};
    if (detail::str_at(evicted, "status") == "True") ev.push_back("workload/" + wn + ": " + detail::cond_text(evicted, "Evicted"));
    if (detail::str_at(admitted, "status") == "True") {
      if (suspended)
        add(Finding::Severity::info, "KueueAdmitted",
            "Kueue admitted the job's Workload " + wn + (cqn.empty() ? "" : " in ClusterQueue \"" + cqn + "\"") +
                ": Kueue unsuspends the job and the operator then creates its pods",
            ev, "");
      return;
    }
    const std::string position = queue_position(wn, lqn, cqn, ev);
    const bool was_evicted = detail::str_at(evicted, "status") == "True";
    const bool has_quota = detail::str_at(reserved, "status") == "True";
    std::string why = has_quota ? "its quota is reserved, and it waits for the ClusterQueue's admission checks"
                                : "no quota is reserved for it yet";
    const std::string m = has_quota ? detail::str_at(admitted, "message") : detail::str_at(reserved, "message");
    if (!m.empty()) why += " (Kueue: \"" + m + "\")";
    add(Finding::Severity::warning, was_evicted ? "KueueEvicted" : "QueuedInKueue",
        std::string(was_evicted ? "Kueue evicted the job (" + detail::value_at(evicted, "reason", "Evicted") + ") and it waits in its queue again"
                                : "the job waits in Kueue's queue, not for a node") +
            ": Workload " + wn + " in LocalQueue \"" + lqn + "\"" + (cqn.empty() ? "" : " (ClusterQueue \"" + cqn + "\")") + ": " + why +
            (position.empty() ? "" : "; position " + position + " in the queue"),
        ev,
        "it starts when the ClusterQueue has quota for all its pods; see kubectl get clusterqueue " + (cqn.empty() ? std::string("CQ") : cqn) +
            " -o yaml (quota and usage), or ask for fewer GPUs");
  }

  /// Workload `wn`'s position in its queue ("" when not listed), adding the queues' pending
  /// counts to `ev`.
  std::string queue_position(const std::string& wn, const std::string& lqn, const std::string& cqn, std::vector<std::string>& ev) const {
    // where it stands in the queue: the pending counts, and the position where the
    // ClusterQueue's status.pendingWorkloadsStatus.head lists it (Kueue's queue order)
    std::string position;
    if (q.local_queue) {
      const long long pend = detail::count_at(*q.local_queue, "/status/pendingWorkloads"_json_pointer),
                      adm = detail::count_at(*q.local_queue, "/status/admittedWorkloads"_json_pointer);
      if (pend >= 0) ev.push_back("localqueue/" + lqn + ": " + std::to_string(pend) + " pending" + (adm >= 0 ? ", " + std::to_string(adm) + " admitted" : ""));
    }
    if (q.cluster_queue) {
      const long long pend = detail::count_at(*q.cluster_queue, "/status/pendingWorkloads"_json_pointer);
      if (pend >= 0) ev.push_back("clusterqueue/" + cqn + ": " + std::to_string(pend) + " pending");
      const auto head = tfjob::detail::value_at(*q.cluster_queue, "/status/pendingWorkloadsStatus/head"_json_pointer, nlohmann::json::array());
      if (head.is_array())
        for (std::size_t k = 0; k < head.size(); ++k)
          if (head[k].is_object() && detail::str_at(head[k], "name") == wn && (detail::str_at(head[k], "namespace").empty() || detail::str_at(head[k], "namespace") == ns))
            position = std::to_string(k + 1) + (pend > 0 ? " of " + std::to_string(pend) : std::string());
    }
    return position;
  }

  /// PodGroupWaiting: the job's PodGroup (q.pod_group) still waits and the job is not suspended.
  void check_pod_group(const std::vector<nlohmann::json>& events) {
    // --- the PodGroup: Volcano (Pending, Inqueue, Running) or scheduler-plugins (Pending,
    // PreScheduling, Scheduling, Scheduled, Running...)
    const auto& pg = *q.pod_group;
    const std::string pgn = detail::str_at(pg, "/metadata/name"_json_pointer);
    const std::string phase = detail::str_at(pg, "/status/phase"_json_pointer);
    const bool volcano = q.pod_group_system == "Volcano";
    const bool waiting = phase.empty() || phase == "Pending" || phase == "Inqueue" || phase == "PreScheduling" || phase == "Scheduling";
    if (!waiting || suspended) return;
    const auto mm = tfjob::detail::value_at(pg, "/spec/minMember"_json_pointer, nlohmann::json());
    const std::string min = mm.is_number_integer() ? mm.dump() : "?";
    const std::string queue = detail::str_at(pg, "/spec/queue"_json_pointer);
    std::vector<std::string> ev = {"podgroup/" + pgn + ": phase " + (phase.empty() ? std::string("<none>") : phase) + ", minMember " + min +
                                   (queue.empty() ? "" : ", queue " + queue)};
    const auto cs = tfjob::detail::value_at(pg, "/status/conditions"_json_pointer, nlohmann::json::array());
    if (cs.is_array())
      for (const auto& c : cs)
        if (c.is_object() && detail::str_at(c, "status") == "True" && detail::str_at(c, "type") != "Scheduled")
          ev.push_back("podgroup/" + pgn + ": " + detail::cond_text(c, detail::value_at(c, "type", "?")));
    std::size_t n_ev = 0;
    for (const auto& e : events_for(events, "PodGroup", pgn))
      if (n_ev++ < 5) ev.push_back("event " + detail::str_at(e, "reason") + ": " + detail::str_at(e, "message"));
    std::string msg = volcano
        ? (phase == "Inqueue" ? "the job's Volcano PodGroup is Inqueue: queue \"" + (queue.empty() ? std::string("default") : queue) +
                                    "\" admitted it, and Volcano starts its pods only when " + min + " fit at once"
                              : "the job waits in Volcano queue \"" + (queue.empty() ? std::string("default") : queue) +
                                    "\", not for a node: its PodGroup is " + (phase.empty() ? std::string("not yet placed") : phase) +
                                    " until the queue has room for its minResources")
        : "the job's scheduler-plugins PodGroup is " + (phase.empty() ? std::string("not yet placed") : phase) +
              ": coscheduling starts its pods only when " + min + " fit at once";
    add(Finding::Severity::warning, "PodGroupWaiting", msg, ev,
        volcano ? "kubectl get queue " + (queue.empty() ? std::string("default") : queue) + " -o yaml (its capability and what it has allocated)"
                : "free room for " + min + " pods at once, or lower minAvailable in runPolicy.schedulingPolicy");
  }

  /// The job's pods that are not being deleted, by phase, and the GPUs the Running ones hold.
  struct PodCounts {
    long long held = 0;
    int running = 0, pending = 0, total = 0;
  };

  static PodCounts count_pods(const std::vector<nlohmann::json>& pods) {
    PodCounts n;
    for (const auto& p : pods) {
      const PodInfo i = pod_info(p);
      if (i.deleting) continue;
      ++n.total;
      if (i.phase == "Running") {
        ++n.running;
        const long long g = std::max(0LL, i.gpus);  // saturating: counts come from the server
        n.held = n.held > std::numeric_limits<long long>::max() - g ? std::numeric_limits<long long>::max() : n.held + g;
      }
      if (i.phase == "Pending") ++n.pending;
    }
    return n;
  }

  /// PartlyRunningHoldsGpus: some pods Running with GPUs while others wait Pending, and no
  /// minAvailable covering every replica.
  void check_partly_running(const std::vector<nlohmann::json>& pods) {
    const PodCounts counts = count_pods(pods);
    const auto mav = tfjob::detail::value_at(job, "/spec/runPolicy/schedulingPolicy/minAvailable"_json_pointer, nlohmann::json());
    long long replicas = 0;
    for (const auto& [t, n] : s.spec_replicas) replicas += std::max(0, n);  // a few types of int: no overflow
    const bool whole_gang = mav.is_number_integer() && mav.get<long long>() >= replicas;
    if (counts.held <= 0 || counts.pending <= 0 || whole_gang) return;
    std::vector<std::string> ev;
    for (const auto& p : pods) {
      const PodInfo i = pod_info(p);
      if (!i.deleting && (i.phase == "Pending" || (i.phase == "Running" && i.gpus > 0)))
        ev.push_back("pod " + i.name + ": " + i.phase + (i.gpus > 0 ? ", " + std::to_string(i.gpus) + " GPU(s)" : ""));
    }
    if (mav.is_number_integer()) ev.push_back("runPolicy.schedulingPolicy.minAvailable: " + mav.dump() + " of " + std::to_string(replicas));
    add(Finding::Severity::warning, "PartlyRunningHoldsGpus",
        std::to_string(counts.running) + " of " + std::to_string(counts.total) + " pods run and hold " + std::to_string(counts.held) +
            " GPU(s) while " + std::to_string(counts.pending) +
            " wait(s) Pending: a distributed job does not train until every replica is there, so those GPUs " +
            "are held for nothing, and two such jobs can block each other (training-operator #948, #1264)",
        ev,
        "set runPolicy.schedulingPolicy.minAvailable to " + std::to_string(replicas) +
            " (every replica, " + setting::builder_gang + ") or fewer (" + setting::builder_min_available + ") with a gang scheduler "
            "(" + setting::builder_scheduler_name + " volcano, or scheduler-plugins' coscheduling), or queue it whole with Kueue "
            "(" + setting::builder_local_queue + ")");
  }
};

}  // namespace detail

TFJOB_INLINE std::vector<Finding> queue_wait_findings(const nlohmann::json& job, const std::vector<nlohmann::json>& pods,
                                                      const std::vector<nlohmann::json>& events, const QueueState& q) {
  const JobSummary s = summarize(job);
  if (s.finished()) return {};
  detail::QueueWait w(job, s, q);
  // --- Kueue: the Workload (workload_types.go: QuotaReserved, Admitted, Evicted, Finished)
  w.check_no_workload();
  for (const auto& wl : q.workloads) w.check_workload(wl);
  if (q.pod_group) w.check_pod_group(events);
  // --- partly Running, the rest Pending: the running pods hold their GPUs for nothing
  w.check_partly_running(pods);
  return std::move(w.out);
}

}  // namespace tfjob::workflow
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
