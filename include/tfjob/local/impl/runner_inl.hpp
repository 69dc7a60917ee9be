#pragma once
/// \file The bodies of <tfjob/local/runner.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_LOCAL` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/local/runner.hpp>, never this file.

namespace tfjob::local {

TFJOB_INLINE std::string default_state_dir(const TFJob& job) {
  std::string base;
  if (const char* x = std::getenv("XDG_STATE_HOME"); x && *x) base = x + std::string("/kubectl-tfjob");
  else if (const char* h = std::getenv("HOME"); h && *h) base = std::string(h) + "/.local/state/kubectl-tfjob";
  else base = detail::temp_state_base();
  return base + "/local/" + tfjob::detail::path_part(job.metadata.namespace_.empty() ? "default" : job.metadata.namespace_) +
         "/" + tfjob::detail::path_part(job.metadata.name);
}

}  // namespace tfjob::local

namespace tfjob::local::detail {

TFJOB_INLINE int& signal_write_fd() {
  static int fd = -1;
  return fd;
}
TFJOB_INLINE void on_signal(int sig) {
  int fd = signal_write_fd();
  if (fd >= 0) {
    unsigned char b = static_cast<unsigned char>(sig);
    (void)!::write(fd, &b, 1);
  }
}

TFJOB_INLINE SignalGuard::SignalGuard(bool enable, int write_fd) : enabled_(enable) {
  if (!enabled_) return;
  signal_write_fd() = write_fd;
  struct sigaction sa{};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(s, &sa, &old_[s]);
  struct sigaction ign{};
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  ::sigaction(SIGPIPE, &ign, &old_[SIGPIPE]);  // a closed stdout must not kill the runner
}

TFJOB_INLINE SignalGuard::~SignalGuard() {
  if (!enabled_) return;
  for (auto& [s, old] : old_) ::sigaction(s, &old, nullptr);
  signal_write_fd() = -1;
}

TFJOB_INLINE std::string now_rfc3339() { return tfjob::detail::format_rfc3339(std::time(nullptr)); }

TFJOB_INLINE std::string signal_name(int code) {
  if (code <= 128) return "";
  switch (code - 128) {
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGHUP: return "SIGHUP";
    default: return "signal " + std::to_string(code - 128);
  }
}

}  // namespace tfjob::local::detail

namespace tfjob::local {

TFJOB_INLINE Runner::Runner(TFJob job, RunOptions opts) : job_(std::move(job)), o_(std::move(opts)) {
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) throw error("pipe: " + detail::errno_text());
}

TFJOB_INLINE Runner::~Runner() {
  ::close(wake_[0]);
  ::close(wake_[1]);
}

TFJOB_INLINE void Runner::stop() {
  unsigned char b = 0;
  (void)!::write(wake_[1], &b, 1);
}

TFJOB_INLINE RunResult Runner::run() {
  const auto t0 = Clock::now();
  set_defaults(job_);
  validate_or_throw(job_);
  if (job_.metadata.name.empty()) throw config_error("the TFJob has no metadata.name");
  const std::string ns = job_.metadata.namespace_.empty() ? "default" : job_.metadata.namespace_;
  state_dir_ = o_.state_dir.empty() ? prepare_default_state_dir() : detail::absolute(o_.state_dir);
  detail::make_dirs(state_dir_ + "/logs", 0700);  // it holds the replicas' logs

  detail::PortReserver ports(o_.host);
  prepare_processes(plan_with_ports(ports));
  chief_ = pick_chief();

  JobTracker tracker(job_);
  detail::SignalGuard guard(o_.handle_signals, wake_[1]);
  progress("running TFJob " + ns + "/" + job_.metadata.name + " with " + std::to_string(procs_.size()) +
           " process(es); state and logs in " + state_dir_);
  std::vector<JobCondition> conditions;
  add_condition(conditions, condition_type::Created, "TFJobCreated",
                "TFJob " + ns + "/" + job_.metadata.name + " is created.");
  try {
    for (auto& p : procs_) start(p, ports, tracker);
  } catch (const std::exception& e) {
    tracker.interrupt("StartFailed", e.what());
  }
  if (!tracker.finished())
    add_condition(conditions, condition_type::Running, "TFJobRunning",
                  "TFJob " + ns + "/" + job_.metadata.name + " is running.");
  const int stop_signal = supervise(tracker, ports, conditions, ns, t0);
  stop_all(tracker);
  return result(tracker, conditions, ns, t0, stop_signal);
}

