#pragma once
/// \file The plugin's words for the SDK's advice. The SDK names its own settings by key where
/// it says what to do (tfjob/setting.hpp: errors and findings carry them in a tfjob::Text);
/// the user of `kubectl tfjob` reads the flag instead:
/// - an error with a reason (error.hpp, `tfjob::reasons`) gets the plugin's sentence for it;
/// - every setting an error, a finding or a warning names is worded by one table,
///   setting_flags(): `TFJobBuilder::gpus` is `--gpus`, `ServeOperations::batching` is
///   `--batching`, wherever the SDK says it. Nothing reads the SDK's text: its keys are data,
///   and a test holds the table to every key the SDK declares (tfjob::all_settings()).

#include <tfjob/api/findings.hpp>
#include <tfjob/error.hpp>
#include <tfjob/setting.hpp>

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

inline std::string worded(const tfjob::Text& t);

/// What to print after "error: " for any exception: an SDK error's advice in flags, and the
/// SDK settings its message names (an invalid setting's own name first) as their flags.
inline std::string error_message(const std::exception& e) {
  const auto* te = dynamic_cast<const tfjob::error*>(&e);
  if (!te) return e.what();
  std::string advice = te->reason().empty() ? std::string() : flag_advice(*te);
  return advice.empty() ? worded(te->text()) : worded(te->problem_text()) + advice;
}

/// The plugin's words for each of the SDK's settings: the flag that sets it, or the command
/// that does what the SDK's call does. One table for every command (the keys are the SDK's,
/// tfjob/setting.hpp); a test (cli_inprocess_test) holds it to tfjob::all_settings().
inline const std::vector<std::pair<tfjob::setting, const char*>>& setting_flags() {
  using tfjob::setting;
  static const std::vector<std::pair<setting, const char*>> flags = {
      {setting::builder_chief, "submit --chief"},
      {setting::builder_gpus, "--gpus"},
      {setting::builder_workers, "--workers"},
      {setting::builder_gang, "--gang"},
      {setting::builder_min_available, "--min-available"},
      {setting::builder_scheduler_name, "--scheduler-name"},
      {setting::builder_local_queue, "--local-queue"},
      {setting::builder_pvc, "submit --pvc"},
      {setting::submit_replace, "--replace"},
      {setting::serve_gpus, "--gpus"},
      {setting::serve_replicas, "--replicas"},
      {setting::serve_node_selector, "--selector"},
      {setting::serve_tolerations, "--toleration"},
      {setting::serve_cpu, "--cpu"},
      {setting::serve_memory, "--memory"},
      {setting::serve_cpu_limit, "--cpu"},
      {setting::serve_fetch_cpu, "--profile"},
      {setting::serve_fetch_memory, "--profile"},
      {setting::serving_profile, "--profile"},
      {setting::serve_model_name, "--model-name"},
      {setting::serve_model_version, "--model-version"},
      {setting::serve_serving_version, "--serving-version"},
      {setting::serve_source, "--model"},
      {setting::serve_batching, "--batching"},
      {setting::serve_autoscale, "--autoscale"},
      {setting::model_resnet, "--model resnet"},
      {setting::model_url, "--model-url"},
      {setting::model_url_secret, "--model-url-secret"},
      {setting::model_claim, "--pvc"},
      {setting::model_config_models, "--model"},
      {setting::model_entry_policy, "--version-policy"},
      {setting::model_entry_labels, "--version-label"},
      {setting::model_config_poll, "--model-config-poll"},
      {setting::image_input, "--image"},
      {setting::predict_body, "--json FILE"},
      {setting::serve, "kubectl tfjob serve"},
      {setting::wait_rollout, "kubectl tfjob serve"},
      {setting::export_dir, "--export-dir"},
      {setting::export_job, "--from-job"},
      {setting::log_dir, "--logdir"},
      {setting::wait_deadline, "--timeout"},
      {setting::verdict_expect, "--expect"},
      {setting::verdict_strict, "--strict"},
      {setting::check_gpus, "--gpus"},
      {setting::run_volumes, "--volume"},
      {setting::kubeconfig_path, "--kubeconfig"},
      {setting::config_namespace, "-n"},
      {setting::config_context, "--context"},
      {setting::config_user, "--user"},
      {setting::config_server, "--server"},
      {setting::config_request_timeout, "--request-timeout"},
      {setting::config_certificate_authority, "--certificate-authority"},
      {setting::config_tls_server_name, "--tls-server-name"},
      {setting::log_save_task, "submit --follow --save DIR, or kubectl tfjob wait JOB --save DIR"},
      {setting::archive_job, "kubectl tfjob archive JOB"},
      {setting::explain, "kubectl tfjob explain"},
      {setting::wait_for_job, "kubectl tfjob wait"},
      {setting::delete_tfjob, "kubectl tfjob delete"},
      {setting::istio_opt_out, "lint --fix"},
      {setting::gpu_check, "kubectl tfjob gpu-check"},
  };
  return flags;
}

/// The plugin's words for `s`; its SDK name if the table had none (a test keeps that from happening).
inline std::string flag_for(tfjob::setting s) {
  for (const auto& [key, words] : setting_flags())
    if (key == s) return words;
  return tfjob::to_string(s);
}

/// `t` with every setting it names worded as the plugin's flag.
inline std::string worded(const tfjob::Text& t) { return t.str(flag_for); }

/// Every finding's message and fix, worded with the plugin's flags.
inline void word_fixes(std::vector<tfjob::Finding>& findings) {
  for (auto& f : findings) {
    f.message = worded(f.message);
    f.fix = worded(f.fix);
  }
}

}  // namespace tfjob::cli
