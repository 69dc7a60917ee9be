#pragma once
/// \file client-go credential plugins (plugin/pkg/client/auth/exec/exec.go): run the command
/// without a shell, with the parent's environment plus `env[]` and KUBERNETES_EXEC_INFO,
/// parse the ExecCredential it prints, cache it until shortly before expirationTimestamp,
/// and refresh once when the server answers 401.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/input.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/config.hpp>
#include <tfjob/kube/detail/process.hpp>
#include <tfjob/kube/detail/util.hpp>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>  // passing SIGTERM/SIGINT/SIGHUP on to a running plugin
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
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

namespace detail {

/// Registers a running plugin for the signal pass-on while alive; installs the handler
/// for signals whose disposition is still the default (an application's own wins).
class ExecChildGuard {
 public:
  explicit ExecChildGuard(pid_t target);
  ~ExecChildGuard();
  ExecChildGuard(const ExecChildGuard&) = delete;
  ExecChildGuard& operator=(const ExecChildGuard&) = delete;

 private:
  int slot_ = -1;
};

}  // namespace detail

/// Run a credential plugin once and parse its ExecCredential (no caching).
/// `interactive`: whether the plugin may talk to the user on the terminal.
ExecCredential run_exec_plugin(const ExecConfig& cfg, const std::string& cluster_json = {},
                               std::optional<bool> interactive = std::nullopt,
                               const std::string& user = {});

/// A cached credential source for one exec configuration; thread-safe.
class ExecCredentialProvider {
 public:
  ExecCredentialProvider(ExecConfig cfg, std::string cluster_json = {}, std::string user = {});

  /// The cached credential, or a fresh one when none is cached or it is about to expire.
  ExecCredential get();

  /// After a 401: drop the credential that was refused (unless another thread already
  /// refreshed it) so the next get() runs the plugin again.
  void invalidate(const ExecCredential& refused);

  /// How many times the plugin has been run (for tests and -v logging).
  int runs() const;
  /// Force the interactive decision (tests); default: stdin is a terminal.
  void set_interactive(std::optional<bool> v);
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

#if TFJOB_SDK_DEFINE_KUBE
#include <tfjob/kube/impl/exec_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
