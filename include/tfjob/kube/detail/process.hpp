#pragma once
/// \file The one child-process helper: start a program with its output on a pipe (exec
/// credential plugins, the local runner's replicas, gpu-check's local probe), read it,
/// reap it. POSIX (Linux for `die_with_parent`). Everything the child needs is built before
/// fork; after it only async-signal-safe calls. An exec failure comes back to the parent
/// as its errno over a close-on-exec pipe (as posix_spawn reports it), so the caller can
/// word it (a missing credential plugin's installHint).

#include <tfjob/detail/compiled.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>  // getenv
#include <cstring>
#include <string>
#include <utility>
#include <vector>

extern char** environ;

namespace tfjob::kube::detail {

/// What to start and how.
struct ChildSpec {
  /// The program: a path when it holds a '/', else looked up on PATH (as execvp does).
  std::string program;
  std::vector<std::string> argv;  ///< argv[0] included; empty = {program}
  /// Added to this process's environment, replacing a variable of the same name.
  std::vector<std::pair<std::string, std::string>> env;
  bool stdin_null = true;        ///< stdin from /dev/null (false: inherited, e.g. a terminal)
  bool stderr_to_pipe = false;   ///< stderr to the same pipe as stdout (false: inherited)
  bool own_process_group = false;  ///< a process group of its own (kill(-pid) stops its children too)
  bool die_with_parent = false;  ///< SIGKILL when this process dies (prctl PR_SET_PDEATHSIG)
  std::string cwd;               ///< "" = this process's
  /// When exec fails, the child also writes `exec_failure_prefix` + strerror + "\n" to its
  /// stderr before exiting 127 ("" = only the parent is told).
  std::string exec_failure_prefix;
};

/// A started child: its pid, the read end of its output pipe, and why exec failed (0 when
/// it did not; the child has then exited 127 and still needs reaping).
struct Child {
  pid_t pid = -1;
  int out_fd = -1;
  int exec_errno = 0;
  bool relative_match = false;  ///< exec_errno is ENOENT because the match was relative (ProgramPath::relative)
};

/// This process's environment with `env` applied (order kept, replaced names dropped and
/// appended at the end).
std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& env);

/// Where `program` is executed from: a path when it holds a '/', else the first executable match on PATH.
struct ProgramPath {
  std::string exe;       ///< "" when the lookup found nothing
  int lookup_errno = 0;  ///< 0, or ENOENT / EACCES when the lookup found nothing
  /// The first match on PATH was relative to the current folder (PATH's ".", an empty or
  /// relative entry): not run (lookup_errno ENOENT), as Go's exec.LookPath refuses it since
  /// 1.19 (ErrDot): a folder one happens to stand in does not choose what runs.
  bool relative = false;
};

/// Resolves `program` to the file execve is to run, and why there is none.
ProgramPath resolve_program(const std::string& program);

/// Everything the child's exec needs, built before fork. Not copied or moved: `argv` and `envp` point into the strings.
struct ExecImage {
  std::vector<std::string> args, envs;
  std::vector<char*> argv, envp;  ///< null-terminated, for execve
  ProgramPath program;

  /// Builds `spec`'s argv, environment and program path.
  explicit ExecImage(const ChildSpec& spec);
  ExecImage(const ExecImage&) = delete;
  ExecImage& operator=(const ExecImage&) = delete;
};

/// In the child: reports exec failure `e` to the parent (and to stderr with `prefix`), then exits 127. Async-signal-safe.
[[noreturn]] void child_exec_failed(int err_fd, const std::string& prefix, int e);

/// In the child: sets up its process group, signals, stdio and directory, then execs `img`. Async-signal-safe only.
[[noreturn]] void run_child(const ChildSpec& spec, const ExecImage& img, int out_w, int err_w, pid_t parent);

/// In the parent after fork: closes the child's pipe ends and waits for exec to succeed or report its errno.
Child await_exec(const ChildSpec& spec, pid_t pid, const int out[2], const int err[2]);

/// Starts `spec`. Throws nothing: a failure to create the pipe or to fork is returned as
/// `pid == -1` with `exec_errno` set.
Child start_child(const ChildSpec& spec);

/// Reads `fd` to its end (EINTR retried). Stops early, returning false, when the text would
/// pass `limit` bytes (0 = no bound); `out` then holds what came within it.
bool read_to_end(int fd, std::string& out, std::size_t limit = 0);

/// Waits for `pid` (EINTR retried); its wait status.
int wait_child(pid_t pid);

/// Exit code as a shell or container runtime reports it: the status, or 128 + signal.
int exit_code_of(int wstatus);

}  // namespace tfjob::kube::detail

#if TFJOB_SDK_DEFINE_KUBE
namespace tfjob::kube::detail {

TFJOB_INLINE std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& env) {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    const std::string key = kv.substr(0, kv.find('='));
    bool replaced = false;
    for (const auto& [k, v] : env) replaced = replaced || k == key;
    if (!replaced) out.push_back(kv);
  }
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

