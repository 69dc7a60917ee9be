#pragma once
/// \file The bodies of <tfjob/workflow/queue_wait.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/queue_wait.hpp>, never this file.

namespace tfjob::workflow {

namespace detail {

TFJOB_INLINE bool owned_by(const ObjectMeta& obj, const ObjectMeta& job) {
  for (const auto& r : obj.owner_references) {
    if (!job.uid.empty() && r.uid == job.uid) return true;
    if (job.uid.empty() && r.kind == tfjob::kind && r.name == job.name) return true;
  }
  return false;
}

/// "type status (reason): message" of condition `c`, or "type not set".
TFJOB_INLINE std::string cond_text(const k8s::Condition* c, const std::string& type) {
  if (!c) return type + " not set";
  std::string s = type + " " + (c->status.empty() ? std::string("Unknown") : c->status);
  if (!c->reason.empty()) s += " (" + c->reason + ")";
  if (!c->message.empty()) s += ": " + c->message;
  return s;
}

TFJOB_INLINE bool is_true(const k8s::Condition* c) { return c && c->status == "True"; }

/// One queue_wait_findings pass over a job that has not finished: what the job says about
/// where it waits (namespace, runPolicy.suspend, Kueue LocalQueue label), the queues' state,
/// and one method per part (Kueue's Workloads, the PodGroup, pods partly Running), each adding
/// its findings to `out` in the order queue_wait_findings calls them.
struct QueueWait {
  const TFJob& job;
  const JobSummary& s;
  const QueueState& q;
  std::vector<Finding> out;
  std::string ns, lq_label;
  bool suspended = false;

