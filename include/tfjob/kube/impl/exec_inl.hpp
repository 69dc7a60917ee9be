#pragma once
/// \file The bodies of <tfjob/kube/exec.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/exec.hpp>, never this file.

namespace tfjob::kube {

namespace detail {

/// Credential plugins running now, as process groups (negative) or pids: a SIGTERM,
/// SIGINT or SIGHUP to this process is passed on to them before it takes its default
/// effect, so a hanging plugin and its children do not outlive us (client-go's plugin
/// runs in the caller's process group, which a terminal's signal reaches as a whole; a
/// signal sent to this process alone must reach the plugin too).
TFJOB_INLINE std::atomic<pid_t>* exec_children() {
  static std::atomic<pid_t> slots[16];
  return slots;
}

extern "C" TFJOB_INLINE void tfjob_exec_on_signal(int sig) {
  auto* c = exec_children();
  for (int i = 0; i < 16; ++i)
    if (pid_t p = c[i].load(); p != 0) ::kill(p, sig);
  ::signal(sig, SIG_DFL);  // then the default effect, as if we had not been here
  ::raise(sig);
}

TFJOB_INLINE ExecChildGuard::ExecChildGuard(pid_t target) {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO)) {
        struct sigaction sa {};
        sa.sa_handler = tfjob_exec_on_signal;
        sigemptyset(&sa.sa_mask);
        ::sigaction(sig, &sa, nullptr);
      }
    }
  });
  auto* c = exec_children();
  for (int i = 0; i < 16; ++i) {
    pid_t zero = 0;
    if (c[i].compare_exchange_strong(zero, target)) {
      slot_ = i;
      break;
    }
  }
}

TFJOB_INLINE ExecChildGuard::~ExecChildGuard() {
  if (slot_ >= 0) exec_children()[slot_].store(0);
}

/// The plugin's command line and environment, with the KUBERNETES_EXEC_INFO it is given.
TFJOB_INLINE detail::ChildSpec exec_child_spec(const ExecConfig& cfg, const std::string& cluster_json, bool is_interactive) {
  nlohmann::json info = {{"apiVersion", cfg.api_version}, {"kind", "ExecCredential"},
                         {"spec", {{"interactive", is_interactive}}}};
  if (cfg.provide_cluster_info && !cluster_json.empty())
    info["spec"]["cluster"] = tfjob::detail::read_json(cluster_json).value;  // built by us

  // The SDK's one child-process helper (detail/process.hpp): argv without a shell, the
  // child's own environment plus env[] and KUBERNETES_EXEC_INFO.
  detail::ChildSpec spec;
  spec.program = cfg.command;
  spec.argv.push_back(cfg.command);
  spec.argv.insert(spec.argv.end(), cfg.args.begin(), cfg.args.end());
  spec.env = cfg.env;
  spec.env.emplace_back("KUBERNETES_EXEC_INFO", info.dump());
  // A plugin that does not talk to the user reads no terminal and gets a process group of
  // its own, so that the whole group (its children too) can be stopped with us; an
  // interactive one stays in ours, where the terminal is.
  spec.stdin_null = !is_interactive;
  spec.own_process_group = !is_interactive;
  return spec;
}

/// Start the plugin; auth_error (client-go's words for a plugin not installed) when it cannot be.
TFJOB_INLINE detail::Child exec_start(const ExecConfig& cfg, const std::string& who, const detail::ChildSpec& spec) {
  const detail::Child child = detail::start_child(spec);
  const int rc = child.exec_errno;
  if (rc != 0) {
    if (child.pid > 0) {
      ::close(child.out_fd);
      detail::wait_child(child.pid);
    }
    if (rc == ENOENT && child.relative_match)  // Go's exec.ErrDot (1.19), which client-go returns as is
      throw auth_error("exec: \"" + cfg.command + "\": cannot run executable found relative to current directory: " + who +
                       " is found on PATH only through \".\", an empty or a relative entry, and is not run from the "
                       "current folder; give its absolute path as the kubeconfig's exec command, or install it in a "
                       "folder on PATH");
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
  return child;
}

/// What the started plugin prints on standard output, once it has exited with status 0 (the
/// caller holds its ExecChildGuard).
TFJOB_INLINE std::string exec_read_output(const detail::Child& child, const std::string& who, bool is_interactive) {
  const pid_t pid = child.pid;
  std::string output;
  const bool too_much = !detail::read_to_end(child.out_fd, output, limits::max_exec_output_bytes);
  if (too_much) ::kill(is_interactive ? pid : -pid, SIGTERM);  // stop it: nothing it prints now can be a credential
  ::close(child.out_fd);
  const int status = detail::wait_child(pid);
  if (too_much)
    throw auth_error(who + " printed more than " + tfjob::detail::human_bytes(limits::max_exec_output_bytes) +
                     " on standard output (the bound on a credential plugin's output); it was stopped");
  if (WIFSIGNALED(status)) throw auth_error(who + " was killed by signal " + std::to_string(WTERMSIG(status)));
  if (WEXITSTATUS(status) != 0)
    throw auth_error(who + " failed with exit code " + std::to_string(WEXITSTATUS(status)) +
                     " (its error output is above)");
  return output;
}

/// "a string", "a number", "a list", "an object", "a boolean", "null": a JSON value's kind,
/// without the value (a plugin's output may hold a credential: none of it is quoted).
TFJOB_INLINE std::string exec_json_kind(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::array: return "a list";
    case nlohmann::json::value_t::object: return "an object";
    default: return "a number";
  }
}

