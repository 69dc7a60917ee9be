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

#include <CLI/CLI.hpp>
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

std::vector<Sample>& sample_registry();

/// The sample of that name, or nullptr.
const Sample* find_sample(const std::string& name);

/// Registered samples sorted by name.
std::vector<Sample> samples_sorted();

/// Comma-separated names, for messages.
std::string sample_names();

/// "Did you mean": the SDK's one measure (cobra's SuggestionsFor: case, then 2 edits).
using tfjob::detail::closest;

/// A word where a sample's name goes that names none, as a usage error in the one form:
/// `SAMPLE: "mnsit" is not a built-in sample (did you mean mnist?); give one of hello, mnist ...`.
CLI::ValidationError unknown_sample(const std::string& word);

/// The ConfigMap that carries a sample's files for job `job` (name `<job>-trainer`).
inline std::string sample_configmap_name(const std::string& job) { return job + "-trainer"; }

/// Mounts the sample's ConfigMap in every replica's `tensorflow` container (read-only, at
/// `files.mount_path`). No-op for a sample without files.
void mount_sample_files(TFJob& job, const Sample& s);

/// The ConfigMap object with the sample's files, for job `job` in `ns`.
nlohmann::json sample_configmap(const Sample& s, const std::string& job, const std::string& ns);

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
