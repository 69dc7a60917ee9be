#pragma once
/// \file Reading what the cluster and TF Serving say, as pure functions: a Deployment's
/// rollout status exactly as `kubectl rollout status` words it
/// (kubectl/pkg/polymorphichelpers/rollout_status.go, DeploymentStatusViewer), pods that
/// will not come up (crash loops, image pulls), TF Serving's model status
/// (`GET /v1/models/NAME`: model_version_status[] with state START/LOADING/AVAILABLE/
/// UNLOADING/END and status.error_code/error_message) and predictions with top-k classes.

#include <tfjob/error.hpp>
#include <tfjob/serving/imagenet_labels.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::serving {

/// Where a rollout stands.
struct RolloutStatus {
  bool done = false;
  bool failed = false;       ///< ProgressDeadlineExceeded
  std::string message;       ///< kubectl's wording
};

/// kubectl's DeploymentStatusViewer.Status for one Deployment object.
inline RolloutStatus rollout_status(const nlohmann::json& d) {
  RolloutStatus r;
  const std::string name = d.value("/metadata/name"_json_pointer, std::string());
  const auto& st = d.contains("status") ? d["status"] : nlohmann::json::object();
  const long long generation = d.value("/metadata/generation"_json_pointer, 0LL);
  const long long observed = st.value("observedGeneration", 0LL);
  if (generation > observed) {
    r.message = "Waiting for deployment spec update to be observed...";
    return r;
  }
  for (const auto& c : st.value("conditions", nlohmann::json::array()))
    if (c.value("type", "") == "Progressing" && c.value("reason", "") == "ProgressDeadlineExceeded") {
      r.failed = true;
      r.message = "deployment \"" + name + "\" exceeded its progress deadline";
      return r;
    }
  const int want = d.value("/spec/replicas"_json_pointer, 1);
  const int updated = st.value("updatedReplicas", 0);
  const int replicas = st.value("replicas", 0);
  const int available = st.value("availableReplicas", 0);
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

/// A container of a pod that will not become ready on its own.
struct PodProblem {
  std::string pod, container, reason, message;
  bool init = false;
  int restarts = 0;
  std::optional<int> last_exit_code;
};

/// Containers (init containers included) waiting in CrashLoopBackOff with at least
/// `min_restarts` restarts, or stuck on the image (ErrImagePull, ImagePullBackOff,
/// InvalidImageName, CreateContainerConfigError).
inline std::vector<PodProblem> pod_problems(const nlohmann::json& pod, int min_restarts = 2) {
  std::vector<PodProblem> out;
  const std::string name = pod.value("/metadata/name"_json_pointer, std::string());
  const auto& st = pod.contains("status") ? pod["status"] : nlohmann::json::object();
  for (const char* key : {"initContainerStatuses", "containerStatuses"}) {
    for (const auto& cs : st.value(key, nlohmann::json::array())) {
      const auto waiting = cs.value("/state/waiting"_json_pointer, nlohmann::json::object());
      const std::string reason = waiting.value("reason", "");
      const int restarts = cs.value("restartCount", 0);
      const auto& last_term = cs.value("/lastState/terminated"_json_pointer, nlohmann::json());
      const bool crashed_again = restarts >= min_restarts && last_term.is_object() && last_term.value("exitCode", 0) != 0 &&
                                 !cs.value("ready", false);  // between back-offs the state flips; the history does not
      bool bad = (reason == "CrashLoopBackOff" && restarts >= min_restarts) || crashed_again || reason == "ErrImagePull" ||
                 reason == "ImagePullBackOff" || reason == "InvalidImageName" || reason == "CreateContainerConfigError";
      if (!bad) continue;
      PodProblem p;
      p.pod = name;
      p.container = cs.value("name", "");
      p.reason = reason.empty() || reason == "ContainerCreating" ? std::string("CrashLoopBackOff") : reason;
      p.message = waiting.value("message", "");
      p.init = std::string(key) == "initContainerStatuses";
      p.restarts = restarts;
      const auto& last = cs.value("/lastState/terminated"_json_pointer, nlohmann::json());
      if (last.is_object() && last.contains("exitCode")) p.last_exit_code = last["exitCode"].get<int>();
      out.push_back(std::move(p));
    }
  }
  return out;
}

/// One entry of TF Serving's model_version_status.
struct ModelVersionStatus {
  std::string version, state, error_code, error_message;
};

/// TF Serving's answer to `GET /v1/models/NAME`.
struct ModelStatus {
  std::vector<ModelVersionStatus> versions;
  /// The highest AVAILABLE version, if any (HTTP 200 alone is not ready: TF Serving
  /// answers 200 with state LOADING while a version loads).
  std::optional<std::string> available_version() const {
    std::optional<std::string> best;
    for (const auto& v : versions)
      if (v.state == "AVAILABLE" && (!best || std::stoll(v.version) > std::stoll(*best))) best = v.version;
    return best;
  }
  /// A version that ended with an error (a model that failed to load).
  std::optional<ModelVersionStatus> failed_version() const {
    for (const auto& v : versions)
      if (v.state == "END" && !v.error_code.empty() && v.error_code != "OK") return v;
    return std::nullopt;
  }
  /// "version 1 LOADING, version 2 AVAILABLE".
  std::string summary() const {
    std::string s;
    for (const auto& v : versions) s += (s.empty() ? "" : ", ") + ("version " + v.version + " " + v.state);
    return s.empty() ? "no versions" : s;
  }
};

/// Parses TF Serving's model status JSON; throws tfjob::error when it is not one.
inline ModelStatus parse_model_status(const std::string& body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("model_version_status") || !j["model_version_status"].is_array())
    throw tfjob::error("TF Serving's model status is not the expected JSON (model_version_status[]): " + body.substr(0, 200));
  ModelStatus m;
  for (const auto& v : j["model_version_status"]) {
    ModelVersionStatus s;
    s.version = v.contains("version") ? (v["version"].is_string() ? v["version"].get<std::string>() : v["version"].dump()) : "";
    s.state = v.value("state", "");
    s.error_code = v.value("/status/error_code"_json_pointer, std::string());
    s.error_message = v.value("/status/error_message"_json_pointer, std::string());
    m.versions.push_back(std::move(s));
  }
  return m;
}

