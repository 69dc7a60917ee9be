#pragma once
/// \file Labels the operator puts on a TFJob's pods and services, the selectors that find
/// them, and their names (`pkg/apis/kubeflow.org/v1/common_types.go`,
/// `JobController.GenLabels`, `core.GenGeneralName`, `TFJobReconciler.IsMasterRole`).

#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>

#include <map>
#include <string>
#include <string_view>

namespace tfjob {

namespace labels {
inline constexpr const char* job_name = "training.kubeflow.org/job-name";
inline constexpr const char* replica_type = "training.kubeflow.org/replica-type";
inline constexpr const char* replica_index = "training.kubeflow.org/replica-index";
inline constexpr const char* job_role = "training.kubeflow.org/job-role";
inline constexpr const char* operator_name = "training.kubeflow.org/operator-name";
/// Value of `operator_name` for TFJobs (`controllerName` in tfjob_controller.go).
inline constexpr const char* tfjob_controller = "tfjob-controller";
/// Value of `job_role` on the pod that decides success (chief, master or worker 0).
inline constexpr const char* master_role = "master";

/// Keys used by older operators (tf-operator v1 and kubeflow/common before the
/// `training.kubeflow.org/` prefix); selectors fall back to them for old jobs.
namespace legacy {
inline constexpr const char* group_name = "group-name";  ///< value "kubeflow.org"
inline constexpr const char* job_name = "job-name";
inline constexpr const char* replica_type = "replica-type";
inline constexpr const char* replica_index = "replica-index";
inline constexpr const char* job_role = "job-role";
inline constexpr const char* tf_job_name = "tf-job-name";
inline constexpr const char* tf_replica_type = "tf-replica-type";
inline constexpr const char* tf_replica_index = "tf-replica-index";
}  // namespace legacy
}  // namespace labels

/// `GenGeneralName`: `{job}-{lower type}-{index}` with `/` replaced by `-`; the name of a
/// replica's pod and of its headless service.
std::string replica_name(std::string_view job_name, std::string_view rtype, int index);
/// Alias of replica_name() for readability at pod call sites.
std::string pod_name(std::string_view job_name, std::string_view rtype, int index);

/// `GenLabels`: the labels on every pod of the job.
std::map<std::string, std::string> job_labels(std::string_view job_name);

/// `IsMasterRole`: chief/master when the job has one, else worker 0.
bool is_master_role(const TFJob& job, std::string_view rtype, int index);

/// Every label the operator sets on one replica's pod.
std::map<std::string, std::string> pod_labels(const TFJob& job, std::string_view rtype,
                                              int index);

/// Label selector (`k=v,k=v`) for every pod of a job.
std::string job_selector(std::string_view job_name);
/// Selector for the pods of one replica type.
std::string replica_selector(std::string_view job_name, std::string_view rtype);
/// Selector for one replica's pod.
std::string replica_selector(std::string_view job_name, std::string_view rtype, int index);
/// Selector for the pod that decides success (`job-role=master`).
std::string master_selector(std::string_view job_name);
/// Selector for pods of jobs created by pre-v1.3 operators (unprefixed keys).
std::string legacy_job_selector(std::string_view job_name);

}  // namespace tfjob

#if TFJOB_SDK_DEFINE_API
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
#endif  // TFJOB_SDK_DEFINE_API
