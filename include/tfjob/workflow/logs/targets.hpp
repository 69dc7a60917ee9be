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
std::vector<LogTarget> log_targets(const TFJob& job, const std::vector<nlohmann::json>& pods, const LogTargetFilter& f,
                                   bool from_spec);

namespace detail {

/// The container names of a pod spec: init containers, then containers (kubectl's
/// --all-containers order), then ephemeral ones.
std::vector<std::string> spec_containers(const k8s::PodSpec& spec, bool with_init = true);

}  // namespace detail

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
namespace tfjob::workflow {

namespace detail {

TFJOB_INLINE std::vector<std::string> spec_containers(const k8s::PodSpec& spec, bool with_init) {
  std::vector<std::string> out;
  if (with_init)
    for (const auto& c : spec.init_containers) out.push_back(c.name);
  for (const auto& c : spec.containers) out.push_back(c.name);
  if (with_init)
    for (const auto& c : spec.ephemeral_containers) out.push_back(c.name);
  return out;
}

}  // namespace detail

TFJOB_INLINE std::string index_ranges(const std::vector<int>& sorted) {
  std::string out;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(sorted[i]) + (j > i ? "-" + std::to_string(sorted[j]) : "");
    i = j + 1;
  }
  return out;
}

TFJOB_INLINE std::vector<LogTarget> log_targets(const TFJob& job, const std::vector<nlohmann::json>& pods, const LogTargetFilter& f,
                                                bool from_spec) {
  const std::string& name = job.metadata.name;
  std::map<std::string, std::pair<std::string, int>> spec;  // lower -> (as written, replicas)
  for (const auto& [type, r] : job.spec.tf_replica_specs) spec[detail::lower(type)] = {type, r.replicas_or_default()};
  for (const auto& t : f.types)
    if (!spec.count(t)) {
      std::string have;
      for (const auto& [k, v] : spec) have += (have.empty() ? "" : ", ") + v.first;
      throw tfjob::error("TFJob \"" + name + "\" has no " + t + " replicas; it has " + (have.empty() ? "none" : have));
    }
  auto wanted_type = [&](const std::string& t) {
    return f.types.empty() || std::find(f.types.begin(), f.types.end(), t) != f.types.end();
  };
  for (int i : f.indices) {
    bool somewhere = false;
    for (const auto& [t, v] : spec)
      if (wanted_type(t) && i >= 0 && i < v.second) somewhere = true;
    if (!somewhere) {
      std::string have;
      for (const auto& [t, v] : spec)
        if (wanted_type(t)) {
          std::vector<int> idx;
          for (int k = 0; k < v.second; ++k) idx.push_back(k);
          have += (have.empty() ? "" : "; ") + v.first + " " + (idx.empty() ? std::string("none") : index_ranges(idx));
        }
      throw tfjob::error("TFJob \"" + name + "\" has no replica with index " + std::to_string(i) + ": its replicas are " + have);
    }
  }
  std::vector<std::pair<std::string, int>> replicas;
  if (from_spec) {
    for (const auto& [t, v] : spec)
      for (int i = 0; i < v.second; ++i) replicas.emplace_back(t, i);
  } else {
    std::set<std::pair<std::string, int>> seen;
    for (const auto& p : pods) {
      auto i = pod_info(p);
      if (!i.replica_type.empty() && i.replica_index >= 0 && seen.insert({i.replica_type, i.replica_index}).second)
        replicas.emplace_back(i.replica_type, i.replica_index);
    }
  }
  std::stable_sort(replicas.begin(), replicas.end(), [](const auto& a, const auto& b) {
    if (replica_rank(a.first) != replica_rank(b.first)) return replica_rank(a.first) < replica_rank(b.first);
    if (a.first != b.first) return a.first < b.first;
    return a.second < b.second;
  });
  std::vector<LogTarget> out;
  for (const auto& [t, i] : replicas) {
    if (!wanted_type(t)) continue;
    if (!f.indices.empty() && std::find(f.indices.begin(), f.indices.end(), i) == f.indices.end()) continue;
    std::vector<std::string> containers = f.containers;
    if (f.all_containers) {
      containers.clear();
      auto it = spec.find(t);
      if (it != spec.end()) containers = detail::spec_containers(pod_template(job.spec.tf_replica_specs.at(it->second.first)).spec);
    }
    if (containers.empty()) containers.push_back(f.default_container);
    for (const auto& c : containers) out.push_back({name, t, i, c});
  }
  return out;
}

}  // namespace tfjob::workflow
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
