#pragma once
/// \file The bodies of <tfjob/workflow/logs/follow.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/logs/follow.hpp>, never this file.

namespace tfjob::workflow {

namespace detail {

/// A pod a target names, decoded once: its fields, and what pod_info reads of its labels.
struct TargetPod {
  k8s::Pod pod;
  PodInfo info;
};

/// The pod a target names right now (`container`: the one whose exit code pod_info reports).
TFJOB_INLINE std::optional<TargetPod> pick(const std::vector<k8s::Pod>& pods, const std::string& type, int index,
                                           const std::string& container) {
  auto p = type.empty() ? select_chief(pods) : select_replica(pods, type, index);
  if (!p) return std::nullopt;
  PodInfo info = pod_info(*p, container);
  return TargetPod{std::move(*p), std::move(info)};
}


/// The label selector that finds the job's pods now: the v1.9 operator's, else an older
/// operator's that does (one look each), else the v1.9 operator's (pods still to come).
TFJOB_INLINE std::string pods_selector(kube::Client& c, const std::string& ns, const std::string& job) {
  const auto sels = pod_selectors(job);
  for (const auto& sel : sels) {
    kube::ListParams p;
    p.label_selector = sel;
    if (!list_items(c, resources::pods(), ns, p).empty()) return sel;
  }
  return sels.front();
}

TFJOB_INLINE std::string describe_target(const std::string& type, int index) {
  return type.empty() ? std::string("the chief") : type + " " + std::to_string(index);
}

TFJOB_INLINE int restart_count(const k8s::Pod& pod, const std::string& container) {
  const auto* c = pod.container_status(container);
  return c ? c->restart_count : 0;
}

/// Whether the container has started at least once (running or terminated). A pod whose
/// phase says Running before its container statuses are reported counts as started.
TFJOB_INLINE bool container_started(const k8s::Pod& pod, const std::string& container) {
  if (const auto* c = pod.container_status(container)) {
    if (c->state.running || c->state.terminated) return true;
    return c->restart_count > 0;  // waiting after a crash: previous logs exist
  }
  const std::string& phase = pod.status.phase;
  return phase == "Running" || phase == "Succeeded" || phase == "Failed";
}

/// Whether the container may still write: running, or not reported yet in a Running pod
/// (a status update can lag the start; such a log must be followed, not read once).
TFJOB_INLINE bool container_running(const k8s::Pod& pod, const std::string& container) {
  if (const auto* c = pod.container_status(container)) return c->state.running.has_value();
  return pod.status.phase == "Running";
}

TFJOB_INLINE void check_container(const k8s::Pod& pod, const std::string& container) {
  auto names = spec_containers(pod.spec);
  if (names.empty() || std::find(names.begin(), names.end(), container) != names.end()) return;
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  throw tfjob::error("pod " + pod.metadata.name + " has no container \"" + container + "\"; its containers: " + list);
}

/// The terminated state of attempt `attempt` of a container: its current state when that
/// is the attempt shown, else lastState (the kubelet keeps one).
TFJOB_INLINE std::optional<k8s::StateTerminated> terminated_state(const k8s::Pod& pod, const std::string& container, int attempt) {
  const auto* c = pod.container_status(container);
  if (!c) return std::nullopt;
  if (c->restart_count == attempt) return c->state.terminated;
  if (c->restart_count == attempt + 1) return c->last_state.terminated;
  return std::nullopt;
}

/// One target's logs, read once or followed (replica_log_records): the state of what has
/// been shown and said, and one method per step of a look at the pod.
class ReplicaFollower {
 public:
  ReplicaFollower(kube::Client c, const std::string& ns, const std::string& job, const std::string& type, int index,
                  const JobLogOptions& o, const std::function<bool(const LogRecord&)>& sink)
      : c_(std::move(c)), ns_(ns), job_(job), type_(type), index_(index), o_(o), sink_(sink) {
    job_obj_ = get_tfjob(c_, ns_, job_);
    if (!job_obj_) throw tfjob::no_such_job(ns_, job_);
    // Following learns of changes from the job's watches (the job, its pods, events), never
    // by listing them again; a plain read looks once.
    watch_ = o_.watch;
    if (o_.follow && !watch_) {
      JobWatchOptions jo;
      jo.pod_selector = pods_selector(c_, ns_, job_);
      jo.deadline = o_.deadline;
      own_watch_ = std::make_unique<JobWatch>(c_, ns_, job_, jo);
      watch_ = own_watch_.get();
    }
  }

