// kubectl tfjob models NAME [--version V | --label L] [-o json|yaml]: the signatures (inputs
// and outputs with dtypes and shapes) of the model TF Serving serves behind `serve NAME`,
// from its metadata API through the API server's service proxy.
#include "../common/command.hpp"
#include "../common/kube.hpp"
#include "../common/output.hpp"
#include "../common/signatures.hpp"

#include <tfjob/serving/kserve.hpp>
#include <tfjob/serving/serving.hpp>

#include <iostream>
#include <memory>
#include <string>

namespace tfjob::cli {
namespace {

struct ModelsOptions {
  std::string name, version, label, output;
  std::string model;  ///< --model-name: one of a several-model server's models
};

int run_models(const ModelsOptions& o, const Globals& g) {
  if (o.name.empty()) throw CLI::ValidationError("name", "give the NAME given to `kubectl tfjob serve`");
  if (!o.version.empty() && !o.label.empty()) throw CLI::ValidationError("--version", "give --version or --label, not both");
  serving::validate_version(o.version);
  OutputFormat fmt = parse_output_format(o.output, {"json", "yaml"});
  auto client = make_client(g);
  const std::string ns = client.namespace_();
  const auto ep = serving::endpoint(client, ns, o.name);  // serve's Service, or a KServe predictor's
  const std::string model = !o.model.empty() ? o.model : !ep.model.empty() ? ep.model : serving::served_model(client, ns, ep.service);
  auto meta = serving::get_model_metadata(client, ns, ep.service, model, {o.version, o.label});
  if (fmt == OutputFormat::json) {
    std::cout << nlohmann::json(meta).dump(4) << "\n";
  } else if (fmt == OutputFormat::yaml) {
    std::cout << tfjob::to_yaml(nlohmann::json(meta));
  } else {
    std::cout << "model \"" << meta.model << "\" version " << meta.version << " on service " << ns << "/" << o.name << "\n";
    print_signatures(std::cout, meta);
  }
  return exit_code::ok;
}

void setup_models(CLI::App& app, Globals& g) {
  auto o = std::make_shared<ModelsOptions>();
  auto* sub = app.add_subcommand("models", "Show the signatures (inputs, outputs, dtypes, shapes) of a model served with `serve`");
  sub->add_option("name", o->name, "NAME given to serve")->required();
  sub->add_option("--version", o->version, "This model version (default: the latest AVAILABLE one)");
  sub->add_option("--label", o->label, "The version with this label (TF Serving's version labels, e.g. stable)");
  sub->add_option("--model-name", o->model, "Which model of a server serving several (serve --model NAME=SOURCE); default: its first");
  sub->add_option("-o,--output", o->output, "json or yaml instead of the table");
  sub->footer(R"(Examples:
  kubectl tfjob models resnet
  kubectl tfjob models mnist --version 2 -o json

The signatures come from TF Serving's GET /v1/models/MODEL[/versions/V|/labels/L]/metadata
through the API server's service proxy; shapes print as saved_model_cli shows them, -1 for
a size that is not fixed (the batch dimension).

Exit codes: 0 printed, 1 the service is missing, the model is not loaded, or TF Serving has
no such version or label, 64 usage error.)");
  sub->callback([o, &g] { g.run = [o, &g] { return run_models(*o, g); }; });
}

}  // namespace
TFJOB_REGISTER_COMMAND("models", 305, setup_models);
}  // namespace tfjob::cli
