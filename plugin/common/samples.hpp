#pragma once
/// \file Built-in sample TFJobs, so `kubectl tfjob submit mnist` needs no YAML. Each sample
/// lives in `plugin/common/sample_<name>.cpp` and registers itself with
/// `TFJOB_REGISTER_SAMPLE`; the job flags (`--name`, `--workers`, `--gpus`, ...) are applied
/// on top of the sample's builder.
///
/// A sample may ship its trainer's files in a ConfigMap (`SampleFiles`): the job then runs
/// a stock image (TensorFlow's own) with the files mounted where its command expects them,
/// and `submit` creates the ConfigMap owned by the TFJob, so the garbage collector deletes
/// it with the job. `--image` means "my image has the trainer": no ConfigMap then.

#include <tfjob/api/builder.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/detail/suggest.hpp>  // closest

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace tfjob::cli {

/// The files of a sample that travel in a ConfigMap.
struct SampleFiles {
  const char* mount_path = nullptr;                          ///< where the tensorflow container sees them
  std::vector<std::pair<const char*, const char*>> files;    ///< file name (ConfigMap key) -> content
};

/// One built-in sample.
struct Sample {
  const char* name;         ///< what the user types: `submit <name>`
  const char* description;  ///< one line for `--help` and `submit --list-samples`
  TFJobBuilder (*make)();   ///< the sample's job, before the user's flags
  SampleFiles files = {};   ///< shipped in a ConfigMap when the job runs the stock image
};

inline std::vector<Sample>& sample_registry() {
  static std::vector<Sample> r;
  return r;
}

/// The sample of that name, or nullptr.
inline const Sample* find_sample(const std::string& name) {
  for (const auto& s : sample_registry())
    if (name == s.name) return &s;
  return nullptr;
}

/// Registered samples sorted by name.
inline std::vector<Sample> samples_sorted() {
  auto v = sample_registry();
  std::sort(v.begin(), v.end(), [](const Sample& a, const Sample& b) { return std::string(a.name) < b.name; });
  return v;
}

/// Comma-separated names, for messages.
inline std::string sample_names() {
  std::string s;
  for (const auto& x : samples_sorted()) s += (s.empty() ? "" : ", ") + std::string(x.name);
  return s.empty() ? "(none)" : s;
}

/// "Did you mean": the SDK's one measure (cobra's SuggestionsFor: case, then 2 edits).
using tfjob::detail::closest;

/// "unknown sample 'mnsit' (did you mean mnist?); built-in samples: hello, mnist".
inline std::string unknown_sample_message(const std::string& word) {
  std::vector<std::string> names;
  for (const auto& s : samples_sorted()) names.emplace_back(s.name);
  std::string m = "unknown sample '" + word + "'";
  if (auto c = closest(word, names); !c.empty()) m += " (did you mean " + c + "?)";
  return m + "; built-in samples: " + sample_names() +
         " (submit --list-samples). A job from flags needs --image; its args go after --";
}

/// The ConfigMap that carries a sample's files for job `job` (name `<job>-trainer`).
inline std::string sample_configmap_name(const std::string& job) { return job + "-trainer"; }

/// Mounts the sample's ConfigMap in every replica's `tensorflow` container (read-only, at
/// `files.mount_path`). No-op for a sample without files.
inline void mount_sample_files(TFJob& job, const Sample& s) {
  if (!s.files.mount_path || s.files.files.empty()) return;
  const std::string cm = sample_configmap_name(job.metadata.name);
  for (auto& [type, rs] : job.spec.tf_replica_specs) {
    auto& spec = rs.template_["spec"];
    spec["volumes"].push_back({{"name", "trainer"}, {"configMap", {{"name", cm}}}});
    for (auto& c : spec["containers"])
      if (tfjob::detail::value_at(c, "name", "") == "tensorflow")
        c["volumeMounts"].push_back({{"name", "trainer"}, {"mountPath", s.files.mount_path}, {"readOnly", true}});
  }
}

/// The ConfigMap object with the sample's files, for job `job` in `ns`.
inline nlohmann::json sample_configmap(const Sample& s, const std::string& job, const std::string& ns) {
  nlohmann::json data = nlohmann::json::object();
  for (const auto& [k, v] : s.files.files) data[k] = v;
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata",
           {{"name", sample_configmap_name(job)},
            {"namespace", ns},
            {"labels", {{"app.kubernetes.io/name", s.name}, {"app.kubernetes.io/part-of", "kubectl-tfjob"},
                        {"training.kubeflow.org/job-name", job}}}}},
          {"data", data}};
}

struct SampleRegistrar {
  SampleRegistrar(const char* name, const char* description, TFJobBuilder (*make)(), SampleFiles files = {}) {
    sample_registry().push_back({name, description, make, std::move(files)});
  }
};

}  // namespace tfjob::cli

#define TFJOB_SAMPLE_CONCAT2(a, b) a##b
#define TFJOB_SAMPLE_CONCAT(a, b) TFJOB_SAMPLE_CONCAT2(a, b)
/// Register a built-in sample: `TFJOB_REGISTER_SAMPLE("mnist", "one line", make_mnist);`
/// (a fourth argument, a `SampleFiles`, ships the trainer's files in a ConfigMap).
#define TFJOB_REGISTER_SAMPLE(name, description, ...)                                         \
  static ::tfjob::cli::SampleRegistrar TFJOB_SAMPLE_CONCAT(tfjob_sample_registrar_, __LINE__) { \
    name, description, __VA_ARGS__                                                            \
  }