  JobLogResult run() {
    for (;;) {
      if (cancelled()) return res_;
      auto pods = look();
      if (watch_ && view_.ended) return res_;  // stopped (the deadline)
      const auto target = pick(pods, type_, index_, o_.container);
      const std::string target_uid = target ? target->pod.metadata.uid : std::string();
      if (target) first_seen_.emplace(target_uid, restart_count(target->pod, o_.container));
      say_pod_replaced(target, target_uid);
      if (target) say_pod_deleting(*target);
      if (!o_.follow) check_readable(target, pods);
      if (target && container_started(target->pod, o_.container)) {
        check_container(target->pod, o_.container);
        const PodInfo& info = target->info;
        const int restarts = restart_count(target->pod, o_.container);
        const std::string key = info.uid + ":" + std::to_string(restarts);
        const bool running = container_running(target->pod, o_.container);
        if (!last_pod_uid_.empty() && last_pod_uid_ == info.uid && last_restarts_ >= 0 && last_restarts_ < restarts)
          tell_terminated(target->pod, info, last_restarts_);
        if (!done_.count(key)) {
          if (o_.follow && restarts > 0) show_missed_attempt(target->pod, info, restarts);
          say_attempt(info, restarts, key);
          show_attempt(target->pod, info, restarts, key, running);
          if (!o_.follow) return res_;
          if (!(job_obj_ = look_job())) return job_deleted();
          continue;  // look at the pod again right away
        }
        tell_terminated(target->pod, info, restarts);
      }
      // Nothing new to stream: is the job over?
      if (!(job_obj_ = look_job())) return job_deleted();
      if (summary().finished()) {
        if (!drained()) continue;
        finish();
        return res_;
      }
      wait_for_change(pods, target);
    }
  }

 private:
  bool cancelled() const { return (o_.cancel && o_.cancel->load()) || std::chrono::steady_clock::now() >= o_.deadline; }

  /// The job's pods now: what the watches know (once they have listed), or one look.
  std::vector<k8s::Pod> look() {
    if (!watch_) return job_pods(c_, ns_, job_);
    for (view_ = watch_->view(); !view_.synced && !cancelled(); view_ = watch_->view())
      watch_->wait(view_.generation, std::chrono::milliseconds(100));
    seen_ = view_.generation;
    if (view_.ended) watch_->rethrow_error();
    return view_.pods;
  }

  /// The job now (nullopt: deleted).
  std::optional<TFJob> look_job() {
    if (!watch_) return get_tfjob(c_, ns_, job_);
    auto v = watch_->view();
    if (v.deleted) return std::nullopt;
    return v.job ? std::move(v.job) : job_obj_;
  }

  /// Until the watches deliver a change (at most `at_most`), or cancel.
  void pause(std::chrono::milliseconds at_most) {
    const auto until = std::chrono::steady_clock::now() + at_most;
    while (!cancelled() && std::chrono::steady_clock::now() < until) {
      const auto g = watch_->wait(seen_, std::chrono::milliseconds(100));
      if (g != seen_ || watch_->ended()) return;
    }
  }

  /// The job's summary as last looked at (job_obj_).
  JobSummary summary() const { return summarize(*job_obj_); }

  void finish() {
    auto s = summary();
    res_.job_state = s.state;
    res_.job_message = s.message;
  }

  JobLogResult job_deleted() {
    if (o_.on_note) o_.on_note("TFJob " + job_ + " was deleted");
    return res_;
  }

  LogSource source_of(const PodInfo& info, int attempt) const {
    LogSource src;
    src.job = job_;
    src.namespace_ = ns_;
    src.replica_type = info.replica_type;
    src.index = info.replica_index;
    src.pod = info.name;
    src.container = o_.container;
    src.attempt = attempt;
    return src;
  }

  /// Says a state change once (following only).
  void tell(LogEvent::Kind k, const LogSource& src, const std::string& key, std::string message) {
    if (!o_.follow || !said_.insert(std::string(to_string(k)) + ":" + key).second) return;
    LogEvent ev;
    ev.kind = k;
    ev.source = src;
    ev.message = std::move(message);
    if (o_.on_event) o_.on_event(ev);
    else if (o_.on_note && k != LogEvent::started) o_.on_note(ev.message);
  }