TFJOB_INLINE std::string Runner::prepare_default_state_dir() {
  std::string dir = default_state_dir(job_);
  const std::string tmp = detail::temp_state_base();
  if (dir.rfind(tmp + "/", 0) != 0) return dir;
  // A fixed name in a shared folder: another user may have made it first, or put a link there.
  if (::mkdir(tmp.c_str(), 0700) != 0 && errno != EEXIST) throw error("cannot create " + tmp + ": " + detail::errno_text());
  if (std::string why = tfjob::detail::private_dir_fault(tmp); !why.empty()) {
    const std::string fresh = tfjob::detail::make_temp_dir("kubectl-tfjob-" + std::to_string(::geteuid()) + "-");
    progress("warning: not using " + tmp + " (" + why + "); state and logs go to " + fresh);
    dir = fresh + dir.substr(tmp.size());
  }
  return dir;
}

TFJOB_INLINE Plan Runner::plan_with_ports(detail::PortReserver& ports) {
  std::map<std::pair<std::string, int>, int> port_of;
  for (const auto& [type, spec] : job_.spec.tf_replica_specs)
    for (int i = 0; i < spec.replicas_or_default(); ++i) port_of[{type, i}] = ports.reserve(o_.first_port);
  PlanInputs in;
  in.host = o_.host;
  in.port = [&](const std::string& t, int i) { return port_of.at({t, i}); };
  in.state_dir = state_dir_;
  for (const auto& [k, v] : o_.volumes) in.volumes[k] = detail::absolute(v);
  Plan plan = make_plan(job_, in);
  check_volume_flags(plan);
  for (const auto& w : plan.warnings) progress("warning: " + w);
  return plan;
}

TFJOB_INLINE void Runner::prepare_processes(const Plan& plan) {
  const std::string cwd = detail::current_dir();
  procs_.clear();
  for (const auto& ls : plan.replicas) {
    Proc p;
    p.spec = ls;
    std::string wd = ls.working_dir;
    if (!wd.empty() && !detail::is_dir(wd)) {
      progress("warning: " + ls.name + ": workingDir " + wd + " does not exist here; using " + cwd);
      wd.clear();
    }
    p.cwd = wd.empty() ? cwd : wd;
    auto exe = detail::find_executable(ls.argv[0], o_.search_path, p.cwd);
    if (!exe) {
      std::string where;
      for (const auto& d : o_.search_path) where += d + ":";
      throw config_error("replica " + ls.name + ": command \"" + ls.argv[0] + "\" not found (searched " + where +
                         "$PATH); build or install it, or put its directory on PATH");
    }
    p.exe = *exe;
    for (const auto& m : ls.mounts) detail::make_dirs(m.local_dir);
    // a new file each run: the old name removed, a link in its place never followed
    const std::string log_name = tfjob::detail::path_part(ls.name) + ".log";
    tfjob::detail::Folder(state_dir_ + "/logs").replace(log_name).close();
    p.log_path = state_dir_ + "/logs/" + log_name;
    p.log.open(p.log_path, std::ios::app);
    if (!p.log) throw error("cannot write " + p.log_path);
    procs_.push_back(std::move(p));
  }
}

