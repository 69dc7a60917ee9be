#pragma once
/// \file The export check before a model on a claim is rolled out: a short-lived pod mounts
/// the claim read-only and lists the export directory's version directories, and for each
/// whether it holds `saved_model.pb` (its size and first bytes, base64) or
/// `saved_model.pbtxt`, and TF Serving's warmup file
/// `assets.extra/tf_serving_warmup_requests`, and the size of its `variables/` (the weights TF
/// Serving loads: a serving profile weighs the model by it). The plugin reads the pod's log, deletes the
/// pod, and refuses a version without a SavedModel before anything is applied; a version
/// without warmup requests is a warning. The pod, its script, the log's parser and the
/// verdict are pure; check_export() runs the pod.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/api.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/detail/util.hpp>
#include <tfjob/kube/logs.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/serving/from_job.hpp>
#include <tfjob/serving/operations.hpp>  // detail::parse_int64
#include <tfjob/serving/saved_model.hpp>
#include <tfjob/serving/status.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace tfjob::serving {

inline constexpr const char* export_check_component = "tfjob-export-check";  ///< app.kubernetes.io/name of the pod
inline constexpr const char* export_check_mount = "/export";                 ///< where the claim is mounted
inline constexpr std::size_t export_check_max_entries = 256;                 ///< entries listed, then "truncated"
inline constexpr std::size_t export_check_max_heads = 8;                     ///< versions whose saved_model.pb head is sent
inline constexpr std::size_t export_check_head_bytes = 131072;               ///< bytes of each head (the op list precedes the version)
inline constexpr std::int64_t export_check_log_limit = 4 * 1024 * 1024;      ///< bytes of the pod's log read
/// TF Serving's warmup file inside a version directory (TF Serving's saved_model_warmup.md:
/// `assets.extra/tf_serving_warmup_requests`, TFRecords of PredictionLog, replayed at load).
inline constexpr const char* warmup_file = "assets.extra/tf_serving_warmup_requests";

/// What to check: the directory (inside the claim) that holds `<version>/saved_model.pb`.
struct ExportCheckSpec {
  std::string server;     ///< the server's NAME (labels, pod name)
  std::string namespace_;
  std::string claim;
  std::string path;       ///< inside the claim, "" = its root
  std::string image;      ///< any image with a POSIX sh, ls, wc, head and base64 (serve uses the server's own)
  std::map<std::string, std::string> node_selector;  ///< the server's, so the image pulled is the one it needs
  std::vector<nlohmann::json> tolerations;
  std::string pod_name;   ///< "" = export-check-NAME-XXXXX
};

/// The pod's script: the protocol below, one record a line (a name with a newline in it
/// makes lines the parser does not know, which it skips).
///   tfjob-export-check v1 | nodir | file NAME | dir NAME | pb SIZE NAME | pbtxt NAME
///   vars SIZE NAME (the bytes of the files in NAME/variables/) | warmup NAME
///   head NAME, base64 lines, endhead | truncated | end
std::string export_check_script();

/// The check pod (pure): the claim mounted read-only at /export (the whole claim: a subPath
/// that does not exist would fail the container before it can say so), restartPolicy Never,
/// a deadline, no service account token, small requests = limits.
nlohmann::json build_export_check_pod(const ExportCheckSpec& s);

/// One version directory as the pod saw it.
struct ExportVersion {
  std::string dir;               ///< its name ("1")
  std::int64_t number = 0;
  bool saved_model_pb = false, saved_model_pbtxt = false, warmup = false;
  std::optional<std::int64_t> pb_size;
  std::optional<std::int64_t> variables_size;  ///< the files in variables/ together
  std::string head;              ///< the first bytes of saved_model.pb (decoded), when sent
};

/// The export directory as the pod listed it.
struct ExportListing {
  bool complete = false;    ///< the header and `end` were both seen
  bool exists = true;       ///< the directory exists on the claim
  bool truncated = false;   ///< more entries than were listed
  std::vector<std::string> files, other_dirs;  ///< entries that are not version directories
  std::vector<ExportVersion> versions;         ///< by number
};

/// Parses the check pod's log (total: any text is safe; at most export_check_max_entries
/// entries and export_check_max_heads heads of export_check_head_bytes are kept).
ExportListing parse_export_check_log(std::string_view log);

/// What the check found: errors refuse the rollout, warnings are said.
struct ExportVerdict {
  std::vector<std::string> errors, warnings;
  std::string tensorflow_version;  ///< MetaInfoDef.tensorflow_version of the highest version whose head was read
  std::string tensorflow_from;     ///< "saved_model.pb of version 3 (DIR/3)"
  std::vector<std::int64_t> versions;  ///< the versions that hold a SavedModel
  /// The highest such version's saved_model.pb and variables/ together (what TF Serving loads
  /// by default, latest:1), when the check read both sizes; `model_from` says which version.
  std::optional<std::int64_t> model_bytes;
  std::string model_from;
  bool ok() const { return errors.empty(); }
};

/// Judges a listing of `where` (e.g. "export/mnist on claim tfjob-mnist"): the directory must
/// exist and hold at least one numeric version directory, and every one of them a
/// saved_model.pb (or .pbtxt: TF's reader takes either, cc/saved_model/reader.cc); each
/// version without TF Serving's warmup file is a warning. Reads the exporting TensorFlow's
/// version from the highest version's saved_model.pb head.
ExportVerdict judge_export(const ExportListing& l, const std::string& dir, const std::string& where);

/// How to run the check.
struct ExportCheckOptions {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  std::function<void(const std::string&)> on_progress;
  const std::atomic<bool>* cancel = nullptr;
};

/// Runs the check pod, waits for it to end (a watch on it; an image it cannot pull or a
/// container it cannot start ends the wait at once), reads its log and deletes it,
/// whatever happened. Throws tfjob::error saying what stopped the check.
ExportListing check_export(kube::Client& c, ExportCheckSpec s, const ExportCheckOptions& o = {});

/// The TF version warning of a served export: from the SavedModel's own MetaInfoDef when the
/// check read it, else from the training image's tag (tf_version_warning words both).
Text export_tf_warning(const ExportVerdict& v, const std::string& training_image, const std::string& serving_release,
                              const std::string& serving_image);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
#include <tfjob/serving/impl/export_check_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
