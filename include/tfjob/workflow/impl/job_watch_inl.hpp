#pragma once
/// \file The bodies of <tfjob/workflow/job_watch.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/job_watch.hpp>, never this file.

namespace tfjob::workflow {

TFJOB_INLINE Progress JobWatch::View::progress() const {
  return job ? workflow::progress(*job, pods, events) : workflow::progress(JobSummary{}, pods, events);
}

TFJOB_INLINE JobWatch::JobWatch(kube::Client c, std::string ns, std::string name, JobWatchOptions o)
    : ns_(std::move(ns)), name_(std::move(name)), expected_(1 + (o.pods ? 1 : 0) + (o.events ? 1 : 0)) {
  // the job: its watch decides what waiting commands do
  watches_.push_back(std::make_unique<kube::SideTask>([this, c, d = o.deadline](const std::atomic<bool>& stop) mutable {
    try {
      kube::WatchParams wp;
      wp.field_selector = "metadata.name=" + name_;
      run(c, resources::tfjobs(), wp, stop, d, [this](const kube::WatchEvent<kube::DynamicObject>& ev) {
        // a deletion a relist found carries what the watcher remembered (kube::WatchEvent::
        // final_state_unknown): the job as this watch last had it says more
        const bool last = ev.type == kube::EventType::deleted && ev.final_state_unknown && job_.has_value();
        JobChange ch{ev.type == kube::EventType::deleted, last ? *job_ : tfjob::detail::decoded<TFJob>(ev.object.json)};
        if (ch.deleted) deleted_ = true;
        else job_ = ch.object;
        changes_.push_back(std::move(ch));
      });
    } catch (...) {
      std::lock_guard<std::mutex> lk(mu_);
      error_ = std::current_exception();
    }
    std::lock_guard<std::mutex> lk(mu_);
    ended_ = true;
    ++generation_;
    cv_.notify_all();
    return false;
  }));
  if (o.pods) {
    kube::WatchParams pw;
    pw.label_selector = o.pod_selector.empty() ? pod_selectors(name_).front() : o.pod_selector;
    side(c, resources::pods(), pw, o.deadline, [this](const kube::WatchEvent<kube::DynamicObject>& ev) {
      const std::string pod = ev.object.name();
      if (ev.type == kube::EventType::deleted) pods_.erase(pod);
      else pods_[pod] = tfjob::detail::decoded<k8s::Pod>(ev.object.json);
    });
  }
  if (o.events) {
    kube::WatchParams ew;
    ew.field_selector = kube::events_about(tfjob::kind, name_, ns_).field_selector;
    side(c, resources::events(), ew, o.deadline, [this](const kube::WatchEvent<kube::DynamicObject>& ev) {
      if (ev.type != kube::EventType::deleted) keep_event(tfjob::detail::decoded<k8s::Event>(ev.object.json));
    });
  }
}

TFJOB_INLINE JobWatch::~JobWatch() { stop(); }

TFJOB_INLINE JobWatch::View JobWatch::view() const {
  std::lock_guard<std::mutex> lk(mu_);
  View v;
  v.generation = generation_;
  v.synced = synced_ >= expected_ || ended_;
  v.ended = ended_;
  v.deleted = deleted_;
  v.job = job_;
  v.pods.reserve(pods_.size());
  for (const auto& [n, p] : pods_) v.pods.push_back(p);
  v.events.reserve(events_.size());
  for (const auto& [u, e] : events_) v.events.push_back(e);
  return v;
}

TFJOB_INLINE std::vector<JobChange> JobWatch::take_changes() {
  std::lock_guard<std::mutex> lk(mu_);
  std::vector<JobChange> out;
  out.swap(changes_);
  return out;
}

TFJOB_INLINE std::uint64_t JobWatch::wait(std::uint64_t seen, std::chrono::milliseconds at_most) const {
  std::unique_lock<std::mutex> lk(mu_);
  cv_.wait_for(lk, at_most, [&] { return generation_ > seen || ended_; });
  return generation_;
}

TFJOB_INLINE bool JobWatch::ended() const {
  std::lock_guard<std::mutex> lk(mu_);
  return ended_;
}

TFJOB_INLINE void JobWatch::stop() {
  for (auto& w : watches_) w.reset();
}

TFJOB_INLINE void JobWatch::rethrow_error() const {
  std::exception_ptr e;
  {
    std::lock_guard<std::mutex> lk(mu_);
    e = error_;
  }
  if (e) std::rethrow_exception(e);
}

TFJOB_INLINE void JobWatch::run(kube::Client& c, const kube::ResourceInfo& res, const kube::WatchParams& wp, const std::atomic<bool>& stop,
                                std::chrono::steady_clock::time_point deadline, const Apply& apply) {
  kube::Api<kube::DynamicObject> api(c, res, ns_);
  auto w = api.watcher(wp);
  bool counted = false;
  w.on_synced = [&] {
    std::lock_guard<std::mutex> lk(mu_);
    if (!counted) ++synced_;
    counted = true;
    ++generation_;
    cv_.notify_all();
  };
  kube::StreamOptions so;
  so.cancel = &stop;
  so.deadline = deadline;
  w.run([&](const kube::WatchEvent<kube::DynamicObject>& ev) {
    std::lock_guard<std::mutex> lk(mu_);
    apply(ev);
    ++generation_;
    cv_.notify_all();
    return true;
  }, so);
}

TFJOB_INLINE void JobWatch::side(kube::Client c, const kube::ResourceInfo& res, kube::WatchParams wp, std::chrono::steady_clock::time_point deadline,
                                 Apply apply) {
  watches_.push_back(std::make_unique<kube::SideTask>(
      [this, c, res, wp = std::move(wp), deadline, apply = std::move(apply)](const std::atomic<bool>& stop) mutable {
        try {
          run(c, res, wp, stop, deadline, apply);
        } catch (const std::exception&) {
          std::lock_guard<std::mutex> lk(mu_);
          ++synced_;
          ++generation_;
          cv_.notify_all();
        }
        return false;
      }));
}

TFJOB_INLINE void JobWatch::keep_event(k8s::Event ev) {
  const auto& io = ev.involved_object;
  if (io.kind != tfjob::kind || io.name != name_) return;  // the field selector chose these; a server that ignores it is checked
  const std::string uid = ev.metadata.uid.empty() ? io.name + "/" + ev.reason : ev.metadata.uid;
  if (auto [it, added] = events_.try_emplace(uid, ev); added) {
    event_order_.push_back(uid);
    if (event_order_.size() > max_events) {
      events_.erase(event_order_.front());
      event_order_.pop_front();
    }
  } else {
    it->second = std::move(ev);  // a repeat: the count and lastTimestamp moved
  }
}

}  // namespace tfjob::workflow