TFJOB_INLINE int Runner::supervise(JobTracker& tracker, detail::PortReserver& ports, std::vector<JobCondition>& conditions,
                                   const std::string& ns, Clock::time_point t0) {
  int last_restarts = 0;
  while (!tracker.finished()) {
    poll_once(std::chrono::milliseconds(100), tracker, ports);
    if (int sig = take_wake(); sig >= 0) {
      std::string what = sig == 0 ? "stop requested" : ("stopped by " + detail::signal_name(128 + sig));
      tracker.interrupt("Interrupted", "TFJob " + ns + "/" + job_.metadata.name + " was " +
                                           (sig == 0 ? std::string("stopped") : what) + " before it finished");
      progress(what + ": stopping every replica");
      return sig;
    }
    if (tracker.total_restarts() != last_restarts) {
      last_restarts = tracker.total_restarts();
      add_condition(conditions, condition_type::Restarting, "TFJobRestarting",
                    "TFJob " + ns + "/" + job_.metadata.name + " is restarting.");
    }
    const auto now = Clock::now();
    for (auto& p : procs_) {
      if (p.pending_restart && now >= p.restart_at && !tracker.finished()) {
        p.pending_restart = false;
        try {
          start(p, ports, tracker);
        } catch (const std::exception& e) {
          tracker.interrupt("StartFailed", e.what());
        }
      }
    }
    if (tracker.check_deadline(now - t0)) progress("activeDeadlineSeconds passed: stopping every replica");
  }
  return 0;
}

TFJOB_INLINE RunResult Runner::result(JobTracker& tracker, std::vector<JobCondition>& conditions, const std::string& ns,
                                      Clock::time_point t0, int stop_signal) const {
  RunResult r;
  r.signal = stop_signal;
  r.name = job_.metadata.name;
  r.namespace_ = ns;
  r.state = tracker.state();
  r.reason = tracker.reason();
  r.message = tracker.message();
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  r.restarts = tracker.total_restarts();
  r.state_dir = state_dir_;
  for (const auto& p : procs_) {
    const ReplicaState* s = tracker.find(p.spec.type, p.spec.index);
    ReplicaResult rr;
    rr.type = p.spec.type;
    rr.index = p.spec.index;
    rr.name = p.spec.name;
    rr.port = p.spec.port;
    rr.phase = s ? s->phase : "Stopped";
    if (rr.phase == "Running" || rr.phase == "Restarting" || rr.phase == "Pending") rr.phase = "Stopped";
    rr.restarts = s ? s->restarts : 0;
    rr.exit_code = s ? s->last_exit_code : -1;
    rr.log_file = p.log_path;
    rr.tf_config = p.spec.tf_config;
    r.replicas.push_back(rr);
  }
  add_condition(conditions, r.state == "Succeeded" ? condition_type::Succeeded : condition_type::Failed, r.reason,
                r.message);
  JobStatus st;
  st.conditions = conditions;
  st.replica_statuses = tracker.replica_statuses();
  st.completion_time = r.state == "Succeeded" ? detail::now_rfc3339() : "";
  r.job = job_;
  r.job.status = st;
  return r;
}

TFJOB_INLINE void Runner::add_condition(std::vector<JobCondition>& cs, const std::string& type, const std::string& reason,
                                        const std::string& message) {
  // util/status.go: a new condition turns Running/Restarting off, keeps history otherwise.
  for (auto& c : cs)
    if ((c.type == condition_type::Running || c.type == condition_type::Restarting) && c.type != type) c.status = "False";
  for (auto& c : cs)
    if (c.type == type) {
      c.status = "True", c.reason = reason, c.message = message, c.last_update_time = detail::now_rfc3339();
      return;
    }
  JobCondition c;
  c.type = type;
  c.status = "True";
  c.reason = reason;
  c.message = message;
  c.last_update_time = c.last_transition_time = detail::now_rfc3339();
  cs.push_back(c);
}

TFJOB_INLINE void Runner::check_volume_flags(const Plan& plan) const {
  std::set<std::string> known;
  for (const auto& ls : plan.replicas)
    for (const auto& m : ls.mounts) known.insert(m.claim), known.insert(m.volume);
  for (const auto& [k, v] : o_.volumes)
    if (!known.count(k)) {
      std::string list;
      for (const auto& n : known)
        if (!n.empty()) list += (list.empty() ? "" : ", ") + n;
      throw config_error(setting::run_volumes + " " + k + "=" + v + ": the job mounts no claim or volume named \"" + k + "\"" +
                         (list.empty() ? std::string(" (it mounts none)") : " (it mounts: " + list + ")"));
    }
}

