#pragma once
/// \file The bodies of <tfjob/kube/detail/process.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/detail/process.hpp>, never this file.

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
