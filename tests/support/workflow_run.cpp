#include "support/workflow_run.hpp"
#include "support/paths.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace tfjob::test {
std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + path);
}

std::string temp_dir(const std::string& prefix) {
  std::string base = binary_dir() + "/Testing/tmp";
  std::string cmd = "mkdir -p '" + base + "'";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("cannot create " + base);
  std::string tmpl = base + "/" + prefix + "-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed for " + tmpl);
  return buf.data();
}

RunResult run_program(const std::string& program, const std::vector<std::string>& args, int timeout_s,
                      const std::vector<std::string>& env) {
  std::string dir = temp_dir("run");
  std::string out_path = dir + "/stdout", err_path = dir + "/stderr";
  std::vector<std::string> envs;
  for (char** e = environ; *e; ++e) envs.emplace_back(*e);
  for (const auto& e : env) {
    // an entry replaces the inherited variable of that name (a duplicate would lose: the
    // first occurrence is the one getenv and Go's os.Getenv see)
    const std::string key = e.substr(0, e.find('=') + 1);
    envs.erase(std::remove_if(envs.begin(), envs.end(), [&](const std::string& x) { return x.rfind(key, 0) == 0; }),
               envs.end());
    envs.push_back(e);
  }
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    setpgid(0, 0);
    int o = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int n = open("/dev/null", O_RDONLY);
    dup2(n, 0);
    dup2(o, 1);
    dup2(e, 2);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (auto& s : envs) envp.push_back(const_cast<char*>(s.c_str()));
    envp.push_back(nullptr);
    execve(program.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  RunResult r;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int status = 0;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.exit_code = 124;
      r.out = slurp(out_path);
      r.err = slurp(err_path) + "\n[killed after " + std::to_string(timeout_s) + "s]";
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

RunResult run_plugin(const std::vector<std::string>& args, const std::string& kubeconfig, int timeout_s,
                     const std::vector<std::string>& env) {
  std::vector<std::string> a = args;
  if (!kubeconfig.empty()) {
    a.push_back("--kubeconfig");
    a.push_back(kubeconfig);
  }
  return run_program(plugin_path(), a, timeout_s, env);
}

}  // namespace tfjob::test
