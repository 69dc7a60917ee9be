#pragma once
/// \file Every subcommand's setup, one per file in plugin/commands/. cli.cpp lists them in
/// one place, in the order `kubectl tfjob --help` shows them.

#include "../common/command.hpp"

namespace tfjob::cli {

void setup_submit(CLI::App& app, Globals& g);
void setup_lint(CLI::App& app, Globals& g);
void setup_get(CLI::App& app, Globals& g);
void setup_tf_config(CLI::App& app, Globals& g);
void setup_describe(CLI::App& app, Globals& g);
void setup_explain(CLI::App& app, Globals& g);
void setup_logs(CLI::App& app, Globals& g);
void setup_archive(CLI::App& app, Globals& g);
void setup_wait(CLI::App& app, Globals& g);
void setup_delete(CLI::App& app, Globals& g);
void setup_suspend(CLI::App& app, Globals& g);
void setup_resume(CLI::App& app, Globals& g);
void setup_scale(CLI::App& app, Globals& g);
void setup_exec(CLI::App& app, Globals& g);
void setup_attach(CLI::App& app, Globals& g);
void setup_port_forward(CLI::App& app, Globals& g);
void setup_gpu_check(CLI::App& app, Globals& g);
void setup_serve(CLI::App& app, Globals& g);
void setup_models(CLI::App& app, Globals& g);
void setup_predict(CLI::App& app, Globals& g);
void setup_top(CLI::App& app, Globals& g);
void setup_tensorboard(CLI::App& app, Globals& g);
void setup_completion(CLI::App& app, Globals& g);
void setup_version(CLI::App& app, Globals& g);
void setup_complete(CLI::App& app, Globals& g);

}  // namespace tfjob::cli
