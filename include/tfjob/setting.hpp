#pragma once
/// \file The settings the SDK's advice names, as keys, and text that names them by key.
///
/// When the SDK says what to do ("ask for no GPU", "give a later deadline"), the remedy is
/// one of the caller's settings or calls. The SDK names it by a key (`setting::builder_gpus`)
/// inside a `Text`; `Text::str()` words each key with the SDK's own name
/// (`TFJobBuilder::gpus`), and an application words it with its own (`Text::str(words)`: the
/// plugin's flags, `--gpus`). Errors (error.hpp) and findings (api/findings.hpp) carry their
/// message and advice as Text, so an application rewords them without reading the text.

#include <tfjob/detail/compiled.hpp>

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

/// Every setting the SDK's advice can name, in one list: X(key, "the SDK's name"). The enum,
/// its names and all_settings() are made from it, so an application can check that it words
/// every key (the plugin's test does).
#define TFJOB_SETTINGS(X)                                                         \
  X(builder_chief, "TFJobBuilder::chief")                                         \
  X(builder_gpus, "TFJobBuilder::gpus")                                           \
  X(builder_workers, "TFJobBuilder::workers")                                     \
  X(builder_gang, "TFJobBuilder::gang")                                           \
  X(builder_min_available, "TFJobBuilder::min_available")                         \
  X(builder_scheduler_name, "TFJobBuilder::scheduler_name")                       \
  X(builder_local_queue, "TFJobBuilder::local_queue")                             \
  X(builder_pvc, "TFJobBuilder::pvc")                                             \
  X(submit_replace, "SubmitOptions::replace")                                     \
  X(serve_gpus, "ServeSpec::gpus")                                                \
  X(serve_replicas, "ServeSpec::replicas")                                        \
  X(serve_node_selector, "ServeSpec::node_selector")                              \
  X(serve_tolerations, "ServeSpec::tolerations")                                  \
  X(serve_cpu, "ServeSpec::cpu")                                                  \
  X(serve_memory, "ServeSpec::memory")                                            \
  X(serve_cpu_limit, "ServeSpec::cpu_limit")                                      \
  X(serve_fetch_cpu, "ServeSpec::fetch_cpu")                                      \
  X(serve_fetch_memory, "ServeSpec::fetch_memory")                                \
  X(serving_profile, "ServingProfile::name")                                      \
  X(serve_model_name, "ServeSpec::model_name")                                    \
  X(serve_model_version, "ServeSpec::model_version")                              \
  X(serve_serving_version, "ServeSpec::serving_version")                          \
  X(serve_source, "ServeSpec::source")                                            \
  X(serve_batching, "ServeOperations::batching")                                  \
  X(serve_autoscale, "ServeOperations::autoscale")                                \
  X(model_resnet, "ModelSource::Kind::resnet")                                    \
  X(model_url, "ModelSource::url")                                                \
  X(model_url_secret, "ModelSource::url_secret")                                  \
  X(model_claim, "ModelSource::claim")                                            \
  X(model_config_models, "ModelServerConfig::models")                             \
  X(model_entry_policy, "ModelEntry::policy")                                     \
  X(model_entry_labels, "ModelEntry::labels")                                     \
  X(model_config_poll, "build_model_config_objects::poll_seconds")                \
  X(image_input, "serving::plan_image_input")                                     \
  X(predict_body, "serving::predict's body")                                      \
  X(serve, "serving::serve")                                                      \
  X(wait_rollout, "serving::wait_rollout")                                        \
  X(export_dir, "job_export::export_dir")                                         \
  X(export_job, "finished_job_export::job")                                       \
  X(log_dir, "find_job_log_dir::override_dir")                                    \
  X(wait_deadline, "WaitOptions::deadline")                                       \
  X(verdict_expect, "VerdictOptions::expect")                                     \
  X(verdict_strict, "VerdictOptions::strict")                                     \
  X(check_gpus, "CheckOptions::gpus")                                             \
  X(run_volumes, "RunOptions::volumes")                                           \
  X(kubeconfig_path, "LoadingRules::explicit_path")                               \
  X(config_namespace, "ConfigOverrides::namespace_")                              \
  X(config_context, "ConfigOverrides::context")                                   \
  X(config_user, "ConfigOverrides::user")                                         \
  X(config_server, "ConfigOverrides::server")                                     \
  X(config_request_timeout, "ConfigOverrides::request_timeout")                   \
  X(config_certificate_authority, "ConfigOverrides::certificate_authority")       \
  X(config_tls_server_name, "ConfigOverrides::tls_server_name")                   \
  X(log_save_task, "workflow::LogSaveTask")                                       \
  X(archive_job, "workflow::archive_job")                                         \
  X(explain, "workflow::explain")                                                 \
  X(wait_for_job, "workflow::wait_for_job")                                       \
  X(delete_tfjob, "workflow::delete_tfjob")                                       \
  X(istio_opt_out, "lint::add_istio_opt_out")                                     \
  X(gpu_check, "gpu::run_gpu_check")

namespace tfjob {

/// A setting (or call) of the SDK that advice names: the caller's knob that fixes a problem.
enum class setting {
#define TFJOB_SETTING_ENUM(key, name) key,
  TFJOB_SETTINGS(TFJOB_SETTING_ENUM)
#undef TFJOB_SETTING_ENUM
};

/// The SDK's own name for `s`: "TFJobBuilder::gpus".
const char* to_string(setting s);

/// Every setting, in the order of TFJOB_SETTINGS.
const std::vector<setting>& all_settings();

/// Text that names settings by key: plain pieces and keys, in order. Built with `+` from
/// strings and settings: `"ask for no GPU (" + setting::builder_gpus + " 0)"`.
class Text {
 public:
  Text() = default;
  Text(std::string s);  // NOLINT: plain text is Text
  Text(const char* s);  // NOLINT
  Text(setting s);      // NOLINT
  Text& operator+=(const Text& t);
  /// With the SDK's names (what()).
  std::string str() const;
  /// With `word(s)` for each setting `s` (an application's flags).
  std::string str(const std::function<std::string(setting)>& word) const;
  /// The settings named, in order.
  std::vector<setting> settings() const;
  bool empty() const;
  /// Equal when the SDK's wording is (str()): a key reads as its SDK name.
  bool operator==(const Text& o) const;
  bool operator!=(const Text& o) const { return !(*this == o); }

 private:
  struct Part {
    std::string text;             ///< plain text, when `key` is unset
    std::optional<setting> key;
  };
  std::vector<Part> parts_;
};

Text operator+(Text a, const Text& b);
// With a setting on either side: an enumeration operand takes no conversion ([over.match.oper]).
Text operator+(Text a, setting b);
Text operator+(setting a, const Text& b);

/// Writes str().
std::ostream& operator<<(std::ostream& os, const Text& t);

}  // namespace tfjob

#if TFJOB_SDK_DEFINE_CORE
#include <tfjob/impl/setting_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_CORE
