#pragma once
/// \file The bodies of <tfjob/serving/status.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/status.hpp>, never this file.

namespace tfjob::serving {

namespace detail {

TFJOB_INLINE std::string json_kind(const nlohmann::json& v) {
  if (v.is_object()) return "an object";
  if (v.is_array()) return "a list";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  return "null";
}

/// A field of a typed object as a server sent it, checked as it is read: the object was decoded
/// leniently (api/meta.hpp), so a field of a type the model cannot hold stays in its struct's
/// `other`, as sent. Reading `value` through `operator()` refuses such a field with a tfjob::error
/// `<what>: <path> is <kind>, expected <type>` (or `<path> <value> is out of range`), as kubectl's
/// typed decoding refuses the object; a field kept there with the model's type is one the model
/// writes back by leaving it out (0, "", false, {}, []), and reads as it is.
struct SentFields {
  std::string what;  ///< the object, for people: `deployment "resnet"`

  /// `value`, the field `key` of the struct whose unmodeled fields are `other`, at `prefix` + `key`.
  template <class T>
  const T& operator()(const nlohmann::json& other, const std::string& prefix, const char* key, const T& value) const {
    auto it = other.find(key);
    if (it != other.end() && !it->is_null()) refuse(*it, prefix + key, expected<T>());
    return value;
  }

