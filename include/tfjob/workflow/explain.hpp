#pragma once
/// \file "Why is my job not done?" — a TFJob explained by the training operator v1.9's own
/// rules (tfjob/api/operator_rules.hpp) from its spec, status, pods and events: what decides
/// success and who it still waits for, each restart and failure (exit code, whether the
/// restart policy retries it, backoffLimit used, activeDeadlineSeconds left), why each
/// Pending pod waits (scheduler, claim, image, quota, gang scheduler, Kueue), and for a
/// Failed job which replica failed first with its termination message and last log lines.
///
/// `explain()` is pure (a stored job state in, findings out); `gather()` reads that state
/// from a cluster. Findings are `tfjob::Finding`s with stable codes (docs/explain.md).

#include <tfjob/api/cluster_words.hpp>
#include <tfjob/api/operator_rules.hpp>
#include <tfjob/api/findings.hpp>
#include <tfjob/api/labels.hpp>
#include <tfjob/api/lint.hpp>
#include <tfjob/api/scheduling.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/logs.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/pods.hpp>
#include <tfjob/workflow/progress.hpp>
#include <tfjob/workflow/queues.hpp>
#include <tfjob/workflow/status.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <ctime>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace tfjob::workflow {

/// Everything an explanation reads. Only `job` is required; the rest makes it more precise.
struct ExplainInput {
  nlohmann::json job;                                 ///< the TFJob as served (spec + status)
  std::vector<nlohmann::json> pods;                   ///< its pods (v1.Pod)
  std::vector<nlohmann::json> events;                 ///< the job's, its pods', claims' and PodGroup's events (v1.Event)
  std::optional<std::vector<nlohmann::json>> nodes;   ///< every node, when readable
  std::map<std::string, nlohmann::json> claims;       ///< claims the job mounts, by name
  std::optional<nlohmann::json> namespace_object;     ///< the job's namespace, when readable
  std::map<std::string, std::vector<std::string>> logs;  ///< last log lines of failed pods, by pod name
  QueueState queue;  ///< its Kueue Workload and queues, its PodGroup (workflow/queues.hpp), when served
  std::time_t now = std::time(nullptr);
};

/// The findings, most pressing first: failures and waits, then restarts, then the success rule.
struct Explanation {
  std::string name, namespace_, state;
  bool pods_gone = false;  ///< the job has no pods (any more): some facts cannot be known
  std::vector<Finding> findings;
};

/// Explain a job from a stored state. Pure.
Explanation explain(const ExplainInput& in);

/// The stable JSON form: `{name, namespace, state, podsGone, findings[]}` (docs/explain.md).
nlohmann::json to_json_value(const Explanation& x);

/// Plain text: one paragraph per finding, its evidence and fix indented under it.
std::string render(const Explanation& x);

/// The short "Why" list `describe` shows on top: warnings and errors, then who the job
/// waits for or what still runs; at most `max` sentences.
std::vector<std::string> why_lines(const Explanation& x, std::size_t max = 6);

namespace detail {
/// The log explain quotes for a pod, by the rule `gather` reads it with: none unless the pod
/// failed (phase Failed, or a container that exited non-zero); the `tensorflow` container's
/// (else the first container's); the crashed attempt's when the pod restarted in place.
struct QuotedLog {
  std::string container;
  bool previous = false;
};
std::optional<QuotedLog> quoted_log(const nlohmann::json& pod);

/// The last `n` lines of a log, each cut at 500 bytes (a log line can be long).
std::vector<std::string> quoted_lines(const std::string& text, int n);
}  // namespace detail

/// An ExplainInput from saved objects (what `kubectl get -o yaml` or `archive` wrote, Lists
/// expanded by parse_objects), sorted by kind as `gather` reads them from a cluster: the TFJob
/// named `name` (the only one when `name` is empty; std::nullopt when none is there), its pods
/// by the operator's labels, every Event, Node, PersistentVolumeClaim, Namespace, Kueue
/// Workload and queue, and the PodGroup named after the job. Throws tfjob::error when `name`
/// is empty and several TFJobs are there. `now` stays the caller's: the time the state was saved.
std::optional<ExplainInput> explain_input(const std::vector<nlohmann::json>& objects, const std::string& name = {});

/// Read what `explain` needs from the cluster: the job (std::nullopt when absent), its pods,
/// their events and the job's (each object's by its field selector, never the namespace's),
/// nodes (node_facts) and the namespace (when readable), the claims it mounts, and
/// the last `log_lines` lines of each failed pod's `tensorflow` container.
std::optional<ExplainInput> gather(kube::Client& c, const std::string& ns, const std::string& name, int log_lines = 10);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
namespace tfjob::workflow {

namespace detail {
TFJOB_INLINE Finding finding(Finding::Severity s, const char* code, std::string replica, std::string message,
                             std::vector<std::string> evidence = {}, Text fix = {}) {
  Finding f;
  f.severity = s;
  f.code = code;
  f.replica = std::move(replica);
  f.message = std::move(message);
  f.evidence = std::move(evidence);
  f.fix = std::move(fix);
  return f;
}
/// The replica type as the spec spells it, for a pod's lower-case label ("worker" -> "Worker").
TFJOB_INLINE std::string spec_type(const nlohmann::json& specs, const std::string& lower_type) {
  for (const auto& [t, v] : specs.items())
    if (lower(t) == lower_type) return t;
  return lower_type;
}
TFJOB_INLINE std::string join(const std::vector<std::string>& v, const std::string& sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}
/// The terminated state that matters for a pod: the `tensorflow` container's current, else its last.
struct Termination {
  std::string container;
  int exit_code = 0;
  std::string reason, message, finished_at;
  bool current = false;  ///< state.terminated (else lastState.terminated)
};
TFJOB_INLINE std::optional<Termination> termination(const nlohmann::json& pod) {
  const auto statuses = tfjob::detail::value_at(pod, "/status/containerStatuses"_json_pointer, nlohmann::json::array());
  std::vector<nlohmann::json> ordered;
  for (const auto& c : statuses) if (tfjob::detail::value_at(c, "name", "") == "tensorflow") ordered.push_back(c);
  for (const auto& c : statuses) if (tfjob::detail::value_at(c, "name", "") != "tensorflow") ordered.push_back(c);
  for (const auto& c : ordered)
    for (const char* where : {"/state/terminated", "/lastState/terminated"}) {
      nlohmann::json::json_pointer p(where);
      if (!c.contains(p) || !c[p].is_object() || !c[p].contains("exitCode")) continue;
      Termination t;
      t.container = tfjob::detail::value_at(c, "name", "");
      t.exit_code = tfjob::detail::value_at(c[p], "exitCode", 0);
      t.reason = tfjob::detail::value_at(c[p], "reason", "");
      t.message = tfjob::detail::value_at(c[p], "message", "");
      t.finished_at = tfjob::detail::value_at(c[p], "finishedAt", "");
      t.current = std::string(where) == "/state/terminated";
      if (t.exit_code != 0 || t.current) return t;
    }
  return std::nullopt;
}
TFJOB_INLINE std::string exit_words(int code, const std::string& reason) {
  std::string s = "exit code " + std::to_string(code);
  if (!reason.empty()) s += " (" + reason + ")";
  if (code > 128 && code < 160) s += ", killed by signal " + std::to_string(code - 128);
  return s;
}

/// One explain() run: the job's facts, read once, and the findings each of the operator's
/// rules adds, in the order they are said (what is urgent, then restarts, then what is so).
struct Explainer {
  struct Failure {
    std::string pod, type, finished_at;
    Termination t;
  };
  using S = Finding::Severity;

