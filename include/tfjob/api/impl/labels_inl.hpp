#pragma once
/// \file The bodies of <tfjob/api/labels.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/labels.hpp>, never this file.

namespace tfjob {

TFJOB_INLINE std::string replica_name(std::string_view job_name, std::string_view rtype, int index) {
  std::string n = std::string(job_name) + "-" + to_lower(rtype) + "-" + std::to_string(index);
  for (auto& c : n)
    if (c == '/') c = '-';
  return n;
}

TFJOB_INLINE std::string pod_name(std::string_view job_name, std::string_view rtype, int index) {
  return replica_name(job_name, rtype, index);
}

TFJOB_INLINE std::map<std::string, std::string> job_labels(std::string_view job_name) {
  std::string n(job_name);
  for (auto& c : n)
    if (c == '/') c = '-';
  return {{labels::operator_name, labels::tfjob_controller}, {labels::job_name, n}};
}

TFJOB_INLINE bool is_master_role(const TFJob& job, std::string_view rtype, int index) {
  bool has_chief = job.has_replica(replica_type::Chief) || job.has_replica(replica_type::Master);
  auto canon = canonical_replica_type(rtype).value_or(std::string(rtype));
  if (has_chief) return is_chief_or_master(canon);
  return canon == replica_type::Worker && index == 0;
}

TFJOB_INLINE std::map<std::string, std::string> pod_labels(const TFJob& job, std::string_view rtype,
                                                           int index) {
  auto l = job_labels(job.metadata.name);
  l[labels::replica_type] = to_lower(rtype);
  l[labels::replica_index] = std::to_string(index);
  if (is_master_role(job, rtype, index)) l[labels::job_role] = labels::master_role;
  return l;
}

TFJOB_INLINE std::string job_selector(std::string_view job_name) {
  std::string s;
  for (const auto& [k, v] : job_labels(job_name)) s += (s.empty() ? "" : ",") + k + "=" + v;
  return s;
}

TFJOB_INLINE std::string replica_selector(std::string_view job_name, std::string_view rtype) {
  return job_selector(job_name) + "," + labels::replica_type + "=" + to_lower(rtype);
}

TFJOB_INLINE std::string replica_selector(std::string_view job_name, std::string_view rtype, int index) {
  return replica_selector(job_name, rtype) + "," + labels::replica_index + "=" +
         std::to_string(index);
}

TFJOB_INLINE std::string master_selector(std::string_view job_name) {
  return job_selector(job_name) + "," + labels::job_role + "=" + labels::master_role;
}

TFJOB_INLINE std::string legacy_job_selector(std::string_view job_name) {
  return std::string(labels::legacy::job_name) + "=" + std::string(job_name);
}

}  // namespace tfjob