 private:
  enum class Type { string, boolean, int32, int64, object, list };
  template <class T> struct unwrap { using type = T; };
  template <class T> struct unwrap<std::optional<T>> { using type = T; };
  template <class T> static constexpr Type expected() {
    using V = typename unwrap<T>::type;
    if constexpr (std::is_same_v<V, std::string>) return Type::string;
    else if constexpr (std::is_same_v<V, bool>) return Type::boolean;
    else if constexpr (std::is_same_v<V, std::int32_t>) return Type::int32;
    else if constexpr (std::is_same_v<V, std::int64_t>) return Type::int64;
    else if constexpr (tfjob::detail::is_vector<V>::value) return Type::list;
    else return Type::object;  // a nested value type
  }
  void refuse(const nlohmann::json& v, const std::string& path, Type t) const;
};

TFJOB_INLINE void SentFields::refuse(const nlohmann::json& v, const std::string& path, Type t) const {
  auto wrong = [&](const char* expected) { return tfjob::error(what + ": " + path + " is " + json_kind(v) + ", expected " + expected); };
  switch (t) {
    case Type::string: if (!v.is_string()) throw wrong("a string"); return;
    case Type::boolean: if (!v.is_boolean()) throw wrong("a boolean"); return;
    case Type::object: if (!v.is_object()) throw wrong("an object"); return;
    case Type::list:  // (the decoder leaves a list unset whole when an entry is not an object)
      if (!v.is_array()) throw wrong("a list");
      for (std::size_t i = 0; i < v.size(); ++i)
        if (!v[i].is_object())
          throw tfjob::error(what + ": " + path + "[" + std::to_string(i) + "] is " + json_kind(v[i]) + ", expected an object");
      return;
    case Type::int32:
    case Type::int64: {
      if (!v.is_number_integer()) throw wrong("an integer");  // 2.0 too, as Go's decoder refuses it for an int32
      const bool fits = t == Type::int64 ? !v.is_number_unsigned() || v.get<std::uint64_t>() <= std::uint64_t(INT64_MAX)
                                         : v.is_number_unsigned() ? v.get<std::uint64_t>() <= std::uint64_t(INT32_MAX)
                                                                  : v.get<std::int64_t>() >= INT32_MIN && v.get<std::int64_t>() <= INT32_MAX;
      if (!fits) throw tfjob::error(what + ": " + path + " " + v.dump() + " is out of range");
      return;
    }
  }
}

/// What the readers here take of one container status, each field checked as read (SentFields,
/// paths from the status: `state.waiting.reason`).
struct ContainerRead {
  std::string name, image, reason, message;  ///< reason and message: of its waiting state
  int restarts = 0;
  bool ready = false, running = false;
  std::optional<int> last_exit_code;  ///< when it terminated before (kubelet writes exitCode with every termination)
};

TFJOB_INLINE ContainerRead read_container(const SentFields& f, const k8s::ContainerStatus& cs) {
  ContainerRead r;
  r.name = f(cs.other, "", "name", cs.name);
  r.image = f(cs.other, "", "image", cs.image);
  r.restarts = f(cs.other, "", "restartCount", cs.restart_count);
  r.ready = f(cs.other, "", "ready", cs.ready);
  const auto& state = f(cs.other, "", "state", cs.state);
  if (const auto& w = f(state.other, "state.", "waiting", state.waiting)) {
    r.reason = f(w->other, "state.waiting.", "reason", w->reason);
    r.message = f(w->other, "state.waiting.", "message", w->message);
  }
  r.running = f(state.other, "state.", "running", state.running).has_value();
  const auto& last = f(cs.other, "", "lastState", cs.last_state);
  if (const auto& t = f(last.other, "lastState.", "terminated", last.terminated))
    r.last_exit_code = f(t->other, "lastState.terminated.", "exitCode", t->exit_code);
  return r;
}

/// The pod's name, checked as read, and the SentFields that name it (`pod "NAME"`).
TFJOB_INLINE SentFields pod_fields(const k8s::Pod& pod) {
  const SentFields who{"the pod"};
  const auto& md = who(pod.other, "", "metadata", pod.metadata);
  return SentFields{"pod \"" + who(md.other, "metadata.", "name", md.name) + "\""};
}

/// The pod's container statuses, init containers' first, each with whether it is an init container.
TFJOB_INLINE std::vector<std::pair<const k8s::ContainerStatus*, bool>> container_statuses(const SentFields& f, const k8s::Pod& pod) {
  std::vector<std::pair<const k8s::ContainerStatus*, bool>> out;
  const auto& st = f(pod.other, "", "status", pod.status);
  for (const auto& cs : f(st.other, "status.", "initContainerStatuses", st.init_container_statuses)) out.push_back({&cs, true});
  for (const auto& cs : f(st.other, "status.", "containerStatuses", st.container_statuses)) out.push_back({&cs, false});
  return out;
}

}  // namespace detail

TFJOB_INLINE RolloutStatus rollout_status(const k8s::Deployment& d) {
  RolloutStatus r;
  const detail::SentFields who{"the Deployment"};
  const auto& md = who(d.other, "", "metadata", d.metadata);
  const std::string name = who(md.other, "metadata.", "name", md.name);
  const detail::SentFields f{"deployment \"" + name + "\""};
  const long long generation = f(md.other, "metadata.", "generation", md.generation).value_or(0);
  const auto& st = f(d.other, "", "status", d.status);
  const long long observed = f(st.other, "status.", "observedGeneration", st.observed_generation);
  if (generation > observed) {
    r.message = "Waiting for deployment spec update to be observed...";
    return r;
  }
  const detail::SentFields cf{f.what + " condition"};
  for (const auto& c : f(st.other, "status.", "conditions", st.conditions))
    if (cf(c.other, "", "type", c.type) == "Progressing" && cf(c.other, "", "reason", c.reason) == "ProgressDeadlineExceeded") {
      r.failed = true;
      r.message = "deployment \"" + name + "\" exceeded its progress deadline";
      return r;
    }
  const auto& spec = f(d.other, "", "spec", d.spec);
  const int want = f(spec.other, "spec.", "replicas", spec.replicas).value_or(1);
  const int updated = f(st.other, "status.", "updatedReplicas", st.updated_replicas);
  const int replicas = f(st.other, "status.", "replicas", st.replicas);
  const int available = f(st.other, "status.", "availableReplicas", st.available_replicas);
  if (updated < want) {
    r.message = "Waiting for deployment \"" + name + "\" rollout to finish: " + std::to_string(updated) + " out of " +
                std::to_string(want) + " new replicas have been updated...";
  } else if (replicas > updated) {
    r.message = "Waiting for deployment \"" + name + "\" rollout to finish: " + std::to_string(replicas - updated) +
                " old replicas are pending termination...";
  } else if (available < updated) {
    r.message = "Waiting for deployment \"" + name + "\" rollout to finish: " + std::to_string(available) + " of " +
                std::to_string(updated) + " updated replicas are available...";
  } else {
    r.done = true;
    r.message = "deployment \"" + name + "\" successfully rolled out";
  }
  return r;
}

TFJOB_INLINE RolloutStatus rollout_status(const nlohmann::json& d) {
  if (!d.is_object()) throw tfjob::error("the Deployment is " + detail::json_kind(d) + ", expected an object");
  return rollout_status(tfjob::detail::decoded<k8s::Deployment>(d));
}

TFJOB_INLINE std::vector<PodProblem> pod_problems(const k8s::Pod& pod, int min_restarts) {
  std::vector<PodProblem> out;
  const detail::SentFields f = detail::pod_fields(pod);
  for (const auto& [status, init] : detail::container_statuses(f, pod)) {
    const detail::ContainerRead cs = detail::read_container(f, *status);
    const std::string& reason = cs.reason;
    const bool crashed_again = cs.restarts >= min_restarts && cs.last_exit_code.value_or(0) != 0 &&
                               !cs.ready;  // between back-offs the state flips; the history does not
    bool bad = (reason == "CrashLoopBackOff" && cs.restarts >= min_restarts) || crashed_again || reason == "ErrImagePull" ||
               reason == "ImagePullBackOff" || reason == "InvalidImageName" || reason == "CreateContainerConfigError";
    if (!bad) continue;
    PodProblem p;
    p.pod = pod.metadata.name;
    p.container = cs.name;
    p.reason = reason.empty() || reason == "ContainerCreating" ? std::string("CrashLoopBackOff") : reason;
    p.message = cs.message;
    p.init = init;
    p.restarts = cs.restarts;
    p.last_exit_code = cs.last_exit_code;
    out.push_back(std::move(p));
  }
  return out;
}

TFJOB_INLINE std::optional<std::string> ModelStatus::available_version() const {
  std::optional<std::string> best;
  long long best_n = 0;
  for (const auto& v : versions) {
    // Versions are int64 (TF Serving's servable version); one that is not a number is never "the highest".
    long long n = 0;
    auto [end, ec] = std::from_chars(v.version.data(), v.version.data() + v.version.size(), n);
    if (ec != std::errc() || end != v.version.data() + v.version.size()) continue;
    if (v.state == "AVAILABLE" && (!best || n > best_n)) best = v.version, best_n = n;
  }
  return best;
}

TFJOB_INLINE std::vector<std::string> ModelStatus::available_versions() const {
  std::vector<std::string> out;
  for (const auto& v : versions)
    if (v.state == "AVAILABLE") out.push_back(v.version);
  return out;
}

TFJOB_INLINE std::optional<ModelVersionStatus> ModelStatus::failed_version() const {
  for (const auto& v : versions)
    if (v.state == "END" && !v.error_code.empty() && v.error_code != "OK") return v;
  return std::nullopt;
}

TFJOB_INLINE std::string ModelStatus::summary() const {
  std::string s;
  for (const auto& v : versions) s += (s.empty() ? "" : ", ") + ("version " + v.version + " " + v.state);
  return s.empty() ? "no versions" : s;
}

TFJOB_INLINE ModelStatus parse_model_status(const std::string& body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("model_version_status") || !j["model_version_status"].is_array())
    throw tfjob::error("TF Serving's model status is not the expected JSON (model_version_status[]): " + body.substr(0, 200));
  ModelStatus m;
  const std::string what = "TF Serving's model status";
  // TF Serving's own JSON (model_version_status[]: version, state, status.{error_code, error_message}),
  // not a Kubernetes object: each string read here, or an error naming it
  auto text = [&](const nlohmann::json& o, const char* key, const std::string& path) {
    auto it = o.find(key);
    if (it == o.end() || it->is_null()) return std::string();
    if (!it->is_string()) throw tfjob::error(what + ": " + path + " is " + detail::json_kind(*it) + ", expected a string");
    return it->get<std::string>();
  };
  for (const auto& v : j["model_version_status"]) {
    if (!v.is_object()) throw tfjob::error(what + ": an entry of model_version_status is " + detail::json_kind(v) + ", expected an object");
    ModelVersionStatus s;
    // TF Serving writes the int64 version as a string ("1"); a bare number is taken too.
    if (auto version = v.find("version"); version != v.end() && !version->is_null())
      s.version = version->is_string() ? version->get<std::string>() : version->dump();
    s.state = text(v, "state", "state");
    if (auto st = v.find("status"); st != v.end() && !st->is_null()) {
      if (!st->is_object()) throw tfjob::error(what + ": status is " + detail::json_kind(*st) + ", expected an object");
      s.error_code = text(*st, "error_code", "status.error_code");
      s.error_message = text(*st, "error_message", "status.error_message");
    }
    m.versions.push_back(std::move(s));
  }
  return m;
}