  QueueWait(const TFJob& j, const JobSummary& summary, const QueueState& state) : job(j), s(summary), q(state) {
    ns = s.namespace_;
    suspended = job.spec.run_policy.suspend.value_or(false);
    lq_label = job.metadata.label(kueue_queue_name_label);
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
  void check_workload(const k8s::Workload& w) {
    if (!owned_by(w.metadata, job.metadata)) return;  // another job's
    const std::string& wn = w.metadata.name;
    if (is_true(w.condition("Finished"))) return;
    const k8s::Condition *reserved = w.condition("QuotaReserved"), *admitted = w.condition("Admitted"),
                         *evicted = w.condition("Evicted");
    const std::string& lqn = w.spec.queue_name;
    std::string cqn = q.local_queue ? q.local_queue->spec.cluster_queue : "";
    if (cqn.empty() && w.status.admission) cqn = w.status.admission->cluster_queue;
    std::vector<std::string> ev = {"workload/" + wn + ": " + cond_text(reserved, "QuotaReserved"),
                                   "workload/" + wn + ": " + cond_text(admitted, "Admitted")};
    if (is_true(evicted)) ev.push_back("workload/" + wn + ": " + cond_text(evicted, "Evicted"));
    if (is_true(admitted)) {
      if (suspended)
        add(Finding::Severity::info, "KueueAdmitted",
            "Kueue admitted the job's Workload " + wn + (cqn.empty() ? "" : " in ClusterQueue \"" + cqn + "\"") +
                ": Kueue unsuspends the job and the operator then creates its pods",
            ev, "");
      return;
    }
    const std::string position = queue_position(wn, lqn, cqn, ev);
    const bool was_evicted = is_true(evicted);
    const bool has_quota = is_true(reserved);
    std::string why = has_quota ? "its quota is reserved, and it waits for the ClusterQueue's admission checks"
                                : "no quota is reserved for it yet";
    const k8s::Condition* said = has_quota ? admitted : reserved;
    if (said && !said->message.empty()) why += " (Kueue: \"" + said->message + "\")";
    add(Finding::Severity::warning, was_evicted ? "KueueEvicted" : "QueuedInKueue",
        std::string(was_evicted ? "Kueue evicted the job (" + (evicted->reason.empty() ? std::string("Evicted") : evicted->reason) +
                                      ") and it waits in its queue again"
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
      const long long pend = q.local_queue->status.pending_workloads.value_or(-1),
                      adm = q.local_queue->status.admitted_workloads.value_or(-1);
      if (pend >= 0) ev.push_back("localqueue/" + lqn + ": " + std::to_string(pend) + " pending" + (adm >= 0 ? ", " + std::to_string(adm) + " admitted" : ""));
    }
    if (q.cluster_queue) {
      const long long pend = q.cluster_queue->status.pending_workloads.value_or(-1);
      if (pend >= 0) ev.push_back("clusterqueue/" + cqn + ": " + std::to_string(pend) + " pending");
      if (const auto& pws = q.cluster_queue->status.pending_workloads_status)
        for (std::size_t k = 0; k < pws->head.size(); ++k)
          if (pws->head[k].name == wn && (pws->head[k].namespace_.empty() || pws->head[k].namespace_ == ns))
            position = std::to_string(k + 1) + (pend > 0 ? " of " + std::to_string(pend) : std::string());
    }
    return position;
  }

  /// PodGroupWaiting: the job's PodGroup (q.pod_group) still waits and the job is not suspended.
  void check_pod_group(const std::vector<k8s::Event>& events) {
    // --- the PodGroup: Volcano (Pending, Inqueue, Running) or scheduler-plugins (Pending,
    // PreScheduling, Scheduling, Scheduled, Running...)
    const k8s::PodGroup& pg = *q.pod_group;
    const std::string& pgn = pg.metadata.name;
    const std::string& phase = pg.status.phase;
    const bool volcano = q.pod_group_system == "Volcano";
    const bool waiting = phase.empty() || phase == "Pending" || phase == "Inqueue" || phase == "PreScheduling" || phase == "Scheduling";
    if (!waiting || suspended) return;
    const std::string min = pg.spec.min_member ? std::to_string(*pg.spec.min_member) : "?";
    const std::string& queue = pg.spec.queue;
    std::vector<std::string> ev = {"podgroup/" + pgn + ": phase " + (phase.empty() ? std::string("<none>") : phase) + ", minMember " + min +
                                   (queue.empty() ? "" : ", queue " + queue)};
    for (const auto& c : pg.status.conditions)
      if (c.status == "True" && c.type != "Scheduled")
        ev.push_back("podgroup/" + pgn + ": " + cond_text(&c, c.type.empty() ? std::string("?") : c.type));
    std::size_t n_ev = 0;
    for (const auto& e : events_for(events, "PodGroup", pgn))
      if (n_ev++ < 5) ev.push_back("event " + e.reason + ": " + e.message);
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

  static PodCounts count_pods(const std::vector<k8s::Pod>& pods) {
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
  void check_partly_running(const std::vector<k8s::Pod>& pods) {
    const PodCounts counts = count_pods(pods);
    const auto& sp = job.spec.run_policy.scheduling_policy;
    const std::optional<std::int32_t> mav = sp ? sp->min_available : std::nullopt;
    long long replicas = 0;
    for (const auto& [t, n] : s.spec_replicas) replicas += std::max(0, n);  // a few types of int: no overflow
    const bool whole_gang = mav && *mav >= replicas;
    if (counts.held <= 0 || counts.pending <= 0 || whole_gang) return;
    std::vector<std::string> ev;
    for (const auto& p : pods) {
      const PodInfo i = pod_info(p);
      if (!i.deleting && (i.phase == "Pending" || (i.phase == "Running" && i.gpus > 0)))
        ev.push_back("pod " + i.name + ": " + i.phase + (i.gpus > 0 ? ", " + std::to_string(i.gpus) + " GPU(s)" : ""));
    }
    if (mav) ev.push_back("runPolicy.schedulingPolicy.minAvailable: " + std::to_string(*mav) + " of " + std::to_string(replicas));
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

TFJOB_INLINE std::vector<Finding> queue_wait_findings(const TFJob& job, const std::vector<k8s::Pod>& pods,
                                                      const std::vector<k8s::Event>& events, const QueueState& q) {
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