TFJOB_INLINE ProgramPath resolve_program(const std::string& program) {
  // PATH lookup before fork (execvp's search allocates): the first executable match; when
  // there is none, EACCES if a match was not executable, else ENOENT (as execvp answers).
  ProgramPath r;
  r.exe = program;
  if (r.exe.find('/') != std::string::npos) return r;
  const char* path = std::getenv("PATH");
  std::string ps = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::string found;
  r.lookup_errno = ENOENT;
  for (std::size_t start = 0;;) {
    std::size_t colon = ps.find(':', start);
    std::string d = ps.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    std::string cand = (d.empty() ? "." : d) + "/" + r.exe;
    if (::access(cand.c_str(), X_OK) == 0) {
      if (cand[0] != '/') {  // Go's ErrDot: the first match is relative, and is not run
        r.relative = true;
        r.lookup_errno = ENOENT;
        break;
      }
      found = cand;
      r.lookup_errno = 0;
      break;
    }
    if (::access(cand.c_str(), F_OK) == 0) r.lookup_errno = EACCES;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  r.exe = found;
  return r;
}

TFJOB_INLINE ExecImage::ExecImage(const ChildSpec& spec)
    : args(spec.argv.empty() ? std::vector<std::string>{spec.program} : spec.argv), envs(child_environment(spec.env)) {
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  program = resolve_program(spec.program);
}

TFJOB_INLINE void child_exec_failed(int err_fd, const std::string& prefix, int e) {
  (void)!::write(err_fd, &e, sizeof e);
  if (!prefix.empty()) {
    (void)!::write(2, prefix.data(), prefix.size());
    const char* r = std::strerror(e);
    (void)!::write(2, r, std::strlen(r));
    (void)!::write(2, "\n", 1);
  }
  ::_exit(127);
}

TFJOB_INLINE void run_child(const ChildSpec& spec, const ExecImage& img, int out_w, int err_w, pid_t parent) {
  if (spec.own_process_group) ::setpgid(0, 0);
  if (spec.die_with_parent) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(137);  // the parent died before prctl took effect
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) ::signal(sig, SIG_DFL);
  if (spec.stdin_null) {
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
  }
  ::dup2(out_w, 1);
  if (spec.stderr_to_pipe) ::dup2(out_w, 2);
  if (!spec.cwd.empty() && ::chdir(spec.cwd.c_str()) != 0) {
    const int e = errno;
    const char* m = "chdir failed: ";
    (void)!::write(2, m, std::strlen(m));
    const char* r = std::strerror(e);
    (void)!::write(2, r, std::strlen(r));
    (void)!::write(2, "\n", 1);
    (void)!::write(err_w, &e, sizeof e);
    ::_exit(127);
  }
  if (img.program.lookup_errno != 0) child_exec_failed(err_w, spec.exec_failure_prefix, img.program.lookup_errno);
  ::execve(img.program.exe.c_str(), img.argv.data(), img.envp.data());
  child_exec_failed(err_w, spec.exec_failure_prefix, errno);
}

TFJOB_INLINE Child await_exec(const ChildSpec& spec, pid_t pid, const int out[2], const int err[2]) {
  if (spec.own_process_group) ::setpgid(pid, pid);  // also here, so the group exists before the parent signals it
  ::close(out[1]);
  ::close(err[1]);
  int e = 0;
  ssize_t n;
  while ((n = ::read(err[0], &e, sizeof e)) < 0 && errno == EINTR) {
  }
  ::close(err[0]);
  Child c;
  c.pid = pid;
  c.out_fd = out[0];
  c.exec_errno = n == static_cast<ssize_t>(sizeof e) ? e : 0;
  return c;
}

TFJOB_INLINE Child start_child(const ChildSpec& spec) {
  const ExecImage img(spec);
  Child c;
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    c.exec_errno = errno;
    return c;
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    c.exec_errno = errno;
    ::close(out[0]);
    ::close(out[1]);
    return c;
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    c.exec_errno = errno;
    for (int fd : {out[0], out[1], err[0], err[1]}) ::close(fd);
    return c;
  }
  if (pid == 0) run_child(spec, img, out[1], err[1], parent);
  c = await_exec(spec, pid, out, err);
  c.relative_match = img.program.relative;
  return c;
}

TFJOB_INLINE bool read_to_end(int fd, std::string& out, std::size_t limit) {
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      if (limit != 0 && out.size() + static_cast<std::size_t>(n) > limit) return false;
      out.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return true;
  }
}

TFJOB_INLINE int wait_child(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

TFJOB_INLINE int exit_code_of(int wstatus) {
  if (WIFEXITED(wstatus)) return WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) return 128 + WTERMSIG(wstatus);
  return 255;
}

}  // namespace tfjob::kube::detail
#endif  // TFJOB_SDK_DEFINE_KUBE