TFJOB_INLINE std::string tf_serving_error(const std::string& body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_discarded() && j.is_object() && j.contains("error") && j["error"].is_string()) return j["error"].get<std::string>();
  return {};
}

TFJOB_INLINE std::string layout_hint(const std::string& model) {
  return "TF Serving loads <model_base_path>/<numeric version>/saved_model.pb: the volume must hold " + model +
         "/1/saved_model.pb (and " + model + "/1/variables/), with a numeric version directory such as 1/ — "
         "a SavedModel written straight into " + model + "/ is never found";
}

TFJOB_INLINE std::vector<PodBlocker> pod_blockers(const std::vector<k8s::Pod>& pods) {
  std::vector<PodBlocker> out;
  for (const auto& pod : pods) {
    const detail::SentFields f = detail::pod_fields(pod);
    const std::string& name = pod.metadata.name;
    bool ready = false, scheduled = true;
    std::string unscheduled_msg;
    const auto& st = f(pod.other, "", "status", pod.status);
    for (const auto& c : f(st.other, "status.", "conditions", st.conditions)) {
      const std::string& type = f(c.other, "", "type", c.type);
      const std::string& status = f(c.other, "", "status", c.status);
      if (type == "Ready" && status == "True") ready = true;
      if (type == "PodScheduled" && status == "False") scheduled = false, unscheduled_msg = f(c.other, "", "message", c.message);
    }
    if (ready || !f(pod.metadata.other, "metadata.", "deletionTimestamp", pod.metadata.deletion_timestamp).empty()) continue;
    if (!scheduled) {
      out.push_back({PodBlocker::Kind::scheduling, name, unscheduled_msg});
      continue;
    }
    auto sidecar = [&](const std::string& container) {  // a native sidecar (e.g. Istio's in native mode) runs beside the server
      for (const auto* c : f(pod.other, "", "spec", pod.spec).sidecars())
        if (c->name == container) return true;
      return false;
    };
    std::optional<PodBlocker> found;
    for (const auto& [status, init] : detail::container_statuses(f, pod)) {
      if (found) break;
      const detail::ContainerRead cs = detail::read_container(f, *status);
      const std::string& reason = cs.reason;
      const std::string& msg = cs.message;
      if (words::image_pull_problem(reason))
        found = PodBlocker{PodBlocker::Kind::image, name,
                           "container " + cs.name + " (" + cs.image + "): " + reason + (msg.empty() ? "" : ": " + msg)};
      else if (words::crash_loop(reason) || reason == "CreateContainerConfigError" || reason == "RunContainerError")
        found = PodBlocker{PodBlocker::Kind::crash_loop, name, "container " + cs.name + ": " + reason + (msg.empty() ? "" : ": " + msg)};
      else if (init && cs.running && !sidecar(cs.name))  // (a sidecar is not a step of the server's start)
        found = PodBlocker{PodBlocker::Kind::starting, name, "init container " + cs.name + " is still running (it fetches the model)"};
      else if (!init && cs.running && !cs.ready)
        found = PodBlocker{PodBlocker::Kind::model_load, name, "container " + cs.name + " runs, but its readiness probe (the model's status) fails"};
    }
    out.push_back(found ? *found : PodBlocker{PodBlocker::Kind::starting, name, "its containers are being created"});
  }
  return out;
}

