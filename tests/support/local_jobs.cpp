#include "support/local_jobs.hpp"

#include "support/paths.hpp"

#include <fstream>
#include <regex>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>

namespace tfjob::test {

nlohmann::json local_replica(int replicas, const std::string& restart_policy, const std::vector<std::string>& command,
                             const nlohmann::json& extra_container, const nlohmann::json& extra_pod_spec) {
  nlohmann::json c = {{"name", "tensorflow"}, {"image", "local/test:1"}, {"command", command}};
  c.update(extra_container);
  nlohmann::json pod = {{"containers", nlohmann::json::array({c})}};
  pod.update(extra_pod_spec);
  return {{"replicas", replicas}, {"restartPolicy", restart_policy}, {"template", {{"spec", pod}}}};
}

nlohmann::json sh_replica(int replicas, const std::string& restart_policy, const std::string& script) {
  return local_replica(replicas, restart_policy, {"sh", "-c", script});
}

tfjob::TFJob local_job(const std::string& name, const std::map<std::string, nlohmann::json>& specs,
                       const nlohmann::json& run_policy, const std::string& success_policy) {
  nlohmann::json j = {{"apiVersion", "kubeflow.org/v1"},
                      {"kind", "TFJob"},
                      {"metadata", {{"name", name}, {"namespace", "default"}}},
                      {"spec", {{"tfReplicaSpecs", specs}}}};
  if (!run_policy.empty()) j["spec"]["runPolicy"] = run_policy;
  if (!success_policy.empty()) j["spec"]["successPolicy"] = success_policy;
  return j.get<tfjob::TFJob>();
}

std::string scratch_dir(const std::string& tag) {
  static std::atomic<int> n{0};
  std::string base = binary_dir() + "/test-scratch";
  ::mkdir(base.c_str(), 0755);
  std::string d = base + "/" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(n++) + "-" +
                  std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() % 1000000);
  std::string cmd = "rm -rf '" + d + "' && mkdir -p '" + d + "'";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("cannot create " + d);
  return d;
}

bool process_alive(int pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  if (!f) return false;
  std::string stat;
  std::getline(f, stat);
  auto close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return false;
  return stat[close + 2] != 'Z' && stat[close + 2] != 'X';
}

bool process_gone(int pid, int seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (process_alive(pid)) {
    if (std::chrono::steady_clock::now() >= until) return false;
    usleep(10 * 1000);
  }
  return true;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<int> pids_in_file(const std::string& path) {
  std::vector<int> out;
  std::string text = read_text(path);
  std::regex re("pid ([0-9]+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back(std::stoi((*it)[1]));
  return out;
}

}  // namespace tfjob::test
