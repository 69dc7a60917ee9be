#pragma once
/// \file The bodies of <tfjob/workflow/logs/merge.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/logs/merge.hpp>, never this file.

namespace tfjob::workflow {

TFJOB_INLINE void LogMerger::push(std::size_t i, const LogRecord& r) {
  Held h;
  h.source = *r.source;
  h.text.assign(r.piece.text);
  h.ts.assign(r.piece.first ? r.piece.timestamp : std::string_view(q_[i].line_ts));
  if (r.piece.first) q_[i].line_ts = h.ts;
  h.first = r.piece.first;
  h.last = r.piece.last;
  h.terminated = r.piece.terminated;
  h.at = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lk(mu_);
  space_.wait(lk, [&] { return q_[i].items.size() < cap_ || stop_; });
  q_[i].items.push_back(std::move(h));
  ready_.notify_all();
}

TFJOB_INLINE void LogMerger::end(std::size_t i) {
  std::lock_guard<std::mutex> lk(mu_);
  ended_[i] = true;
  ready_.notify_all();
}

TFJOB_INLINE void LogMerger::run() {
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    std::optional<std::size_t> pick;
    bool all_have = true, any = false;
    auto oldest = std::chrono::steady_clock::time_point::max();
    for (std::size_t i = 0; i < q_.size(); ++i) {
      if (q_[i].items.empty()) {
        if (!ended_[i]) all_have = false;
        continue;
      }
      any = true;
      oldest = std::min(oldest, q_[i].items.front().at);
      if (!pick || less(q_[i].items.front(), i, q_[*pick].items.front(), *pick)) pick = i;
    }
    const auto now = std::chrono::steady_clock::now();
    if (open_ && !q_[*open_].items.empty()) {
      pick = open_;  // the rest of a line that went out in part comes first
      all_have = true;
    } else if (open_ && !ended_[*open_] && (!window_ || now - open_since_ < *window_)) {
      // wait a little for it (not forever: a process may leave a line open, a progress bar)
      if (window_) ready_.wait_until(lk, open_since_ + *window_);
      else ready_.wait(lk);
      continue;
    } else {
      open_.reset();
    }
    if (!any) {
      bool all_ended = std::all_of(ended_.begin(), ended_.end(), [](bool e) { return e; });
      if (all_ended) return;
      ready_.wait(lk);
      continue;
    }
    bool release = pick && (all_have || (window_ && now - oldest >= *window_));
    if (!release) {
      if (window_) ready_.wait_until(lk, (oldest == std::chrono::steady_clock::time_point::max() ? now : oldest) + *window_);
      else ready_.wait(lk);
      continue;
    }
    Held h = std::move(q_[*pick].items.front());
    q_[*pick].items.pop_front();
    open_ = h.last ? std::nullopt : pick;
    open_since_ = now;
    space_.notify_all();
    lk.unlock();
    LogRecord r;
    r.source = &h.source;
    r.piece.text = h.text;
    r.piece.timestamp = h.ts;
    r.piece.first = h.first;
    r.piece.last = h.last;
    r.piece.terminated = h.terminated;
    sink_(r);
    lk.lock();
  }
}

TFJOB_INLINE void LogMerger::stop() {
  std::lock_guard<std::mutex> lk(mu_);
  stop_ = true;
  space_.notify_all();
}

TFJOB_INLINE bool LogMerger::less(const Held& a, std::size_t ai, const Held& b, std::size_t bi) {
  if (a.ts != b.ts) return a.ts < b.ts;
  return ai < bi;
}