TFJOB_INLINE Text blocker_hints(const std::vector<PodBlocker>& blockers, const std::string& model) {
  Text s;
  for (auto kind : {PodBlocker::Kind::scheduling, PodBlocker::Kind::image, PodBlocker::Kind::crash_loop,
                    PodBlocker::Kind::starting, PodBlocker::Kind::model_load}) {
    std::string pods;
    std::string detail;
    for (const auto& b : blockers)
      if (b.kind == kind) {
        pods += (pods.empty() ? "" : ", ") + b.pod;
        if (detail.empty()) detail = b.detail;
      }
    if (pods.empty()) continue;
    switch (kind) {
      case PodBlocker::Kind::scheduling:
        s += "hint: scheduling: pod " + pods + " is not scheduled" + (detail.empty() ? "" : " (" + detail + ")") +
             "; fewer GPUs or replicas, other node selectors or tolerations, or free GPUs let it run\n";
        break;
      case PodBlocker::Kind::image:
        s += "hint: image pull: pod " + pods + " cannot get its image (" + detail + "); check the image name and that the nodes can reach its registry\n";
        break;
      case PodBlocker::Kind::crash_loop:
        s += "hint: crash loop: pod " + pods + " keeps failing (" + detail + "); its logs say why\n";
        break;
      case PodBlocker::Kind::starting:
        s += "hint: starting: pod " + pods + ": " + detail +
             "; a large model takes a while to download, a later deadline (" + setting::wait_deadline + ") waits for it\n";
        break;
      case PodBlocker::Kind::model_load:
        s += "hint: model load: pod " + pods + ": " + detail + " — a 404 means TF Serving found no version; " + layout_hint(model) + "\n";
        break;
    }
  }
  return s;
}