  /// Says how an attempt shown ended (once), from the pod as it is now.
  void tell_terminated(const k8s::Pod& pod, const PodInfo& info, int attempt) {
    auto t = terminated_state(pod, o_.container, attempt);
    if (!t || !o_.follow) return;
    const std::string key = info.uid + ":" + std::to_string(attempt);
    if (said_.count("terminated:" + key)) return;
    LogEvent ev;
    ev.kind = LogEvent::terminated;
    ev.source = source_of(info, attempt);
    // core/v1 writes exitCode always (types.go `json:"exitCode"`, no omitempty); one of the
    // wrong type is not read (it stays in `other`): unknown
    const auto wrong = t->other.find("exitCode");
    if (wrong == t->other.end() || wrong->is_number_integer()) ev.exit_code = t->exit_code;
    ev.reason = t->reason;
    ev.message = "container " + o_.container + " of pod " + info.name + " terminated: exit code " +
                 (ev.exit_code ? std::to_string(*ev.exit_code) : std::string("unknown")) +
                 (ev.reason.empty() ? "" : " (" + ev.reason + ")");
    said_.insert("terminated:" + key);
    if (o_.on_event) o_.on_event(ev);
  }

  /// One attempt's log into the sink (or its bytes into on_bytes). `seen`, when given: the
  /// pod as the watch showed it, whose container's attempt `attempt` the kubelet is asked
  /// for as its current log; what it serves may be a later attempt's (served_attempt_is),
  /// judged once the kubelet has answered (at the first line, or at the end of a silent
  /// log) before anything is shown. Returns false when it was not that attempt's and was
  /// dropped, nothing of it shown.
  bool stream(const PodInfo& info, int attempt, const kube::LogParams& lp, const k8s::Pod* seen = nullptr) {
    LogSource src = source_of(info, attempt);
    kube::StreamOptions so;
    so.cancel = o_.cancel;
    so.deadline = o_.deadline;
    kube::LogStreamer ls(c_, ns_, info.name, lp);
    ls.want_times = o_.want_times;
    ls.max_line_bytes = o_.max_line_bytes;
    ls.eager = o_.eager;
    if (o_.on_bytes && ls.resumes_by_bytes() && !seen) {
      ls.run_bytes([&](std::string_view b) { return o_.on_bytes(src, b); }, so);
      return true;
    }
    LogRecord rec;
    rec.source = &src;
    bool judged = !seen, dropped = false;
    const bool whole = ls.run_pieces([&](const kube::LogPiece& pc) {
      if (!judged) {
        judged = true;
        if ((dropped = !served_attempt_is(*seen, info, attempt))) return false;
      }
      rec.piece = pc;
      return sink_(rec);
    }, so);
    if (!judged && whole) dropped = !served_attempt_is(*seen, info, attempt);
    return !dropped;
  }

  /// Whether the log the kubelet has just served as a container's current one is attempt
  /// `attempt`'s, the attempt `seen` (the watch's copy of the pod) shows. The kubelet serves
  /// the container its own status names, which reaches the API, and so the watch, later: a
  /// container that died and was restarted in between (an OOM kill, then an immediate
  /// restart) would be shown under the attempt before it, then again as itself, and the
  /// attempt that died never. The kubelet's previous log tells where it is: for the first
  /// attempt, that one exists; later, that it began after attempt `attempt` started (times
  /// in whole seconds: the same second cannot tell, and counts as that attempt, as before).
  bool served_attempt_is(const k8s::Pod& seen, const PodInfo& info, int attempt) {
    kube::LogParams lp;
    lp.container = o_.container;
    lp.previous = true;
    kube::LogStreamer prev(c_, ns_, info.name, lp);
    prev.want_times = true;
    std::string prev_first;
    try {
      prev.run_pieces([&](const kube::LogPiece& pc) {
        prev_first = pc.timestamp;
        return false;
      });
    } catch (const tfjob::error&) {
      return true;  // no previous attempt kept: the kubelet has not restarted the container since
    }
    if (attempt == 0) return false;  // the first attempt has a previous one: the kubelet restarted it
    const auto* c = seen.container_status(o_.container);
    const std::string started = !c ? std::string()
                                : c->state.running  ? c->state.running->started_at
                                : c->state.terminated ? c->state.terminated->started_at
                                                      : std::string();
    const auto began = tfjob::detail::rfc3339_seconds(prev_first), start = tfjob::detail::rfc3339_seconds(started);
    return !(began && start && *began > *start);
  }

  /// The log parameters of an attempt: tail/since apply to the first stream only; later
  /// attempts are shown whole.
  kube::LogParams params() const {
    kube::LogParams lp;
    lp.container = o_.container;
    lp.timestamps = o_.timestamps;
    if (res_.streams == 0) {
      lp.tail_lines = o_.tail_lines;
      lp.since_seconds = o_.since_seconds;
      lp.since_time = o_.since_time;
    }
    return lp;
  }

