#pragma once
/// \file `exec`, `attach` and `port-forward` to a TFJob's replica by role: the plugin finds
/// the pod (the chief as `logs` does, or `--replica TYPE --index N`) and hands over to
/// kubectl, which every kubectl plugin can rely on (kubectl runs the plugin; its own exec,
/// attach and port-forward speak the streaming protocols). The connection flags given to
/// the plugin are passed on, so kubectl talks to the same cluster as the same user.

#include "command.hpp"
#include "context.hpp"
#include "flag_values.hpp"
#include "kube.hpp"

#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/detail/process.hpp>  // resolve_program: kubectl found as Go finds it
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/pods.hpp>

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

namespace tfjob::cli {

/// Which replica, and which container of its pod.
struct ReplicaTarget {
  std::string job;
  std::string replica;  ///< "" = the chief (job-role=master), as logs picks it
  int index = 0;
  std::string container = "tensorflow";
  const CLI::App* sub = nullptr;  ///< the command's flags (whether --index was given)
};

/// The job positional, --replica, --index and (`container`) -c.
inline void add_replica_target_flags(CLI::App& sub, ReplicaTarget& t, bool container = true) {
  t.sub = &sub;
  flag::text(sub, "job", t.job, "TFJob name", "JOB")->required();
  flag::composite(sub, "--replica", t.replica, "Replica type: Chief, Master, Worker, PS, Evaluator (default: the chief)",
                  "a replica type: Chief, Master, PS, Worker or Evaluator", "Worker", {"Boss"}, [](const std::string& v) {
                    if (!canonical_replica_type(v)) throw tfjob::error("unknown replica type \"" + v + "\"");
                  });
  flag::count(sub, "--index", t.index, "Replica index, with --replica", 0)->capture_default_str();
  if (container) flag::text(sub, "-c,--container", t.container, "Container of the pod", "NAME")->capture_default_str();
}

/// The pod `t` names in `ns`; a clear error when the job has no such replica.
inline std::string resolve_replica_pod(kube::Client& client, const std::string& ns, const ReplicaTarget& t) {
  auto job = workflow::get_opt(client, workflow::resources::tfjobs(), ns, t.job);
  if (!job)
    throw tfjob::no_such_job(ns, t.job);
  auto pods = workflow::job_pods(client, ns, t.job);
  auto pod = t.replica.empty() ? workflow::select_chief(pods) : workflow::select_replica(pods, t.replica, t.index);
  if (!pod) {
    std::string have;
    for (const auto& p : pods) have += (have.empty() ? "" : ", ") + p.metadata.name;
    throw tfjob::error("TFJob \"" + t.job + "\" has no " +
                       (t.replica.empty() ? std::string("chief pod") : t.replica + " pod with index " + std::to_string(t.index)) +
                       (have.empty() ? std::string(": it has no pods (not started yet, or cleaned up by its cleanPodPolicy)")
                                     : " (its pods: " + have + ")"));
  }
  return pod->metadata.name;
}

/// kubectl's connection flags as the plugin received them (so kubectl uses the same ones).
inline std::vector<std::string> connection_args(const Globals& g, const std::string& ns) {
  std::vector<std::string> a;
  auto add = [&](const char* flag, const std::string& v) {
    if (!v.empty()) a.push_back(std::string(flag) + "=" + v);
  };
  add("--kubeconfig", g.conn.kubeconfig);
  add("--context", g.conn.context);
  add("--cluster", g.conn.cluster);
  add("--user", g.conn.user);
  add("--server", g.conn.server);
  add("--token", g.conn.token);
  add("--certificate-authority", g.conn.certificate_authority);
  add("--client-certificate", g.conn.client_certificate);
  add("--client-key", g.conn.client_key);
  add("--tls-server-name", g.conn.tls_server_name);
  if (g.conn.insecure_skip_tls_verify) a.push_back("--insecure-skip-tls-verify=true");
  if (g.conn.request_timeout != "0" && !g.conn.request_timeout.empty()) add("--request-timeout", g.conn.request_timeout);
  a.push_back("--namespace=" + ns);
  return a;
}

/// The pod `t` names and kubectl's connection flags for it (with the namespace), for the
/// kubectl command a hand-over runs.
struct Handover {
  std::string pod;
  std::vector<std::string> connection;
};

inline Handover find_replica(Context& ctx, const ReplicaTarget& t) {
  // one pod: an index without a type names none (logs, which reads many, takes it of every type)
  if (t.replica.empty() && t.sub)
    flag::refuse_given(*t.sub, {"--index"}, "without --replica", "add --replica TYPE, e.g. --replica Worker --index 1");
  auto& client = ctx.tfjobs();
  const std::string& ns = client.namespace_();
  return {resolve_replica_pod(client, ns, t), connection_args(ctx.globals(), ns)};
}

/// `kubectl VERB [--stdin] [--tty] <connection flags> pod/POD --container=C`: how exec and
/// attach start. The pod is named by TYPE/NAME, as port-forward names it: a name from the
/// cluster is never read as a flag.
inline std::vector<std::string> stream_args(const char* verb, bool stdin_, bool tty, const Handover& to,
                                            const ReplicaTarget& t) {
  std::vector<std::string> args = {verb};
  if (stdin_) args.push_back("--stdin");
  if (tty) args.push_back("--tty");
  args.insert(args.end(), to.connection.begin(), to.connection.end());
  args.insert(args.end(), {"pod/" + to.pod, "--container=" + t.container});
  return args;
}

/// Replace this process with `kubectl args...` (found on PATH, never through a "." or empty
/// PATH entry: the SDK's lookup, Go's exec.LookPath rule); returns only on failure. What was
/// written to `ctx`'s streams is flushed first.
inline int hand_over_to_kubectl(Context& ctx, const std::vector<std::string>& args) {
  std::vector<char*> argv;
  static std::string kubectl = "kubectl";
  argv.push_back(kubectl.data());
  for (const auto& s : args) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  ctx.out << std::flush;
  ctx.err << std::flush;
  const auto where = kube::detail::resolve_program(kubectl);
  if (where.relative)
    throw tfjob::error("cannot run kubectl: it is found on PATH only through \".\", an empty or a relative entry, and is "
                       "not run from the current folder (as Go's exec.LookPath refuses it); install kubectl in a folder on PATH");
  int err = where.lookup_errno;
  if (err == 0) {
    ::execv(where.exe.c_str(), argv.data());
    err = errno;
  }
  throw tfjob::error(std::string("cannot run kubectl: ") + std::strerror(err) +
                     (err == ENOENT ? " (kubectl is not on PATH; install it: https://kubernetes.io/docs/tasks/tools/)" : ""));
}

}  // namespace tfjob::cli
