#pragma once
/// \file The bodies of <tfjob/workflow/logs/targets.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/logs/targets.hpp>, never this file.

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

TFJOB_INLINE std::vector<LogTarget> log_targets(const TFJob& job, const std::vector<k8s::Pod>& pods, const LogTargetFilter& f,
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