  /// The pod followed is gone (deleted, or replaced by the operator): said when first
  /// seen, whether or not its successor has started.
  void say_pod_replaced(const std::optional<TargetPod>& target, const std::string& target_uid) {
    if (last_pod_uid_.empty() || target_uid == last_pod_uid_ || !o_.follow) return;
    LogSource src;
    src.job = job_;
    src.namespace_ = ns_;
    src.pod = last_pod_name_;
    src.container = o_.container;
    tell(LogEvent::deleted, src, last_pod_uid_, "pod " + last_pod_name_ + " was deleted");
    if (target)
      tell(LogEvent::recreated, source_of(target->info, restart_count(target->pod, o_.container)), target_uid,
           "pod " + target->pod.metadata.name + " was recreated; following the new pod");
  }

  /// The pod is being deleted (a deletionTimestamp: `kubectl delete pod`, an eviction, the
  /// operator's cleanup): said once, when first seen, as when it is gone (the same key), so
  /// it is said even when the job ends before the pod object goes (a grace period, a
  /// finalizer).
  void say_pod_deleting(const TargetPod& t) {
    const PodInfo& info = t.info;
    if (info.deleting)
      tell(LogEvent::deleted, source_of(info, restart_count(t.pod, o_.container)), info.uid, "pod " + info.name + " was deleted");
  }

  /// A read once needs a pod whose container has started: else why not, and what to do.
  void check_readable(const std::optional<TargetPod>& target, const std::vector<k8s::Pod>& pods) {
    finish();
    const JobSummary s = summary();
    if (!target)
      throw tfjob::error("TFJob \"" + job_ + "\" has no pod for " + describe_target(type_, index_) +
                         (s.finished() ? " (the job is " + s.state + " and its pods were cleaned up: see runPolicy.cleanPodPolicy)"
                                       : " yet (it is " + (s.state.empty() ? std::string("not started") : s.state) +
                                             "): follow the logs to wait for it"));
    check_container(target->pod, o_.container);
    if (container_started(target->pod, o_.container)) return;
    auto p = progress(*job_obj_, pods, job_events(c_, ns_, job_obj_->metadata, pods, PodEvents::pending));
    const std::string& name = target->pod.metadata.name;
    std::string why;
    for (const auto& w : p.waiting)
      if (w.pod == name) why = ": " + (w.message.empty() ? w.reason : w.message);
    throw tfjob::error("pod " + name + " has not started yet" + why + "\nFollow the logs to wait for it.");
  }

  /// An attempt that started and ended between two looks (a short first run while we
  /// waited for the pod to start, say) is the container's previous log, which the kubelet
  /// keeps: shown before the current one, so no line of an attempt that began while
  /// following is lost.
  void show_missed_attempt(const k8s::Pod& pod, const PodInfo& info, int restarts) {
    const std::string missed = info.uid + ":" + std::to_string(restarts - 1);
    auto fs = first_seen_.find(info.uid);
    if (fs == first_seen_.end() || restarts - 1 < fs->second || done_.count(missed)) return;
    kube::LogParams pl = params();
    pl.previous = true;
    try {
      tell(LogEvent::started, source_of(info, restarts - 1), missed, "container " + o_.container + " of pod " + info.name + " started");
      stream(info, restarts - 1, pl);
      ++res_.streams;
      done_.insert(missed);
      tell_terminated(pod, info, restarts - 1);
      if (last_pod_uid_.empty()) {  // so the restart below is said
        last_pod_uid_ = info.uid;
        last_pod_name_ = info.name;
        last_restarts_ = restarts - 1;
      }
    } catch (const api_error&) {
      // not kept (any more): nothing to show
    }
  }

  /// Says a new attempt: a recreated pod or a restarted container, then that it started.
  void say_attempt(const PodInfo& info, int restarts, const std::string& key) {
    if (!last_pod_uid_.empty()) {
      if (last_pod_uid_ != info.uid)
        tell(LogEvent::recreated, source_of(info, restarts), info.uid, "pod " + info.name + " was recreated; following the new pod");
      else if (restarts != last_restarts_)
        tell(LogEvent::restarted, source_of(info, restarts), key,
             "container " + o_.container + " of pod " + info.name + " restarted (restart " + std::to_string(restarts) +
                 ", attempt " + std::to_string(restarts + 1) + "); following it");
    }
    tell(LogEvent::started, source_of(info, restarts), key, "container " + o_.container + " of pod " + info.name + " started");
  }

