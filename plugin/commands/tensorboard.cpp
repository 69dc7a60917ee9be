// kubectl tfjob tensorboard JOB: a TensorBoard Deployment + Service reading the job's log
// directory on its claim, reached through a local HTTP proxy (127.0.0.1 only) to the API
// server's service proxy, as `kubectl proxy` does; removed on Ctrl-C unless --keep.
#include "commands.hpp"
#include "../common/context.hpp"
#include "../common/flag_values.hpp"
#include "../common/job_flags.hpp"  // for_each_object
#include "../common/manifests.hpp"
#include "../common/output.hpp"
#include "../common/signals.hpp"
#include "../common/workflow_cli.hpp"

#include <tfjob/api/manifest.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/kube/local_proxy.hpp>
#include <tfjob/serving/serving.hpp>
#include <tfjob/serving/tensorboard.hpp>
#include <tfjob/workflow/cluster.hpp>  // resources::tfjobs
#include <tfjob/workflow/status.hpp>

#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

namespace tfjob::cli {
namespace {

struct TensorboardCommand {
  const CLI::App* sub = nullptr;  ///< its command, to tell which flags were given
  std::string job, file, logdir, image = serving::default_tensorboard_image, dry_run = "none", output, timeout = "5m";
  std::string validation = "strict";  ///< --validate: how -f's TFJob is judged by the schema
  int port = 0;
  bool keep = false;

  void validate() {
    if (job.empty() && file.empty()) throw flag::usage("JOB", "no TFJob named", "give the TFJob's name (or -f FILE)");
    dry_run = flag::dry_run_strategy(dry_run, &dry_run_warning);
    if (dry_run == "client")
      flag::refuse_given(*sub, {"--port", "--keep", "--timeout"}, "with --dry-run=client, which starts nothing", "leave out one of them");
    else
      flag::refuse_given(*sub, {"--output"}, "without --dry-run=client", "add --dry-run=client, or leave it out");
    if (dry_run == "client") fmt = parse_output_format(output, {"json", "yaml", "name"});
    else timeout_ms = wf::parse_duration(timeout, "--timeout");
  }
  int run(Context& ctx) const;

