#pragma once
/// \file The plugin's words for the SDK's advice. The SDK names its own settings where it
/// says what to do; the user of `kubectl tfjob` reads the flag instead:
/// - an error with a reason (error.hpp, `tfjob::reasons`) gets the plugin's sentence for it;
/// - a finding's fix names each setting in parentheses, `(TFJobBuilder::gpus 0)`, and each
///   becomes its flag, `(--gpus 0)`, wherever findings are printed;
/// - an error about a setting's value (`reasons::invalid_setting`) begins with the setting,
///   `ServeOperations::batching max_batch_size=0: ...`, and any other setting its advice names
///   is in parentheses, `(ServeSpec::cpu 2)`: the same table words the whole message,
///   `--batching max_batch_size=0: ...`, `(--cpu 2)`, as it does every SDK error's message.

#include <tfjob/api/findings.hpp>
#include <tfjob/error.hpp>

#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace tfjob::cli {

/// The advice for `e`'s reason in the plugin's flags, with its leading separator; "" when the
/// reason is not one the plugin words (the SDK's own advice is then kept).
inline std::string flag_advice(const tfjob::error& e) {
  const std::string& r = e.reason();
  if (r == reasons::spec_conflict)
    return ". Submit with --replace to delete it and its pods and submit this one, or pick another name with --name.";
  if (r == reasons::service_not_found)
    return ": start the model server with `kubectl tfjob serve " + e.subject() +
           " --model resnet` (or --model-url/--pvc), or pick the namespace with -n; `kubectl tfjob serve list` shows what is served";
  if (r == reasons::kubeconfig_missing) return " (given with --kubeconfig)";
  if (r == reasons::user_not_found) return " (given with --user)";
  if (r == reasons::no_configuration) return "; set KUBECONFIG or --kubeconfig, or pass --server";
  if (r == reasons::no_current_context) return "; pick one with --context or `kubectl config use-context NAME`";
  return {};
}

inline std::string flag_fix(std::string fix);

/// What to print after "error: " for any exception: an SDK error's advice in flags, and the
/// SDK settings its message names (an invalid setting's own name first) as their flags.
inline std::string error_message(const std::exception& e) {
  const auto* te = dynamic_cast<const tfjob::error*>(&e);
  if (!te) return e.what();
  std::string advice = te->reason().empty() ? std::string() : flag_advice(*te);
  return advice.empty() ? flag_fix(e.what()) : te->problem() + advice;
}

/// The SDK settings that findings and errors name, and the flags that set them (the names are
/// distinct across the SDK's types, so one table serves every command).
inline const std::vector<std::pair<const char*, const char*>>& setting_flags() {
  static const std::vector<std::pair<const char*, const char*>> flags = {
      {"TFJobBuilder::chief", "submit --chief"},
      {"TFJobBuilder::gpus", "--gpus"},
      {"TFJobBuilder::workers", "--workers"},
      {"TFJobBuilder::gang", "--gang"},
      {"TFJobBuilder::min_available", "--min-available"},
      {"TFJobBuilder::scheduler_name", "--scheduler-name"},
      {"TFJobBuilder::local_queue", "--local-queue"},
      {"ServeSpec::gpus", "--gpus"},
      {"ServeSpec::replicas", "--replicas"},
      {"ServeSpec::node_selector", "--selector"},
      {"ServeSpec::tolerations", "--toleration"},
      {"ServeSpec::cpu", "--cpu"},
      {"ServeSpec::memory", "--memory"},
      {"ServeSpec::cpu_limit", "--cpu"},
      {"ServingProfile::name", "--profile"},
      {"ServeSpec::model_name", "--model-name"},
      {"ServeSpec::model_version", "--model-version"},
      {"ServeSpec::serving_version", "--serving-version"},
      {"ServeOperations::batching", "--batching"},
      {"ServeOperations::autoscale", "--autoscale"},
      {"ModelSource::Kind::resnet", "--model resnet"},
      {"ModelSource::url_secret", "--model-url-secret"},  // before ModelSource::url, its prefix
      {"ModelSource::url", "--model-url"},
      {"ModelSource::claim", "--pvc"},
      {"ModelServerConfig::models", "--model"},
      {"ModelEntry::policy", "--version-policy"},
      {"ModelEntry::labels", "--version-label"},
      {"build_model_config_objects::poll_seconds", "--model-config-poll"},
      {"serving::plan_image_input", "--image"},
      {"serving::predict's body", "--json FILE"},
      {"job_export::export_dir", "--export-dir"},
      {"finished_job_export::job", "--from-job"},
      {"find_job_log_dir::override_dir", "--logdir"},
      {"WaitOptions::deadline", "--timeout"},
      {"VerdictOptions::expect", "--expect"},
      {"VerdictOptions::strict", "--strict"},
      {"CheckOptions::gpus", "--gpus"},
      {"RunOptions::volumes", "--volume"},
      {"ConfigOverrides::namespace_", "-n"},
      {"ConfigOverrides::request_timeout", "--request-timeout"},
      {"ConfigOverrides::certificate_authority", "--certificate-authority"},
      {"TFJobBuilder::pvc", "submit --pvc"},
      {"workflow::LogSaveTask", "submit --follow --save DIR, or kubectl tfjob wait JOB --save DIR"},
      {"workflow::archive_job", "kubectl tfjob archive JOB"},
      {"lint::add_istio_opt_out", "lint --fix"},
      {"gpu::run_gpu_check", "kubectl tfjob gpu-check"},
      {"workflow::explain", "kubectl tfjob explain"},
      {"workflow::wait_for_job", "kubectl tfjob wait"},
      {"workflow::delete_tfjob", "kubectl tfjob delete"},
      {"serving::wait_rollout", "kubectl tfjob serve"},
  };
  return flags;
}

/// `fix` with each SDK setting it names replaced by the flag that sets it.
inline std::string flag_fix(std::string fix) {
  for (const auto& [setting, flag] : setting_flags()) {
    const std::string from = setting;
    for (auto p = fix.find(from); p != std::string::npos; p = fix.find(from, p + std::char_traits<char>::length(flag)))
      fix.replace(p, from.size(), flag);
  }
  return fix;
}

/// Every finding's fix, and any setting its message names, worded with the plugin's flags.
inline void word_fixes(std::vector<tfjob::Finding>& findings) {
  for (auto& f : findings) {
    f.message = flag_fix(std::move(f.message));
    f.fix = flag_fix(std::move(f.fix));
  }
}

}  // namespace tfjob::cli
