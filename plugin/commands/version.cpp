// kubectl tfjob version: the plugin's version and the operator release it mirrors.
#include "../common/command.hpp"

#include <tfjob/version.hpp>

#include <iostream>
#include <nlohmann/json.hpp>

namespace tfjob::cli {
namespace {

struct VersionOptions {
  std::string output;
};

int run_version(const VersionOptions& o) {
  if (o.output == "json") {
    nlohmann::json j = {{"clientVersion", {{"gitVersion", std::string("v") + tfjob::version},
                                           {"trainingOperator", tfjob::operator_version}}}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "kubectl-tfjob v" << tfjob::version << " (Kubeflow training operator "
              << tfjob::operator_version << " rules, kubeflow.org/v1 TFJob)\n";
  }
  return 0;
}

void setup_version(CLI::App& app, Globals& g) {
  auto opts = std::make_shared<VersionOptions>();
  auto* sub = app.add_subcommand("version", "Print the plugin's version");
  sub->add_option("-o,--output", opts->output, "Output format: json")->check(CLI::IsMember({"json"}));
  sub->callback([opts, &g] { g.run = [opts] { return run_version(*opts); }; });
}

}  // namespace
TFJOB_REGISTER_COMMAND("version", 900, setup_version);
}  // namespace tfjob::cli