TFJOB_INLINE int Runner::pick_chief() const {
  for (size_t i = 0; i < procs_.size(); ++i)
    if (is_chief_or_master(procs_[i].spec.type) && procs_[i].spec.index == 0) return int(i);
  for (size_t i = 0; i < procs_.size(); ++i)
    if (procs_[i].spec.type == replica_type::Worker && procs_[i].spec.index == 0) return int(i);
  return 0;
}

TFJOB_INLINE void Runner::progress(const std::string& line) {
  if (o_.quiet || !o_.err) return;
  *o_.err << "local: " << line << "\n";
  o_.err->flush();
}

TFJOB_INLINE void Runner::start(Proc& p, detail::PortReserver& ports, JobTracker& tracker) {
  ports.release(p.spec.port);
  auto c = detail::spawn(p.exe, p.spec.argv, p.spec.env, p.cwd);
  p.pid = c.pid;
  p.fd = c.out_fd;
  ++p.attempt;
  tracker.on_started(p.spec.type, p.spec.index);
  progress("started " + p.spec.name + " (pid " + std::to_string(p.pid) + ", " + o_.host + ":" +
           std::to_string(p.spec.port) + (p.attempt > 1 ? ", attempt " + std::to_string(p.attempt) : "") + ")");
}

TFJOB_INLINE void Runner::emit(Proc& p, const std::string& line) {
  p.log << line << '\n';
  bool is_chief = &p == &procs_[size_t(chief_)];
  if (!o_.out || (!o_.all_logs && !is_chief)) return;
  if (o_.all_logs) {
    std::string prefix = "[" + p.spec.name + "] ";
    if (o_.color) {
      static const int palette[] = {32, 33, 34, 35, 36, 92, 93, 94, 95, 96};
      std::uint32_t h = 2166136261u;
      for (char ch : p.spec.name) h = (h ^ std::uint8_t(ch)) * 16777619u;
      prefix = "\x1b[" + std::to_string(palette[h % 10]) + "m" + prefix + "\x1b[0m";
    }
    *o_.out << prefix;
  }
  *o_.out << line << '\n';
}

TFJOB_INLINE bool Runner::read_output(Proc& p) {
  char buf[16384];
  for (;;) {
    ssize_t n = ::read(p.fd, buf, sizeof buf);
    if (n > 0) {
      p.partial.append(buf, size_t(n));
      size_t nl;
      while ((nl = p.partial.find('\n')) != std::string::npos) {
        std::string line = p.partial.substr(0, nl);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        emit(p, line);
        p.partial.erase(0, nl + 1);
      }
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
    // EOF (or a broken pipe): the last partial line is still a line.
    if (!p.partial.empty()) emit(p, p.partial), p.partial.clear();
    ::close(p.fd);
    p.fd = -1;
    p.log.flush();
    if (o_.out) o_.out->flush();
    return false;
  }
  p.log.flush();
  if (o_.out) o_.out->flush();
  return true;
}

TFJOB_INLINE void Runner::drain(Proc& p, std::chrono::milliseconds limit) {
  auto deadline = Clock::now() + limit;
  while (p.fd >= 0) {
    pollfd pf{p.fd, POLLIN, 0};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      if (!p.partial.empty()) emit(p, p.partial), p.partial.clear();
      progress("warning: " + p.spec.name + ": a process it started still holds its output; stopped reading it");
      ::close(p.fd);
      p.fd = -1;
      break;
    }
    if (::poll(&pf, 1, int(left)) > 0) read_output(p);
  }
}

TFJOB_INLINE int Runner::take_wake() {
  unsigned char b;
  int sig = -1;
  while (::read(wake_[0], &b, 1) == 1) sig = b;
  return sig;
}

