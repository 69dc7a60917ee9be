// kubectl tfjob get|list [JOB...]: TFJobs as a kubectl-like table (NAME STATE AGE; -o wide
// adds replicas active/succeeded/failed per type, GPUs, DURATION and the chief's NODE), or
// -o json|yaml|name|jsonpath=...|custom-columns=... as kubectl parses them; --sort-by a
// JSONPath; -A for every namespace, -l to select by label, --watch to follow changes.
#include "../common/context.hpp"
#include "../common/output.hpp"
#include "../common/workflow_cli.hpp"

#include <tfjob/api/labels.hpp>
#include <tfjob/kube/api.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/jsonpath.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/describe.hpp>
#include <tfjob/workflow/status.hpp>

#include <algorithm>
#include <ctime>
#include <iostream>
#include <map>
#include <optional>
#include <memory>
#include <set>
#include <string>
#include <vector>
#include <tfjob/detail/json.hpp>

namespace tfjob::cli {
namespace {


/// DURATION as kubectl shows it for a batch Job (printers.go printJob): from the start to
/// the completion, or to now while it runs; "" before it starts.
std::string duration(const nlohmann::json& job, std::time_t now = std::time(nullptr)) {
  auto start = workflow::parse_time(tfjob::detail::value_at(job, "/status/startTime"_json_pointer, std::string()));
  if (!start) return "";
  auto end = workflow::parse_time(tfjob::detail::value_at(job, "/status/completionTime"_json_pointer, std::string()));
  return workflow::human_duration(static_cast<long long>((end ? *end : now) - *start));
}

std::vector<std::string> row(const nlohmann::json& job, bool wide, bool all_ns,
                             const std::map<std::string, std::string>& chief_nodes = {}) {
  auto s = workflow::summarize(job);
  std::vector<std::string> r;
  if (all_ns) r.push_back(s.namespace_);
  r.push_back(s.name);
  r.push_back(s.state.empty() ? "<none>" : s.state);
  r.push_back(workflow::age(s.creation_timestamp));
  if (wide) {
    r.push_back(workflow::replicas_column(s));
    r.push_back(std::to_string(s.gpus));
    auto d = duration(job);
    r.push_back(d.empty() ? "<none>" : d);
    auto n = chief_nodes.find(s.namespace_ + "/" + s.name);
    r.push_back(n == chief_nodes.end() || n->second.empty() ? "<none>" : n->second);
  }
  return r;
}

/// The node of each job's chief pod (the pod the operator marks job-role=master), keyed
/// "ns/job": one list of pods for the whole table.
std::map<std::string, std::string> chief_nodes(kube::Client& client, const std::string& ns) {
  std::map<std::string, std::string> out;
  kube::ListParams lp;
  lp.label_selector = std::string(labels::job_role) + "=master";
  for (const auto& p : workflow::list_items(client, workflow::resources::pods(), ns, lp)) {
    auto job = tfjob::detail::value_at(p, "/metadata/labels"_json_pointer, nlohmann::json::object()).value(labels::job_name, "");
    auto node = tfjob::detail::value_at(p, "/spec/nodeName"_json_pointer, std::string());
    auto& slot = out[tfjob::detail::value_at(p, "/metadata/namespace"_json_pointer, std::string()) + "/" + job];
    if (slot.empty() || !node.empty()) slot = node;
  }
  return out;
}

/// `-o custom-columns=NAME:.metadata.name,STATE:.status...` (kubectl's custom_column_printer:
/// HEADER:JSONPATH pairs, several values joined by ",", a missing one is <none>).
struct Column {
  std::string header;
  kube::JsonPath path;
};
std::vector<Column> parse_custom_columns(const std::string& spec) {
  std::vector<Column> cols;
  std::size_t i = 0;
  while (i <= spec.size()) {
    auto comma = spec.find(',', i);
    std::string part = spec.substr(i, comma == std::string::npos ? std::string::npos : comma - i);
    auto colon = part.find(':');
    if (colon == std::string::npos || colon == 0)
      throw CLI::ValidationError("-o", "custom-columns: expected HEADER:JSONPATH, got \"" + part + "\"");
    cols.push_back({part.substr(0, colon), kube::JsonPath(kube::relaxed_jsonpath(part.substr(colon + 1)), true)});
    if (comma == std::string::npos) break;
    i = comma + 1;
  }
  if (cols.empty()) throw CLI::ValidationError("-o", "custom-columns format specified but no custom columns given");
  return cols;
}
std::vector<std::string> custom_row(const std::vector<Column>& cols, const nlohmann::json& job) {
  std::vector<std::string> r;
  for (const auto& c : cols) {
    std::string cell;
    for (const auto& v : c.path.values(job)) cell += (cell.empty() ? "" : ",") + kube::jsonpath_detail::text_of(v);
    r.push_back(cell.empty() ? "<none>" : cell);
  }
  return r;
}

/// --sort-by: order by the value a JSONPath selects (kubectl's sorter: numbers as
/// numbers, strings as strings; a job without the field goes first).
void sort_jobs(std::vector<nlohmann::json>& jobs, const std::string& expr) {
  kube::JsonPath p(kube::relaxed_jsonpath(expr), true);
  auto key = [&](const nlohmann::json& j) {
    auto v = p.values(j);
    return v.empty() ? nlohmann::json() : v.front();
  };
  std::stable_sort(jobs.begin(), jobs.end(), [&](const nlohmann::json& a, const nlohmann::json& b) {
    auto x = key(a), y = key(b);
    if (x.is_null() || y.is_null()) return x.is_null() && !y.is_null();
    if (x.is_number() && y.is_number()) return x.get<double>() < y.get<double>();
    return kube::jsonpath_detail::text_of(x) < kube::jsonpath_detail::text_of(y);
  });
}

std::vector<std::string> header(bool wide, bool all_ns) {
  std::vector<std::string> h;
  if (all_ns) h.push_back("NAMESPACE");
  h.insert(h.end(), {"NAME", "STATE", "AGE"});
  if (wide) h.insert(h.end(), {"REPLICAS (ACTIVE/SUCCEEDED/FAILED)", "GPUS", "DURATION", "NODE"});
  return h;
}

/// -o json|yaml|name as an OutputFormat (the table forms are printed by run_get itself).
OutputFormat data_format(const std::string& output) {
  return output == "json" ? OutputFormat::json : output == "yaml" ? OutputFormat::yaml : OutputFormat::name;
}

/// Items of a list answer with their kind and apiVersion, as kubectl prints them.
std::vector<nlohmann::json> typed(std::vector<nlohmann::json> items) {
  for (auto& j : items) {
    if (!j.contains("apiVersion")) j["apiVersion"] = tfjob::api_version;
    if (!j.contains("kind")) j["kind"] = tfjob::kind;
  }
  return items;
}

struct GetCommand {
  std::vector<std::string> names;
  std::string output;
  bool all_namespaces = false;
  std::string selector;
  bool watch = false;
  bool no_headers = false;
  std::string sort_by;

