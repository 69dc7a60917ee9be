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

/// The field at `path` (dot-separated) of `obj`, or `def` when it or a parent is absent or
/// null. A field of the wrong type is a tfjob::error naming `what` and the field (kubectl's
/// typed decoding refuses such an object too; this never hands back the JSON library's words).
template <class T>
inline T field(const nlohmann::json& obj, std::string_view path, T def, const std::string& what) {
  const nlohmann::json* cur = &obj;
  for (std::size_t start = 0; start <= path.size();) {
    std::size_t dot = path.find('.', start);
    if (dot == std::string_view::npos) dot = path.size();
    if (!cur->is_object()) {
      if (cur->is_null()) return def;
      throw tfjob::error(what + ": " + std::string(path.substr(0, start ? start - 1 : 0)) +
                         (start ? " is " : "is ") + json_kind(*cur) + ", expected an object");
    }
    auto it = cur->find(std::string(path.substr(start, dot - start)));
    if (it == cur->end()) return def;
    cur = &*it;
    start = dot + 1;
  }
  if (cur->is_null()) return def;
  auto wrong = [&](const char* expected) {
    return tfjob::error(what + ": " + std::string(path) + " is " + json_kind(*cur) + ", expected " + expected);
  };
  if constexpr (std::is_same_v<T, nlohmann::json>) {
    return *cur;
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!cur->is_string()) throw wrong("a string");
    return cur->get<std::string>();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!cur->is_boolean()) throw wrong("a boolean");
    return cur->get<bool>();
  } else {
    static_assert(std::is_integral_v<T>, "field<T>: string, bool, an integer type or json");
    if (!cur->is_number_integer()) throw wrong("an integer");
    bool fits = cur->is_number_unsigned() ? cur->get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<T>::max())
                                          : cur->get<std::int64_t>() >= std::int64_t(std::numeric_limits<T>::min()) &&
                                                cur->get<std::int64_t>() <= std::int64_t(std::numeric_limits<T>::max());
    if (!fits) throw tfjob::error(what + ": " + std::string(path) + " " + cur->dump() + " is out of range");
    return cur->get<T>();
  }
}

TFJOB_INLINE nlohmann::json list_field(const nlohmann::json& obj, std::string_view path, const std::string& what) {
  nlohmann::json v = field(obj, path, nlohmann::json::array(), what);
  if (!v.is_array()) throw tfjob::error(what + ": " + std::string(path) + " is " + json_kind(v) + ", expected a list");
  return v;
}

}  // namespace detail

