#pragma once
/// \file Several models and their versions on a running server: read its model config
/// (the ConfigMap `serve --model NAME=SOURCE` made), move a version label by rewriting that
/// ConfigMap (TF Serving re-reads the file every --model_config_file_poll_wait_seconds, so
/// no pod restarts), and wait until TF Serving answers the label with the new version.

#include <tfjob/kube/tfjob_resource.hpp>  // TFJob and its resource_traits
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/kube/side_task.hpp>
#include <tfjob/serving/from_job.hpp>
#include <tfjob/serving/model_config.hpp>
#include <tfjob/serving/model_config_text.hpp>
#include <tfjob/serving/serving.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::serving {

/// A server's model config as stored.
struct StoredModelConfig {
  k8s::ConfigMap config_map;  ///< the ConfigMap (its resourceVersion guards the update)
  ModelServerConfig config;
};

/// The model config of server `name`; nullopt when it serves one model by flags (no config
/// file). Throws tfjob::error when the server or its ConfigMap is missing or unreadable.
std::optional<StoredModelConfig> read_model_config(kube::Client& c, const std::string& ns, const std::string& name);

/// Whether the server's tensorflow_model_server runs with
/// --allow_version_labels_for_unavailable_models (main.cc).
bool allows_labels_for_unavailable(const k8s::Deployment& deployment);

/// The AVAILABLE versions TF Serving reports for `model` (GET /v1/models/MODEL); throws
/// tfjob::error when it cannot say.
std::vector<std::string> available_versions(kube::Client& c, const std::string& ns, const std::string& service,
                                            const std::string& model);

/// How `move_version_label` ended.
struct LabelReport {
  std::optional<std::int64_t> previous;  ///< the version the label named before (none: a new label)
  bool changed = false;                  ///< the ConfigMap was rewritten
  WaitResult result = WaitResult::ready; ///< ready: TF Serving answers the label with the version (or no wait)
  std::string message;
};

/// Points LABEL of MODEL on server `name` at VERSION. TF Serving only lets a label name a
/// version that is AVAILABLE, unless the server runs with
/// --allow_version_labels_for_unavailable_models (server_core.cc UpdateModelVersionLabelMap:
/// "Request to assign label to version V of model M, which is not currently available for
/// inference"), so that is checked first and refused with the versions it has. Then the
/// ConfigMap is replaced under its resourceVersion (a conflict is read again, three times)
/// and, with `wait`, the label is asked for until TF Serving answers it with VERSION.
LabelReport move_version_label(kube::Client& c, const std::string& ns, const std::string& name, const std::string& model,
                              const std::string& label, std::int64_t version, bool wait, const WaitOptions& o);

/// One model of a server, as `serve list` shows it.
struct ModelRow {
  std::string name;
  std::vector<std::string> available_versions;
  std::map<std::string, std::int64_t> labels;  ///< from the model config
  std::string state;                           ///< probe_model's message
};

/// Every model of server `name`: from its model config when it has one (labels included),
/// else its one model; each asked for its AVAILABLE versions.
std::vector<ModelRow> server_models(kube::Client& c, const std::string& ns, const std::string& name);


/// Waits until TF Serving reports `version` of `model` AVAILABLE (a later export picked up
/// by its file system poll); fails at once when that version ends with an error.
WaitReport wait_model_version(kube::Client& c, const std::string& ns, const std::string& service, const std::string& model,
                              const std::string& version, const WaitOptions& o);


/// The export of TFJob `job` once it has succeeded (job_export's rules); throws tfjob::error
/// when the job is missing, has not finished or failed.
JobExport finished_job_export(kube::Client& c, const std::string& ns, const std::string& job, const std::string& export_dir);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
#include <tfjob/serving/impl/model_versions_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