/// TF Serving's `{"error": "..."}`; "" when the body is not one.
inline std::string tf_serving_error(const std::string& body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_discarded() && j.is_object() && j.contains("error") && j["error"].is_string()) return j["error"].get<std::string>();
  return {};
}

/// What to check when TF Serving finds no version of a model.
inline std::string layout_hint(const std::string& model) {
  return "TF Serving loads <model_base_path>/<numeric version>/saved_model.pb: the volume must hold " + model +
         "/1/saved_model.pb (and " + model + "/1/variables/), with a numeric version directory such as 1/ — "
         "a SavedModel written straight into " + model + "/ is never found";
}

/// One scored class.
struct ClassScore {
  int index = 0;
  double score = 0;
  std::string label;  ///< ImageNet name when the output has 1001 (or 1000) classes
};

/// The class scores of one prediction: `{"probabilities": [...]}` (ResNet's signature,
/// with `classes`), or a bare list of numbers (a single-output model).
inline std::vector<double> prediction_scores(const nlohmann::json& prediction) {
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

/// The `k` best classes, best first (ties: lower index first). Labels: 1001 outputs are
/// ImageNet with 0 = background (index = label index); 1000 outputs are ImageNet without
/// background (label index + 1); anything else is unnamed.
inline std::vector<ClassScore> top_k(const std::vector<double>& scores, int k) {
  std::vector<int> idx(scores.size());
  std::iota(idx.begin(), idx.end(), 0);
  k = std::max(0, std::min<int>(k, static_cast<int>(scores.size())));
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&](int a, int b) {
    return scores[a] != scores[b] ? scores[a] > scores[b] : a < b;
  });
  std::vector<ClassScore> out;
  for (int i = 0; i < k; ++i) {
    ClassScore c;
    c.index = idx[i];
    c.score = scores[idx[i]];
    if (scores.size() == imagenet_labels.size()) c.label = std::string(imagenet_labels[c.index]);
    else if (scores.size() + 1 == imagenet_labels.size()) c.label = std::string(imagenet_labels[c.index + 1]);
    out.push_back(std::move(c));
  }
  return out;
}

/// The request body for images: `{"instances":[{"b64":"..."}, ...]}` (TF Serving's REST
/// API encodes binary inputs as {"b64": ...}).
inline nlohmann::json image_instances(const std::vector<std::string>& base64_images) {
  nlohmann::json inst = nlohmann::json::array();
  for (const auto& b : base64_images) inst.push_back({{"b64", b}});
  return {{"instances", inst}};
}

/// Whether bytes look like a JPEG or PNG (what decode_jpeg/decode_image accept).
inline bool looks_like_image(const std::string& bytes) {
  if (bytes.size() >= 3 && static_cast<unsigned char>(bytes[0]) == 0xFF && static_cast<unsigned char>(bytes[1]) == 0xD8 &&
      static_cast<unsigned char>(bytes[2]) == 0xFF)
    return true;
  return bytes.size() >= 8 && bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0;
}

}  // namespace tfjob::serving
