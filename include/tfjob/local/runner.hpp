#pragma once
/// \file Run a TFJob on this machine: one process per replica, wired with a real TF_CONFIG
/// (127.0.0.1 and reserved free ports), the training operator's restart, backoff,
/// deadline and success rules, a log file per replica, and no process left behind.
///
/// ```cpp
/// tfjob::local::RunOptions o;
/// o.volumes["tfjob-hello"] = "/tmp/hello";
/// auto r = tfjob::local::run(job, o);      // blocks until the job succeeds or fails
/// return r.exit_code();
/// ```

#include <tfjob/api/defaults.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/api/validation.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/files.hpp>
#include <tfjob/detail/table.hpp>
#include <tfjob/detail/time.hpp>
#include <tfjob/error.hpp>
#include <tfjob/local/detail/process.hpp>
#include <tfjob/local/plan.hpp>
#include <tfjob/local/policy.hpp>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tfjob::local {

/// How to run a job locally.
struct RunOptions {
  /// Where volumes, per-replica directories and logs go; "" = `default_state_dir(job)`.
  std::string state_dir;
  /// Claim name (or pod volume name) -> local directory; unmapped PVCs get
  /// `<state_dir>/volumes/<claim>`.
  std::map<std::string, std::string> volumes;
  /// Every replica's lines on `out`, prefixed `[worker-1]`; otherwise only the chief's
  /// (chief/master, else worker 0), unprefixed.
  bool all_logs = false;
  /// Colour the prefixes (a stable colour per replica name).
  bool color = false;
  std::ostream* out = &std::cout;  ///< replica output
  std::ostream* err = &std::cerr;  ///< the runner's progress lines (`local: ...`)
  bool quiet = false;              ///< no progress lines
  /// 0: the kernel picks free ports; N: ports from N upwards, skipping taken ones.
  int first_port = 0;
  std::string host = "127.0.0.1";
  /// Directories searched before PATH for a command without a `/` (the plugin adds its own
  /// directory and the build tree, so `hello-tfjob` is found).
  std::vector<std::string> search_path;
  /// Delay before the first restart of a replica; doubles per restart up to the maximum
  /// (the kubelet's crash-loop back-off, shortened).
  std::chrono::milliseconds restart_backoff{1000};
  std::chrono::milliseconds max_restart_backoff{10000};
  /// SIGTERM, then this long, then SIGKILL (a pod's terminationGracePeriodSeconds).
  std::chrono::milliseconds termination_grace{5000};
  /// Catch SIGINT/SIGTERM/SIGHUP while running and stop every replica (restored after).
  bool handle_signals = true;
};

/// One replica at the end.
struct ReplicaResult {
  std::string type;
  int index = 0;
  std::string name;      ///< `worker-1`
  int port = 0;          ///< TF_CONFIG port on the host
  std::string phase;     ///< Succeeded, Failed, Stopped
  int restarts = 0;
  int exit_code = -1;    ///< last exit code, 128+N for signal N, -1 if it never ran
  std::string log_file;
  std::optional<std::string> tf_config;
};

/// How the job ended.
struct RunResult {
  std::string name, namespace_;
  std::string state;    ///< Succeeded or Failed
  std::string reason;   ///< TFJobSucceeded, TFJobFailed, BackoffLimitExceeded, DeadlineExceeded, Interrupted
  std::string message;
  double seconds = 0;
  int restarts = 0;
  std::string state_dir;
  std::vector<ReplicaResult> replicas;
  TFJob job;  ///< the defaulted job with `status` as the operator would have written it
  int signal = 0;  ///< the signal (SIGINT, SIGTERM, SIGHUP) that stopped the run, 0 = none
  /// 0 succeeded, 1 failed.
  int exit_code() const { return state == "Succeeded" ? 0 : 1; }
};

