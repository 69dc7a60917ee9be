#pragma once
/// \file Built-in sample TFJobs, so `kubectl tfjob submit mnist` needs no YAML. Each sample
/// lives in `plugin/common/sample_<name>.cpp` and registers itself with
/// `TFJOB_REGISTER_SAMPLE`; the job flags (`--name`, `--workers`, `--gpus`, ...) are applied
/// on top of the sample's builder.

#include <tfjob/api/builder.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace tfjob::cli {

/// One built-in sample.
struct Sample {
  const char* name;         ///< what the user types: `submit <name>`
  const char* description;  ///< one line for `--help` and `submit --list-samples`
  TFJobBuilder (*make)();   ///< the sample's job, before the user's flags
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

struct SampleRegistrar {
  SampleRegistrar(const char* name, const char* description, TFJobBuilder (*make)()) {
    sample_registry().push_back({name, description, make});
  }
};

}  // namespace tfjob::cli

#define TFJOB_SAMPLE_CONCAT2(a, b) a##b
#define TFJOB_SAMPLE_CONCAT(a, b) TFJOB_SAMPLE_CONCAT2(a, b)
/// Register a built-in sample: `TFJOB_REGISTER_SAMPLE("mnist", "one line", make_mnist);`
#define TFJOB_REGISTER_SAMPLE(name, description, fn)                                          \
  static ::tfjob::cli::SampleRegistrar TFJOB_SAMPLE_CONCAT(tfjob_sample_registrar_, __LINE__) { \
    name, description, fn                                                                     \
  }