  const ExplainInput& in;
  const JobSummary s;
  const nlohmann::json specs, rp;
  const rules::SuccessRule rule;
  const std::string clean;
  std::vector<nlohmann::json> pods;  ///< the pods not being deleted, in replica order
  std::vector<Finding> urgent, restarts, info;
  std::vector<Finding> held;  ///< PartlyRunningHoldsGpus: said after the waiting pods' own reasons
  std::vector<Failure> failures;
  int backoff_restarts = 0;

  explicit Explainer(const ExplainInput& input)
      : in(input),
        s(summarize(in.job)),
        specs(tfjob::detail::value_at(in.job, "/spec/tfReplicaSpecs"_json_pointer, nlohmann::json::object())),
        rp(tfjob::detail::value_at(in.job, "/spec/runPolicy"_json_pointer, nlohmann::json::object())),
        rule(rules::success_rule(in.job)),
        clean(tfjob::detail::value_at(rp, "cleanPodPolicy", "None")) {
    for (const auto& p : in.pods)
      if (!pod_info(p).deleting) pods.push_back(p);
    sort_pods(pods);
  }
  bool pods_gone() const { return pods.empty(); }

  /// suspended (runPolicy.suspend; Kueue suspends a job until its queue admits it)
  void suspended() {
    if (tfjob::detail::value_at(rp, "suspend", false) || s.state == "Suspended") {
      const auto labels = tfjob::detail::value_at(in.job, "/metadata/labels"_json_pointer, nlohmann::json::object());
      const std::string queue = tfjob::detail::value_at(labels, "kueue.x-k8s.io/queue-name", "");
      if (!queue.empty())
        urgent.push_back(finding(S::warning, "SuspendedByKueue", "",
                                 "the job is suspended by Kueue: it waits in LocalQueue \"" + queue +
                                     "\" until the ClusterQueue has quota for all its pods; no pod is created before",
                                 {"runPolicy.suspend: true", "label kueue.x-k8s.io/queue-name=" + queue},
                                 "kubectl get workloads -n " + s.namespace_ + " (its Admitted condition says what it waits for)"));
      else
        urgent.push_back(finding(S::warning, "Suspended", "", "the job is suspended (runPolicy.suspend: true): the operator deleted its pods and creates none until it is resumed",
                                 {"runPolicy.suspend: true"}, "set runPolicy.suspend to false to resume it"));
    }
  }

  /// waiting in a queue, not for a node (Kueue's Workload, the PodGroup), or partly Running
  /// and holding GPUs (workflow/queues.hpp) (a job partly Running is said after the waiting
  /// pods' own reasons)
  void queues() {
    for (auto& f : queue_wait_findings(in.job, pods, in.events, in.queue))
      (f.code == "PartlyRunningHoldsGpus" ? held : urgent).push_back(std::move(f));
  }

  /// pods the operator could not create (quota, admission): its FailedCreatePod events
  void create_failures() {
    for (const auto& e : events_for(in.events, tfjob::kind, s.name)) {
      const std::string reason = tfjob::detail::value_at(e, "reason", ""), msg = tfjob::detail::value_at(e, "message", "");
      if (reason != "FailedCreatePod" && msg.find("exceeded quota") == std::string::npos) continue;
      const bool quota = msg.find("exceeded quota") != std::string::npos;
      urgent.push_back(finding(S::warning, quota ? "QuotaExceeded" : "PodCreateFailed", "",
                               quota ? "the operator cannot create pods: the namespace's ResourceQuota is exhausted"
                                     : "the operator cannot create pods: the API server refused them",
                               {"event " + reason + ": " + msg},
                               quota ? "free quota (kubectl describe resourcequota -n " + s.namespace_ + ") or ask for less" : ""));
    }
  }

  /// Each pod: pending reasons, restarts and failures.
  void each_pod() {
    for (const auto& pod : pods) {
      const PodInfo i = pod_info(pod);
      const std::string type = detail::spec_type(specs, i.replica_type);
      const nlohmann::json rs = specs.contains(type) ? specs[type] : nlohmann::json::object();
      const std::string policy = rules::restart_policy_of(rs);
      const std::string who = "pod " + i.name;
      if (i.phase == "Pending") {
        pending(pod, i, type, who);
        continue;
      }
      if (i.phase == "Running") sidecar(pod, type, who);
      native_sidecars(i, type, policy, who);
      ended(pod, i, type, policy, who);
    }
  }

  /// A Pending pod: what the scheduler, the kubelet or a gang scheduler says holds it back.
  void pending(const nlohmann::json& pod, const PodInfo& i, const std::string& type, const std::string& who) {
    const auto why = pending_reason(pod, in.events);
    if (why && (why->reason == "FailedScheduling" || why->reason == "Unschedulable")) return unschedulable(pod, i, type, who, *why);
    if (why && words::image_pull_problem(why->reason)) return image_pull_failed(pod, type, who, *why);
    // a pod a gang scheduler holds back: no default-scheduler verdict, another scheduler's name
    const std::string sched = tfjob::detail::value_at(pod, "/spec/schedulerName"_json_pointer, std::string("default-scheduler"));
    if ((sched != "default-scheduler" || rp.contains("schedulingPolicy")) && i.node.empty()) return gang_not_satisfied(type, who, sched);
    if (why) not_started(i, type, who, *why);
  }