TFJOB_INLINE RolloutStatus rollout_status(const nlohmann::json& d) {
  using detail::field;
  RolloutStatus r;
  if (!d.is_object()) throw tfjob::error("the Deployment is " + detail::json_kind(d) + ", expected an object");
  const std::string name = field(d, "metadata.name", std::string(), "the Deployment");
  const std::string what = "deployment \"" + name + "\"";
  const long long generation = field(d, "metadata.generation", 0LL, what);
  const long long observed = field(d, "status.observedGeneration", 0LL, what);
  if (generation > observed) {
    r.message = "Waiting for deployment spec update to be observed...";
    return r;
  }
  for (const auto& c : detail::list_field(d, "status.conditions", what))
    if (field(c, "type", std::string(), what + " condition") == "Progressing" &&
        field(c, "reason", std::string(), what + " condition") == "ProgressDeadlineExceeded") {
      r.failed = true;
      r.message = "deployment \"" + name + "\" exceeded its progress deadline";
      return r;
    }
  const int want = field(d, "spec.replicas", 1, what);
  const int updated = field(d, "status.updatedReplicas", 0, what);
  const int replicas = field(d, "status.replicas", 0, what);
  const int available = field(d, "status.availableReplicas", 0, what);
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

TFJOB_INLINE std::vector<PodProblem> pod_problems(const nlohmann::json& pod, int min_restarts) {
  using detail::field;
  std::vector<PodProblem> out;
  if (!pod.is_object()) throw tfjob::error("the pod is " + detail::json_kind(pod) + ", expected an object");
  const std::string name = field(pod, "metadata.name", std::string(), "the pod");
  const std::string what = "pod \"" + name + "\"";
  for (const char* key : {"initContainerStatuses", "containerStatuses"}) {
    for (const auto& cs : detail::list_field(pod, std::string("status.") + key, what)) {
      const std::string reason = field(cs, "state.waiting.reason", std::string(), what);
      const int restarts = field(cs, "restartCount", 0, what);
      const nlohmann::json last_term = field(cs, "lastState.terminated", nlohmann::json(), what);
      const std::optional<int> exit_code =
          last_term.is_object() && last_term.contains("exitCode") ? std::optional<int>(field(cs, "lastState.terminated.exitCode", 0, what))
                                                                  : std::nullopt;
      const bool crashed_again = restarts >= min_restarts && exit_code.value_or(0) != 0 &&
                                 !field(cs, "ready", false, what);  // between back-offs the state flips; the history does not
      bool bad = (reason == "CrashLoopBackOff" && restarts >= min_restarts) || crashed_again || reason == "ErrImagePull" ||
                 reason == "ImagePullBackOff" || reason == "InvalidImageName" || reason == "CreateContainerConfigError";
      if (!bad) continue;
      PodProblem p;
      p.pod = name;
      p.container = field(cs, "name", std::string(), what);
      p.reason = reason.empty() || reason == "ContainerCreating" ? std::string("CrashLoopBackOff") : reason;
      p.message = field(cs, "state.waiting.message", std::string(), what);
      p.init = std::string(key) == "initContainerStatuses";
      p.restarts = restarts;
      p.last_exit_code = exit_code;
      out.push_back(std::move(p));
    }
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
  for (const auto& v : j["model_version_status"]) {
    if (!v.is_object()) throw tfjob::error(what + ": an entry of model_version_status is " + detail::json_kind(v) + ", expected an object");
    ModelVersionStatus s;
    // TF Serving writes the int64 version as a string ("1"); a bare number is taken too.
    const nlohmann::json version = detail::field(v, "version", nlohmann::json(), what);
    s.version = version.is_null() ? "" : version.is_string() ? version.get<std::string>() : version.dump();
    s.state = detail::field(v, "state", std::string(), what);
    s.error_code = detail::field(v, "status.error_code", std::string(), what);
    s.error_message = detail::field(v, "status.error_message", std::string(), what);
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

TFJOB_INLINE std::vector<PodBlocker> pod_blockers(const std::vector<nlohmann::json>& pods) {
  using detail::field;
  std::vector<PodBlocker> out;
  for (const auto& pod : pods) {
    const std::string name = field(pod, "metadata.name", std::string(), "the pod");
    const std::string what = "pod \"" + name + "\"";
    bool ready = false, scheduled = true;
    std::string unscheduled_msg;
    for (const auto& c : detail::list_field(pod, "status.conditions", what)) {
      const std::string type = field(c, "type", std::string(), what), status = field(c, "status", std::string(), what);
      if (type == "Ready" && status == "True") ready = true;
      if (type == "PodScheduled" && status == "False") scheduled = false, unscheduled_msg = field(c, "message", std::string(), what);
    }
    if (ready || field(pod, "metadata.deletionTimestamp", std::string(), what) != "") continue;
    if (!scheduled) {
      out.push_back({PodBlocker::Kind::scheduling, name, unscheduled_msg});
      continue;
    }
    std::optional<PodBlocker> found;
    for (const char* key : {"initContainerStatuses", "containerStatuses"}) {
      const bool init = std::string(key) == "initContainerStatuses";
      for (const auto& cs : detail::list_field(pod, std::string("status.") + key, what)) {
        if (found) break;
        const std::string cname = field(cs, "name", std::string(), what);
        const std::string reason = field(cs, "state.waiting.reason", std::string(), what);
        const std::string msg = field(cs, "state.waiting.message", std::string(), what);
        const bool running = !field(cs, "state.running", nlohmann::json(), what).is_null();
        if (words::image_pull_problem(reason))
          found = PodBlocker{PodBlocker::Kind::image, name,
                             "container " + cname + " (" + field(cs, "image", std::string(), what) + "): " + reason + (msg.empty() ? "" : ": " + msg)};
        else if (words::crash_loop(reason) || reason == "CreateContainerConfigError" || reason == "RunContainerError")
          found = PodBlocker{PodBlocker::Kind::crash_loop, name, "container " + cname + ": " + reason + (msg.empty() ? "" : ": " + msg)};
        else if (init && running && !words::restartable_init_container(field(pod, "spec", nlohmann::json::object(), what), cname))
          // (a native sidecar, e.g. Istio's in native mode, runs beside the server: not a step of its start)
          found = PodBlocker{PodBlocker::Kind::starting, name, "init container " + cname + " is still running (it fetches the model)"};
        else if (!init && running && !field(cs, "ready", false, what))
          found = PodBlocker{PodBlocker::Kind::model_load, name, "container " + cname + " runs, but its readiness probe (the model's status) fails"};
      }
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
