// kubectl tfjob logs JOB: the chief's log as the operator marks it (job-role=master, else
// chief/master, else worker 0, else older operators' labels), or --replica/--index, or
// --all replicas with a coloured pod prefix. -f waits through Pending with progress on
// stderr, follows restarts and recreated pods, and ends when the job finishes. A failed
// job shows the failed pod's log and names the pod and its exit code.
#include "../common/command.hpp"
#include "../common/kube.hpp"
#include "../common/output.hpp"
#include "../common/workflow_cli.hpp"

#include <tfjob/workflow/logs.hpp>

#include <atomic>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tfjob::cli {
namespace {

struct LogsOptions {
  std::string name;
  std::string container = "tensorflow";
  std::string replica;
  int index = 0;
  bool all = false;
  bool follow = false;
  std::int64_t tail = -1;
  std::string since;
  bool timestamps = false;
  bool previous = false;
  bool prefix = false;
  bool quiet = false;
};

int run_logs(const LogsOptions& o, const Globals& g) {
  if (o.all && !o.replica.empty()) throw CLI::ValidationError("--all", "--all cannot be combined with --replica");
  if (o.previous && o.follow) throw CLI::ValidationError("--previous", "--previous cannot be combined with -f");
  std::string replica;
  if (!o.replica.empty()) {
    auto canon = tfjob::canonical_replica_type(o.replica);
    if (!canon) throw CLI::ValidationError("--replica", "unknown replica type \"" + o.replica + "\": use Chief, Master, PS, Worker or Evaluator");
    replica = *canon;
  }
  auto client = make_client(g);
  const std::string ns = client.namespace_();
  if (!workflow::tfjobs_served(client)) throw tfjob::error(workflow::crd_missing_message(client.config().server));
  auto job = workflow::get_opt(client, workflow::resources::tfjobs(), ns, o.name);
  if (!job) throw tfjob::error("TFJob \"" + o.name + "\" not found in namespace \"" + ns + "\"");

  workflow::JobLogOptions lo;
  lo.container = o.container;
  lo.follow = o.follow;
  if (o.tail >= 0) lo.tail_lines = o.tail;
  if (!o.since.empty()) lo.since_seconds = std::chrono::duration_cast<std::chrono::seconds>(wf::parse_duration(o.since, "--since")).count();
  lo.timestamps = o.timestamps;
  lo.previous = o.previous;
  wf::ProgressLine line(!o.quiet);
  std::mutex out_mu;
  lo.on_note = [&](const std::string& n) {
    if (o.quiet) return;
    line.finish();
    std::lock_guard<std::mutex> lk(out_mu);
    std::cerr << n << "\n";
  };
  if (o.follow && !o.quiet) lo.on_progress = [&](const workflow::Progress& p) { line.show(p); };

  const bool color = use_color(g.color, 1);
  const bool prefixed = o.all || o.prefix;
  auto emit = [&](const std::string& pod, std::string_view l) {
    line.finish();
    std::lock_guard<std::mutex> lk(out_mu);
    if (prefixed) {
      if (color) std::cout << pod_color(pod) << "[" << pod << "]" << color::reset << " ";
      else std::cout << "[" << pod << "] ";
    }
    std::cout << l << '\n';
    if (o.follow) std::cout << std::flush;
    return true;
  };

  auto summary = workflow::summarize(*job);
  workflow::JobLogResult res;
  if (o.all) {
    // every replica: one follower per replica of the spec (pods that do not exist yet are
    // waited for when following)
    std::vector<std::pair<std::string, int>> targets;
    for (const auto& [t, n] : summary.spec_replicas)
      for (int i = 0; i < n; ++i) targets.emplace_back(t, i);
    if (!o.follow) {
      auto pods = workflow::job_pods(client, ns, o.name);
      workflow::sort_pods(pods);
      targets.clear();
      for (const auto& p : pods) {
        auto i = workflow::pod_info(p);
        if (!i.replica_type.empty() && i.replica_index >= 0) targets.emplace_back(i.replica_type, i.replica_index);
      }
      if (targets.empty()) throw tfjob::error("TFJob \"" + o.name + "\" has no pods" +
                                              (summary.finished() ? " left (see runPolicy.cleanPodPolicy)" : " yet: use -f to wait for them"));
    }
    lo.on_progress = nullptr;  // many followers: notes only
    std::vector<std::thread> threads;
    std::vector<std::string> errors(targets.size());
    std::vector<workflow::JobLogResult> results(targets.size());
    for (size_t k = 0; k < targets.size(); ++k) {
      threads.emplace_back([&, k] {
        try {
          results[k] = workflow::replica_logs(client, ns, o.name, targets[k].first, targets[k].second, lo, emit);
        } catch (const std::exception& e) {
          errors[k] = e.what();
        }
      });
    }
    for (auto& t : threads) t.join();
    int rc = exit_code::ok;
    for (const auto& e : errors)
      if (!e.empty()) {
        std::cerr << "error: " << e << "\n";
        rc = exit_code::failure;
      }
    for (const auto& r : results)
      if (!r.job_state.empty()) res = r;
    if (rc != exit_code::ok) return rc;
  } else {
    std::string type = replica;
    int index = o.index;
    bool showing_failed = false;
    if (type.empty() && !o.follow && summary.state == "Failed") {
      // a failed job: the pod that failed is the one worth reading
      workflow::explain_failure(client, ns, o.name, res, o.container);
      if (!res.failed_pod.empty()) {
        auto pods = workflow::job_pods(client, ns, o.name);
        for (const auto& p : pods) {
          auto i = workflow::pod_info(p);
          if (i.name == res.failed_pod) {
            type = i.replica_type;
            index = i.replica_index;
            showing_failed = true;
          }
        }
      }
    }
    auto r = workflow::replica_logs(client, ns, o.name, type, index, lo, emit);
    r.failed_pod = res.failed_pod;
    r.failed_exit_code = res.failed_exit_code;
    res = r;
    (void)showing_failed;
  }
  line.finish();
  if (res.job_state.empty())
    res.job_state = workflow::summarize(workflow::get_opt(client, workflow::resources::tfjobs(), ns, o.name).value_or(*job)).state;
  if (res.job_state == "Failed") {
    if (res.failed_pod.empty()) workflow::explain_failure(client, ns, o.name, res, o.container);
    std::string msg = "TFJob " + o.name + " Failed";
    if (!res.failed_pod.empty()) {
      msg += ": pod " + res.failed_pod;
      if (res.failed_exit_code) msg += " exited with code " + std::to_string(*res.failed_exit_code);
      else msg += " failed";
    }
    if (!res.job_message.empty()) msg += " (" + res.job_message + ")";
    std::cerr << msg << "\n";
    return exit_code::failure;
  }
  if (o.follow && res.job_state == "Succeeded" && !o.quiet) std::cerr << "TFJob " << o.name << " Succeeded\n";
  return exit_code::ok;
}

void setup_logs(CLI::App& app, Globals& g) {
  auto o = std::make_shared<LogsOptions>();
  auto* sub = app.add_subcommand("logs", "Print or follow a TFJob's logs (the chief's by default)");
  sub->add_option("name", o->name, "TFJob name")->required();
  sub->add_option("-c,--container", o->container, "Container (default: tensorflow)")->capture_default_str();
  sub->add_option("--replica", o->replica, "Replica type to read instead of the chief: Chief, Master, PS, Worker, Evaluator");
  sub->add_option("--index", o->index, "Replica index with --replica")->capture_default_str();
  sub->add_flag("--all", o->all, "Every replica, each line prefixed with its pod (coloured per pod)");
  sub->add_flag("-f,--follow", o->follow,
                "Follow: wait while pods are Pending (progress on stderr), follow restarts, end when the job finishes");
  sub->add_option("--tail", o->tail, "Lines of recent log to show (-1 = all)")->capture_default_str();
  sub->add_option("--since", o->since, "Only lines newer than this, e.g. 10s, 5m, 1h");
  sub->add_flag("--timestamps", o->timestamps, "Prefix each line with its RFC 3339 timestamp");
  sub->add_flag("-p,--previous", o->previous, "The previous (crashed) instance of the container");
  sub->add_flag("--prefix", o->prefix, "Prefix each line with its pod name");
  sub->add_flag("-q,--quiet", o->quiet, "No progress or notes on stderr");
  sub->footer(R"(Examples:
  kubectl tfjob logs mnist                       # the chief's log
  kubectl tfjob logs mnist -f                    # wait for it, follow it to the end of the job
  kubectl tfjob logs mnist --replica Worker --index 1 --tail 50
  kubectl tfjob logs mnist --all -f              # every replica, coloured prefixes
  kubectl tfjob logs mnist --previous            # the crashed attempt before a restart

The chief is the pod labelled training.kubeflow.org/job-role=master, else replica type
Chief or Master, else Worker 0, else the same through older operators' labels. For a job
that Failed, logs shows the failed pod's output and names the pod and its exit code.

Exit codes: 0 done (the job Succeeded or is still running), 1 the job Failed (its failed
pod and exit code are printed on stderr) or the logs could not be read, 64 usage error.)");
  sub->callback([o, &g] { g.run = [o, &g] { return run_logs(*o, g); }; });
}

}  // namespace
TFJOB_REGISTER_COMMAND("logs", 130, setup_logs);
}  // namespace tfjob::cli
