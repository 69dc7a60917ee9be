#pragma once
/// \file POSIX plumbing for the local runner: reserved ports, spawning a replica in its own
/// process group with its output on a pipe, finding executables, creating directories.
/// Linux (prctl PR_SET_PDEATHSIG so a killed runner leaves no replica behind).

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/files.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/detail/process.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

extern char** environ;

namespace tfjob::local::detail {

std::string errno_text(int e = errno);

/// Ports held by this process until a replica takes them, so they are never handed out
/// twice and never ones that are taken: each is a bound (not listening) socket on the
/// host. With `first_port` 0 a port is drawn at random below the kernel's ephemeral range
/// (net.ipv4.ip_local_port_range): a port from that range could be taken, between its
/// release and the replica's bind, as the local end of any outgoing connection on the
/// machine; below it only listeners compete, and the held socket keeps them off. (The
/// kernel's own choice is the fallback.) Otherwise ports are tried upwards from
/// `first_port`, skipping any that cannot be bound.
class PortReserver {
 public:
  explicit PortReserver(std::string host = "127.0.0.1") : host_(std::move(host)) {}
  ~PortReserver();
  PortReserver(const PortReserver&) = delete;
  PortReserver& operator=(const PortReserver&) = delete;

  /// A fresh port, held until `release`.
  int reserve(int first_port = 0);

  /// Lets the replica bind `port` (call right before starting it).
  void release(int port);

  /// Holds `port` again while its replica is down (between restarts); false when
  /// another process took it meanwhile.
  bool hold_again(int port);

 private:
  /// {fd, port} on success, {-1, errno} on failure.
  std::pair<int, int> bind_port(int port, bool reuse);

  /// The first port of the kernel's ephemeral range (32768 when it cannot be read).
  static int ephemeral_low();

  std::string host_;
  std::mt19937 rng_{std::random_device{}()};
  std::map<int, int> held_;  // port -> fd
  std::set<int> given_;
  int next_ = 0;
};

bool is_executable_file(const std::string& p);

bool is_dir(const std::string& p);

/// `mkdir -p`, `mode` for the folders it makes.
void make_dirs(const std::string& dir, mode_t mode = 0755);

/// `$TMPDIR` (absolute) or /tmp, + `/kubectl-tfjob-<uid>`: the local runner's state folder
/// when neither HOME nor XDG_STATE_HOME is set.
std::string temp_state_base();

std::string current_dir();

std::string absolute(const std::string& p);

/// The executable a command names: a path (with a `/`) as is, else the first match in
/// `search_first` and then in PATH (as execvp would).
std::optional<std::string> find_executable(const std::string& cmd, const std::vector<std::string>& search_first,
                                           const std::string& cwd = "");

/// A started replica process: its pid (= its process group) and the read end of the pipe
/// that carries its stdout and stderr.
struct Child {
  pid_t pid = -1;
  int out_fd = -1;
};

/// Starts `exe` with `argv` and `env` (the runner's environment plus these, overriding) in
/// a new process group, stdin from /dev/null, stdout+stderr to one pipe. Killed with
/// SIGKILL if the runner dies. Exec failures show in the output as `exec ...: reason`
/// with exit code 127. The SDK's one child-process helper (kube/detail/process.hpp).
Child spawn(const std::string& exe, const std::vector<std::string>& argv,
            const std::vector<std::pair<std::string, std::string>>& env, const std::string& cwd);

/// Exit code as a container runtime reports it: the status, or 128 + signal.
using kube::detail::exit_code_of;

}  // namespace tfjob::local::detail

#if TFJOB_SDK_DEFINE_LOCAL
#include <tfjob/local/detail/impl/process_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_LOCAL
