#pragma once
/// \file client-go credential plugins (plugin/pkg/client/auth/exec/exec.go): run the command
/// without a shell, with the parent's environment plus `env[]` and KUBERNETES_EXEC_INFO,
/// parse the ExecCredential it prints, cache it until shortly before expirationTimestamp,
/// and refresh once when the server answers 401.

#include <tfjob/error.hpp>
#include <tfjob/kube/config.hpp>
#include <tfjob/kube/detail/util.hpp>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

extern char** environ;

namespace tfjob::kube {

/// What a credential plugin returned.
struct ExecCredential {
  std::string token;
  std::string client_certificate_pem, client_key_pem;
  std::optional<std::chrono::system_clock::time_point> expiry;  ///< none = valid until a 401
};

/// Credentials are refreshed this long before they expire (client-go refreshes at expiry;
/// a margin avoids sending a token that dies in flight).
inline constexpr std::chrono::seconds exec_expiry_margin{5};

/// Run a credential plugin once and parse its ExecCredential (no caching).
/// `interactive`: whether the plugin may talk to the user on the terminal.
inline ExecCredential run_exec_plugin(const ExecConfig& cfg, const std::string& cluster_json = {},
                                      std::optional<bool> interactive = std::nullopt,
                                      const std::string& user = {}) {
  const std::string who = "exec plugin \"" + cfg.command + "\"" + (user.empty() ? "" : " of user \"" + user + "\"");
  std::string mode = cfg.interactive_mode.empty() ? "IfAvailable" : cfg.interactive_mode;
  bool tty = interactive.value_or(::isatty(0) == 1);
  bool is_interactive = mode != "Never" && tty;
  if (mode == "Always" && !tty)
    throw auth_error(who + " needs an interactive terminal (interactiveMode: Always) but standard input is not one");

  nlohmann::json info = {{"apiVersion", cfg.api_version}, {"kind", "ExecCredential"},
                         {"spec", {{"interactive", is_interactive}}}};
  if (cfg.provide_cluster_info && !cluster_json.empty())
    info["spec"]["cluster"] = nlohmann::json::parse(cluster_json, nullptr, false);

  // argv and envp, built before fork-free posix_spawn.
  std::vector<std::string> args{cfg.command};
  args.insert(args.end(), cfg.args.begin(), cfg.args.end());
  std::vector<std::string> envs;
  std::vector<std::string> overridden{"KUBERNETES_EXEC_INFO"};
  for (const auto& [k, v] : cfg.env) overridden.push_back(k);
  for (char** e = environ; e && *e; ++e) {
    std::string s = *e;
    std::string key = s.substr(0, s.find('='));
    bool skip = false;
    for (const auto& o : overridden) skip = skip || o == key;
    if (!skip) envs.push_back(s);
  }
  for (const auto& [k, v] : cfg.env) envs.push_back(k + "=" + v);
  envs.push_back("KUBERNETES_EXEC_INFO=" + info.dump());
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);

  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) throw auth_error(who + ": pipe: " + std::strerror(errno));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  if (!is_interactive) posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  pid_t pid = 0;
  int rc = cfg.command.find('/') != std::string::npos
               ? ::posix_spawn(&pid, cfg.command.c_str(), &fa, nullptr, argv.data(), envp.data())
               : ::posix_spawnp(&pid, cfg.command.c_str(), &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  ::close(out[1]);
  if (rc != 0) {
    ::close(out[0]);
    if (rc == ENOENT || rc == EACCES || rc == ENOTDIR) {
      std::string msg = "exec: executable " + cfg.command + " not found" +
                        (rc == EACCES ? " (or not executable)" : "") +
                        "\n\nIt looks like you are trying to use a client-go credential plugin that is not installed."
                        "\n\nTo learn more about this feature, consult the documentation available at:\n"
                        "      https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins";
      if (!cfg.install_hint.empty()) msg += "\n\n" + cfg.install_hint;
      throw auth_error(msg);
    }
    throw auth_error(who + ": cannot start: " + std::strerror(rc));
  }
  std::string output;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n > 0) { output.append(buf, static_cast<size_t>(n)); continue; }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  ::close(out[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (WIFSIGNALED(status)) throw auth_error(who + " was killed by signal " + std::to_string(WTERMSIG(status)));
  if (WEXITSTATUS(status) != 0)
    throw auth_error(who + " failed with exit code " + std::to_string(WEXITSTATUS(status)) +
                     " (its error output is above)");

  nlohmann::json j = nlohmann::json::parse(output, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw auth_error(who + " did not print an ExecCredential JSON object on standard output");
  if (j.value("kind", "") != "ExecCredential")
    throw auth_error(who + " printed kind \"" + j.value("kind", "") + "\", expected ExecCredential");
  if (j.value("apiVersion", "") != cfg.api_version)
    throw auth_error(who + " printed apiVersion \"" + j.value("apiVersion", "") + "\", but the kubeconfig asks for \"" +
                     cfg.api_version + "\"");
  if (!j.contains("status") || !j["status"].is_object())
    throw auth_error(who + " printed an ExecCredential without a status");
  const auto& st = j["status"];
  ExecCredential c;
  c.token = st.value("token", "");
  c.client_certificate_pem = st.value("clientCertificateData", "");
  c.client_key_pem = st.value("clientKeyData", "");
  if (c.client_certificate_pem.empty() != c.client_key_pem.empty())
    throw auth_error(who + " returned only one of clientCertificateData and clientKeyData");
  if (c.token.empty() && c.client_certificate_pem.empty())
    throw auth_error(who + " returned neither a token nor a client certificate");
  if (auto ts = st.value("expirationTimestamp", ""); !ts.empty()) {
    std::int64_t s = 0, ns = 0;
    if (!detail::parse_rfc3339(ts, s, ns))
      throw auth_error(who + " returned an invalid expirationTimestamp \"" + ts + "\"");
    c.expiry = std::chrono::system_clock::time_point(std::chrono::seconds(s));
  }
  return c;
}

/// A cached credential source for one exec configuration; thread-safe.
class ExecCredentialProvider {
 public:
  ExecCredentialProvider(ExecConfig cfg, std::string cluster_json = {}, std::string user = {})
      : cfg_(std::move(cfg)), cluster_json_(std::move(cluster_json)), user_(std::move(user)) {}

  /// The cached credential, or a fresh one when none is cached or it is about to expire.
  ExecCredential get() {
    std::lock_guard<std::mutex> lk(mu_);
    auto now = std::chrono::system_clock::now();
    if (cached_ && (!cached_->expiry || now + exec_expiry_margin < *cached_->expiry)) return *cached_;
    cached_ = run_exec_plugin(cfg_, cluster_json_, interactive_, user_);
    ++runs_;
    return *cached_;
  }

  /// After a 401: drop the credential that was refused (unless another thread already
  /// refreshed it) so the next get() runs the plugin again.
  void invalidate(const ExecCredential& refused) {
    std::lock_guard<std::mutex> lk(mu_);
    if (cached_ && cached_->token == refused.token && cached_->client_certificate_pem == refused.client_certificate_pem)
      cached_.reset();
  }

  /// How many times the plugin has been run (for tests and -v logging).
  int runs() const {
    std::lock_guard<std::mutex> lk(mu_);
    return runs_;
  }
  /// Force the interactive decision (tests); default: stdin is a terminal.
  void set_interactive(std::optional<bool> v) { interactive_ = v; }
  const ExecConfig& config() const { return cfg_; }

 private:
  ExecConfig cfg_;
  std::string cluster_json_, user_;
  mutable std::mutex mu_;
  std::optional<ExecCredential> cached_;
  std::optional<bool> interactive_;
  int runs_ = 0;
};

}  // namespace tfjob::kube