TFJOB_INLINE std::vector<double> prediction_scores(const nlohmann::json& prediction) {
  const nlohmann::json* arr = nullptr;
  if (prediction.is_array()) arr = &prediction;
  else if (prediction.is_object()) {
    for (const char* k : {"probabilities", "scores", "logits", "predictions"})
      if (prediction.contains(k) && prediction[k].is_array()) {
        arr = &prediction[k];
        break;
      }
  }
  if (!arr) throw tfjob::error("the prediction has no list of class scores (expected \"probabilities\"): " + prediction.dump().substr(0, 200));
  std::vector<double> out;
  out.reserve(arr->size());
  for (const auto& v : *arr) {
    if (!v.is_number()) throw tfjob::error("the prediction's class scores are not numbers: " + arr->dump().substr(0, 200));
    out.push_back(v.get<double>());
  }
  return out;
}

TFJOB_INLINE const nlohmann::json& predictions_of(const nlohmann::json& response, std::size_t expected) {
  if (!response.is_object() || !response.contains("predictions") || !response["predictions"].is_array())
    throw tfjob::error("TF Serving's answer has no \"predictions\" list: " + response.dump().substr(0, 200));
  const auto& preds = response["predictions"];
  if (expected > 0 && preds.size() != expected)
    throw tfjob::error("TF Serving returned " + std::to_string(preds.size()) + " predictions for " +
                       std::to_string(expected) + " instances: " + response.dump().substr(0, 300));
  return preds;
}

TFJOB_INLINE nlohmann::json image_instances(const std::vector<std::string>& base64_images) {
  nlohmann::json inst = nlohmann::json::array();
  for (const auto& b : base64_images) inst.push_back({{"b64", b}});
  return {{"instances", inst}};
}

TFJOB_INLINE bool looks_like_image(const std::string& bytes) {
  if (bytes.size() >= 3 && static_cast<unsigned char>(bytes[0]) == 0xFF && static_cast<unsigned char>(bytes[1]) == 0xD8 &&
      static_cast<unsigned char>(bytes[2]) == 0xFF)
    return true;
  return bytes.size() >= 8 && bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0;
}

}  // namespace tfjob::serving