  /// The scheduler said no: a claim, too few GPUs, no node that matches, or its own words
  /// (read in each minor's words, 1.20-1.36: api/cluster_words.hpp).
  void unschedulable(const nlohmann::json& pod, const PodInfo& i, const std::string& type, const std::string& who, const PendingReason& why) {
    const std::string& m = why.message;
    std::vector<std::string> ev = {who + ": " + why.reason + ": " + m};
    const auto w = words::read_scheduler_message(m);
    if (w.claim) return claims_not_bound(pod, type, who, m, ev);
    if (!w.insufficient.empty()) return insufficient(pod, i, type, who, m, w.insufficient.front(), ev);
    if (w.selector || w.taint) return no_node_matches(pod, type, who, w.taint && !w.selector, ev);
    urgent.push_back(finding(S::warning, "Unschedulable", type, who + " waits for the scheduler: " + m, ev,
                             w.enforced_affinity ? "the scheduler's profile adds a node affinity (addedAffinity) no node matches: "
                                                   "a cluster administrator's setting, not the job's"
                             : w.cordoned        ? "the nodes that would fit are cordoned (kubectl uncordon NODE)"
                                                 : ""));
  }

  /// Which claim the pod waits for, and why it is not bound.
  void claims_not_bound(const nlohmann::json& pod, const std::string& type, const std::string& who, const std::string& m, std::vector<std::string> ev) {
    for (const auto& v : tfjob::detail::value_at(pod, "/spec/volumes"_json_pointer, nlohmann::json::array())) {
      if (!v.contains("persistentVolumeClaim")) continue;
      const std::string cn = tfjob::detail::value_at(v["persistentVolumeClaim"], "claimName", "");
      auto it = in.claims.find(cn);
      std::string reason;
      if (it == in.claims.end()) {
        reason = m.find("not found") != std::string::npos ? "it does not exist" : "";
      } else if (tfjob::detail::value_at(it->second, "/status/phase"_json_pointer, std::string()) != "Bound") {
        reason = pvc_pending_reason(it->second, in.events);
        auto modes = tfjob::detail::value_at(it->second, "/spec/accessModes"_json_pointer, nlohmann::json::array());
        ev.push_back("persistentvolumeclaim/" + cn + ": " + tfjob::detail::value_at(it->second, "/status/phase"_json_pointer, std::string("Pending")) +
                     ", accessModes " + modes.dump() + ", storageClassName " +
                     tfjob::detail::value_at(it->second, "/spec/storageClassName"_json_pointer, std::string("<none>")));
        if (reason.empty()) reason = "it is not bound yet";
      } else {
        continue;
      }
      urgent.push_back(finding(S::warning, "ClaimNotBound", type,
                               who + " waits for claim \"" + cn + "\": " + (reason.empty() ? "it is not bound" : reason), ev,
                               it == in.claims.end() ? "create the claim " + cn
                                                     : "give the claim a StorageClass that can provision it (or a matching PersistentVolume)"));
    }
  }

