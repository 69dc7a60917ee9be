#pragma once
/// \file The bodies of <tfjob/workflow/explain_rules.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/explain_rules.hpp>, never this file.

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
TFJOB_INLINE std::string spec_type(const std::map<std::string, ReplicaSpec>& specs, const std::string& lower_type) {
  for (const auto& [t, v] : specs)
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
TFJOB_INLINE std::optional<Termination> termination(const k8s::Pod& pod) {
  std::vector<const k8s::ContainerStatus*> ordered;
  for (const auto& c : pod.status.container_statuses) if (c.name == "tensorflow") ordered.push_back(&c);
  for (const auto& c : pod.status.container_statuses) if (c.name != "tensorflow") ordered.push_back(&c);
  for (const auto* c : ordered)
    for (const auto* term : {&c->state.terminated, &c->last_state.terminated}) {
      if (!*term) continue;
      Termination t;
      t.container = c->name;
      t.exit_code = (*term)->exit_code;
      t.reason = (*term)->reason;
      t.message = (*term)->message;
      t.finished_at = (*term)->finished_at;
      t.current = term == &c->state.terminated;
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
  const nlohmann::json job_json;  ///< the job as JSON, for the manifest linter (lint::lint judges JSON)
  const JobSummary s;
  const std::map<std::string, ReplicaSpec>& specs;
  const RunPolicy& rp;
  const rules::SuccessRule rule;
  const std::string clean;
  std::vector<k8s::Pod> pods;  ///< the pods not being deleted, in replica order
  std::vector<Finding> urgent, restarts, info;
  std::vector<Finding> held;  ///< PartlyRunningHoldsGpus: said after the waiting pods' own reasons
  std::vector<Failure> failures;
  int backoff_restarts = 0;

  explicit Explainer(const ExplainInput& input)
      : in(input),
        job_json(in.job),
        s(summarize(in.job)),
        specs(in.job.spec.tf_replica_specs),
        rp(in.job.spec.run_policy),
        rule(rules::success_rule(in.job)),
        clean(rp.clean_pod_policy.value_or(clean_pod_policy::None)) {
    for (const auto& p : in.pods)
      if (!pod_info(p).deleting) pods.push_back(p);
    sort_pods(pods);
  }
  bool pods_gone() const { return pods.empty(); }
  /// A replica type's restart policy, defaulted (Never) as the operator does.
  std::string policy_of(const std::string& type) const {
    const auto* r = in.job.replica(type);
    return r ? rules::restart_policy_of(*r) : std::string(default_restart_policy);
  }

  /// suspended (runPolicy.suspend; Kueue suspends a job until its queue admits it)
  void suspended() {
    if (rp.suspend.value_or(false) || s.state == "Suspended") {
      const std::string queue = in.job.metadata.label("kueue.x-k8s.io/queue-name");
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
  /// and holding GPUs (workflow/queue_wait.hpp) (a job partly Running is said after the
  /// waiting pods' own reasons)
  void queues() {
    for (auto& f : queue_wait_findings(in.job, pods, in.events, in.queue))
      (f.code == "PartlyRunningHoldsGpus" ? held : urgent).push_back(std::move(f));
  }

  /// pods the operator could not create (quota, admission): its FailedCreatePod events
  void create_failures() {
    for (const auto& e : events_for(in.events, tfjob::kind, s.name)) {
      const std::string& reason = e.reason;
      const std::string& msg = e.message;
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
      const std::string policy = policy_of(type);
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

  // Why a Pending pod waits (workflow/explain_pending.hpp).

  /// A Pending pod: what the scheduler, the kubelet or a gang scheduler says holds it back.
  void pending(const k8s::Pod& pod, const PodInfo& i, const std::string& type, const std::string& who);

  /// The scheduler said no: a claim, too few GPUs, no node that matches, or its own words
  /// (read in each minor's words, 1.20-1.36: api/cluster_words.hpp).
  void unschedulable(const k8s::Pod& pod, const PodInfo& i, const std::string& type, const std::string& who, const PendingReason& why);

  /// Which claim the pod waits for, and why it is not bound.
  void claims_not_bound(const k8s::Pod& pod, const std::string& type, const std::string& who, const std::string& m, std::vector<std::string> ev);

  /// Too little of a resource: for GPUs, the nodes that come closest.
  void insufficient(const k8s::Pod& pod, const PodInfo& i, const std::string& type, const std::string& who, const std::string& m,
                    const std::string& res, std::vector<std::string> ev);

  /// No node matches the pod's nodeSelector/affinity, or every node has a taint it does not tolerate.
  void no_node_matches(const k8s::Pod& pod, const std::string& type, const std::string& who, bool taint, std::vector<std::string> ev);

  /// The kubelet cannot pull the image.
  void image_pull_failed(const k8s::Pod& pod, const std::string& type, const std::string& who, const PendingReason& why);

  /// A gang scheduler holds the pod back until the whole job fits.
  void gang_not_satisfied(const std::string& type, const std::string& who, const std::string& sched);

  /// Scheduled, not started: a mount that fails is in the pod's events.
  void not_started(const PodInfo& i, const std::string& type, const std::string& who, const PendingReason& why);

  /// The Istio sidecar keeps a pod Running after the trainer exited (kubeflow #3935). A
  /// container of the pod only: a native sidecar (an init container with restartPolicy
  /// Always, 1.28+) is stopped by the kubelet once the containers have ended, so it never
  /// keeps the pod Running (KEP-753), and it is not listed in containerStatuses.
  void sidecar(const k8s::Pod& pod, const std::string& type, const std::string& who) {
    bool tf_done = false;
    std::vector<std::string> still;
    for (const auto& c : pod.status.container_statuses) {
      if (c.name == "tensorflow" && c.state.terminated) tf_done = true;
      else if (c.state.running) still.push_back(c.name);
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
  void ended(const k8s::Pod& pod, const PodInfo& i, const std::string& type, const std::string& policy, const std::string& who) {
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
      const std::string policy = policy_of(f.type);
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
    // (failures holds only exits the policy does not retry, but for OnFailure/Always pods that ended Failed, which are recreated)
    auto for_good = std::find_if(failures.begin(), failures.end(), [&](const Failure& f) { return !rules::counts_toward_backoff(policy_of(f.type)); });
    if (s.state == "Restarting" && for_good != failures.end()) {
      const auto& f = *for_good;
      const std::string policy = policy_of(f.type);
      const bool dl = rp.active_deadline_seconds.has_value();
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
      const std::string& r = e.reason;
      if (r != "TFJobRestarting" && r != "JobRestarting") continue;
      const std::string& m = e.message;
      const int n = static_cast<int>(std::max(1LL, bounded_count(e.count)));
      auto it = std::find_if(said.begin(), said.end(), [&](const auto& p) { return p.first == m; });
      if (it == said.end()) said.emplace_back(m, n);
      else it->second = bounded_sum(it->second, n);
      reason_of[m] = r;
    }
    std::vector<std::string> exit_code_types;
    for (const auto& [t, v] : specs)
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
    if (rp.backoff_limit) {
      const int limit = static_cast<int>(bounded_count(*rp.backoff_limit));
      std::vector<std::string> counted, not_counted;
      for (const auto& [t, v] : specs)
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
    if (rp.active_deadline_seconds) {
      const long long limit = bounded_count(static_cast<long double>(*rp.active_deadline_seconds));
      auto start = parse_time(in.job.status ? in.job.status->start_time : std::string());
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
    if (pods_gone() && !rp.suspend.value_or(false)) {
      std::vector<std::string> ev;
      for (const auto& [t, c] : s.replicas)
        ev.push_back("status.replicaStatuses." + t + ": active " + std::to_string(c.active) + ", succeeded " + std::to_string(c.succeeded) +
                     ", failed " + std::to_string(c.failed));
      for (const auto& e : events_for(in.events, tfjob::kind, s.name))
        if (e.type == "Warning" || e.reason.find("Failed") != std::string::npos)
          ev.push_back("event " + e.reason + ": " + e.message);
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
    for (auto& f : lint::lint(job_json, lc)) {
      if (f.code == "ExitCodeRetriesSignalsOnly") continue;  // said above per exit code when it matters
      info.push_back(std::move(f));
    }
  }

};

}  // namespace detail
}  // namespace tfjob::workflow