  /// The current attempt's log (followed while it runs). When following a pod whose
  /// restartPolicy lets the kubelet start the container again, what it serves as current is
  /// checked to be this attempt (stream); when it is not, nothing is shown and the pod is
  /// looked at again, which then shows this attempt as the previous log, then the next.
  void show_attempt(const k8s::Pod& pod, const PodInfo& info, int restarts, const std::string& key, bool running) {
    kube::LogParams lp = params();
    lp.follow = o_.follow && running;
    lp.previous = o_.previous && !o_.follow;
    const bool may_restart = o_.follow && pod.spec.restart_policy != "Never";
    try {
      if (!stream(info, restarts, lp, may_restart ? &pod : nullptr)) {
        pause(o_.poll);
        return;
      }
      ++res_.streams;
      done_.insert(key);
      last_pod_uid_ = info.uid;
      last_pod_name_ = info.name;
      last_restarts_ = restarts;
    } catch (const api_error& e) {
      // 400 "container ... is waiting to start" / 404 pod just deleted: look again
      if (!o_.follow || (e.code() != 400 && !e.is_not_found())) throw;
      pause(o_.poll);
    }
  }

  /// The job has finished: whether everything is shown. A last attempt that ended between
  /// our checks is not yet (one look: the pods' watch may not have delivered their last
  /// change).
  bool drained() {
    auto pods = job_pods(c_, ns_, job_);
    const auto target = pick(pods, type_, index_, o_.container);
    if (target) say_pod_deleting(*target);
    if (target && container_started(target->pod, o_.container)) {
      const PodInfo& info = target->info;
      const int restarts = restart_count(target->pod, o_.container);
      if (!done_.count(info.uid + ":" + std::to_string(restarts))) return false;
      tell_terminated(target->pod, info, restarts);
    }
    return true;
  }

  /// Not started yet: progress (or one note), then until something changes.
  void wait_for_change(const std::vector<k8s::Pod>& pods, const std::optional<TargetPod>& target) {
    if (o_.on_progress) o_.on_progress(progress(*job_obj_, pods, view_.events));
    else if (o_.on_note && !waiting_noted_ && (!target || !container_started(target->pod, o_.container))) {
      o_.on_note("waiting for " + describe_target(type_, index_) + " of TFJob " + job_ + " to start");
      waiting_noted_ = true;
    }
    pause(std::chrono::hours(24 * 365));
  }

  kube::Client c_;
  const std::string& ns_;
  const std::string& job_;
  const std::string& type_;
  const int index_;
  const JobLogOptions& o_;
  const std::function<bool(const LogRecord&)>& sink_;

  JobLogResult res_;
  std::set<std::string> done_;            // uid:restartCount attempts already shown
  std::set<std::string> said_;            // events already told
  std::map<std::string, int> first_seen_;  // pod uid -> its restart count when first looked at
  std::string last_pod_uid_, last_pod_name_;
  int last_restarts_ = -1;
  std::optional<TFJob> job_obj_;
  std::unique_ptr<JobWatch> own_watch_;
  JobWatch* watch_ = nullptr;
  std::uint64_t seen_ = 0;  // the watches' generation last looked at
  JobWatch::View view_;
  bool waiting_noted_ = false;
};

}  // namespace detail

TFJOB_INLINE JobLogResult replica_log_records(kube::Client c, const std::string& ns, const std::string& job,
                                              const std::string& type, int index, const JobLogOptions& o,
                                              const std::function<bool(const LogRecord&)>& sink) {
  return detail::ReplicaFollower(std::move(c), ns, job, type, index, o, sink).run();
}

TFJOB_INLINE JobLogResult replica_logs(kube::Client c, const std::string& ns, const std::string& job, const std::string& type,
                                       int index, const JobLogOptions& o,
                                       const std::function<bool(const std::string& pod, std::string_view line)>& emit) {
  std::string line;
  return replica_log_records(c, ns, job, type, index, o, [&](const LogRecord& r) {
    const auto& pc = r.piece;
    std::string_view ts = o.timestamps ? pc.timestamp : std::string_view();
    if (pc.first && pc.last && ts.empty()) return emit(r.source->pod, pc.text);
    if (pc.first) {
      line.clear();
      if (!ts.empty()) line.append(ts).push_back(' ');
    }
    line.append(pc.text);
    return pc.last ? emit(r.source->pod, line) : true;
  });
}

}  // namespace tfjob::workflow