  /// Too little of a resource: for GPUs, the nodes that come closest.
  void insufficient(const nlohmann::json& pod, const PodInfo& i, const std::string& type, const std::string& who, const std::string& m,
                    const std::string& res, std::vector<std::string> ev) {
    if (in.nodes && res == "nvidia.com/gpu") {
      // the nodes that come closest: the most free GPUs among those the pod may use
      std::vector<std::pair<long long, std::string>> closest;
      for (const auto& n : *in.nodes) {
        if (!scheduling::node_fit(tfjob::detail::value_at(pod, "spec", nlohmann::json::object()), n).ok()) continue;
        const std::string nn = tfjob::detail::value_at(n, "/metadata/name"_json_pointer, std::string());
        long long alloc = integer_quantity(tfjob::detail::value_at(n, "/status/allocatable"_json_pointer, nlohmann::json::object()).value(res, nlohmann::json(0)));
        if (alloc <= 0) continue;
        long long used = 0;
        for (const auto& p : in.pods)
          if (tfjob::detail::value_at(p, "/spec/nodeName"_json_pointer, std::string()) == nn && tfjob::detail::value_at(p, "/status/phase"_json_pointer, std::string()) != "Succeeded" &&
              tfjob::detail::value_at(p, "/status/phase"_json_pointer, std::string()) != "Failed")
            used += pod_spec_gpus(tfjob::detail::value_at(p, "spec", nlohmann::json::object()));
        closest.emplace_back(alloc - used, nn + ": allocatable " + std::to_string(alloc) + " " + res + ", " +
                                               std::to_string(used) + " taken by pods of this job");
      }
      std::stable_sort(closest.begin(), closest.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      for (size_t k = 0; k < closest.size() && k < 3; ++k) ev.push_back("node " + closest[k].second);
    }
    urgent.push_back(finding(S::warning, res == "nvidia.com/gpu" ? "InsufficientGpu" : "InsufficientResource", type,
                             who + " waits: no node it may use has " + std::to_string(i.gpus) + " free " + res +
                                 (res == "nvidia.com/gpu" ? "" : " for it") + " (the scheduler: \"" + m + "\")",
                             ev, "wait for GPUs to free up, or ask for fewer GPUs per pod"));
  }

  /// No node matches the pod's nodeSelector/affinity, or every node has a taint it does not tolerate.
  void no_node_matches(const nlohmann::json& pod, const std::string& type, const std::string& who, bool taint, std::vector<std::string> ev) {
    if (in.nodes) {
      std::vector<scheduling::NodeFit> fits;
      for (const auto& n : *in.nodes) fits.push_back(scheduling::node_fit(tfjob::detail::value_at(pod, "spec", nlohmann::json::object()), n));
      std::stable_sort(fits.begin(), fits.end(), [](const auto& a, const auto& b) { return a.misses() < b.misses(); });
      for (size_t k = 0; k < fits.size() && k < 3; ++k) {
        if (fits[k].ok()) continue;
        std::vector<std::string> why_not;
        for (const auto& sm : fits[k].selector_misses) why_not.push_back("lacks " + sm);
        for (const auto& tt : fits[k].untolerated_taints) why_not.push_back("taint " + tt + " not tolerated");
        if (!fits[k].schedulable) why_not.push_back("cordoned");
        ev.push_back("node " + fits[k].node + ": " + detail::join(why_not));
      }
    }
    urgent.push_back(finding(S::warning, taint ? "TaintNotTolerated" : "NodeSelectorMismatch", type,
                             who + " waits: no node matches its " + (taint ? "tolerations (every node has a taint it does not tolerate)"
                                                                            : "nodeSelector/affinity") +
                                 "; the closest nodes are listed",
                             ev, taint ? "add the toleration the closest node needs" : "fix the nodeSelector to labels a node has"));
  }

  /// The kubelet cannot pull the image.
  void image_pull_failed(const nlohmann::json& pod, const std::string& type, const std::string& who, const PendingReason& why) {
    std::string image;
    for (const auto& c : tfjob::detail::value_at(pod, "/spec/containers"_json_pointer, nlohmann::json::array()))
      if (tfjob::detail::value_at(c, "name", "") == "tensorflow" || image.empty()) image = tfjob::detail::value_at(c, "image", "");
    urgent.push_back(finding(S::warning, "ImagePullFailed", type,
                             who + " cannot pull image " + image + (why.message.empty() ? "" : ": " + why.message),
                             {who + ": " + why.reason}, "check the image name and tag, and the pull secret for a private registry"));
  }

  /// A gang scheduler holds the pod back until the whole job fits.
  void gang_not_satisfied(const std::string& type, const std::string& who, const std::string& sched) {
    std::vector<std::string> ev = {who + ": schedulerName " + sched};
    std::string min = rp.contains("/schedulingPolicy/minAvailable"_json_pointer) ? rp["/schedulingPolicy/minAvailable"_json_pointer].dump() : "";
    for (const auto& e : in.events)
      if (tfjob::detail::value_at(e, "/involvedObject/kind"_json_pointer, std::string()) == "PodGroup" &&
          tfjob::detail::value_at(e, "/involvedObject/name"_json_pointer, std::string()).find(s.name) != std::string::npos)
        ev.push_back("podgroup event " + tfjob::detail::value_at(e, "reason", "") + ": " + tfjob::detail::value_at(e, "message", ""));
    int total = 0;
    for (const auto& [t, n] : s.spec_replicas) total = bounded_sum(total, n);
    urgent.push_back(finding(S::warning, "GangNotSatisfied", type,
                             who + " waits for the gang scheduler (" + sched + "): its PodGroup places the job's pods only " +
                                 "all together (minAvailable " + (min.empty() ? std::to_string(total) : min) +
                                 "), and the cluster cannot fit them all yet, so none starts (training-operator #948)",
                             ev, "free room for the whole job, or lower minAvailable in runPolicy.schedulingPolicy"));
  }

  /// Scheduled, not started: a mount that fails is in the pod's events.
  void not_started(const PodInfo& i, const std::string& type, const std::string& who, const PendingReason& why) {
    std::vector<std::string> ev = {who + ": " + why.reason + (why.message.empty() ? "" : " (" + why.message + ")")};
    std::string code = "ContainerWaiting";
    std::string msg = who + " is scheduled on " + i.node + " but not started: " + why.reason;
    for (const auto& e : events_for(in.events, "Pod", i.name, i.uid)) {
      const std::string r = tfjob::detail::value_at(e, "reason", "");
      if (r == "FailedMount" || r == "FailedAttachVolume") {
        code = "VolumeAttachFailed";
        msg = who + " cannot mount its volumes on " + i.node + ": " + tfjob::detail::value_at(e, "message", "");
        ev.push_back("event " + r + ": " + tfjob::detail::value_at(e, "message", ""));
      }
    }
    urgent.push_back(finding(S::warning, code.c_str(), type, msg, ev));
  }

  /// The Istio sidecar keeps a pod Running after the trainer exited (kubeflow #3935). A
  /// container of the pod only: a native sidecar (an init container with restartPolicy
  /// Always, 1.28+) is stopped by the kubelet once the containers have ended, so it never
  /// keeps the pod Running (KEP-753), and it is not listed in containerStatuses.
  void sidecar(const nlohmann::json& pod, const std::string& type, const std::string& who) {
    const auto statuses = tfjob::detail::value_at(pod, "/status/containerStatuses"_json_pointer, nlohmann::json::array());
    bool tf_done = false;
    std::vector<std::string> still;
    for (const auto& c : statuses) {
      if (tfjob::detail::value_at(c, "name", "") == "tensorflow" && c.contains("/state/terminated"_json_pointer)) tf_done = true;
      else if (c.contains("/state/running"_json_pointer)) still.push_back(tfjob::detail::value_at(c, "name", ""));
    }
    if (tf_done && !still.empty()) {
      const bool istio = std::find(still.begin(), still.end(), "istio-proxy") != still.end();
      urgent.push_back(finding(S::warning, "SidecarKeepsPodRunning", type,
                               who + ": the trainer exited but container(s) " + detail::join(still) +
                                   " keep running, so the pod stays Running and the operator never sees the replica finish" +
                                   (istio ? " (the Istio sidecar: kubeflow/kubeflow #3935)" : ""),
                               {who + ": tensorflow terminated, " + detail::join(still) + " running"},
                               istio ? "add the annotation sidecar.istio.io/inject: \"false\" to the replica templates, or run Istio's "
                                               "native sidecars (ENABLE_NATIVE_SIDECARS, Kubernetes 1.29 and later), which end with the pod"
                                     : "make the sidecar exit when the trainer does, or make it a native sidecar (an init container with "
                                       "restartPolicy: Always, Kubernetes 1.29 and later), which the kubelet stops when the trainer exits"));
    }
  }

  /// A native sidecar that restarted: said with its count, as it never decides the replica's
  /// end; under OnFailure/Always its restarts count toward backoffLimit (training operator v1.9
  /// pkg/core/job.go PastBackoffLimit sums InitContainerStatuses' restartCount too).
  void native_sidecars(const PodInfo& i, const std::string& type, const std::string& policy, const std::string& who) {
    for (const auto& [name, n] : i.sidecars) {
      if (n <= 0) continue;
      restarts.push_back(finding(S::info, "SidecarRestarted", type,
                                 who + ": sidecar " + name + " (an init container with restartPolicy: Always) restarted " +
                                     std::to_string(n) + " time(s); the kubelet restarts it whatever the pod's restartPolicy, and "
                                     "it does not decide whether the replica succeeds" +
                                     (rules::counts_toward_backoff(policy) ? ", but its restarts count toward backoffLimit" : ""),
                                 {who + ": initContainerStatuses " + name + " restartCount " + std::to_string(n)},
                                 "kubectl logs " + i.name + " -c " + name + " --previous"));
    }
  }

  /// Restarts in place (kubelet) and the failure that ended a pod.
  void ended(const nlohmann::json& pod, const PodInfo& i, const std::string& type, const std::string& policy, const std::string& who) {
    auto t = detail::termination(pod);
    if (i.restarts > 0 && rules::counts_toward_backoff(policy) && i.phase == "Running") backoff_restarts = bounded_sum(backoff_restarts, i.restarts);
    if (!t || t->exit_code == 0) return;
    std::vector<std::string> ev = {who + ": container " + t->container + " " + detail::exit_words(t->exit_code, t->reason) +
                                   (i.restarts ? ", " + std::to_string(i.restarts) + " restart(s)" : "")};
    if (!t->message.empty()) ev.push_back(who + ": termination message: " + t->message);
    if (policy == "ExitCode") {
      if (rules::exit_code_retryable(t->exit_code))
        restarts.push_back(finding(S::info, "RetryableExitCode", type,
                                   type + " exited with " + std::to_string(t->exit_code) +
                                       ": restartPolicy ExitCode treats 128 and above as retryable, so the operator deletes and "
                                       "recreates the pod; recreated pods do not count toward backoffLimit, so this repeats "
                                       "without limit while the cause stays (training-operator #1560)",
                                   ev, t->exit_code == 137 ? "137 is SIGKILL, often the OOM killer: raise the memory limit" : ""));
      else
        failures.push_back({i.name, type, t->finished_at, *t});
    } else if (policy == "OnFailure" || policy == "Always") {
      if (i.phase == "Failed") failures.push_back({i.name, type, t->finished_at, *t});
      else if (!t->current || i.restarts > 0)
        restarts.push_back(finding(S::info, "RestartedInPlace", type,
                                   type + " exited with " + std::to_string(t->exit_code) + " and the kubelet restarted it in the same pod (restartPolicy " +
                                       policy + ": every non-zero exit is retried)",
                                   ev));
    } else if (i.phase == "Failed" || t->current) {
      failures.push_back({i.name, type, t->finished_at, *t});
    }
  }

  /// failures: the first one decides; say whether the policy could have retried it
  void first_failure() {
    std::sort(failures.begin(), failures.end(), [](const Failure& a, const Failure& b) { return a.finished_at < b.finished_at; });
    for (size_t k = 0; k < failures.size(); ++k) {
      const auto& f = failures[k];
      const nlohmann::json rs = specs.contains(f.type) ? specs[f.type] : nlohmann::json::object();
      const std::string policy = rules::restart_policy_of(rs);
      std::vector<std::string> ev = {"pod " + f.pod + ": container " + f.t.container + " " + detail::exit_words(f.t.exit_code, f.t.reason) +
                                     (f.finished_at.empty() ? "" : " at " + f.finished_at)};
      if (!f.t.message.empty()) ev.push_back("termination message: " + f.t.message);
      if (auto it = in.logs.find(f.pod); it != in.logs.end())
        for (const auto& l : it->second) ev.push_back("log: " + l);
      std::string why;
      std::string fix;
      if (policy == "ExitCode") {
        why = "restartPolicy ExitCode treats exit codes 1-127 as permanent (only 128 and above, i.e. signals, are retried), so the "
              "replica failed without a retry (training-operator #2045)";
        fix = "exit with a code >= 128 on errors worth retrying, or use restartPolicy OnFailure";
      } else if (policy == "Never") {
        why = "restartPolicy Never does not retry";
        fix = "use restartPolicy OnFailure (with a backoffLimit) to retry failures";
      } else {
        why = "restartPolicy " + policy;
      }
      if (k == 0)
        urgent.push_back(finding(S::error, "FirstFailure", f.type,
                                 f.type + " (pod " + f.pod + ") failed first, with " + detail::exit_words(f.t.exit_code, f.t.reason) + ": " + why,
                                 ev, fix));
      else
        restarts.push_back(finding(S::info, "ReplicaFailed", f.type, f.type + " (pod " + f.pod + ") also failed, with " +
                                                                        detail::exit_words(f.t.exit_code, f.t.reason), ev));
    }
  }

  /// a replica failed for good, yet the job stays Restarting: v1.9's UpdateJobStatus does not
  /// fail a job that has a Restarting condition (it keeps it, "job is restarting, no need to
  /// set it failed"), and only a replica seen Running replaces that condition
  /// (filterOutCondition); a recreated pod that fails before the operator saw it Running
  /// leaves the job so for good
  void stuck_restarting() {
    auto policy_of = [&](const std::string& type) { return rules::restart_policy_of(specs.contains(type) ? specs[type] : nlohmann::json::object()); };
    // (failures holds only exits the policy does not retry, but for OnFailure/Always pods that ended Failed, which are recreated)
    auto for_good = std::find_if(failures.begin(), failures.end(), [&](const Failure& f) { return !rules::counts_toward_backoff(policy_of(f.type)); });
    if (s.state == "Restarting" && for_good != failures.end()) {
      const auto& f = *for_good;
      const std::string policy = policy_of(f.type);
      const bool dl = rp.contains("activeDeadlineSeconds") && rp["activeDeadlineSeconds"].is_number_integer();
      urgent.push_back(finding(
          S::warning, "StuckRestarting", f.type,
          f.type + " (pod " + f.pod + ") failed for good (" + detail::exit_words(f.t.exit_code, f.t.reason) + ", restartPolicy " + policy +
              "), but the job stays Restarting: the operator does not fail a job while it has a Restarting condition, and only a "
              "replica it sees Running clears that condition; this pod failed before it was seen Running, so the job will not end "
              "on its own" + (dl ? std::string(" before activeDeadlineSeconds") : std::string()) +
              " (training operator v1.9 TFJob UpdateJobStatus)",
          {"condition Restarting: " + s.message, "pod " + f.pod + ": Failed, " + detail::exit_words(f.t.exit_code, f.t.reason)},
          "delete the job (" + setting::delete_tfjob + " " + s.name + ") and fix the failure; set runPolicy.activeDeadlineSeconds so such a job ends"));
    }
  }

  /// the operator's restarts (pods it deleted and created again) as its events count them:
  /// one finding per message, the counts of its events summed (a recorder that does not fold
  /// repeats writes one event each time)
  void operator_restarts() {
    std::vector<std::pair<std::string, int>> said;  // message, count (in order)
    std::map<std::string, std::string> reason_of;
    for (const auto& e : events_for(in.events, tfjob::kind, s.name)) {
      const std::string r = tfjob::detail::value_at(e, "reason", "");
      if (r != "TFJobRestarting" && r != "JobRestarting") continue;
      const std::string m = tfjob::detail::value_at(e, "message", "");
      const int n = static_cast<int>(std::max(1LL, bounded_count(tfjob::detail::value_at(e, "count", 1LL))));
      auto it = std::find_if(said.begin(), said.end(), [&](const auto& p) { return p.first == m; });
      if (it == said.end()) said.emplace_back(m, n);
      else it->second = bounded_sum(it->second, n);
      reason_of[m] = r;
    }
    std::vector<std::string> exit_code_types;
    for (const auto& [t, v] : specs.items())
      if (rules::restart_policy_of(v) == "ExitCode") exit_code_types.push_back(t);
    for (const auto& [m, n] : said) {
      std::string msg = "the operator restarted replicas " + std::to_string(n) + " time(s): " + m;
      // ExitCode recreates a pod only after a retryable exit (IsRetryableExitCode): that much is
      // still known once the pod is gone
      if (!exit_code_types.empty())
        msg += " Under restartPolicy ExitCode (" + detail::join(exit_code_types) +
               ") it recreates a pod only after an exit code of 128 or above (a signal: 137 is SIGKILL, often the OOM killer); "
               "the recreated pod's exit code and log went with it";
      restarts.push_back(finding(S::info, "OperatorRestarted", "", msg, {"event " + reason_of[m] + " x" + std::to_string(n)}));
    }
  }

  /// backoffLimit and activeDeadlineSeconds
  void limits() {
    if (rp.contains("backoffLimit") && rp["backoffLimit"].is_number_integer()) {
      const int limit = static_cast<int>(bounded_count(tfjob::detail::value_at(rp, "backoffLimit", 0LL)));
      std::vector<std::string> counted, not_counted;
      for (const auto& [t, v] : specs.items())
        (rules::counts_toward_backoff(rules::restart_policy_of(v)) ? counted : not_counted).push_back(t + " (" + rules::restart_policy_of(v) + ")");
      std::string msg = std::to_string(backoff_restarts) + " of backoffLimit " + std::to_string(limit) + " restarts used";
      if (s.reason.find("Backoff") != std::string::npos || s.message.find("backoff limit") != std::string::npos)
        msg = "the job failed because its pods restarted backoffLimit (" + std::to_string(limit) + ") times";
      msg += counted.empty() ? "; no replica's restarts count (only OnFailure and Always replicas' are)"
                             : "; counted: container restarts of running " + detail::join(counted) + " pods";
      if (!not_counted.empty()) msg += "; not counted: " + detail::join(not_counted);
      restarts.push_back(finding(rules::past_backoff_limit(backoff_restarts, limit) ? S::warning : S::info, "BackoffLimit", "", msg,
                                 {"runPolicy.backoffLimit: " + std::to_string(limit)}));
    }
    if (rp.contains("activeDeadlineSeconds") && rp["activeDeadlineSeconds"].is_number_integer()) {
      const long long limit = bounded_count(tfjob::detail::value_at(rp, "activeDeadlineSeconds", 0LL));
      auto start = parse_time(tfjob::detail::value_at(in.job, "/status/startTime"_json_pointer, std::string()));
      std::string msg;
      Finding::Severity sev = S::info;
      if (s.reason.find("Deadline") != std::string::npos || s.message.find("deadline") != std::string::npos) {
        msg = "the job failed because it ran longer than activeDeadlineSeconds (" + human_duration(limit) + ")";
        sev = S::error;
      } else if (!s.finished() && start) {
        const long long used = bounded_count(static_cast<long double>(in.now) - static_cast<long double>(*start));
        msg = used >= limit ? "activeDeadlineSeconds (" + human_duration(limit) + ") has passed: the operator fails the job at its next sync"
                            : human_duration(used) + " of activeDeadlineSeconds " + human_duration(limit) + " used, " + human_duration(limit - used) + " left";
        if (used >= limit) sev = S::warning;
      } else if (!s.finished()) {
        msg = "activeDeadlineSeconds " + human_duration(limit) + " counts from the job's start, which has not happened yet";
      }
      if (!msg.empty()) restarts.push_back(finding(sev, "ActiveDeadline", "", msg, {"runPolicy.activeDeadlineSeconds: " + std::to_string(limit)}));
    }
  }

  /// what decides success, and who it still waits for
  void success() {
    {
      std::string msg = "success is decided by " + rule.who();
      if (rule.kind == rules::SuccessRule::Kind::chief) msg += ": the job Succeeds when it exits 0";
      if (rule.kind == rules::SuccessRule::Kind::worker0) msg += ": the job Succeeds when it exits 0 (successPolicy default)";
      if (rule.kind == rules::SuccessRule::Kind::all_workers) msg += " (successPolicy AllWorkers): the job Succeeds when the last Worker exits 0";
      if (!rule.bystanders.empty()) msg += "; " + detail::join(rule.bystanders) + " replicas do not decide it";
      if (rule.success_policy_ignored) msg += "; successPolicy AllWorkers is ignored because the job has a " + rule.decider;
      msg += " (training operator v1.9 TFJob UpdateJobStatus)";
      info.push_back(finding(S::info, "SuccessDecidedBy", rule.decider, msg));
    }
    if (!s.finished() && !pods_gone() && s.state != "Suspended") {
      std::vector<std::string> waiting;
      for (const auto& pod : pods) {
        const PodInfo i = pod_info(pod);
        const std::string type = detail::spec_type(specs, i.replica_type);
        if (type != rule.decider) continue;
        if (rule.kind == rules::SuccessRule::Kind::worker0 && i.replica_index != 0) continue;
        if (i.phase == "Running" || i.phase == "Pending") waiting.push_back(i.name + " (" + i.phase + ")");
      }
      if (!waiting.empty())
        info.insert(info.begin(), finding(S::info, "WaitingFor", rule.decider,
                                          "the job is " + (s.state.empty() ? std::string("not started") : s.state) + " because it waits for " +
                                              rule.who() + ": " + detail::join(waiting),
                                          waiting));
    }
  }

  /// replicas that never exit on their own: normal, and what happens to them at the end
  void never_exits() {
    std::vector<std::string> running;
    std::string types;
    for (const auto& pod : pods) {
      const PodInfo i = pod_info(pod);
      const std::string type = detail::spec_type(specs, i.replica_type);
      if (i.phase != "Running") continue;
      if (!(rules::never_exits_on_its_own(type) || (s.finished() && type != rule.decider))) continue;
      running.push_back(i.name);
      if (types.find(type) == std::string::npos) types += (types.empty() ? "" : ", ") + type;
    }
    if (!running.empty()) {
      std::string msg;
      Text fix;
      if (s.state == "Succeeded") {
        msg = types + " pods still run after the job Succeeded: normal, " + (types.find("PS") != std::string::npos || types.find("Evaluator") != std::string::npos
                                                                              ? std::string("parameter servers and evaluators never exit on their own, and ")
                                                                              : std::string()) +
              "they do not decide success; cleanPodPolicy " + clean +
              (clean == "None" ? " leaves them running, holding their resources (training-operator #774)"
                               : " deletes them now that the job is finished");
        if (clean == "None") fix = "set runPolicy.cleanPodPolicy: Running, or delete the job (" + setting::delete_tfjob + " " + s.name + ")";
      } else if (!s.finished()) {
        msg = types + " pods run until the job ends: they never exit on their own and do not decide success, so they do not keep the job "
              "Running; " + (clean == "None" ? std::string("with cleanPodPolicy None they are left running after it ends")
                                             : "cleanPodPolicy " + clean + " deletes them when it ends");
      }
      if (!msg.empty()) info.push_back(finding(S::info, "NeverExitsOnItsOwn", types.find(',') == std::string::npos ? types : "", msg, running, fix));
    }
  }

  /// the pods are gone: say what is still known, and what is not
  void gone() {
    if (pods_gone() && !tfjob::detail::value_at(rp, "suspend", false)) {
      std::vector<std::string> ev;
      for (const auto& [t, c] : s.replicas)
        ev.push_back("status.replicaStatuses." + t + ": active " + std::to_string(c.active) + ", succeeded " + std::to_string(c.succeeded) +
                     ", failed " + std::to_string(c.failed));
      for (const auto& e : events_for(in.events, tfjob::kind, s.name))
        if (tfjob::detail::value_at(e, "type", "") == "Warning" || tfjob::detail::value_at(e, "reason", "").find("Failed") != std::string::npos)
          ev.push_back("event " + tfjob::detail::value_at(e, "reason", "") + ": " + tfjob::detail::value_at(e, "message", ""));
      std::string gone = s.finished()
                             ? "the job's pods are gone (" + (clean == "All" ? std::string("cleanPodPolicy All deleted them")
                                                              : clean == "Running" ? std::string("cleanPodPolicy Running deleted the running ones")
                                                                                    : std::string("deleted")) +
                                   "): exit codes, termination messages and logs can no longer be known; this is what the job's status and events still say"
                             : "the job has no pods yet" + std::string(s.state.empty() ? ": the operator has not seen it (is it running?)" : "");
      if (s.finished() && !s.message.empty()) ev.insert(ev.begin(), "condition " + s.state + ": " + s.message);
      urgent.push_back(finding(s.finished() ? S::info : S::warning, "PodsGone", "", gone, ev,
                               s.finished() ? "keep the logs next time: save them while it runs (" + setting::log_save_task + "), or cleanPodPolicy None"
                                            : Text()));
    }
  }

  /// the spec's own known mistakes (the same rules as lint)
  void spec_rules() {
    lint::Context lc;
    lc.nodes = in.nodes;
    lc.namespace_object = in.namespace_object;
    lc.claims = in.claims;
    lc.logs_kept = true;  // too late to say for this run
    for (auto& f : lint::lint(in.job, lc)) {
      if (f.code == "ExitCodeRetriesSignalsOnly") continue;  // said above per exit code when it matters
      info.push_back(std::move(f));
    }
  }

};

}  // namespace detail

TFJOB_INLINE Explanation explain(const ExplainInput& in) {
  detail::Explainer e(in);
  e.suspended();
  e.queues();
  e.create_failures();
  e.each_pod();
  for (auto& f : e.held) e.urgent.push_back(std::move(f));
  e.first_failure();
  e.stuck_restarting();
  e.operator_restarts();
  e.limits();
  e.success();
  e.never_exits();
  e.gone();
  e.spec_rules();
  Explanation x;
  x.name = e.s.name;
  x.namespace_ = e.s.namespace_;
  x.state = e.s.state;
  x.pods_gone = e.pods_gone();
  for (auto* v : {&e.urgent, &e.restarts, &e.info})
    for (auto& f : *v) x.findings.push_back(std::move(f));
  x.findings = dedupe(std::move(x.findings));
  return x;
}

TFJOB_INLINE nlohmann::json to_json_value(const Explanation& x) {
  nlohmann::json fs = nlohmann::json::array();
  for (const auto& f : x.findings) fs.push_back(tfjob::to_json_value(f));
  return {{"name", x.name}, {"namespace", x.namespace_}, {"state", x.state}, {"podsGone", x.pods_gone}, {"findings", fs}};
}

TFJOB_INLINE std::string render(const Explanation& x) {
  std::ostringstream o;
  // a saved manifest may name no namespace: say where such a job goes, not "TFJob /name"
  if (x.namespace_.empty())
    o << "TFJob " << x.name << " (no namespace in the manifest: it goes to the namespace it is submitted to, the context's, "
      << "\"default\" unless the context names another)";
  else
    o << "TFJob " << x.namespace_ << "/" << x.name;
  o << ": " << (x.state.empty() ? "<no condition yet>" : x.state) << "\n";
  for (const auto& f : x.findings) {
    o << "\n" << (f.severity == Finding::Severity::error ? "✗ " : f.severity == Finding::Severity::warning ? "! " : "- ")
      << f.message << "  [" << f.code << "]\n";
    for (const auto& e : f.evidence) o << "    " << e << "\n";
    if (!f.fix.empty()) o << "    fix: " << f.fix << "\n";
  }
  return o.str();
}

TFJOB_INLINE std::vector<std::string> why_lines(const Explanation& x, std::size_t max) {
  std::vector<std::string> out;
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& f : x.findings) {
      bool urgent = f.severity != Finding::Severity::info;
      bool wanted = pass == 0 ? urgent
                              : (f.code == "WaitingFor" || f.code == "NeverExitsOnItsOwn" || f.code == "RetryableExitCode" ||
                                 f.code == "PodsGone");
      if (wanted && out.size() < max) out.push_back(f.message.str());
    }
  if (out.empty())
    for (const auto& f : x.findings)
      if (f.code == "SuccessDecidedBy") out.push_back(f.message.str());
  return out;
}

namespace detail {
TFJOB_INLINE std::optional<QuotedLog> quoted_log(const nlohmann::json& pod) {
  const PodInfo i = pod_info(pod);
  if (!(i.phase == "Failed" || (i.exit_code && *i.exit_code != 0))) return std::nullopt;
  QuotedLog q;
  for (const auto& ctr : tfjob::detail::arr_at(pod, "/spec/containers"_json_pointer)) {
    const std::string n = tfjob::detail::str_at(ctr, "name");
    if (q.container.empty() || n == "tensorflow") q.container = n;
    if (n == "tensorflow") break;
  }
  q.previous = i.phase != "Failed";
  return q;
}

TFJOB_INLINE std::vector<std::string> quoted_lines(const std::string& text, int n) {
  std::vector<std::string> lines;
  std::istringstream is(text);
  for (std::string l; std::getline(is, l);) lines.push_back(l.size() > 500 ? l.substr(0, 500) + "…" : l);
  if (n >= 0 && lines.size() > static_cast<std::size_t>(n)) lines.erase(lines.begin(), lines.end() - n);
  return lines;
}

/// Whether `pod` carries the job-name label of `job`, in any of the operator's generations.
TFJOB_INLINE bool pod_of_job(const nlohmann::json& pod, const std::string& job) {
  const nlohmann::json l = tfjob::detail::obj_at(pod, "/metadata/labels"_json_pointer);
  for (const char* key : {labels::job_name, labels::legacy::job_name, labels::legacy::tf_job_name})
    if (tfjob::detail::str_at(l, std::string(key)) == job) return true;
  return false;
}
}  // namespace detail

TFJOB_INLINE std::optional<ExplainInput> explain_input(const std::vector<nlohmann::json>& objects, const std::string& name) {
  ExplainInput in;
  std::vector<std::string> jobs;
  for (const auto& d : objects)
    if (tfjob::detail::str_at(d, "kind") == tfjob::kind) {
      const std::string n = tfjob::detail::str_at(d, "/metadata/name"_json_pointer);
      jobs.push_back(n);
      if (name.empty() || n == name) in.job = d;
    }
  if (!in.job.is_object()) return std::nullopt;
  if (name.empty() && jobs.size() > 1) {
    std::string names;
    for (const auto& n : jobs) names += (names.empty() ? "" : ", ") + n;
    throw tfjob::error("several TFJobs are saved here (" + names + "): name the one to explain");
  }
  const std::string job = tfjob::detail::str_at(in.job, "/metadata/name"_json_pointer);
  for (const auto& d : objects) {
    const std::string kind = tfjob::detail::str_at(d, "kind");
    const std::string obj_name = tfjob::detail::str_at(d, "/metadata/name"_json_pointer);
    if (kind == "Pod") {
      if (detail::pod_of_job(d, job)) in.pods.push_back(d);
    } else if (kind == "Event") in.events.push_back(d);
    else if (kind == "Node") {
      if (!in.nodes) in.nodes.emplace();
      in.nodes->push_back(d);
    } else if (kind == "PersistentVolumeClaim") in.claims[obj_name] = d;
    else if (kind == "Namespace") in.namespace_object = d;
    else if (kind == "Workload") {  // explain keeps those the job owns
      in.queue.workloads_read = true;
      in.queue.workloads.push_back(d.get<k8s::Workload>());
    } else if (kind == "LocalQueue") in.queue.local_queue = d.get<k8s::LocalQueue>();
    else if (kind == "ClusterQueue") in.queue.cluster_queue = d.get<k8s::ClusterQueue>();
    else if (kind == "PodGroup" && obj_name == job) {  // the operator v1.9 names it after the job
      in.queue.pod_group = d.get<k8s::PodGroup>();
      in.queue.pod_group_system = in.queue.pod_group->api_version.rfind("scheduling.volcano.sh/", 0) == 0 ? "Volcano" : "scheduler-plugins";
    }
  }
  return in;
}

TFJOB_INLINE std::optional<ExplainInput> gather(kube::Client& c, const std::string& ns, const std::string& name, int log_lines) {
  ExplainInput in;
  auto job = get_opt(c, resources::tfjobs(), ns, name);
  if (!job) return std::nullopt;
  in.job = *job;
  in.pods = job_pods(c, ns, name);
  in.events = job_events(c, ns, in.job, in.pods);  // the job's and its pods', each by its selector
  auto optional_read = [](auto fn) {
    try {
      fn();
    } catch (const api_error& e) {
      if (!e.is_forbidden()) throw;  // what a user may not read makes the explanation less precise, not wrong
    }
  };
  optional_read([&] { in.nodes = list_nodes(c); });
  optional_read([&] { in.namespace_object = get_opt(c, resources::namespaces(), "", ns); });
  in.queue = gather_queue_state(c, ns, in.job);
  for (auto& e : queue_events(c, ns, in.queue)) in.events.push_back(std::move(e));
  const nlohmann::json specs = tfjob::detail::value_at(in.job, "/spec/tfReplicaSpecs"_json_pointer, nlohmann::json::object());
  for (const auto& [t, rs] : specs.items())
    for (const auto& v : tfjob::detail::value_at(rs, "/template/spec/volumes"_json_pointer, nlohmann::json::array())) {
      if (!v.contains("persistentVolumeClaim")) continue;
      const std::string cn = tfjob::detail::value_at(v["persistentVolumeClaim"], "claimName", "");
      if (cn.empty() || in.claims.count(cn)) continue;
      optional_read([&] {
        if (auto pvc = get_opt(c, resources::pvcs(), ns, cn)) {
          // a claim not bound is explained by its own events
          if (tfjob::detail::value_at(*pvc, "/status/phase"_json_pointer, std::string()) != "Bound")
            for (auto& e : object_events(c, ns, "PersistentVolumeClaim", cn, tfjob::detail::str_at(*pvc, "/metadata/uid"_json_pointer)))
              in.events.push_back(std::move(e));
          in.claims[cn] = *pvc;
        }
      });
    }
  if (log_lines > 0)
    for (const auto& p : in.pods) {
      const auto q = detail::quoted_log(p);
      if (!q) continue;
      kube::LogParams lp;
      lp.tail_lines = log_lines;
      lp.limit_bytes = 64 * 1024;  // bounded: a log line can be long
      lp.container = q->container;
      lp.previous = q->previous;
      const std::string pod = tfjob::detail::str_at(p, "/metadata/name"_json_pointer);
      try {
        in.logs[pod] = detail::quoted_lines(kube::get_logs(c, ns, pod, lp), log_lines);
      } catch (const tfjob::error&) {
        // a log the kubelet no longer has is one fact less, not a failure of the explanation
      }
    }
  return in;
}

}  // namespace tfjob::workflow
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
