#pragma once
// Helpers for the local runner's tests: TFJobs whose replicas are tiny shell commands, temp
// directories, and process checks.
#include <tfjob/api/types.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace tfjob::test {

/// A replica spec JSON whose tensorflow container runs `command`.
nlohmann::json local_replica(int replicas, const std::string& restart_policy, const std::vector<std::string>& command,
                             const nlohmann::json& extra_container = nlohmann::json::object(),
                             const nlohmann::json& extra_pod_spec = nlohmann::json::object());
/// `sh -c SCRIPT` as a replica.
nlohmann::json sh_replica(int replicas, const std::string& restart_policy, const std::string& script);
/// A TFJob from replica specs (type -> spec JSON) and an optional runPolicy/successPolicy.
tfjob::TFJob local_job(const std::string& name, const std::map<std::string, nlohmann::json>& specs,
                       const nlohmann::json& run_policy = nlohmann::json::object(), const std::string& success_policy = "");
/// A fresh empty directory under the build tree's test scratch space.
std::string scratch_dir(const std::string& tag);
/// Whether a process with this pid exists and is not a zombie.
bool process_alive(int pid);
/// Whether the process is gone (or a zombie) within `seconds`: a signal sent to it is
/// delivered asynchronously, and a loaded machine may take a moment to end it.
bool process_gone(int pid, int seconds = 10);
/// Every pid printed as "pid N" in a file.
std::vector<int> pids_in_file(const std::string& path);
std::string read_text(const std::string& path);

}  // namespace tfjob::test
