#pragma once
/// \file The bodies of <tfjob/workflow/queue_findings.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/queue_findings.hpp>, never this file.

namespace tfjob::workflow {

namespace detail {

/// A quota as the API serves it (a quantity's text); nullopt when unset or unreadable.
TFJOB_INLINE std::optional<double> quota_value(const std::optional<std::string>& v) {
  std::optional<Quantity> q = v ? Quantity::try_parse(*v) : std::nullopt;
  if (!q || !std::isfinite(q->value()) || q->value() < 0) return std::nullopt;
  return q->value();
}

TFJOB_INLINE std::string count_text(double v) {
  if (v >= 0 && v < 1e15 && v == std::floor(v)) return std::to_string(static_cast<long long>(v));
  return std::to_string(v);
}

}  // namespace detail

TFJOB_INLINE KueueQuota kueue_quota(const k8s::ClusterQueue& cq, const std::string& resource) {
  KueueQuota q;
  const bool cohort = cq.in_cohort();
  for (const auto& g : cq.spec.resource_groups)
    for (const auto& f : g.flavors)
      for (const auto& r : f.resources) {
        if (r.name != resource) continue;
        q.covered = true;
        const double nominal = detail::quota_value(r.nominal_quota).value_or(0);
        std::string ev = "flavor " + (f.name.empty() ? std::string("?") : f.name) + ": nominalQuota " + detail::count_text(nominal);
        double cap = nominal;
        if (cohort) {
          if (auto b = detail::quota_value(r.borrowing_limit)) {
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
  return q;
}

TFJOB_INLINE std::string custom_scheduler(const TFJob& job) {
  for (const auto& [t, rs] : job.spec.tf_replica_specs) {
    // read from the template's JSON: decoding the whole template would copy its containers
    const std::string n = tfjob::detail::str_at(rs.template_, "/spec/schedulerName"_json_pointer);
    if (!n.empty() && n != "default-scheduler") return n;
  }
  return "";
}

namespace detail {

TFJOB_INLINE QueueCheck::QueueCheck(const TFJob& j, const QueueFacts& f) : job(j), facts(f) {
  ns = job.metadata.namespace_;
  local_queue = job.metadata.label(kueue_queue_name_label);
  const RunPolicy& rp = job.spec.run_policy;
  suspended = rp.suspend.value_or(false);
  if (rp.scheduling_policy) {
    queue = rp.scheduling_policy->queue;
    min_available = rp.scheduling_policy->min_available.has_value();
  }
  ev_label = std::string("label ") + kueue_queue_name_label + "=" + local_queue;
  gpus = replica_gpus(job);
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
  for (const auto& g : gpus) {
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
  for (const auto& g : gpus) {
    pods += g.replicas;
    if (g.gpus_per_pod > 0) gpu_pods += g.replicas;
  }
  if (facts.systems.gang() && gpu_pods > 1 && !min_available && local_queue.empty()) {
    const std::string which = facts.systems.volcano ? "Volcano" : "scheduler-plugins' coscheduling";
    add("NoGangScheduling",
        std::to_string(gpu_pods) + " pods ask for GPUs without gang scheduling, on a cluster that has " + which +
            ": some may start and hold their GPUs while the rest wait, and two such jobs can block each other",
        {std::to_string(gpu_pods) + " GPU pods of " + std::to_string(pods)},
        "set runPolicy.schedulingPolicy.minAvailable to " + std::to_string(pods) + " (every replica)");
  }
}

}  // namespace detail

TFJOB_INLINE std::vector<Finding> queue_findings(const TFJob& job, const QueueFacts& facts) {
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

}  // namespace tfjob::workflow
