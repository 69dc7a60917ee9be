// kubectl tfjob scale JOB --workers N: set the Worker count of a job that allows it
// (enableDynamicWorker); refused with the reason otherwise (workflow/control.hpp).
#include "commands.hpp"
#include "../common/context.hpp"
#include "../common/flag_values.hpp"

#include <tfjob/workflow/control.hpp>

#include <iostream>
#include <memory>
#include <string>

namespace tfjob::cli {
namespace {

struct ScaleCommand {
  std::string name;
  int workers = -1;
  void validate() const {}  // the flag layer checks the name and --workers >= 0
  int run(Context& ctx) const;
};

int ScaleCommand::run(Context& ctx) const {
  auto& client = ctx.tfjobs();
  try {
    auto r = workflow::scale_workers(client, client.namespace_(), name, workers);
    ctx.out << "tfjob.kubeflow.org/" << name << (r.changed ? " scaled" : " unchanged") << "\n";
    return exit_code::ok;
  } catch (const api_error& e) {
    if (!e.is_not_found()) throw;
    return say_not_found(ctx, name);
  }
}

}  // namespace

void setup_scale(CLI::App& app, Globals& g) {
  auto o = std::make_shared<ScaleCommand>();
  auto* sub = app.add_subcommand("scale", "Set the number of Workers of a TFJob with enableDynamicWorker");
  flag::text(*sub, "name", o->name, "TFJob name", "NAME")->required();
  flag::count(*sub, "--workers", o->workers, "The Worker count to set", 0)->required();
  sub->footer(R"(Patches spec.tfReplicaSpecs.Worker.replicas; the training operator (v1.9) creates the
missing Workers and deletes those at an index >= N. Only a job with enableDynamicWorker
(submit --dynamic-worker: a sparse TF_CONFIG, for TF's elastic training) is scaled: in
any other job every pod's TF_CONFIG lists the Workers it was created with.

Examples:
  kubectl tfjob submit --name elastic --image IMAGE --chief --workers 2 --dynamic-worker -- python train.py
  kubectl tfjob scale elastic --workers 4

Exit codes: 0 scaled (or already N Workers), 1 refused (the reason is printed: no
enableDynamicWorker, finished, no Worker replicas) or not found, 64 usage.)");
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
