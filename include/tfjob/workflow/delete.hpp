#pragma once
/// \file Deleting TFJobs as kubectl delete does (cmd/delete/delete.go): a DELETE per job with
/// a propagation policy, one outcome per name (a missing or forbidden job does not stop the
/// others), then, as kubectl's `--wait` (default true), waiting until each deleted object
/// is gone (by its uid: a job recreated under the same name counts as gone), saying what
/// holds one that stays (its finalizers) and, with Foreground, whether pods linger.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/workflow/cluster.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <exception>
#include <string>
#include <optional>
#include <vector>

namespace tfjob::workflow {

/// What happens to a deleted job's pods (metav1.DeletionPropagation, kubectl's --cascade).
enum class Cascade { background, foreground, orphan };

/// The DeleteOptions.propagationPolicy value for `c` (apimachinery types.go).
const char* propagation_policy(Cascade c);

/// What became of one DELETE.
struct DeleteOutcome {
  enum class Result { deleted, not_found, forbidden, failed };
  std::string name;
  Result result = Result::deleted;
  std::string uid;      ///< of the deleted object (to tell it from one recreated later)
  std::string message;  ///< forbidden: the server's message; failed: the error
};

/// The names of the TFJobs in `ns` that `selector` selects ("" = every one).
std::vector<std::string> tfjob_names(kube::Client& c, const std::string& ns, const std::string& selector);

/// The uid in a DELETE's answer: the object itself (Foreground: still there, with a
/// deletionTimestamp) or, once it is gone, a Status carrying it in details.uid
/// (kube-apiserver's registry/generic/registry/store.go).
std::string deleted_uid(const nlohmann::json& answer);

/// Deletes one TFJob; never throws for the server's answer (the outcome says it).
/// `grace_period_seconds`: DeleteOptions.gracePeriodSeconds (unset: the server's default).
DeleteOutcome delete_tfjob(kube::Client& c, const std::string& ns, const std::string& name, Cascade cascade,
                           std::optional<int> grace_period_seconds = std::nullopt);

/// After waiting for a deleted job to be gone.
struct GoneReport {
  bool gone = false;
  std::vector<std::string> finalizers;  ///< not gone: what still holds it
  std::size_t pods_left = 0;            ///< gone with Foreground: pods still terminating
};

/// Waits until the job deleted as `d` is gone (or `timeout` passes), then says what holds
/// it or, for Foreground, how many of its pods are still there.
GoneReport wait_tfjob_gone(kube::Client& c, const std::string& ns, const DeleteOutcome& d, Cascade cascade,
                           std::chrono::milliseconds timeout);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/impl/delete_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
