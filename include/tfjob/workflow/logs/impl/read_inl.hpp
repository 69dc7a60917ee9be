#pragma once
/// \file The bodies of <tfjob/workflow/logs/read.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/logs/read.hpp>, never this file.

namespace tfjob::workflow {

TFJOB_INLINE void explain_failure(kube::Client c, const std::string& ns, const std::string& job, JobLogResult& r,
                                  const std::string& container) {
  auto pods = job_pods(c, ns, job);
  if (auto f = select_failed(pods)) {
    PodInfo i = pod_info(*f, container);
    r.failed_pod = i.name;
    r.failed_exit_code = i.exit_code;
  }
}

namespace detail {

/// The jobs a request names: by selector, or the one by name (none: not there).
TFJOB_INLINE std::vector<nlohmann::json> requested_jobs(kube::Client& c, const std::string& ns, const LogsRequest& rq) {
  if (rq.selector.empty()) {
    auto job = get_opt(c, resources::tfjobs(), ns, rq.name);
    return job ? std::vector<nlohmann::json>{*job} : std::vector<nlohmann::json>{};
  }
  kube::ListParams lp;
  lp.label_selector = rq.selector;
  return list_items(c, resources::tfjobs(), ns, lp);
}

/// The streams of `jobs` a filter picks, in reading order: of the pods there are (a read),
/// or of every replica of the spec (following). `any_pods`: whether a read found pods.
TFJOB_INLINE std::vector<LogTarget> targets_of(kube::Client& c, const std::string& ns, const std::vector<TFJob>& jobs,
                                               const LogTargetFilter& filter, bool follow, bool& any_pods) {
  std::vector<LogTarget> targets;
  for (const auto& j : jobs) {
    std::vector<k8s::Pod> pods;
    if (!follow) pods = job_pods(c, ns, j.metadata.name);
    any_pods = any_pods || !pods.empty();
    auto t = log_targets(j, pods, filter, follow);
    targets.insert(targets.end(), t.begin(), t.end());
  }
  return targets;
}

/// For a Failed job read once: the type and index of the pod that failed (the one worth
/// reading), recorded in `res`; the chief ("", 0) otherwise.
TFJOB_INLINE std::pair<std::string, int> failed_replica(kube::Client& c, const std::string& ns, const std::string& job,
                                                        const std::string& container, JobLogResult& res) {
  explain_failure(c, ns, job, res, container);
  if (res.failed_pod.empty()) return {"", 0};
  for (const auto& p : job_pods(c, ns, job)) {
    auto i = pod_info(p);
    if (i.name == res.failed_pod) return {i.replica_type, i.replica_index};
  }
  return {"", 0};
}

}  // namespace detail

TFJOB_INLINE LogsOutcome read_logs(kube::Client c, const std::string& ns, const LogsRequest& rq, JobLogOptions lo, LogsOutput out) {
  LogsOutcome oc;
  const auto jobs = detail::requested_jobs(c, ns, rq);
  oc.jobs = jobs.size();
  if (jobs.empty()) {
    oc.result = rq.selector.empty() ? LogsOutcome::Result::not_found : LogsOutcome::Result::no_match;
    return oc;
  }
  std::vector<TFJob> typed;  // decoded once
  typed.reserve(jobs.size());
  for (const auto& j : jobs) typed.push_back(decode_tfjob(j));
  oc.job_name = rq.name.empty() ? typed.front().metadata.name : rq.name;

  // everything that reaches `out` comes one at a time, the periodic flush included
  std::mutex mu;
  auto locked = [&mu](auto fn) {
    std::lock_guard<std::mutex> lk(mu);
    fn();
  };
  if (out.event) lo.on_event = [&](const LogEvent& e) { locked([&] { out.event(e); }); };
  if (out.note) lo.on_note = [&](const std::string& n) { locked([&] { out.note(n); }); };
  auto sink = [&](const LogRecord& r) {
    locked([&] { out.record(r); });
    return true;
  };
  auto wire_bytes = [&] {
    if (!out.bytes) return;
    lo.on_bytes = [&](const LogSource& s, std::string_view b) {
      locked([&] { out.bytes(s, b); });
      return true;
    };
  };
  std::unique_ptr<kube::SideTask> flusher;
  auto start_flusher = [&] {
    if (lo.follow && out.flush)
      flusher = std::make_unique<kube::SideTask>(out.flush_every, [&](const std::atomic<bool>&) {
        locked([&] { out.flush(); });
        return true;
      }, false);
  };

  if (rq.many) {
    const auto targets = detail::targets_of(c, ns, typed, rq.filter, lo.follow, oc.any_pods);
    oc.streams = targets.size();
    if (targets.empty()) {
      oc.result = LogsOutcome::Result::no_streams;
      oc.finished = summarize(typed.front()).finished();
      return oc;
    }
    if ((lo.follow || rq.merge) && rq.max_streams && targets.size() > rq.max_streams) {
      oc.result = LogsOutcome::Result::too_many_streams;
      return oc;
    }
    if (out.prepare) out.prepare(targets.size(), jobs.size(), out, lo);
    wire_bytes();
    JobLogsRun how;
    how.merge = rq.merge;
    start_flusher();
    auto r = job_logs(c, ns, targets, lo, how, sink);
    flusher.reset();
    for (const auto& e : r.errors)
      if (!e.empty()) oc.errors.push_back(e);
    for (const auto& x : r.results)
      if (!x.job_state.empty()) oc.end = x;
    if (!oc.errors.empty() || jobs.size() > 1) return oc;
  } else {
    oc.streams = 1;
    std::pair<std::string, int> which{"", 0};
    if (!lo.follow && summarize(typed.front()).state == "Failed") which = detail::failed_replica(c, ns, rq.name, lo.container, oc.end);
    if (out.prepare) out.prepare(1, 1, out, lo);
    wire_bytes();
    start_flusher();
    auto r = replica_log_records(c, ns, rq.name, which.first, which.second, lo, sink);
    flusher.reset();
    r.failed_pod = oc.end.failed_pod;
    r.failed_exit_code = oc.end.failed_exit_code;
    oc.end = r;
  }
  if (oc.end.job_state.empty())
    oc.end.job_state = summarize(get_tfjob(c, ns, oc.job_name).value_or(typed.front())).state;
  if (oc.end.job_state == "Failed" && oc.end.failed_pod.empty()) explain_failure(c, ns, oc.job_name, oc.end, lo.container);
  return oc;
}

}  // namespace tfjob::workflow