TFJOB_INLINE void Runner::poll_once(std::chrono::milliseconds timeout, JobTracker& tracker, detail::PortReserver& ports) {
  std::vector<pollfd> pfs{{wake_[0], POLLIN, 0}};
  std::vector<Proc*> owners{nullptr};
  for (auto& p : procs_)
    if (p.fd >= 0) pfs.push_back({p.fd, POLLIN, 0}), owners.push_back(&p);
  int r = ::poll(pfs.data(), pfs.size(), int(timeout.count()));
  if (r > 0)
    for (size_t i = 1; i < pfs.size(); ++i)
      if (pfs[i].revents) read_output(*owners[i]);
  for (auto& p : procs_) reap(p, tracker, &ports, false);
}

TFJOB_INLINE void Runner::reap(Proc& p, JobTracker& tracker, detail::PortReserver* ports, bool block) {
  if (p.pid <= 0) return;
  int status = 0;
  pid_t r = ::waitpid(p.pid, &status, block ? 0 : WNOHANG);
  if (r == 0) return;
  int code = r == p.pid ? detail::exit_code_of(status) : 255;
  ::kill(-p.pid, SIGKILL);  // whatever it left behind in its group (a container's end)
  p.pid = -1;
  drain(p, std::chrono::milliseconds(2000));
  bool was_finished = tracker.finished();
  exit_action a = tracker.on_exit(p.spec.type, p.spec.index, code);
  std::string how = "exited with code " + std::to_string(code);
  if (code > 128) how += " (" + detail::signal_name(code) + ")";
  if (was_finished) {
    progress(p.spec.name + " " + how);
    return;
  }
  const ReplicaState* s = tracker.find(p.spec.type, p.spec.index);
  if (a == exit_action::restart) {
    auto delay = o_.restart_backoff;
    for (int i = 1; i < s->restarts && delay < o_.max_restart_backoff; ++i) delay *= 2;
    delay = std::min(delay, o_.max_restart_backoff);
    p.pending_restart = true;
    p.restart_at = Clock::now() + delay;
    if (ports && !ports->hold_again(p.spec.port))
      progress("warning: port " + std::to_string(p.spec.port) + " of " + p.spec.name + " was taken while it was down");
    p.log << "# kubectl-tfjob local: " << p.spec.name << " " << how << "; restart " << s->restarts << "\n";
    progress(p.spec.name + " " + how + "; restarting in " + std::to_string(delay.count()) + " ms (restart " +
             std::to_string(s->restarts) + ", restartPolicy " + s->restart_policy + ")");
  } else {
    progress(p.spec.name + " " + how + (a == exit_action::succeeded ? ": succeeded" : ": failed for good") +
             (tracker.finished() ? "; job " + tracker.state() : ""));
  }
}

TFJOB_INLINE void Runner::stop_all(JobTracker& tracker) {
  bool any = false;
  for (auto& p : procs_) {
    p.pending_restart = false;
    if (p.pid > 0) {
      ::kill(-p.pid, SIGTERM);
      any = true;
      progress("stopping " + p.spec.name + " (pid " + std::to_string(p.pid) + ")");
    }
  }
  auto deadline = Clock::now() + o_.termination_grace;
  while (any && Clock::now() < deadline) {
    std::vector<pollfd> pfs;
    std::vector<Proc*> owners;
    for (auto& p : procs_)
      if (p.fd >= 0) pfs.push_back({p.fd, POLLIN, 0}), owners.push_back(&p);
    if (::poll(pfs.data(), pfs.size(), 50) > 0)
      for (size_t i = 0; i < pfs.size(); ++i)
        if (pfs[i].revents) read_output(*owners[i]);
    any = false;
    for (auto& p : procs_) {
      reap(p, tracker, nullptr, false);
      if (p.pid > 0) any = true;
    }
  }
  for (auto& p : procs_) {
    if (p.pid > 0) {
      progress(p.spec.name + " did not stop within the grace period: SIGKILL");
      ::kill(-p.pid, SIGKILL);
      reap(p, tracker, nullptr, true);
    }
    if (p.fd >= 0) drain(p, std::chrono::milliseconds(2000));
    p.log.flush();
  }
  take_wake();
}

TFJOB_INLINE RunResult run(TFJob job, RunOptions opts) {
  Runner r(std::move(job), std::move(opts));
  return r.run();
}

}  // namespace tfjob::local
