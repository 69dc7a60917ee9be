#pragma once
/// \file The checks before a TFJob is submitted, against the server and before anything is
/// created: the CRD served, the namespace, permission (an access review and a server-side
/// dry run), lint with what the cluster says, and the GPU check (preflight_submit). Part of
/// <tfjob/workflow/cluster.hpp>.

#include <tfjob/api/findings.hpp>
#include <tfjob/api/lint.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/setting.hpp>
#include <tfjob/workflow/cluster/reads.hpp>
#include <tfjob/workflow/preflight.hpp>
#include <tfjob/workflow/status.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tfjob::workflow {

/// The message for a 403 on TFJobs in `ns`, naming who and what to ask for.
Text forbidden_message(const std::string& verb, const std::string& ns, const std::string& server_message);

/// Whether the current user may `verb` TFJobs in `ns` (SelfSubjectAccessReview); std::nullopt
/// when the server cannot say (no authorization API).
std::optional<std::pair<bool, std::string>> can_i(kube::Client& c, const std::string& verb, const std::string& ns);

/// The claims a job's pod templates mount (persistentVolumeClaim volumes), each once, by name.
std::set<std::string> claims_of(const TFJob& job);

/// What `preflight_submit` found.
struct PreflightReport {
  std::vector<Finding> findings;
  std::optional<GpuPreflight> gpu;
  bool ok() const;
  /// Every error message with its fix, joined (for an exception).
  Text errors() const;
};

/// What preflight_submit reads of the cluster that is the same for every job of one submit
/// (the namespace, the access review, the nodes, the pods that hold resources): shared by
/// the jobs of a submit of several, each is read once (safe to share between threads).
struct PreflightShared {
  std::mutex mu;
  std::map<std::string, nlohmann::json> kept;  ///< what was read, by what it is ("nodes", "namespace/NS", ...)
};

/// Checks before submitting `job` (TFJob JSON) to `ns`. Stops at the first fatal finding
/// that makes later checks meaningless (no CRD, no namespace, no permission). `logs_kept`:
/// the caller saves every replica's log while the job runs (lint::Context::logs_kept).
/// `shared`: what other jobs of the same submit read already. `server_dry_run` false: no
/// dry run of the apply, for a caller whose next request is the apply itself (nothing is
/// created before it, so the server's answer to the apply says the same). `typed`: `job`
/// decoded already by the caller (workflow::decode_tfjob), so that it is not decoded again.
PreflightReport preflight_submit(kube::Client& c, const std::string& ns, const nlohmann::json& job,
                                 bool check_gpus = true, bool logs_kept = false,
                                 const std::string& field_validation = {}, PreflightShared* shared = nullptr,
                                 bool server_dry_run = true, const TFJob* typed = nullptr);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/cluster/impl/submit_checks_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