namespace detail {

/// What a job_logs call was given (`o` as its streams use it: with merge, times on).
struct JobLogsCall {
  kube::Client& c;
  const std::string& ns;
  const std::vector<LogTarget>& targets;
  const JobLogOptions& o;
  const std::function<bool(const LogRecord&)>& sink;
};

/// What the streams of a job_logs call share (destroyed in reverse: guards, watches, stops,
/// merger, the lock).
struct JobLogStreams {
  std::mutex mu;                                            ///< sink's lock, without merge
  std::unique_ptr<LogMerger> merger;                        ///< with merge
  std::vector<std::unique_ptr<std::atomic<bool>>> stops;    ///< per target: stop its stream
  const std::atomic<bool>* outer = nullptr;                 ///< the caller's cancel
  // one JobWatch per job, shared by its streams and its guard
  std::map<std::string, std::unique_ptr<JobWatch>> watches;
  std::vector<std::unique_ptr<kube::SideTask>> guards;
};

/// `o` for target `t`: its container.
TFJOB_INLINE JobLogOptions options_for(const JobLogOptions& o, const LogTarget& t) {
  JobLogOptions x = o;
  x.container = t.container;
  return x;
}

/// Without follow and merge: each target's logs, one after the other.
TFJOB_INLINE void job_logs_in_turn(const JobLogsCall& call, JobLogsResult& out) {
  for (std::size_t k = 0; k < call.targets.size(); ++k) {
    try {
      out.results[k] = replica_log_records(call.c, call.ns, call.targets[k].job, call.targets[k].replica_type, call.targets[k].index,
                                           options_for(call.o, call.targets[k]), call.sink);
    } catch (const std::exception& e) {
      out.errors[k] = e.what();
    }
  }
}

/// With merge: times on the wire, records (not bytes), and the merger that orders them.
TFJOB_INLINE std::unique_ptr<LogMerger> make_merger(JobLogOptions& o, const JobLogsRun& how, std::size_t streams,
                                                    const std::function<bool(const LogRecord&)>& sink) {
  o.want_times = true;
  o.on_bytes = nullptr;
  return std::make_unique<LogMerger>(streams,
                                     o.follow ? std::optional<std::chrono::milliseconds>(how.merge_window) : std::nullopt,
                                     [&sink](const LogRecord& r) { sink(r); });
}

/// Job `j`'s guard, on a side thread (kube::SideTask) until `stop`; `w` is its watch.
TFJOB_INLINE bool guard_job_end(const JobLogsCall& call, JobLogStreams& s, const std::string& j, JobWatch* w,
                                const std::atomic<bool>& stop) {
  // the job's end stops the streams that would run on; the caller's cancel, every stream
  bool over = false;
  for (std::uint64_t g = 0, looked = ~std::uint64_t{0}; !stop; g = w->wait(g, std::chrono::milliseconds(100))) {
    if (s.outer && s.outer->load()) {
      for (auto& st : s.stops) *st = true;
      return false;
    }
    if (w->ended()) kube::sleep_for(std::chrono::milliseconds(100), &stop);  // its wait no longer blocks
    if (over || g == looked) continue;
    looked = g;
    const auto v = w->view();
    if (!v.deleted && (!v.job || !summarize(*v.job).finished())) continue;
    over = true;
    try {
      kube::Client pc = call.c;
      auto pods = job_pods(pc, call.ns, j);  // one look: the pods' watch may lag the job's end
      for (std::size_t k = 0; k < call.targets.size(); ++k) {
        if (call.targets[k].job != j) continue;
        const auto& t = call.targets[k];
        auto p = pick(pods, t.replica_type, t.index, t.container);
        if (v.deleted || !p || container_running(p->pod, t.container)) *s.stops[k] = true;
      }
    } catch (const std::exception&) {
      // best effort: the streams end with their containers anyway
    }
  }
  return false;
}

/// Following: a watch on each job (`s.watches`), and a guard on each (`s.guards`, see guard_job_end).
TFJOB_INLINE void watch_job_ends(const JobLogsCall& call, JobLogStreams& s) {
  for (const auto& t : call.targets)
    if (!s.watches.count(t.job)) {
      JobWatchOptions jo;
      jo.pod_selector = pods_selector(call.c, call.ns, t.job);
      jo.deadline = call.o.deadline;
      s.watches.emplace(t.job, std::make_unique<JobWatch>(call.c, call.ns, t.job, jo));
    }
  for (auto& [name, w] : s.watches)
    s.guards.push_back(std::make_unique<kube::SideTask>([&call, &s, j = name, w = w.get()](const std::atomic<bool>& stop) {
      return guard_job_end(call, s, j, w, stop);
    }));
}

/// One thread per target, its records to the merger or (under `s.mu`) the sink; the merger
/// runs on this thread; returns when every stream has ended.
TFJOB_INLINE void run_log_streams(const JobLogsCall& call, JobLogStreams& s, JobLogsResult& out) {
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < call.targets.size(); ++k) {
    threads.emplace_back([&, k] {
      try {
        JobLogOptions x = options_for(call.o, call.targets[k]);
        if (call.o.follow) {
          x.cancel = s.stops[k].get();
          x.watch = s.watches.at(call.targets[k].job).get();
        }
        out.results[k] = replica_log_records(call.c, call.ns, call.targets[k].job, call.targets[k].replica_type, call.targets[k].index, x,
                                             [&](const LogRecord& r) {
                                               if (s.merger) {
                                                 s.merger->push(k, r);
                                                 return true;
                                               }
                                               std::lock_guard<std::mutex> lk(s.mu);
                                               return call.sink(r);
                                             });
      } catch (const std::exception& e) {
        out.errors[k] = e.what();
      }
      if (s.merger) s.merger->end(k);
    });
  }
  if (s.merger) s.merger->run();
  for (auto& t : threads) t.join();
}

/// Following: the job's state (as last watched) for each stream that ended without one.
TFJOB_INLINE void report_job_states(const JobLogsCall& call, const JobLogStreams& s, JobLogsResult& out) {
  // a stream stopped because the job ended still reports the job's state (as last watched)
  for (std::size_t k = 0; k < call.targets.size(); ++k)
    if (out.results[k].job_state.empty() && out.errors[k].empty() && !(s.outer && s.outer->load())) {
      auto v = s.watches.at(call.targets[k].job)->view();
      if (!v.deleted && v.job) {
        auto st = summarize(*v.job);
        out.results[k].job_state = st.state;
        out.results[k].job_message = st.message;
      }
    }
}

}  // namespace detail

TFJOB_INLINE JobLogsResult job_logs(kube::Client c, const std::string& ns, const std::vector<LogTarget>& targets,
                                    JobLogOptions o, const JobLogsRun& how, const std::function<bool(const LogRecord&)>& sink) {
  JobLogsResult out;
  out.results.resize(targets.size());
  out.errors.resize(targets.size());
  const detail::JobLogsCall call{c, ns, targets, o, sink};
  if (!o.follow && !how.merge) {
    detail::job_logs_in_turn(call, out);
    return out;
  }
  detail::JobLogStreams s;
  if (how.merge) s.merger = detail::make_merger(o, how, targets.size(), sink);
  // Following: a replica may run on after its job has ended (a PS, workers under a chief's
  // success policy) and its stream would never end. A watch on each job says when it has
  // ended; the streams of containers still running then are stopped (what they wrote is out).
  for (std::size_t k = 0; k < targets.size(); ++k) s.stops.push_back(std::make_unique<std::atomic<bool>>(false));
  s.outer = o.cancel;
  if (o.follow) detail::watch_job_ends(call, s);
  detail::run_log_streams(call, s, out);
  s.guards.clear();
  if (o.follow) detail::report_job_states(call, s, out);
  return out;
}

}  // namespace tfjob::workflow
