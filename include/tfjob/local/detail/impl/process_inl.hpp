#pragma once
/// \file The bodies of <tfjob/local/detail/process.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_LOCAL` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/local/detail/process.hpp>, never this file.

namespace tfjob::local::detail {

TFJOB_INLINE std::string errno_text(int e) { return std::strerror(e); }

TFJOB_INLINE PortReserver::~PortReserver() {
  for (auto& [port, fd] : held_) ::close(fd);
}

TFJOB_INLINE int PortReserver::reserve(int first_port) {
  if (first_port <= 0) {
    const int lowest = 10000, below = ephemeral_low();
    if (below - lowest >= 1000) {
      std::uniform_int_distribution<int> pick(lowest, below - 1);
      for (int attempt = 0; attempt < 256; ++attempt) {
        int port = pick(rng_);
        if (given_.count(port)) continue;
        auto [fd, err] = bind_port(port, false);
        if (fd < 0) continue;  // a listener has it
        held_[port] = fd;
        given_.insert(port);
        return port;
      }
    }
    for (int attempt = 0; attempt < 64; ++attempt) {
      auto [fd, port] = bind_port(0, false);
      if (fd < 0) throw error("cannot reserve a port on " + host_ + ": " + errno_text(port));
      if (given_.count(port)) {  // the kernel may offer a port a replica has released
        ::close(fd);
        continue;
      }
      held_[port] = fd;
      given_.insert(port);
      return port;
    }
    throw error("cannot find a free port on " + host_);
  }
  for (int port = std::max(first_port, next_); port < 65536; ++port) {
    if (given_.count(port)) continue;
    auto [fd, err] = bind_port(port, false);
    if (fd < 0) continue;  // taken (or in TIME_WAIT): skip it
    held_[port] = fd;
    given_.insert(port);
    next_ = port + 1;
    return port;
  }
  throw error("no free port on " + host_ + " at or above " + std::to_string(first_port));
}

TFJOB_INLINE void PortReserver::release(int port) {
  auto it = held_.find(port);
  if (it == held_.end()) return;
  ::close(it->second);
  held_.erase(it);
}

TFJOB_INLINE bool PortReserver::hold_again(int port) {
  if (held_.count(port)) return true;
  auto [fd, err] = bind_port(port, true);
  if (fd < 0) return false;
  held_[port] = fd;
  return true;
}

TFJOB_INLINE std::pair<int, int> PortReserver::bind_port(int port, bool reuse) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return {-1, errno};
  int one = 1;
  if (reuse) ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(std::uint16_t(port));
  if (::inet_pton(AF_INET, host_.c_str(), &sa.sin_addr) != 1) {
    ::close(fd);
    return {-1, EINVAL};
  }
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    int e = errno;
    ::close(fd);
    return {-1, e};
  }
  socklen_t len = sizeof sa;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  return {fd, ntohs(sa.sin_port)};
}

TFJOB_INLINE int PortReserver::ephemeral_low() {
  std::FILE* f = std::fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
  int lo = 32768, hi = 60999;
  if (f) {
    if (std::fscanf(f, "%d %d", &lo, &hi) != 2) lo = 32768;
    std::fclose(f);
  }
  return lo;
}

TFJOB_INLINE bool is_executable_file(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

TFJOB_INLINE bool is_dir(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

TFJOB_INLINE std::string temp_state_base() {
  return tfjob::detail::temp_folder() + "/kubectl-tfjob-" + std::to_string(::geteuid());
}

TFJOB_INLINE void make_dirs(const std::string& dir, mode_t mode) {
  if (dir.empty()) return;
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') {
      std::string cur = dir.substr(0, i);
      if (::mkdir(cur.c_str(), mode) != 0 && errno != EEXIST)
        throw error("cannot create directory " + cur + ": " + errno_text());
    }
  }
  if (!is_dir(dir)) throw error(dir + " exists and is not a directory");
}

TFJOB_INLINE std::string current_dir() {
  std::vector<char> buf(4096);
  if (!::getcwd(buf.data(), buf.size())) return ".";
  return buf.data();
}

TFJOB_INLINE std::string absolute(const std::string& p) {
  if (p.empty() || p[0] == '/') return p;
  return current_dir() + "/" + p;
}

TFJOB_INLINE std::optional<std::string> find_executable(const std::string& cmd, const std::vector<std::string>& search_first,
                                                        const std::string& cwd) {
  if (cmd.empty()) return std::nullopt;
  if (cmd.find('/') != std::string::npos) {
    std::string p = (cmd[0] == '/' || cwd.empty()) ? cmd : cwd + "/" + cmd;
    if (is_executable_file(p)) return p;
    return std::nullopt;
  }
  std::vector<std::string> dirs = search_first;
  const char* path = std::getenv("PATH");
  std::string ps = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  for (;;) {
    size_t colon = ps.find(':', start);
    std::string d = ps.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    dirs.push_back(d.empty() ? "." : d);
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  for (const auto& d : dirs)
    if (is_executable_file(d + "/" + cmd)) return absolute(d + "/" + cmd);
  return std::nullopt;
}

TFJOB_INLINE Child spawn(const std::string& exe, const std::vector<std::string>& argv,
                         const std::vector<std::pair<std::string, std::string>>& env, const std::string& cwd) {
  kube::detail::ChildSpec spec;
  spec.program = exe;
  spec.argv = argv;
  spec.env = env;
  spec.stderr_to_pipe = true;
  spec.own_process_group = true;
  spec.die_with_parent = true;
  spec.cwd = cwd;
  spec.exec_failure_prefix = "exec " + exe + ": ";
  kube::detail::Child c = kube::detail::start_child(spec);
  if (c.pid < 0) throw error("cannot start " + exe + ": " + errno_text(c.exec_errno));
  ::fcntl(c.out_fd, F_SETFL, ::fcntl(c.out_fd, F_GETFL) | O_NONBLOCK);
  return {c.pid, c.out_fd};
}

}  // namespace tfjob::local::detail
