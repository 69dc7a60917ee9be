// kubectl tfjob version: the plugin's version and the operator release it mirrors, and (as
// `kubectl version` does, unless --client) the cluster's: its Kubernetes version and whether
// it serves TFJobs (the Kubeflow training operator's CRD).
#include "../common/command.hpp"
#include "../common/kube.hpp"

#include <tfjob/detail/json.hpp>
#include <tfjob/kube/discovery.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/version.hpp>

#include <iostream>
#include <nlohmann/json.hpp>

namespace tfjob::cli {
namespace {

struct VersionOptions {
  std::string output;
  bool client_only = false;
};

int run_version(const VersionOptions& o, const Globals& g) {
  nlohmann::json j = {{"clientVersion", {{"gitVersion", std::string("v") + tfjob::version},
                                         {"trainingOperator", tfjob::operator_version}}}};
  if (o.output != "json")
    std::cout << "kubectl-tfjob v" << tfjob::version << " (Kubeflow training operator " << tfjob::operator_version
              << " rules, kubeflow.org/v1 TFJob)\n" << std::flush;
  int rc = exit_code::ok;
  if (!o.client_only) {
    // As kubectl: the client's version is always printed; a cluster that cannot be reached
    // (or none configured) is an error after it.
    try {
      auto client = make_client(g);
      tfjob::kube::Request r;
      r.path = "/version";
      r.what = "get the server version";
      auto v = client.request_json(r);
      if (!v.is_object() || (v.contains("gitVersion") && !v["gitVersion"].is_string()))
        throw tfjob::decode_error("get the server version: the answer of " +
                                      tfjob::kube::redact_url(client.config().server) +
                                      "/version is not a version object (gitVersion must be a string)",
                                  200);
      const bool tfjobs = tfjob::kube::serves(client, "kubeflow.org", "v1", "tfjobs");
      j["serverVersion"] = {{"gitVersion", tfjob::detail::value_at(v, "gitVersion", "")}, {"server", tfjob::kube::redact_url(client.config().server)}};
      j["tfjobsServed"] = tfjobs;
      if (!client.config().context.empty()) j["context"] = client.config().context;
      if (o.output != "json") {
        std::cout << "Server Version: " << tfjob::detail::value_at(v, "gitVersion", "unknown") << " (" << tfjob::kube::redact_url(client.config().server) << ")\n"
                  << "TFJobs (kubeflow.org/v1): "
                  << (tfjobs ? "served" : "not served - the Kubeflow training operator is not installed") << "\n";
        // which cluster a command would act on (kubectl config current-context), for scripts
        // such as quickstart.sh that must say where they are about to submit
        if (!client.config().context.empty()) std::cout << "Context: " << client.config().context << "\n";
      }
    } catch (const std::exception& e) {
      std::cout << std::flush;
      std::cerr << "error: " << e.what() << "\n";
      rc = exit_code::failure;
    }
  }
  if (o.output == "json") std::cout << j.dump(2) << "\n";
  return rc;
}

void setup_version(CLI::App& app, Globals& g) {
  auto opts = std::make_shared<VersionOptions>();
  auto* sub = app.add_subcommand("version", "Print the plugin's version, and the cluster's (Kubernetes, TFJobs served)");
  sub->add_option("-o,--output", opts->output, "Output format: json")->check(CLI::IsMember({"json"}));
  sub->add_flag("--client", opts->client_only, "Only the plugin's version; do not contact the cluster");
  sub->footer(R"(Examples:
  kubectl tfjob version
  kubectl tfjob version --client -o json

Exit codes: 0 ok; 1 the cluster could not be reached (none configured, refused, 401...):
the plugin's version is still printed first, as kubectl version does.)");
  sub->callback([opts, &g] { g.run = [opts, &g] { return run_version(*opts, g); }; });
}

}  // namespace
TFJOB_REGISTER_COMMAND("version", 900, setup_version);
}  // namespace tfjob::cli