  /// -o as kubectl parses it: FORMAT or FORMAT=ARG (jsonpath, custom-columns); the
  /// JSONPath of --sort-by; no request.
  void validate() {
    static const std::set<std::string> plain = {"", "wide", "json", "yaml", "name"};
    if (output.rfind("jsonpath=", 0) == 0) {
      jsonpath.emplace(output.substr(9));
    } else if (output.rfind("custom-columns=", 0) == 0) {
      columns = parse_custom_columns(output.substr(15));
    } else if (!plain.count(output)) {
      throw CLI::ValidationError("-o", "unable to match a printer suitable for the output format \"" + output +
                                           "\", allowed formats are: custom-columns, json, jsonpath, name, wide, yaml");
    }
    if (!sort_by.empty()) (void)kube::JsonPath(kube::relaxed_jsonpath(sort_by), true);
    if (!names.empty() && all_namespaces)
      throw CLI::ValidationError("-A", "a job name cannot be combined with --all-namespaces (use -n NAMESPACE)");
  }
  int run(Context& ctx);

 private:
  std::optional<kube::JsonPath> jsonpath;
  std::vector<Column> columns;
  /// --watch: one line per change after the initial listing, as kubectl get -w does.
  int watch_changes(Context& ctx, const std::string& ns, const std::vector<nlohmann::json>& jobs, bool header_printed, int rc);
};

int GetCommand::run(Context& ctx) {
  const auto& o = *this;
  auto& client = ctx.tfjobs();
  const std::string ns = o.all_namespaces ? "" : client.namespace_();
  const bool wide = o.output == "wide";
  const bool table = o.output.empty() || wide;

  std::vector<nlohmann::json> jobs;
  int rc = exit_code::ok;
  if (!o.names.empty()) {
    for (const auto& n : o.names) {
      auto j = workflow::get_opt(client, workflow::resources::tfjobs(), ns, n);
      if (!j) {
        rc = say_not_found(ctx, n);
        continue;
      }
      jobs.push_back(*j);
    }
  } else {
    kube::ListParams lp;
    lp.label_selector = o.selector;
    jobs = workflow::list_items(client, workflow::resources::tfjobs(), ns, lp);
  }
  if (!o.sort_by.empty()) sort_jobs(jobs, o.sort_by);
  const auto nodes = wide && !jobs.empty() ? chief_nodes(client, ns) : std::map<std::string, std::string>{};

  if (jsonpath) {
    // kubectl applies the template to the object (one name) or to the List
    const nlohmann::json data = o.names.size() == 1 && jobs.size() == 1
                                    ? typed(jobs).front()
                                    : nlohmann::json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", typed(jobs)}};
    ctx.out << jsonpath->execute(data) << std::flush;
    return rc;
  }
  if (!columns.empty()) {
    std::vector<std::vector<std::string>> rows;
    if (!o.no_headers) {
      std::vector<std::string> h;
      for (const auto& c : columns) h.push_back(c.header);
      rows.push_back(h);
    }
    for (const auto& j : jobs) rows.push_back(custom_row(columns, j));
    if (!jobs.empty()) ctx.out << workflow::render_table(rows) << std::flush;
    return rc;
  }

  std::vector<std::vector<std::string>> rows;
  if (table) {
    if (jobs.empty() && o.names.empty() && !o.watch) {
      ctx.err << (o.all_namespaces ? std::string("No resources found") : "No resources found in " + ns + " namespace.")
                << "\n";
    } else if (!jobs.empty()) {
      if (!o.no_headers) rows.push_back(header(wide, o.all_namespaces));
      for (const auto& j : jobs) rows.push_back(row(j, wide, o.all_namespaces, nodes));
      ctx.out << workflow::render_table(rows) << std::flush;
    }
  } else if (!jobs.empty() || o.names.empty()) {
    print_objects(ctx.out, typed(jobs), data_format(o.output), o.names.size() == 1 ? Many::documents : Many::list);
  }
  if (!o.watch) return rc;
  return watch_changes(ctx, ns, jobs, !rows.empty() || o.no_headers, rc);
}

int GetCommand::watch_changes(Context& ctx, const std::string& ns, const std::vector<nlohmann::json>& jobs,
                              bool header_printed, int rc) {
  const auto& o = *this;
  auto& client = ctx.tfjobs();
  const bool wide = o.output == "wide";
  const bool table = o.output.empty() || wide;
  kube::Api<kube::DynamicObject> api(client, workflow::resources::tfjobs(), ns);
  kube::WatchParams wp;
  wp.label_selector = o.selector;
  if (o.names.size() == 1) wp.field_selector = "metadata.name=" + o.names[0];
  std::set<std::string> wanted(o.names.begin(), o.names.end());
  std::map<std::string, std::string> seen;  // ns/name -> resourceVersion printed
  for (const auto& j : jobs)
    seen[tfjob::detail::value_at(j, "/metadata/namespace"_json_pointer, std::string()) + "/" + tfjob::detail::value_at(j, "/metadata/name"_json_pointer, std::string())] =
        tfjob::detail::value_at(j, "/metadata/resourceVersion"_json_pointer, std::string());
  // As kubectl get --watch: --request-timeout bounds the watch, which then ends with exit 0.
  kube::StreamOptions so;
  if (client.config().timeout.count() > 0) so.deadline = std::chrono::steady_clock::now() + client.config().timeout;
  api.watch(wp, [&](const kube::WatchEvent<kube::DynamicObject>& ev) {
    const auto& j = ev.object.json;
    std::string key = ev.object.namespace_() + "/" + ev.object.name();
    if (!wanted.empty() && !wanted.count(ev.object.name())) return true;
    if (ev.type != kube::EventType::deleted && seen.count(key) && seen[key] == ev.object.resource_version()) return true;
    seen[key] = ev.object.resource_version();
    if (table) {
      std::vector<std::vector<std::string>> r;
      if (!header_printed) r.push_back(header(wide, o.all_namespaces));
      header_printed = true;
      auto cells = row(j, wide, o.all_namespaces);
      if (ev.type == kube::EventType::deleted) cells[o.all_namespaces ? 2 : 1] = "Deleted";
      r.push_back(cells);
      ctx.out << workflow::render_table(r);
    } else {
      print_objects(ctx.out, typed({j}), data_format(o.output));
      if (o.output == "yaml") ctx.out << "---\n";
    }
    ctx.out << std::flush;
    return true;
  }, so);
  return rc;
}

void setup_get(CLI::App& app, Globals& g) {
  auto o = std::make_shared<GetCommand>();
  auto* sub = app.add_subcommand("get", "List TFJobs or show some, as a table or as JSON/YAML");
  sub->alias("list");
  sub->add_option("name", o->names, "TFJob names (default: every TFJob in the namespace)");
  sub->add_option("-o,--output", o->output,
                  "Output format: wide, json, yaml, name, jsonpath=TEMPLATE or custom-columns=HEADER:JSONPATH,... (as kubectl)");
  sub->add_option("--sort-by", o->sort_by, "Sort by the value of a JSONPath, e.g. .metadata.creationTimestamp");
  sub->add_flag("-A,--all-namespaces", o->all_namespaces, "List TFJobs in every namespace");
  sub->add_option("-l,--selector", o->selector, "Label selector, e.g. team=vision,env!=prod");
  sub->add_flag("-w,--watch", o->watch, "After listing, print each change as it happens (Ctrl-C to stop)");
  sub->add_flag("--no-headers", o->no_headers, "Omit the table header");
  sub->footer(R"(Examples:
  kubectl tfjob get                      # TFJobs in the current namespace
  kubectl tfjob list -A -o wide          # every namespace, with replicas and GPUs
  kubectl tfjob get mnist -o yaml        # one job as YAML
  kubectl tfjob get -l team=vision -w    # follow changes
  kubectl tfjob get -o jsonpath='{range .items[*]}{.metadata.name}{"\t"}{.status.conditions[-1:].type}{"\n"}{end}'
  kubectl tfjob get -o custom-columns=NAME:.metadata.name,WORKERS:.spec.tfReplicaSpecs.Worker.replicas
  kubectl tfjob get --sort-by=.metadata.creationTimestamp

Columns: STATE is the job's newest true condition (Created, Running, Restarting,
Succeeded, Failed, Suspended); -o wide adds REPLICAS as TYPE:active/succeeded/failed, the
GPUs the job asks for, DURATION (start to completion, or to now while it runs) and the
NODE of the chief's pod.

Exit codes: 0 listed, 1 a named job was not found or the request failed, 64 usage error.)");
  set_action(*sub, g, o);
}

}  // namespace
TFJOB_REGISTER_COMMAND("get", 110, setup_get);
}  // namespace tfjob::cli
