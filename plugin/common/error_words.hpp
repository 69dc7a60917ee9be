#pragma once
/// \file The plugin's words for the SDK's advice: an SDK error with a reason (error.hpp,
/// `tfjob::reasons`) names the SDK setting that fixes it; the user of `kubectl tfjob` reads
/// the flag instead. One table, used wherever an error is printed.

#include <tfjob/error.hpp>

#include <exception>
#include <string>

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

/// What to print after "error: " for any exception: an SDK error's advice in flags.
inline std::string error_message(const std::exception& e) {
  const auto* te = dynamic_cast<const tfjob::error*>(&e);
  if (!te || te->reason().empty()) return e.what();
  std::string advice = flag_advice(*te);
  return advice.empty() ? std::string(e.what()) : te->problem() + advice;
}

}  // namespace tfjob::cli
