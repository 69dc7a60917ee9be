#pragma once
/// \file What each replica of a TFJob becomes on this machine: the `tensorflow` container's
/// command and args, its env plus TF_CONFIG (127.0.0.1 and the ports the runner reserved),
/// its volumes as local directories and the mount paths rewritten to them. Pure: no I/O.
///
/// The mount-path rule (documented in docs/local.md): every volume the container mounts
/// gets a local directory; in the command, args, env values and workingDir, each
/// occurrence of a mount path that starts a path (at the start of the string or after `=`,
/// `:`, `,`, a space or a quote, and followed by `/`, the end or one of those characters) is
/// replaced with the local directory, and `TFJOB_MOUNT_<PATH>` (the mount path upper-cased,
/// other characters as `_`, e.g. `/train` -> `TFJOB_MOUNT_TRAIN`) holds the directory.

#include <tfjob/api/tf_config.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/files.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::local {

/// One volume mount of the `tensorflow` container, mapped to a local directory.
struct Mount {
  std::string volume;      ///< the pod volume's name
  std::string claim;       ///< the PVC's claimName, "" for other volume kinds
  std::string mount_path;  ///< as in the container, e.g. /train
  std::string local_dir;   ///< the directory it becomes here
  bool read_only = false;
};

/// How one replica is started.
struct LaunchSpec {
  std::string type;   ///< as in the spec: Chief, Worker, PS...
  int index = 0;
  std::string name;   ///< `worker-1`
  std::string pod_name;  ///< `{job}-worker-1`, as on a cluster
  int port = 0;       ///< its TF_CONFIG port on 127.0.0.1
  std::vector<std::string> argv;  ///< command + args, mount paths rewritten
  std::vector<std::pair<std::string, std::string>> env;  ///< in order; TF_CONFIG last
  std::string working_dir;  ///< "" = the runner's working directory
  std::vector<Mount> mounts;
  std::optional<std::string> tf_config;
};

struct Plan {
  std::vector<LaunchSpec> replicas;
  std::vector<std::string> warnings;  ///< things a process cannot have (secrets, sidecars...)
};

/// What the plan needs from the runner.
struct PlanInputs {
  std::string host = "127.0.0.1";
  std::function<int(const std::string& type, int index)> port;  ///< the reserved port
  std::string state_dir;                        ///< volumes without a mapping go below it
  std::map<std::string, std::string> volumes;  ///< claim name or volume name -> local dir
};

/// `TFJOB_MOUNT_<PATH>` for a mount path: `/train` -> `TFJOB_MOUNT_TRAIN`, `/` -> `TFJOB_MOUNT_ROOT`.
std::string mount_env_name(const std::string& mount_path);

/// Replaces every mount path that starts a path in `s` with its local directory (longest
/// mount path first, one left-to-right pass, so a replacement is never rewritten again).
std::string rewrite_mount_paths(const std::string& s, const std::vector<Mount>& mounts);

/// Kubernetes' `$(VAR)` expansion in command, args and env values
/// (k8s.io/kubernetes third_party/forked/golang/expansion): `$(NAME)` becomes the variable's
/// value when it is defined, stays as written when not; `$$` is a literal `$`.
std::string expand_vars(const std::string& s, const std::map<std::string, std::string>& vars);

/// Local directories for the volumes a replica's container mounts.
std::vector<Mount> plan_mounts(const ReplicaSpec& spec, const nlohmann::json& container,
                               const std::string& replica, const PlanInputs& in, Plan& plan);

/// The launch plan of a defaulted, valid TFJob. Throws `config_error` for what a local
/// process cannot be (no command, a volume kind with no mapping).
Plan make_plan(const TFJob& job, const PlanInputs& in);

}  // namespace tfjob::local

#if TFJOB_SDK_DEFINE_LOCAL
#include <tfjob/local/impl/plan_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_LOCAL
