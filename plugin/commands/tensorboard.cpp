// kubectl tfjob tensorboard JOB: a TensorBoard Deployment + Service reading the job's log
// directory on its claim, reached through a local HTTP proxy (127.0.0.1 only) to the API
// server's service proxy, as `kubectl proxy` does; removed on Ctrl-C unless --keep.
#include "../common/command.hpp"
#include "../common/kube.hpp"
#include "../common/output.hpp"
#include "../common/workflow_cli.hpp"

#include <tfjob/api/manifest.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/kube/local_proxy.hpp>
#include <tfjob/serving/serving.hpp>
#include <tfjob/serving/tensorboard.hpp>
#include <tfjob/workflow/status.hpp>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

namespace tfjob::cli {
namespace {

struct TensorboardOptions {
  std::string job, file, logdir, image = serving::default_tensorboard_image, dry_run = "none", output, timeout = "5m";
  int port = 0;
  bool keep = false;
};

std::atomic<bool> g_tb_stop{false};
extern "C" void on_tensorboard_signal(int) { g_tb_stop.store(true); }

int run_tensorboard(const TensorboardOptions& o, const Globals& g) {
  if (o.job.empty() && o.file.empty()) throw CLI::ValidationError("job", "give the TFJob's name (or -f FILE with --dry-run=client)");
  if (o.port < 0 || o.port > 65535) throw CLI::ValidationError("--port", "give a port from 0 (any free one) to 65535");
  nlohmann::json job;
  std::string ns = g.conn.namespace_;
  std::unique_ptr<kube::Client> client;
  if (!o.file.empty()) {
    std::ifstream in(o.file);
    if (!in) throw tfjob::error("cannot read \"" + o.file + "\"");
    std::stringstream ss;
    ss << in.rdbuf();
    for (auto& d : parse_objects(ss.str(), o.file))
      if (tfjob::detail::value_at(d, "kind", "") == "TFJob") job = d;
    if (job.is_null()) throw tfjob::error("\"" + o.file + "\" holds no TFJob");
  }
  if (o.dry_run != "client") {
    client = std::make_unique<kube::Client>(make_client(g));
    ns = client->namespace_();
    if (job.is_null())
      job = client->request_json(kube::RequestBuilder({"kubeflow.org", "v1", "tfjobs", "TFJob", true}, ns).get(o.job));
  }
  const std::string job_name = tfjob::detail::value_at(job, "/metadata/name"_json_pointer, o.job);
  auto log = serving::find_job_log_dir(job, o.logdir);
  const std::string name = job_name + "-tensorboard";
  auto objs = serving::build_tensorboard(name, o.dry_run == "client" ? ns : "", log, o.image);
  std::cerr << "tfjob " << job_name << " (" << log.replica << ") writes its logs to " << log.container_path << ": claim " << log.claim
            << (log.sub_path.empty() ? "" : ", directory " + log.sub_path) << "\n";
  if (o.dry_run == "client") {
    OutputFormat fmt = parse_output_format(o.output, {"json", "yaml", "name"});
    print_objects(std::cout, objs, fmt == OutputFormat::table ? OutputFormat::yaml : fmt);
    return exit_code::ok;
  }
  for (const auto& a : serving::apply_objects(*client, ns, objs)) std::cerr << object_name(a) << " serverside-applied\n";
  auto remove = [&] {
    if (o.keep) {
      std::cerr << "kept deployment.apps/" << name << " and service/" << name << " (--keep)\n";
      return;
    }
    kube::DeleteParams dp;
    dp.propagation_policy = "Background";
    for (const auto& res : {serving::resources::deployments(), serving::resources::services()}) {
      try {
        client->request_json(kube::RequestBuilder(res, ns).remove(name, dp));
      } catch (const api_error& e) {
        if (!e.is_not_found()) throw;
      }
    }
    std::cerr << "deleted deployment.apps/" << name << " and service/" << name << "\n";
  };

  struct sigaction sa {}, old_int {}, old_term {};
  sa.sa_handler = on_tensorboard_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  struct Restore {
    struct sigaction *i, *t;
    ~Restore() {
      sigaction(SIGINT, i, nullptr);
      sigaction(SIGTERM, t, nullptr);
    }
  } restore{&old_int, &old_term};

  wf::ProgressLine progress;
  serving::WaitOptions wo;
  wo.deadline = std::chrono::steady_clock::now() + wf::parse_duration(o.timeout, "--timeout");
  wo.cancel = &g_tb_stop;
  wo.on_progress = [&](const std::string& m) { progress.show(m); };
  auto r = serving::wait_rollout(*client, ns, name, wo);
  progress.finish();
  if (r.result != serving::WaitResult::ready) {
    if (!r.diagnosis.empty()) std::cerr << r.diagnosis;
    std::cerr << "error: TensorBoard did not become ready: " << r.message << "\n";
    remove();
    return r.result == serving::WaitResult::timeout ? exit_code::timeout : exit_code::failure;
  }
  kube::LocalProxy proxy(*client, serving::tensorboard_proxy_prefix(ns, name), o.port);
  // kubectl proxy's words
  std::cout << "Starting to serve on 127.0.0.1:" << proxy.port() << "\n" << "TensorBoard: " << proxy.url() << "\n" << std::flush;
  std::cerr << "Ctrl-C stops the proxy" << (o.keep ? "" : " and deletes TensorBoard") << "\n";
  while (!g_tb_stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  proxy.stop();
  remove();
  return exit_code::ok;
}

void setup_tensorboard(CLI::App& app, Globals& g) {
  auto o = std::make_shared<TensorboardOptions>();
  auto* sub = app.add_subcommand("tensorboard", "TensorBoard on a TFJob's log directory, reached through a local proxy");
  sub->add_option("job", o->job, "The TFJob");
  sub->add_option("-f,--filename", o->file, "Read the TFJob from this file instead of the cluster (with --dry-run=client)");
  sub->add_option("--logdir", o->logdir, "The log directory inside the job's containers (default: its --log-dir/--logdir flag)");
  sub->add_option("--image", o->image, "TensorBoard's image (it runs `tensorboard`)")->capture_default_str();
  sub->add_option("--port", o->port, "Local port of the proxy (0: a free one)")->capture_default_str();
  sub->add_flag("--keep", o->keep, "Leave the Deployment and Service when the proxy stops");
  sub->add_option("--dry-run", o->dry_run, "none or client (print the objects)")->check(CLI::IsMember({"none", "client"}))->capture_default_str();
  sub->add_option("-o,--output", o->output, "With --dry-run=client: yaml (default), json or name");
  sub->add_option("--timeout", o->timeout, "Give up waiting for TensorBoard's pod after this long")->capture_default_str();
  sub->footer(R"(Examples:
  kubectl tfjob tensorboard mnist                 # prints http://127.0.0.1:PORT/; Ctrl-C removes TensorBoard
  kubectl tfjob tensorboard mnist --port 6006 --keep
  kubectl tfjob tensorboard -f samples/mnist/tfjob.yaml --dry-run=client -o yaml

The log directory comes from the job's --log-dir, --log_dir or --logdir flag (or --logdir
here) and must be on a PersistentVolumeClaim the job mounts; TensorBoard mounts that claim
read-only. The proxy listens on 127.0.0.1 only and reaches TensorBoard through the API
server's service proxy, with your kubeconfig's credentials.

Exit codes: 0 stopped by Ctrl-C (or printed), 1 no log directory on a claim or a request
failed, 2 TensorBoard's pod did not become ready in --timeout, 64 usage error.)");
  sub->callback([o, &g] { g.run = [o, &g] { return run_tensorboard(*o, g); }; });
}

}  // namespace
TFJOB_REGISTER_COMMAND("tensorboard", 320, setup_tensorboard);
}  // namespace tfjob::cli
