// kubectl tfjob get|list [JOB...]: TFJobs as a kubectl-like table (NAME STATE AGE; -o wide
// adds replicas active/succeeded/failed per type and GPUs), or -o json|yaml|name; -A for
// every namespace, -l to select by label, --watch to follow changes through a watch.
#include "../common/command.hpp"
#include "../common/kube.hpp"
#include "../common/output.hpp"
#include "../common/workflow_cli.hpp"

#include <tfjob/kube/api.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/describe.hpp>
#include <tfjob/workflow/status.hpp>

#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tfjob::cli {
namespace {

struct GetOptions {
  std::vector<std::string> names;
  std::string output;
  bool all_namespaces = false;
  std::string selector;
  bool watch = false;
  bool no_headers = false;
};

std::vector<std::string> row(const nlohmann::json& job, bool wide, bool all_ns) {
  auto s = workflow::summarize(job);
  std::vector<std::string> r;
  if (all_ns) r.push_back(s.namespace_);
  r.push_back(s.name);
  r.push_back(s.state.empty() ? "<none>" : s.state);
  r.push_back(workflow::age(s.creation_timestamp));
  if (wide) {
    r.push_back(workflow::replicas_column(s));
    r.push_back(std::to_string(s.gpus));
  }
  return r;
}

std::vector<std::string> header(bool wide, bool all_ns) {
  std::vector<std::string> h;
  if (all_ns) h.push_back("NAMESPACE");
  h.insert(h.end(), {"NAME", "STATE", "AGE"});
  if (wide) h.insert(h.end(), {"REPLICAS (ACTIVE/SUCCEEDED/FAILED)", "GPUS"});
  return h;
}

/// -o json|yaml|name as an OutputFormat (the table forms are printed by run_get itself).
OutputFormat data_format(const std::string& output) {
  return output == "json" ? OutputFormat::json : output == "yaml" ? OutputFormat::yaml : OutputFormat::name;
}

/// Items of a list answer with their kind and apiVersion, as kubectl prints them.
std::vector<nlohmann::json> typed(std::vector<nlohmann::json> items) {
  for (auto& j : items) {
    if (!j.contains("apiVersion")) j["apiVersion"] = "kubeflow.org/v1";
    if (!j.contains("kind")) j["kind"] = "TFJob";
  }
  return items;
}

int run_get(const GetOptions& o, const Globals& g) {
  auto client = make_client(g);
  const std::string ns = o.all_namespaces ? "" : client.namespace_();
  const bool wide = o.output == "wide";
  const bool table = o.output.empty() || wide;
  if (!o.names.empty() && o.all_namespaces)
    throw CLI::ValidationError("-A", "a job name cannot be combined with --all-namespaces (use -n NAMESPACE)");
  if (!workflow::tfjobs_served(client)) throw tfjob::error(workflow::crd_missing_message(client.config().server));

  std::vector<nlohmann::json> jobs;
  int rc = exit_code::ok;
  if (!o.names.empty()) {
    for (const auto& n : o.names) {
      auto j = workflow::get_opt(client, workflow::resources::tfjobs(), ns, n);
      if (!j) {
        std::cerr << "Error from server (NotFound): tfjobs.kubeflow.org \"" << n << "\" not found in namespace \"" << ns
                  << "\"\n";
        rc = exit_code::failure;
        continue;
      }
      jobs.push_back(*j);
    }
  } else {
    kube::ListParams lp;
    lp.label_selector = o.selector;
    jobs = workflow::list_items(client, workflow::resources::tfjobs(), ns, lp);
  }

  std::vector<std::vector<std::string>> rows;
  if (table) {
    if (jobs.empty() && o.names.empty() && !o.watch) {
      std::cerr << (o.all_namespaces ? std::string("No resources found") : "No resources found in " + ns + " namespace.")
                << "\n";
    } else if (!jobs.empty()) {
      if (!o.no_headers) rows.push_back(header(wide, o.all_namespaces));
      for (const auto& j : jobs) rows.push_back(row(j, wide, o.all_namespaces));
      std::cout << workflow::render_table(rows) << std::flush;
    }
  } else if (!jobs.empty() || o.names.empty()) {
    print_objects(std::cout, typed(jobs), data_format(o.output), o.names.size() == 1 ? Many::documents : Many::list);
  }
  if (!o.watch) return rc;

  // --watch: one line per change after the initial listing, as kubectl get -w does.
  kube::Api<kube::DynamicObject> api(client, workflow::resources::tfjobs(), ns);
  kube::WatchParams wp;
  wp.label_selector = o.selector;
  if (o.names.size() == 1) wp.field_selector = "metadata.name=" + o.names[0];
  std::set<std::string> wanted(o.names.begin(), o.names.end());
  std::map<std::string, std::string> seen;  // ns/name -> resourceVersion printed
  for (const auto& j : jobs)
    seen[j.value("/metadata/namespace"_json_pointer, std::string()) + "/" + j.value("/metadata/name"_json_pointer, std::string())] =
        j.value("/metadata/resourceVersion"_json_pointer, std::string());
  bool header_printed = !rows.empty() || o.no_headers;
  // As kubectl get --watch: --request-timeout bounds the watch, which then ends with exit 0.
  kube::StreamOptions so;
  if (client.config().timeout.count() > 0) so.deadline = std::chrono::steady_clock::now() + client.config().timeout;
  api.watch(wp, [&](const kube::WatchEvent<kube::DynamicObject>& ev) {
    if (ev.type == "BOOKMARK") return true;
    const auto& j = ev.object.json;
    std::string key = ev.object.namespace_() + "/" + ev.object.name();
    if (!wanted.empty() && !wanted.count(ev.object.name())) return true;
    if (ev.type != "DELETED" && seen.count(key) && seen[key] == ev.object.resource_version()) return true;
    seen[key] = ev.object.resource_version();
    if (table) {
      std::vector<std::vector<std::string>> r;
      if (!header_printed) r.push_back(header(wide, o.all_namespaces));
      header_printed = true;
      auto cells = row(j, wide, o.all_namespaces);
      if (ev.type == "DELETED") cells[o.all_namespaces ? 2 : 1] = "Deleted";
      r.push_back(cells);
      std::string text = workflow::render_table(r);
      if (r.size() == 2) std::cout << text;
      else std::cout << text;
    } else {
      print_objects(std::cout, typed({j}), data_format(o.output));
      if (o.output == "yaml") std::cout << "---\n";
    }
    std::cout << std::flush;
    return true;
  }, so);
  return rc;
}

void setup_get(CLI::App& app, Globals& g) {
  auto o = std::make_shared<GetOptions>();
  auto* sub = app.add_subcommand("get", "List TFJobs or show some, as a table or as JSON/YAML");
  sub->alias("list");
  sub->add_option("name", o->names, "TFJob names (default: every TFJob in the namespace)");
  sub->add_option("-o,--output", o->output, "Output format: wide, json, yaml, name")
      ->check(CLI::IsMember({"wide", "json", "yaml", "name"}));
  sub->add_flag("-A,--all-namespaces", o->all_namespaces, "List TFJobs in every namespace");
  sub->add_option("-l,--selector", o->selector, "Label selector, e.g. team=vision,env!=prod");
  sub->add_flag("-w,--watch", o->watch, "After listing, print each change as it happens (Ctrl-C to stop)");
  sub->add_flag("--no-headers", o->no_headers, "Omit the table header");
  sub->footer(R"(Examples:
  kubectl tfjob get                      # TFJobs in the current namespace
  kubectl tfjob list -A -o wide          # every namespace, with replicas and GPUs
  kubectl tfjob get mnist -o yaml        # one job as YAML
  kubectl tfjob get -l team=vision -w    # follow changes

Columns: STATE is the job's newest true condition (Created, Running, Restarting,
Succeeded, Failed, Suspended); -o wide adds REPLICAS as TYPE:active/succeeded/failed and
the GPUs the job asks for.

Exit codes: 0 listed, 1 a named job was not found or the request failed, 64 usage error.)");
  sub->callback([o, sub, &g] {
    (void)sub;
    g.run = [o, &g] { return run_get(*o, g); };
  });
}

}  // namespace
TFJOB_REGISTER_COMMAND("get", 110, setup_get);
}  // namespace tfjob::cli
