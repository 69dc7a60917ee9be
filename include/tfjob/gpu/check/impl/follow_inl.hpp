#pragma once
/// \file The bodies of <tfjob/gpu/check/follow.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_GPU` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/gpu/check/follow.hpp>, never this file.

namespace tfjob::gpu {

namespace detail {
TFJOB_INLINE void tell(const CheckOptions& o, const Text& line) {
  if (o.progress) o.progress(line);
}

TFJOB_INLINE bool cancel_raised(const CheckOptions& o) { return o.cancel && o.cancel->load(); }

TFJOB_INLINE ProbeCleanup::~ProbeCleanup() {
  if (keep || created.empty()) return;
  for (const auto& name : created) {
    try {
      kube::DeleteParams dp;
      dp.grace_period_seconds = 0;
      dp.propagation_policy = "Background";
      pods.remove_opt(name, dp);
    } catch (const std::exception& e) {
      if (say) say("could not delete pod " + name + ": " + e.what());
    }
  }
  if (say) say("deleted " + std::to_string(created.size()) + " probe pod" + (created.size() == 1 ? "" : "s"));
}

TFJOB_INLINE void create_probe_pods(kube::Api<k8s::Pod>& pods, CheckResult& res, const std::vector<std::size_t>& probing,
                                    const CheckOptions& o, const std::string& ns, std::vector<std::string>& created) {
  for (std::size_t i : probing) {
    if (cancel_raised(o)) break;
    auto& r = res.nodes[i];
    pods.create(probe_pod(r.node, o, res.run_id));
    created.push_back(r.pod);
    r.phase = "Pending";
    tell(o, r.node.name + ": created probe pod " + ns + "/" + r.pod);
  }
}

TFJOB_INLINE ProbeFollower::ProbeFollower(kube::Client& client, std::string ns, const CheckOptions& o, const VerdictOptions& v, CheckResult& res,
                                            const std::vector<std::size_t>& probing)
    : client_(client), ns_(std::move(ns)), o_(o), v_(v), res_(res), open_(probing.begin(), probing.end()),
      // The pods' own activeDeadlineSeconds plus a little for scheduling and log reading.
      deadline_(Clock::now() + std::chrono::seconds(o.deadline_seconds) + std::chrono::seconds(wait_slack_seconds(o.deadline_seconds))) {
  for (std::size_t i : probing) index_of_[res.nodes[i].pod] = i;
}

TFJOB_INLINE void ProbeFollower::run(kube::Api<k8s::Pod>& pods) {
  kube::Client ec = client_;  // the side task's own connection
  auto next_refresh = Clock::now() + o_.poll;
  auto next_running = Clock::now() + o_.running_every;
  kube::SideTask side(std::chrono::milliseconds(20), [&](const std::atomic<bool>&) {
    if (cancel_raised(o_) || Clock::now() > deadline_) return false;
    if (Clock::now() >= next_refresh) {
      refresh_pending(ec);
      next_refresh = Clock::now() + o_.poll;
    }
    // Never silent: a running probe is told every `running_every` with its last line.
    if (Clock::now() >= next_running) {
      tell_running(ec);
      next_running = Clock::now() + o_.running_every;
    }
    speak();
    return true;
  });
  if (!open_.empty()) {
    kube::WatchParams wp;
    wp.label_selector = std::string(run_label) + "=" + res_.run_id;
    kube::StreamOptions so;  // the watch itself ends at the deadline or on cancel
    so.cancel = o_.cancel;
    so.deadline = deadline_;
    pods.watch(wp, [&](const kube::WatchEvent<k8s::Pod>& ev) { return on_event(ev); }, so);
  }
  side.stop();
  speak();
  finish();
}

TFJOB_INLINE void ProbeFollower::speak() {
  std::vector<std::string> lines;
  {
    std::lock_guard<std::mutex> lk(mu_);
    lines.swap(told_);
  }
  std::lock_guard<std::mutex> lk(say_mu_);
  for (const auto& l : lines) tell(o_, l);
}

TFJOB_INLINE void ProbeFollower::note_pending(std::size_t i, const k8s::Pod& p, const std::vector<k8s::Event>& events) {
  auto& r = res_.nodes[i];
  std::string note = "Pending: " + explain_pending(p, events);
  r.message = note;
  if (last_note_[i] != note) {
    last_note_[i] = note;
    told_.push_back(r.node.name + ": " + note);
  }
}

TFJOB_INLINE std::vector<k8s::Event> ProbeFollower::pod_events(kube::Client& cl, const k8s::Pod& p) const {
  try {
    return kube::Api<k8s::Event>(cl, ns_).list(kube::events_about("Pod", p.metadata.name, ns_, p.metadata.uid)).items;
  } catch (const tfjob::error&) {
    return {};
  }
}

TFJOB_INLINE ProbeFollower::Fetched ProbeFollower::fetch(const k8s::Pod& p) {
  Fetched f;
  const std::string& phase = p.status.phase;
  if (phase == "Succeeded" || phase == "Failed") {
    try {
      kube::LogParams lp;
      lp.container = "probe";
      f.logs = kube::get_logs(client_, ns_, p.metadata.name, lp);
    } catch (const tfjob::error& e) {
      f.log_error = std::string("cannot read the probe's log: ") + e.what();
    }
  } else if (phase == "Pending") {
    f.events = pod_events(client_, p);
  }
  return f;
}

TFJOB_INLINE void ProbeFollower::look(std::size_t i, const k8s::Pod& p, const Fetched& f) {
  auto& r = res_.nodes[i];
  r.phase = p.status.phase;
  if (r.phase == "Succeeded" || r.phase == "Failed") return look_ended(i, p, f);
  if (r.phase == "Pending") return look_pending(i, p, f);
  pending_.erase(i);
  r.message = Text();
  if (r.phase == "Running" && !running_since_.count(i)) running_since_[i] = Clock::now();
  if (last_note_[i] != r.phase) {
    last_note_[i] = r.phase;
    told_.push_back(r.node.name + ": " + r.phase);
  }
}

TFJOB_INLINE void ProbeFollower::look_ended(std::size_t i, const k8s::Pod& p, const Fetched& f) {
  auto& r = res_.nodes[i];
  pending_.erase(i);
  const auto* probe = p.container_status("probe");
  r.exit_code = probe && probe->state.terminated ? probe->state.terminated->exit_code : -1;
  if (!f.log_error.empty()) r.message = f.log_error;
  if (r.phase == "Failed" && f.logs.find('{') == std::string::npos) {
    r.status = NodeStatus::failed;
    const std::string& why = p.status.reason;
    const std::string& msg = p.status.message;
    r.message = "probe pod failed" + (why.empty() ? std::string() : ": " + why) + (msg.empty() ? "" : ": " + msg) +
                (r.exit_code >= 0 ? " (exit code " + std::to_string(r.exit_code) + ")" : "") +
                (r.message.empty() ? "" : "; " + r.message);
  } else {
    judge_probe_output(r, f.logs, v_);
  }
  told_.push_back(r.node.name + ": " + to_string(r.status) + (r.message.empty() ? "" : ": " + r.message.str()));
  open_.erase(i);
}

TFJOB_INLINE void ProbeFollower::look_pending(std::size_t i, const k8s::Pod& p, const Fetched& f) {
  auto& r = res_.nodes[i];
  std::string pull = image_pull_failure(p, f.events);
  if (pull.empty()) {
    pending_[i] = p;
    return note_pending(i, p, f.events);
  }
  // Waiting out the deadline would not help: the node cannot get the image.
  pending_.erase(i);
  r.status = NodeStatus::failed;
  r.reason = "ImagePull";
  r.message = "cannot pull the probe image " + o_.image + ": " + pull +
              "; build the image from gpu/Dockerfile, push it to a registry the nodes can pull from, and use that image";
  told_.push_back(r.node.name + ": failed: " + r.message.str());
  open_.erase(i);
}

TFJOB_INLINE void ProbeFollower::refresh_pending(kube::Client& ec) {
  std::map<std::size_t, k8s::Pod> pending;
  {
    std::lock_guard<std::mutex> lk(mu_);
    for (auto it = pending_.lower_bound(refresh_next_); it != pending_.end() && pending.size() < refresh_batch; ++it)
      pending.insert(*it);
    for (auto it = pending_.begin(); it != pending_.end() && pending.size() < refresh_batch; ++it) pending.insert(*it);
    refresh_next_ = pending.empty() ? 0 : pending.rbegin()->first + 1;
  }
  std::map<std::size_t, std::vector<k8s::Event>> events;  // each pending pod's own, read without mu_
  for (const auto& [i, p] : pending) events[i] = pod_events(ec, p);
  std::lock_guard<std::mutex> lk(mu_);
  for (const auto& [i, p] : pending_)
    if (open_.count(i) && events.count(i)) note_pending(i, p, events[i]);
}

TFJOB_INLINE void ProbeFollower::tell_running(kube::Client& ec) {
  std::vector<std::tuple<Clock::time_point, std::string, std::string>> running;  // since, node, pod
  {
    std::lock_guard<std::mutex> lk(mu_);
    for (const auto& [i, t] : running_since_)
      if (open_.count(i) && res_.nodes[i].phase == "Running") running.emplace_back(t, res_.nodes[i].node.name, res_.nodes[i].pod);
  }
  std::vector<std::string> lines;
  for (const auto& [t, node, pod] : running) {
    std::string last;
    try {
      kube::LogParams lp;
      lp.container = "probe";
      lp.tail_lines = 1;
      last = kube::get_logs(ec, ns_, pod, lp);
    } catch (const tfjob::error&) {
    }
    while (!last.empty() && (last.back() == '\n' || last.back() == '\r')) last.pop_back();
    if (last.size() > 160) last = last.substr(0, 157) + "...";
    const auto secs = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - t).count();
    lines.push_back(node + ": running for " + std::to_string(secs) + " s" + (last.empty() ? "" : ": " + last));
  }
  std::lock_guard<std::mutex> lk(mu_);
  told_.insert(told_.end(), lines.begin(), lines.end());
}

TFJOB_INLINE bool ProbeFollower::on_event(const kube::WatchEvent<k8s::Pod>& ev) {
  std::size_t i = 0;
  {
    std::lock_guard<std::mutex> lk(mu_);
    auto it = index_of_.find(ev.object.metadata.name);
    if (it == index_of_.end() || !open_.count(it->second)) return !open_.empty();
    i = it->second;
    if (ev.type == kube::EventType::deleted) {
      auto& r = res_.nodes[i];
      r.status = NodeStatus::failed;
      r.message = "the probe pod disappeared (deleted by someone else?)";
      told_.push_back(r.node.name + ": " + r.message.str());
      open_.erase(i);
      pending_.erase(i);
    }
  }
  if (ev.type != kube::EventType::deleted) {
    const Fetched f = fetch(ev.object);
    std::lock_guard<std::mutex> lk(mu_);
    if (open_.count(i)) look(i, ev.object, f);
  }
  speak();
  std::lock_guard<std::mutex> lk(mu_);
  return !open_.empty();
}

TFJOB_INLINE void ProbeFollower::finish() {
  if (!open_.empty() && cancel_raised(o_)) {
    res_.cancelled = true;
    for (std::size_t i : open_) {
      res_.nodes[i].status = NodeStatus::cancelled;
      res_.nodes[i].message = "interrupted while the probe was " + res_.nodes[i].phase;
    }
    open_.clear();
  } else if (!open_.empty()) {
    res_.timed_out = true;  // the watch ended at the deadline
  }
  if (!res_.timed_out) return;
  for (std::size_t i : open_) {
    auto& r = res_.nodes[i];
    r.status = r.phase == "Pending" ? NodeStatus::pending : NodeStatus::timeout;
    r.message = "no result within " + std::to_string(o_.deadline_seconds) + "s" + (r.message.empty() ? "" : " (" + r.message + ")");
  }
}

}  // namespace detail

}  // namespace tfjob::gpu
