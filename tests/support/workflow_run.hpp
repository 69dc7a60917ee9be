#pragma once
// Runs the built kubectl-tfjob as a user would (a real process), capturing stdout, stderr
// and the exit code separately, with a wall-clock limit so a hang fails the test.
#include <string>
#include <vector>

namespace tfjob::test {

struct RunResult {
  int exit_code = -1;   ///< 124 when the limit killed it
  std::string out, err;
};

/// Run `program args...` (no shell; each arg passed verbatim) with `env` entries
/// ("K=V") added, killed after `timeout_s` seconds.
RunResult run_program(const std::string& program, const std::vector<std::string>& args, int timeout_s = 60,
                      const std::vector<std::string>& env = {});

/// Run the plugin with `--kubeconfig kubeconfig` appended (when not empty).
RunResult run_plugin(const std::vector<std::string>& args, const std::string& kubeconfig = "", int timeout_s = 60,
                     const std::vector<std::string>& env = {});

/// A fresh empty directory under the build tree's Testing/tmp.
std::string temp_dir(const std::string& prefix);

/// A whole file's bytes ("" when it cannot be read).
std::string slurp(const std::string& path);

/// Writes `text` to `path` (replaced); throws when it cannot.
void write_file(const std::string& path, const std::string& text);

}  // namespace tfjob::test
