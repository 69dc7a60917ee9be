#pragma once
/// \file The bodies of <tfjob/serving/wait.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/wait.hpp>, never this file.

namespace tfjob::serving {

TFJOB_INLINE std::string server_pod_selector(const std::string& name) {
  return std::string(keys::instance) + "=" + name + "," + keys::name + "=tensorflow-serving";
}

namespace detail {

/// What wait_object_and_pods waits on, and how: its arguments, as its steps read them.
struct ObjectWaitArgs {
  const std::string& ns;
  const kube::ResourceInfo& res;
  const std::string& name;
  const std::string& pod_selector;
  const WaitOptions& o;
  const std::function<ObjectVerdict(const nlohmann::json&)>& judge;
};

/// What the watches of wait_object_and_pods delivered; guarded by mu.
struct ObjectWaitState {
  std::mutex mu;
  std::condition_variable cv;
  std::uint64_t generation = 0;
  bool listed = false, found = false, decided = false, deleted = false, ended = false;
  bool pods_listed = false;  ///< the pods' first list arrived, or their watch ended: the pods say what they can
  ObjectVerdict verdict;
  std::exception_ptr error;
  std::map<std::string, k8s::Pod> pods;  ///< by name, each decoded once as its watch delivered it
  std::vector<PodProblem> problems;
  void changed() {
    ++generation;
    cv.notify_all();
  }
};

/// The object's watch (a SideTask's task, on its own connection `oc`): each change judged
/// until one decides, the object is deleted, the deadline passes or `stop` is raised; a
/// failure of the watch is kept in s.error.
TFJOB_INLINE void watch_waited_object(kube::Client& oc, const ObjectWaitArgs& a, ObjectWaitState& s,
                                      const std::atomic<bool>& stop) {
  try {
    kube::WatchParams wp;
    wp.field_selector = "metadata.name=" + a.name;
    auto w = kube::Api<kube::DynamicObject>(oc, a.res, a.ns).watcher(wp);
    w.on_synced = [&] {  // the first list tells "not there" from "not listed yet"
      std::lock_guard<std::mutex> lk(s.mu);
      s.listed = true;
      s.changed();
    };
    kube::StreamOptions so;
    so.cancel = &stop;
    so.deadline = a.o.deadline;  // the watch ends there: a timeout
    w.run([&](const kube::WatchEvent<kube::DynamicObject>& ev) {
      std::lock_guard<std::mutex> lk(s.mu);
      s.found = true;
      s.changed();
      if (ev.type == kube::EventType::deleted) {
        s.deleted = true;
        return false;
      }
      s.verdict = a.judge(ev.object.json);
      s.decided = s.verdict.kind != ObjectVerdict::Kind::waiting;
      return !s.decided;
    }, so);
  } catch (...) {
    std::lock_guard<std::mutex> lk(s.mu);
    s.error = std::current_exception();
  }
  std::lock_guard<std::mutex> lk(s.mu);
  s.ended = true;
  s.changed();
}

/// The pods' watch (a SideTask's task, on its own connection `pc`): the pods by name, until
/// one crash-loops or cannot pull its image (s.problems), the deadline passes or `stop` is raised.
TFJOB_INLINE void watch_waited_pods(kube::Client& pc, const ObjectWaitArgs& a, ObjectWaitState& s,
                                    const std::atomic<bool>& stop) {
  try {
    kube::WatchParams wp;
    wp.label_selector = a.pod_selector;
    kube::StreamOptions so;
    so.cancel = &stop;
    so.deadline = a.o.deadline;
    auto w = kube::Api<kube::DynamicObject>(pc, resources::pods(), a.ns).watcher(wp);
    w.on_synced = [&] {  // a verdict of failed waits for this, so its diagnosis has the pods
      std::lock_guard<std::mutex> lk(s.mu);
      s.pods_listed = true;
      s.changed();
    };
    w.run([&](const kube::WatchEvent<kube::DynamicObject>& ev) {
      std::lock_guard<std::mutex> lk(s.mu);
      const std::string pod = ev.object.name();
      if (ev.type == kube::EventType::deleted) s.pods.erase(pod);
      else s.pods[pod] = tfjob::detail::decoded<k8s::Pod>(ev.object.json);
      std::vector<PodProblem> found;
      for (const auto& [n, p] : s.pods) {
        try {
          for (auto& pr : pod_problems(p, a.o.crashloop_restarts)) found.push_back(std::move(pr));
        } catch (const std::exception&) {
          // a pod of another shape explains nothing
        }
      }
      s.changed();
      if (found.empty()) return true;
      s.problems = std::move(found);
      return false;
    }, so);
  } catch (const std::exception&) {
    // the pods explain; the object decides (a pods watch refused leaves the diagnosis poorer)
  }
  std::lock_guard<std::mutex> lk(s.mu);
  s.pods_listed = true;  // nothing more will come
  s.changed();
}

/// Waits (looking at least every 100 ms) until what the watches delivered ends the wait, the
/// caller cancels or the deadline passes; each new verdict's message goes to on_progress.
TFJOB_INLINE void await_object_wait_end(const WaitOptions& o, ObjectWaitState& s) {
  std::uint64_t seen = 0;
  std::string shown;
  for (;;) {
    std::unique_lock<std::mutex> lk(s.mu);
    s.cv.wait_for(lk, std::chrono::milliseconds(100), [&] { return s.generation != seen; });
    seen = s.generation;
    const std::string line = s.verdict.message;
    // a failed verdict is reported with the pods, so it waits for their first list (the two watches race)
    const bool awaiting_pods = s.decided && s.verdict.kind == ObjectVerdict::Kind::failed && !s.pods_listed;
    const bool over = !awaiting_pods && (s.ended || s.deleted || s.decided || !s.problems.empty() || (s.listed && !s.found));
    lk.unlock();
    if (o.on_progress && !line.empty() && line != shown) o.on_progress(shown = line);
    if (over || (o.cancel && o.cancel->load()) || std::chrono::steady_clock::now() >= o.deadline) break;
  }
}

/// The wait's report from what the watches delivered (both stopped, `s` the caller's alone):
/// not found, ready, failed (with the pods' problems and logs) or timed out/cancelled.
TFJOB_INLINE WaitReport object_wait_report(kube::Client& c, const ObjectWaitArgs& a, const ObjectWaitWords& words,
                                           ObjectWaitState& s) {
  const std::string& ns = a.ns;
  const WaitOptions& o = a.o;
  WaitReport rep;
  rep.message = s.verdict.message;
  std::vector<k8s::Pod> pods;
  for (auto& [n, p] : s.pods) pods.push_back(std::move(p));
  if (s.deleted || (s.listed && !s.found)) {
    rep.result = WaitResult::not_found;
    rep.message = words.what + (s.deleted ? " was deleted while waiting for it" : " not found in namespace \"" + ns + "\"");
  } else if (s.verdict.kind == ObjectVerdict::Kind::ready) {
    rep.result = WaitResult::ready;
  } else if (s.verdict.kind == ObjectVerdict::Kind::failed) {  // e.g. ProgressDeadlineExceeded: failing pods if any, else why nothing started
    rep.result = WaitResult::failed;
    std::vector<PodProblem> now;
    for (const auto& p : pods) {
      try {
        for (auto& pr : pod_problems(p, o.crashloop_restarts)) now.push_back(std::move(pr));
      } catch (const std::exception&) {
      }
    }
    rep.diagnosis = diagnose(c, ns, pods, now) + scheduling_reasons(pods);
    if (now.empty()) rep.diagnosis += warning_events(c, ns, pods);
  } else if (!s.problems.empty()) {
    rep.result = WaitResult::failed;
    rep.message = words.failing;
    rep.diagnosis = diagnose(c, ns, pods, s.problems) + scheduling_reasons(pods);
  } else {  // the watches ended at the deadline, or the caller cancelled
    rep.result = o.cancel && o.cancel->load() ? WaitResult::cancelled : WaitResult::timeout;
    rep.diagnosis = pods.empty() && !words.no_pods.empty() ? words.no_pods : scheduling_reasons(pods) + warning_events(c, ns, pods);
    try {
      rep.blockers = pod_blockers(pods);
    } catch (const std::exception&) {
      // a pod of another shape: the diagnosis above still says what the server said
    }
  }
  return rep;
}

}  // namespace detail

TFJOB_INLINE WaitReport wait_object_and_pods(kube::Client& c, const std::string& ns, const kube::ResourceInfo& res,
                                             const std::string& name, const std::string& pod_selector, const WaitOptions& o,
                                             const std::function<ObjectVerdict(const nlohmann::json&)>& judge,
                                             const ObjectWaitWords& words) {
  const detail::ObjectWaitArgs a{ns, res, name, pod_selector, o, judge};
  detail::ObjectWaitState s;
  kube::Client oc = c, pc = c;  // each watch its own connection
  kube::SideTask object_watch([&](const std::atomic<bool>& stop) {
    detail::watch_waited_object(oc, a, s, stop);
    return false;
  });
  kube::SideTask pods_watch([&](const std::atomic<bool>& stop) {
    detail::watch_waited_pods(pc, a, s, stop);
    return false;
  });
  detail::await_object_wait_end(o, s);
  object_watch.stop();
  pods_watch.stop();  // both joined: `s` is ours alone from here

  if (s.error) std::rethrow_exception(s.error);  // the object's watch failed: nothing was decided
  return detail::object_wait_report(c, a, words, s);
}

TFJOB_INLINE WaitReport wait_rollout(kube::Client& c, const std::string& ns, const std::string& name, const WaitOptions& o) {
  ObjectWaitWords words;
  words.what = "deployment \"" + name + "\"";
  words.failing = words.what + " will not become ready: its pods are failing";
  return wait_object_and_pods(c, ns, resources::deployments(), name, server_pod_selector(name), o, [](const nlohmann::json& d) {
    const auto st = rollout_status(d);
    return ObjectVerdict{st.done ? ObjectVerdict::Kind::ready : st.failed ? ObjectVerdict::Kind::failed : ObjectVerdict::Kind::waiting,
                         st.message};
  }, words);
}

TFJOB_INLINE ModelProbe probe_model(kube::Client& c, const std::string& ns, const std::string& service, const std::string& model) {
  ModelProbe p;
  auto a = proxy_call(c, ns, service, "GET", "/v1/models/" + model);
  if (a.from_apiserver()) {
    p.message = "the service proxy answered " + std::to_string(a.status) + ": " + a.apiserver_message();
    return p;
  }
  if (a.status == 404) {
    p.kind = ModelProbe::Kind::no_version;
    std::string e = tf_serving_error(a.body);
    p.message = "TF Serving has no version of model \"" + model + "\"" + (e.empty() ? "" : " (" + e + ")");
    return p;
  }
  if (a.status != 200) {
    std::string e = tf_serving_error(a.body);
    p.message = "TF Serving answered " + std::to_string(a.status) + (e.empty() ? "" : ": " + e);
    return p;
  }
  ModelStatus m = parse_model_status(a.body);
  p.status = m;
  if (auto v = m.available_version()) {
    p.kind = ModelProbe::Kind::available;
    p.version = *v;
    p.message = "model \"" + model + "\" version " + *v + " is AVAILABLE";
  } else if (auto f = m.failed_version()) {
    p.kind = ModelProbe::Kind::failed;
    p.message = "model \"" + model + "\" version " + f->version + " failed to load (" + f->error_code + "): " + f->error_message;
  } else {
    p.kind = ModelProbe::Kind::loading;
    p.message = "model \"" + model + "\": " + m.summary();
  }
  return p;
}

TFJOB_INLINE WaitReport wait_model(kube::Client& c, const std::string& ns, const std::string& service, const std::string& model,
                                   const WaitOptions& o) {
  WaitReport rep;
  for (;;) {
    ModelProbe p = probe_model(c, ns, service, model);
    rep.message = p.message;
    if (o.on_progress) o.on_progress(p.message);
    if (p.kind == ModelProbe::Kind::available) {
      rep.result = WaitResult::ready;
      rep.version = p.version;
      return rep;
    }
    if (p.kind == ModelProbe::Kind::failed) {
      rep.result = WaitResult::failed;
      // TF Serving's words for a wrong layout: "Could not find SavedModel .pb or .pbtxt at
      // supplied export directory path", "No versions of servable ... found", "... not found".
      if (p.message.find("saved_model.pb") != std::string::npos || p.message.find("No versions") != std::string::npos ||
          p.message.find("Could not find SavedModel") != std::string::npos ||
          p.message.find("not found") != std::string::npos)
        rep.diagnosis = layout_hint(model);
      return rep;
    }
    if (std::chrono::steady_clock::now() + o.interval >= o.deadline) {
      rep.result = WaitResult::timeout;
      if (p.kind == ModelProbe::Kind::no_version) rep.diagnosis = layout_hint(model);
      return rep;
    }
    if (!kube::sleep_for(o.interval, o.cancel, o.deadline) && o.cancel && o.cancel->load()) {
      rep.result = WaitResult::cancelled;
      return rep;
    }
  }
}

}  // namespace tfjob::serving
