#pragma once
/// \file From a trained TFJob to a served model, as pure functions: where the job exported
/// its SavedModel (the trainer's `--export-dir` flag, on a volume of a claim) and the model
/// source `serve --from-job` serves from it. TF Serving then finds each
/// `<export dir>/<version>/saved_model.pb` itself and, polling the file system
/// (--file_system_poll_wait_seconds, 1 s by default, main.cc), picks up the export of a
/// later run as a new version.

#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>
#include <tfjob/serving/model_config.hpp>

#include <nlohmann/json.hpp>

#include <cctype>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tfjob::serving {

/// Where a TFJob's model went.
struct JobExport {
  std::string replica;         ///< the replica type whose container says so (Chief, Master, Worker)
  std::string container_path;  ///< the export directory in that container
  std::string claim;           ///< the claim whose volume holds it
  std::string path;            ///< the directory inside the claim ("" = its root)
  std::string image;           ///< the training image (its tag names the TensorFlow release)
};

namespace detail {

/// The value of `--export-dir=V`, `--export-dir V`, `--export_dir...` in an argv, or "".
std::string export_dir_arg(const std::vector<std::string>& argv);

/// PATH with "." and empty segments removed; "" when it climbs out with "..".
std::string clean_path(const std::string& p, bool* escaped);

}  // namespace detail

/// The export of `job`: the directory given by `export_dir` when not
/// empty, else by the trainer's --export-dir in the Chief's, Master's or Worker's container
/// args or command (the operator's chief order), which must lie on a mounted claim. Throws
/// tfjob::error saying what is missing and what to pass.
JobExport job_export(const TFJob& job, const std::string& export_dir = {});

/// The model `serve --from-job` serves: MODEL from the export's claim and path.
ModelEntry model_from_export(const std::string& model, const JobExport& e);


/// "2.20.0" from an image reference whose tag starts with a TensorFlow release
/// (tensorflow/tensorflow:2.20.0-gpu, tensorflow/serving:2.20.0); "" when it does not.
std::string tf_release_of_image(const std::string& image);

/// Major and minor of "2.20.0" (nullopt when not a release; bounded: at most 6 digits each).
std::optional<std::pair<int, int>> tf_major_minor(const std::string& release);

/// A warning when the model was exported by a newer TensorFlow than the TF Serving release
/// that serves it (TF Serving's release tracks TensorFlow's: a SavedModel may use ops or
/// attributes that an older runtime does not have, and fails to load with "Op type not
/// registered" or "NodeDef mentions attr"); "" when the training release is not newer or
/// either is unknown. `trained_from` says where the training release came from.
Text tf_version_warning(const std::string& trained_release, const std::string& trained_from,
                               const std::string& serving_release, const std::string& serving_image);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
#include <tfjob/serving/impl/from_job_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
