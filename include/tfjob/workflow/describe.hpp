#pragma once
/// \file `kubectl tfjob describe`: what a person wants to know about one TFJob, gathered
/// into a value (testable) and rendered as kubectl-describe-like text.

#include <tfjob/api/k8s/event.hpp>
#include <tfjob/api/k8s/pod.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/detail/table.hpp>
#include <tfjob/workflow/explain.hpp>
#include <tfjob/workflow/pods.hpp>
#include <tfjob/workflow/progress.hpp>
#include <tfjob/workflow/status.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <ctime>
#include <sstream>
#include <string>
#include <vector>

namespace tfjob::workflow {

/// One replica type of the spec.
struct ReplicaSummary {
  std::string type;
  int replicas = 1;
  std::string restart_policy;
  std::string image;
  long long gpus_per_pod = 0;
};

/// One row of the pods table.
struct PodRow {
  std::string name, type, phase, node;
  int index = -1, restarts = 0;
  long long gpus = 0;
  std::string detail;  ///< waiting reason or exit code
};

/// One event line.
struct EventRow {
  std::string type, reason, object, message, age;
  int count = 1;
};

/// Everything `describe` shows.
struct Description {
  JobSummary summary;
  std::vector<ReplicaSummary> replicas;
  std::string clean_pod_policy, ttl, backoff_limit, active_deadline, scheduling;
  std::vector<PodRow> pods;
  std::vector<EventRow> events;
  /// TF_CONFIG each replica receives: key `worker-1` (ReplicaTFConfig::id); value the
  /// JSON text, or "" when the operator sets none.
  std::vector<std::pair<std::string, std::string>> tf_configs;
  /// The "Why" section: the explanation's most pressing sentences (workflow/explain.hpp).
  std::vector<std::string> why;
};

/// Gather a description. `tf_configs` comes from the caller (the api layer computes it).
Description describe(const TFJob& job, const std::vector<k8s::Pod>& pods, const std::vector<k8s::Event>& events,
                     std::vector<std::pair<std::string, std::string>> tf_configs,
                     std::time_t now = std::time(nullptr), QueueState queue = {});

/// Columns padded to their widest cell, separated by 3 spaces: the SDK's one table
/// renderer (detail/table.hpp).
using tfjob::detail::render_table;

/// kubectl-describe-like text.
std::string render(const Description& d, std::time_t now = std::time(nullptr));

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/impl/describe_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
