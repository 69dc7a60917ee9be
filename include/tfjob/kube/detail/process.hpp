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
#include <tfjob/kube/detail/impl/process_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
