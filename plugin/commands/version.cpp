// kubectl tfjob version: the plugin's version and the operator release it mirrors, and (as
// `kubectl version` does, unless --client) the cluster's: its Kubernetes version and whether
// it serves TFJobs (the Kubeflow training operator's CRD).
#include "commands.hpp"
#include "../common/context.hpp"
#include "../common/flag_values.hpp"

#include <tfjob/detail/json.hpp>
#include <tfjob/kube/discovery.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/version.hpp>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace tfjob::cli {
namespace {

struct VersionCommand {
  std::string output;
  bool client_only = false;

  void validate() const {}  // -o is checked by its option (json only)
  int run(Context& ctx) const;

 private:
  /// The server's part: adds it to `j` and, unless -o json, prints it.
  void server_version(Context& ctx, nlohmann::json& j) const;
};

void VersionCommand::server_version(Context& ctx, nlohmann::json& j) const {
  auto& client = ctx.client();
  tfjob::kube::Request r;
  r.path = "/version";
  r.what = "get the server version";
  auto v = client.request_json(r);
  const std::string server = tfjob::kube::redact_url(client.config().server);
  if (!v.is_object() || (v.contains("gitVersion") && !v["gitVersion"].is_string()))
    throw tfjob::decode_error("get the server version: the answer of " + server +
                                  "/version is not a version object (gitVersion must be a string)",
                              200);
  const bool tfjobs = workflow::tfjobs_served(client);
  const std::string& context = client.config().context;
  j["serverVersion"] = {{"gitVersion", tfjob::detail::value_at(v, "gitVersion", "")}, {"server", server}};
  j["tfjobsServed"] = tfjobs;
  if (!context.empty()) j["context"] = context;
  if (output == "json") return;
  ctx.out << "Server Version: " << tfjob::detail::value_at(v, "gitVersion", "unknown") << " (" << server << ")\n"
          << "TFJobs (kubeflow.org/v1): "
          << (tfjobs ? "served" : "not served - the Kubeflow training operator is not installed") << "\n";
  // which cluster a command would act on (kubectl config current-context), for scripts
  // such as quickstart.sh that must say where they are about to submit
  if (!context.empty()) ctx.out << "Context: " << context << "\n";
}

int VersionCommand::run(Context& ctx) const {
  nlohmann::json j = {{"clientVersion", {{"gitVersion", std::string("v") + tfjob::version},
                                         {"trainingOperator", tfjob::operator_version}}}};
  if (output != "json")
    ctx.out << "kubectl-tfjob v" << tfjob::version << " (Kubeflow training operator " << tfjob::operator_version
            << " rules, kubeflow.org/v1 TFJob)\n" << std::flush;
  int rc = exit_code::ok;
  if (!client_only) {
    // As kubectl: the client's version is always printed; a cluster that cannot be reached
    // (or none configured) is an error after it.
    try {
      server_version(ctx, j);
    } catch (const std::exception& e) {
      ctx.out << std::flush;
      ctx.err << failure_line(e) << "\n";
      rc = exit_code::failure;
    }
  }
  if (output == "json") ctx.out << j.dump(2) << "\n";
  return rc;
}

}  // namespace

void setup_version(CLI::App& app, Globals& g) {
  auto o = std::make_shared<VersionCommand>();
  auto* sub = app.add_subcommand("version", "Print the plugin's version, and the cluster's (Kubernetes, TFJobs served)");
  flag::choice(*sub, "-o,--output", o->output, "Output format: json", {"json"});
  flag::boolean(*sub, "--client", o->client_only, "Only the plugin's version; do not contact the cluster");
  sub->footer(R"(Examples:
  kubectl tfjob version
  kubectl tfjob version --client -o json

Exit codes: 0 ok; 1 the cluster could not be reached (none configured, refused, 401...):
the plugin's version is still printed first, as kubectl version does.)");
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
