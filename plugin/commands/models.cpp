// kubectl tfjob models NAME [--version V | --label L] [-o json|yaml]: the signatures (inputs
// and outputs with dtypes and shapes) of the model TF Serving serves behind `serve NAME`,
// from its metadata API through the API server's service proxy.
#include "commands.hpp"
#include "../common/context.hpp"
#include "../common/flag_values.hpp"
#include "../common/output.hpp"
#include "../common/signatures.hpp"

#include <tfjob/serving/kserve.hpp>
#include <tfjob/serving/serving.hpp>

#include <memory>
#include <string>

namespace tfjob::cli {
namespace {

struct ModelsCommand {
  std::string name, version, label, output;
  std::string model;  ///< --model-name: one of a several-model server's models

  void validate() {
    if (!version.empty() && !label.empty()) throw flag::exclusive("--version", "--label");
    serving::validate_version(version);
    fmt = parse_output_format(output, {"json", "yaml"});
  }
  int run(Context& ctx) const;

 private:
  OutputFormat fmt = OutputFormat::table;
};

int ModelsCommand::run(Context& ctx) const {
  auto& client = ctx.client();
  const std::string& ns = client.namespace_();
  const auto ep = serving::endpoint(client, ns, name);  // serve's Service, or a KServe predictor's
  const std::string m = !model.empty() ? model : !ep.model.empty() ? ep.model : serving::served_model(client, ns, ep.service);
  auto meta = serving::get_model_metadata(client, ns, ep.service, m, {version, label});
  if (fmt == OutputFormat::json) {
    ctx.out << nlohmann::json(meta).dump(4) << "\n";
  } else if (fmt == OutputFormat::yaml) {
    ctx.out << tfjob::to_yaml(nlohmann::json(meta));
  } else {
    ctx.out << "model \"" << meta.model << "\" version " << meta.version << " on service " << ns << "/" << name << "\n";
    print_signatures(ctx.out, meta);
  }
  return exit_code::ok;
}

}  // namespace

void setup_models(CLI::App& app, Globals& g) {
  auto o = std::make_shared<ModelsCommand>();
  auto* sub = app.add_subcommand("models", "Show the signatures (inputs, outputs, dtypes, shapes) of a model served with `serve`");
  flag::text(*sub, "name", o->name, "NAME given to serve", "NAME")->required();
  flag::count(*sub, "--version", o->version, "This model version (default: the latest AVAILABLE one)", 1,
              std::numeric_limits<std::int64_t>::max(), "VERSION");
  flag::text(*sub, "--label", o->label, "The version with this label (TF Serving's version labels, e.g. stable)", "LABEL");
  flag::text(*sub, "--model-name", o->model, "Which model of a server serving several (serve --model NAME=SOURCE); default: its first",
             "NAME");
  flag::choice(*sub, "-o,--output", o->output, "json or yaml instead of the table", {"json", "yaml"});
  sub->footer(R"(Examples:
  kubectl tfjob models resnet
  kubectl tfjob models mnist --version 2 -o json

The signatures come from TF Serving's GET /v1/models/MODEL[/versions/V|/labels/L]/metadata
through the API server's service proxy; shapes print as saved_model_cli shows them, -1 for
a size that is not fixed (the batch dimension).

Exit codes: 0 printed, 1 the service is missing, the model is not loaded, or TF Serving has
no such version or label, 64 usage error.)");
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
