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
#include <tfjob/api/impl/labels_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
