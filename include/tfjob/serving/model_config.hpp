#pragma once
/// \file TF Serving's model config file as pure data (no I/O): several models in one server,
/// each with its version policy and version labels, as the text-format ModelServerConfig
/// that `tensorflow_model_server --model_config_file=F` reads and re-reads every
/// `--model_config_file_poll_wait_seconds` (tensorflow_serving/config/model_server_config.proto,
/// sources/storage_path/file_system_storage_path_source.proto, model_servers/main.cc):
///
///   model_config_list {
///     config {
///       name: "mnist"  base_path: "/models/mnist"  model_platform: "tensorflow"
///       model_version_policy { latest { num_versions: 2 } }   # or all {} / specific { versions: 1 versions: 2 }
///       version_labels { key: "stable" value: 1 }
///     }
///   }

#include <tfjob/api/meta.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>
#include <tfjob/serving/manifests.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::serving {

/// FileSystemStoragePathSourceConfig.ServableVersionPolicy: which versions on disk are served.
struct VersionPolicy {
  enum class Kind { latest, all, specific } kind = Kind::latest;
  std::int64_t num_versions = 1;        ///< latest: the N highest versions (the proto's default is 1)
  std::vector<std::int64_t> versions;   ///< specific: exactly these

  bool operator==(const VersionPolicy& o) const;
  /// `latest:2`, `all`, `specific:1,2` (the flag's own syntax).
  std::string text() const;
  /// Of the versions on disk (any order), those this policy serves, ascending.
  std::vector<std::int64_t> select(std::vector<std::int64_t> on_disk) const;
};

/// One model of the server (ModelConfig).
struct ModelEntry {
  std::string name;
  std::string base_path;             ///< in the container: /models/<name>
  ModelSource source;                ///< where serve gets it from (not in the file)
  VersionPolicy policy;
  std::map<std::string, std::int64_t> labels;  ///< version_labels: "stable" → 1
};

/// ModelServerConfig with a model_config_list.
struct ModelServerConfig {
  std::vector<ModelEntry> models;
  const ModelEntry* find(const std::string& name) const;
  ModelEntry* find(const std::string& name);
};

/// Where the config file lives in the server's container, and the ConfigMap key holding it.
inline constexpr const char* model_config_dir = "/etc/tfserving-models";  // apart from --batching/--monitoring's /etc/tfserving
inline constexpr const char* model_config_key = "models.config";
/// The ConfigMap of server NAME.
std::string model_config_map_name(const std::string& server);

namespace detail {

/// A model name TF Serving can serve behind a URL segment and a directory; the error
/// (reasons::invalid_setting) reads `ModelServerConfig::models` + `what` + what is wrong.
void check_model_name(const std::string& m, const std::string& what);

/// A positive int64 from decimal text ("" or anything else: nullopt; no overflow).
std::optional<std::int64_t> parse_version_number(const std::string& s);

/// A string for the text format: double quotes, with \\ and \" escaped.
std::string quote(const std::string& s);

}  // namespace detail

/// `--model NAME=SOURCE` → a model: SOURCE is `resnet`, an http(s):// SavedModel
/// tarball, or `pvc:CLAIM[:PATH]` with PATH (default NAME) the model's base path inside the
/// claim, holding `<version>/saved_model.pb`.
ModelEntry parse_model_flag(const std::string& text);

/// `--version-policy [MODEL=]latest:N|all|specific:V[,V...]` → (model or "", policy).
std::pair<std::string, VersionPolicy> parse_version_policy_flag(const std::string& text);

/// `[MODEL:]LABEL=VERSION` (serve's --version-label, serve label's argument) → (model or "", label, version).
struct LabelAssignment {
  std::string model, label;
  std::int64_t version = 0;
};
LabelAssignment parse_label_assignment(const std::string& text, const std::string& flag);

/// The text-format ModelServerConfig (what the ConfigMap holds), models in order.
std::string render_model_config(const ModelServerConfig& c);

/// (parse_model_config, the text format read back: model_config_text.hpp)

/// What `serve label` changes: LABEL of MODEL now names VERSION. Throws tfjob::error when
/// the model is not in the config.
void set_version_label(ModelServerConfig& c, const std::string& model, const std::string& label, std::int64_t version);

namespace keys {
/// On the Deployment and Service of a server with a model config: the ConfigMap's name and the models it serves ("a,b").
inline constexpr const char* model_config = "serving.kubectl-tfjob.io/model-config";
inline constexpr const char* models = "serving.kubectl-tfjob.io/models";
}  // namespace keys

/// TF Serving's default poll of the model config file is 0 (never re-read: main.cc
/// --model_config_file_poll_wait_seconds); serve sets this so `serve label` is picked up.
inline constexpr int default_model_config_poll_seconds = 10;

/// The models of a several-model server, checked: at least one, names unique, every label
/// naming a version the policy can serve (a `specific` policy's versions).
void validate(const ModelServerConfig& c);

/// The ConfigMap (core/v1) holding the text-format model config.
nlohmann::json build_model_config_map(const ServeSpec& s, const ModelServerConfig& c);

/// The objects of one server serving every model of `c` through a model config file: the
/// ConfigMap, then the Deployment and Service of build_objects(), the Deployment's
/// tensorflow_model_server reading the file (re-read every `poll_seconds`) instead of
/// --model_name/--model_base_path, each model on its own volume at its base_path (a claim's
/// subPath, or an emptyDir its own init container downloads into). The probes ask for the
/// first model.
std::vector<nlohmann::json> build_model_config_objects(ServeSpec s, const ModelServerConfig& c,
                                                       int poll_seconds = default_model_config_poll_seconds);

/// The ConfigMap's model config of a server (the Deployment's or Service's annotation names
/// it); nullopt for a server started with one --model_name (no config file).
std::optional<std::string> model_config_map_of(const ObjectMeta& meta);

/// The models a server's annotation says it serves ("" entries dropped).
std::vector<std::string> served_models_of(const ObjectMeta& meta);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
#include <tfjob/serving/impl/model_config_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