/// The ExecCredential in a plugin's output, checked field by field. An error says what was
/// wrong and where, and the output's size, but quotes none of it: a plugin that prints its
/// token in the wrong shape must not have it shown on the terminal or in a CI log.
TFJOB_INLINE ExecCredential exec_parse_credential(const std::string& output, const ExecConfig& cfg, const std::string& who) {
  auto parsed = tfjob::detail::read_json(output);
  const std::string size = std::to_string(output.size()) + " bytes";
  if (!parsed.ok() || !parsed.value.is_object())
    throw auth_error(who + " did not print an ExecCredential JSON object on standard output (it printed " + size +
                     (parsed.ok() ? " of JSON: " + exec_json_kind(parsed.value)
                      : parsed.error.rfind("exceeded max depth", 0) == 0 ? " of JSON that " + parsed.error
                                                                          : " that are not JSON: broken " +
                                                                                tfjob::detail::json_fault_place(output, parsed)) +
                     ")");
  const nlohmann::json& j = parsed.value;
  // String fields of the ExecCredential; another type is an error naming the field.
  auto str = [&](const nlohmann::json& o, const char* key, const char* path) {
    auto it = o.find(key);
    if (it == o.end() || it->is_null()) return std::string();
    if (!it->is_string())
      throw auth_error(who + " printed an ExecCredential whose " + path + " is " + exec_json_kind(*it) + ", not a string");
    return it->get<std::string>();
  };
  if (str(j, "kind", "kind") != "ExecCredential")
    throw auth_error(who + " printed an object whose kind is not ExecCredential (" + size + " on standard output)");
  if (const std::string av = str(j, "apiVersion", "apiVersion"); av != cfg.api_version) {
    // client-go names the version the plugin returned; here only when it is one of the known ones
    const bool known = av == "client.authentication.k8s.io/v1" || av == "client.authentication.k8s.io/v1beta1" ||
                       av == "client.authentication.k8s.io/v1alpha1";
    throw auth_error(who + " printed " + (known ? "apiVersion \"" + av + "\"" : std::string("another apiVersion")) +
                     ", but the kubeconfig asks for \"" + cfg.api_version + "\"");
  }
  if (!j.contains("status") || !j["status"].is_object())
    throw auth_error(who + " printed an ExecCredential without a status");
  const auto& st = j["status"];
  ExecCredential c;
  c.token = str(st, "token", "status.token");
  c.client_certificate_pem = str(st, "clientCertificateData", "status.clientCertificateData");
  c.client_key_pem = str(st, "clientKeyData", "status.clientKeyData");
  if (c.client_certificate_pem.empty() != c.client_key_pem.empty())
    throw auth_error(who + " returned only one of clientCertificateData and clientKeyData");
  if (c.token.empty() && c.client_certificate_pem.empty())
    throw auth_error(who + " returned neither a token nor a client certificate");
  if (auto ts = str(st, "expirationTimestamp", "status.expirationTimestamp"); !ts.empty()) {
    std::int64_t s = 0, ns = 0;
    if (!detail::parse_rfc3339(ts, s, ns))
      throw auth_error(who + " returned an expirationTimestamp that is not an RFC 3339 time (" + std::to_string(ts.size()) +
                       " bytes)");
    c.expiry = std::chrono::system_clock::time_point(std::chrono::seconds(s));
  }
  return c;
}

}  // namespace detail

TFJOB_INLINE ExecCredential run_exec_plugin(const ExecConfig& cfg, const std::string& cluster_json,
                                            std::optional<bool> interactive,
                                            const std::string& user) {
  const std::string who = "exec plugin \"" + cfg.command + "\"" + (user.empty() ? "" : " of user \"" + user + "\"");
  std::string mode = cfg.interactive_mode.empty() ? "IfAvailable" : cfg.interactive_mode;
  bool tty = interactive.value_or(::isatty(0) == 1);
  bool is_interactive = mode != "Never" && tty;
  if (mode == "Always" && !tty)
    throw auth_error(who + " needs an interactive terminal (interactiveMode: Always) but standard input is not one");

  const detail::ChildSpec spec = detail::exec_child_spec(cfg, cluster_json, is_interactive);
  const detail::Child child = detail::exec_start(cfg, who, spec);
  detail::ExecChildGuard guard(is_interactive ? child.pid : -child.pid);
  return detail::exec_parse_credential(detail::exec_read_output(child, who, is_interactive), cfg, who);
}

TFJOB_INLINE ExecCredentialProvider::ExecCredentialProvider(ExecConfig cfg, std::string cluster_json, std::string user)
    : cfg_(std::move(cfg)), cluster_json_(std::move(cluster_json)), user_(std::move(user)) {}

TFJOB_INLINE ExecCredential ExecCredentialProvider::get() {
  std::lock_guard<std::mutex> lk(mu_);
  auto now = std::chrono::system_clock::now();
  if (cached_ && (!cached_->expiry || now + exec_expiry_margin < *cached_->expiry)) return *cached_;
  cached_ = run_exec_plugin(cfg_, cluster_json_, interactive_, user_);
  ++runs_;
  return *cached_;
}

TFJOB_INLINE void ExecCredentialProvider::invalidate(const ExecCredential& refused) {
  std::lock_guard<std::mutex> lk(mu_);
  if (cached_ && cached_->token == refused.token && cached_->client_certificate_pem == refused.client_certificate_pem)
    cached_.reset();
}

TFJOB_INLINE int ExecCredentialProvider::runs() const {
  std::lock_guard<std::mutex> lk(mu_);
  return runs_;
}

TFJOB_INLINE void ExecCredentialProvider::set_interactive(std::optional<bool> v) { interactive_ = v; }

}  // namespace tfjob::kube
