#pragma once
/// \file What a job's logs are read from: its streams (LogTarget, one replica's container),
/// picked by a LogTargetFilter from the job's spec or from the pods it has, in reading
/// order. Part of <tfjob/workflow/logs.hpp>.

#include <tfjob/api/k8s/pod.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>
#include <tfjob/workflow/pods.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tfjob::workflow {

/// One stream of a job's logs: a replica and one of its containers.
struct LogTarget {
  std::string job;
  std::string replica_type;  ///< lower case
  int index = 0;
  std::string container;
};

/// Which streams: replica types (lower case; empty = all), indices (empty = all),
/// containers (empty = `default_container`), every container of each replica.
struct LogTargetFilter {
  std::vector<std::string> types;
  std::vector<int> indices;
  std::vector<std::string> containers;
  bool all_containers = false;
  std::string default_container = "tensorflow";
};

/// "0-1", "0, 2-3": a compact list of indices.
std::string index_ranges(const std::vector<int>& sorted);

/// The streams of one job in reading order (see replica_rank). `pods` non-empty: the
/// replicas that have pods (a read of what exists); empty: every replica of the spec (to
/// follow, waiting for pods not made yet). An index or type the job does not have is an
/// error naming the ones it has.
std::vector<LogTarget> log_targets(const TFJob& job, const std::vector<k8s::Pod>& pods, const LogTargetFilter& f,
                                   bool from_spec);

namespace detail {

/// The container names of a pod spec: init containers, then containers (kubectl's
/// --all-containers order), then ephemeral ones.
std::vector<std::string> spec_containers(const k8s::PodSpec& spec, bool with_init = true);

}  // namespace detail

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/logs/impl/targets_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