 private:
  /// Waits for TensorBoard, then serves the proxy until Ctrl-C; removes what it applied.
  int serve(Context& ctx, const std::string& ns, const std::string& name) const;
  /// Deletes the Deployment and Service (unless --keep), saying so on ctx.err.
  void remove(Context& ctx, const std::string& ns, const std::string& name) const;
  OutputFormat fmt = OutputFormat::table;
  std::chrono::milliseconds timeout_ms{0};
  std::string dry_run_warning;  ///< kubectl's words for a deprecated --dry-run form
};

std::atomic<bool> g_tb_stop{false};
extern "C" void on_tensorboard_signal(int) { g_tb_stop.store(true); }

/// The TFJob in `file` (- for stdin) judged as --validate says: the one named `name` when
/// given, else the last one when it holds several.
std::optional<TFJob> job_from_file(Context& ctx, const std::string& file, const std::string& name, FieldValidation mode) {
  std::optional<TFJob> job;
  TFJobJudge judge(ctx, mode);
  for_each_object(file, [&](const std::string& source, nlohmann::json&& d, std::size_t i) {  // an object at a time
    judge.add(d, document_place(source, i, i > 0 ? 2 : 1, d));
    if (!d.is_object() || d.value("kind", nlohmann::json()) != tfjob::kind) return;
    TFJob t;  // judged as --validate says (done() below); what it lets through is read as it is
    tfjob::detail::decode_lenient(d, "TFJob", t);
    if (name.empty() || t.metadata.name == name) job = std::move(t);
  });
  judge.done();
  if (!job)
    throw tfjob::error("\"" + file + "\" holds no TFJob" + (name.empty() ? std::string() : " named \"" + name + "\""));
  return job;
}

int TensorboardCommand::run(Context& ctx) const {
  if (!dry_run_warning.empty()) ctx.err << "warning: " << dry_run_warning << "\n";
  std::optional<TFJob> j;
  if (!file.empty()) j = read_input([&] { return job_from_file(ctx, file, job, validation_mode(validation)); });
  std::string ns = ctx.globals().conn.namespace_;
  if (dry_run != "client") ns = ctx.namespace_();
  if (!j) {
    // the job's spec says where its logs are: without -f it is the cluster's, read (a GET
    // creates nothing, so --dry-run=client reads it too); a field of another shape stays
    // unread, it does not fail
    j.emplace();
    tfjob::detail::decode_lenient(
        ctx.tfjobs().request_json(kube::RequestBuilder(workflow::resources::tfjobs(), ctx.namespace_()).get(job)), "TFJob", *j);
  }
  const std::string job_name = j->metadata.name.empty() ? job : j->metadata.name;
  auto log = serving::find_job_log_dir(*j, logdir);
  const std::string name = job_name + "-tensorboard";
  auto objs = serving::build_tensorboard(name, dry_run == "client" ? ns : "", log, image);
  ctx.err << "tfjob " << job_name << " (" << log.replica << ") writes its logs to " << log.container_path << ": claim " << log.claim
          << (log.sub_path.empty() ? "" : ", directory " + log.sub_path) << "\n";
  if (dry_run == "client") {
    print_objects(ctx.out, objs, fmt == OutputFormat::table ? OutputFormat::yaml : fmt);
    return exit_code::ok;
  }
  for (const auto& a : serving::apply_objects(ctx.client(), ns, objs)) ctx.err << object_name(a) << " serverside-applied\n";
  return serve(ctx, ns, name);
}

void TensorboardCommand::remove(Context& ctx, const std::string& ns, const std::string& name) const {
  if (keep) {
    ctx.err << "kept deployment.apps/" << name << " and service/" << name << " (--keep)\n";
    return;
  }
  kube::DeleteParams dp;
  dp.propagation_policy = "Background";
  for (const auto& res : {serving::resources::deployments(), serving::resources::services()}) {
    try {
      ctx.client().request_json(kube::RequestBuilder(res, ns).remove(name, dp));
    } catch (const api_error& e) {
      if (!e.is_not_found()) throw;
    }
  }
  ctx.err << "deleted deployment.apps/" << name << " and service/" << name << "\n";
}

int TensorboardCommand::serve(Context& ctx, const std::string& ns, const std::string& name) const {
  g_tb_stop.store(false);  // a second run in the same process (run_cli in a test) starts afresh
  StopSignals ctrl_c(on_tensorboard_signal);
  auto& client = ctx.client();
  wf::ProgressLine progress(true, ctx.err);
  serving::WaitOptions wo;
  wo.deadline = std::chrono::steady_clock::now() + timeout_ms;
  wo.cancel = &g_tb_stop;
  wo.on_progress = [&](const std::string& m) { progress.show(m); };
  auto r = serving::wait_rollout(client, ns, name, wo);
  progress.finish();
  if (r.result != serving::WaitResult::ready) {
    if (!r.diagnosis.empty()) ctx.err << r.diagnosis;
    ctx.err << "error: TensorBoard did not become ready: " << r.message << "\n";
    remove(ctx, ns, name);
    return r.result == serving::WaitResult::timeout ? exit_code::timeout : exit_code::failure;
  }
  kube::LocalProxy proxy(client, serving::tensorboard_proxy_prefix(ns, name), port);
  // kubectl proxy's words
  ctx.out << "Starting to serve on 127.0.0.1:" << proxy.port() << "\n" << "TensorBoard: " << proxy.url() << "\n" << std::flush;
  ctx.err << "Ctrl-C stops the proxy" << (keep ? "" : " and deletes TensorBoard") << "\n";
  while (!g_tb_stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  proxy.stop();
  remove(ctx, ns, name);
  return exit_code::ok;
}

}  // namespace

void setup_tensorboard(CLI::App& app, Globals& g) {
  auto o = std::make_shared<TensorboardCommand>();
  auto* sub = app.add_subcommand("tensorboard", "TensorBoard on a TFJob's log directory, reached through a local proxy");
  o->sub = sub;
  flag::text(*sub, "job", o->job, "The TFJob", "JOB");
  flag::file(*sub, "-f,--filename", o->file, "Read the TFJob from this file instead of the cluster",
             flag::Content::text);
  add_validate_flag(*sub, o->validation);
  flag::text(*sub, "--logdir", o->logdir, "The log directory inside the job's containers (default: its --log-dir/--logdir flag)", "DIR");
  flag::text(*sub, "--image", o->image, "TensorBoard's image (it runs `tensorboard`)", "IMAGE")->capture_default_str();
  flag::count(*sub, "--port", o->port, "Local port of the proxy (0: a free one)", 0, 65535, "PORT")->capture_default_str();
  flag::boolean(*sub, "--keep", o->keep, "Leave the Deployment and Service when the proxy stops");
  flag::dry_run(*sub, o->dry_run, "none or client (print the objects)", {"none", "client"})->capture_default_str();
  flag::choice(*sub, "-o,--output", o->output, "With --dry-run=client: yaml (default), json or name", {"yaml", "json", "name"});
  flag::duration(*sub, "--timeout", o->timeout, "Give up waiting for TensorBoard's pod after this long")->capture_default_str();
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
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