/// `$XDG_STATE_HOME/kubectl-tfjob/local/<namespace>/<name>` (default `~/.local/state/...`;
/// with neither HOME nor XDG_STATE_HOME set, `$TMPDIR/kubectl-tfjob-<uid>/local/...`, TMPDIR
/// defaulting to /tmp), the namespace and name each one path part. The runner makes its
/// folders 0700, and uses the temporary one only when it is this user's private folder
/// (otherwise a fresh one of an unpredictable name, and says so).
std::string default_state_dir(const TFJob& job);

namespace detail {

/// Installs the handlers for one run and puts the old ones back.
class SignalGuard {
 public:
  SignalGuard(bool enable, int write_fd);
  ~SignalGuard();
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;

 private:
  bool enabled_;
  std::map<int, struct sigaction> old_;
};

}  // namespace detail

/// Runs one job to its end. Not re-entrant with signal handling on (one at a time per
/// process).
class Runner {
  using Clock = std::chrono::steady_clock;

 public:
  Runner(TFJob job, RunOptions opts);
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  /// Asks a running `run()` (on another thread) to stop every replica and fail the job.
  void stop();

  RunResult run();

 private:
  /// Ports first (every replica of every type appears in each TF_CONFIG), then the plan.
  Plan plan_with_ports(detail::PortReserver& ports);

  /// One process per planned replica: its working directory, executable, mounts and log.
  void prepare_processes(const Plan& plan);

  /// Until the job ends: exits, restarts when due, the deadline, or a stop: returns the
  /// signal that stopped it (0 for stop(), or when the job ended by itself).
  int supervise(JobTracker& tracker, detail::PortReserver& ports, std::vector<JobCondition>& conditions,
                const std::string& ns, Clock::time_point t0);

  /// What the run ended with: the job's state, each replica, and the TFJob with the status
  /// the operator would have written.
  RunResult result(JobTracker& tracker, std::vector<JobCondition>& conditions, const std::string& ns,
                   Clock::time_point t0, int stop_signal) const;


  struct Proc {
    LaunchSpec spec;
    std::string exe, cwd, log_path;
    std::ofstream log;
    pid_t pid = -1;
    int fd = -1;
    std::string partial;
    bool pending_restart = false;
    Clock::time_point restart_at;
    int attempt = 0;
  };

  static void add_condition(std::vector<JobCondition>& cs, const std::string& type, const std::string& reason,
                            const std::string& message);

  void check_volume_flags(const Plan& plan) const;

  /// The replica whose output goes to stdout: chief/master 0, else worker 0, else the first.
  int pick_chief() const;

  void progress(const std::string& line);

  /// default_state_dir(job_), its temporary fallback checked (see there).
  std::string prepare_default_state_dir();

  void start(Proc& p, detail::PortReserver& ports, JobTracker& tracker);

  void emit(Proc& p, const std::string& line);

  /// Reads what is there; returns false at EOF (and closes the pipe).
  bool read_output(Proc& p);

  /// Reads the pipe until EOF (every process holding it has gone), bounded by `limit` in
  /// case a detached grandchild keeps it open.
  void drain(Proc& p, std::chrono::milliseconds limit);

  int take_wake();

  void poll_once(std::chrono::milliseconds timeout, JobTracker& tracker, detail::PortReserver& ports);

  /// Collects an exited replica: cleans its process group, reads its output to the end and
  /// applies the restart policy.
  void reap(Proc& p, JobTracker& tracker, detail::PortReserver* ports, bool block);

  /// SIGTERM to every running replica's group, the grace period, then SIGKILL; every
  /// process is reaped and every pipe read to its end.
  void stop_all(JobTracker& tracker);

  TFJob job_;
  RunOptions o_;
  std::string state_dir_;
  std::vector<Proc> procs_;
  int chief_ = 0;
  int wake_[2] = {-1, -1};
};

/// Runs `job` locally until it succeeds or fails (see `Runner`).
RunResult run(TFJob job, RunOptions opts = {});

}  // namespace tfjob::local

#if TFJOB_SDK_DEFINE_LOCAL
#include <tfjob/local/impl/runner_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_LOCAL
