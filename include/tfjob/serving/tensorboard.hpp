#pragma once
/// \file TensorBoard for a TFJob, as pure data (no I/O): the job's log directory found in its
/// containers' flags (--log-dir, --log_dir, --logdir; `--flag=DIR` or `--flag DIR`) and the
/// claim mounted there, then a Deployment + Service running `tensorboard --logdir` on that
/// claim (read-only). `kubectl tfjob tensorboard JOB` applies them and reaches the Service
/// through a local proxy (kube/local_proxy.hpp) to the API server's service proxy.

#include <tfjob/api/k8s/objects.hpp>
#include <tfjob/api/k8s/workloads.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace tfjob::serving {

inline constexpr int tensorboard_port = 6006;  ///< TensorBoard's default --port
/// TensorFlow's CPU image of the guide's release (serving::default_serving_version): its
/// TensorBoard reads the event files that release's trainer writes.
inline constexpr const char* default_tensorboard_image = "tensorflow/tensorflow:2.20.0";

/// Where a job writes its TensorBoard logs.
struct JobLogDir {
  std::string container_path;  ///< as the job's flag names it, e.g. /data/logs
  std::string claim;           ///< the PersistentVolumeClaim mounted over it
  std::string sub_path;        ///< the directory inside the claim ("" = its root)
  std::string replica;         ///< the replica type whose container said so ("Chief")
};

namespace detail {

/// The value of --log-dir/--log_dir/--logdir in ARGS ("" when none).
std::string log_dir_flag(const std::vector<std::string>& args);

}  // namespace detail

/// The job's log directory on a claim: the first replica (Chief, Master, Worker, then the
/// rest) whose container names one, and the claim volume mounted at or above it. Throws
/// tfjob::error saying what is missing and what to give instead.
JobLogDir find_job_log_dir(const TFJob& job, const std::string& override_dir = "");

/// The labels of a job's TensorBoard.
nlohmann::json tensorboard_labels(const std::string& name);

/// TensorBoard's Deployment (apps/v1) and Service (v1, port 6006) named NAME, reading
/// LOG's directory of its claim read-only: built as k8s::Deployment and k8s::Service, written
/// as JSON for apply_objects and the printers.
std::vector<nlohmann::json> build_tensorboard(const std::string& name, const std::string& ns, const JobLogDir& log,
                                              const std::string& image = default_tensorboard_image);

/// The API server path that reaches TensorBoard's Service (its service proxy).
std::string tensorboard_proxy_prefix(const std::string& ns, const std::string& name);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
#include <tfjob/serving/impl/tensorboard_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
