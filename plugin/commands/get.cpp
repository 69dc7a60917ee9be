// kubectl tfjob get|list [JOB...]: TFJobs as a kubectl-like table (NAME STATE AGE; -o wide
// adds replicas active/succeeded/failed per type, GPUs, DURATION and the chief's NODE), or
// -o json|yaml|name|jsonpath=...|custom-columns=... as kubectl parses them; --sort-by a
// JSONPath; -A for every namespace, -l to select by label, --watch to follow changes.
#include "commands.hpp"
#include "../common/context.hpp"
#include "../common/flag_values.hpp"
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
#include <cctype>
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

/// The columns of the table: -o wide's, -A's NAMESPACE, -L's label columns, --show-labels'
/// LABELS, --output-watch-events' EVENT.
struct Shape {
  bool wide = false, all_ns = false, show_labels = false, events = false;
  std::vector<std::string> label_columns;  ///< -L keys
};

/// A job's labels as kubectl shows them (labels.FormatLabels: key=value, sorted, "<none>").
std::string labels_text(const nlohmann::json& job) {
  const auto labels = tfjob::detail::value_at(job, "/metadata/labels"_json_pointer, nlohmann::json::object());
  std::map<std::string, std::string> sorted;
  for (const auto& [k, v] : labels.items()) sorted[k] = v.is_string() ? v.get<std::string>() : v.dump();
  std::string out;
  for (const auto& [k, v] : sorted) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out.empty() ? "<none>" : out;
}

std::vector<std::string> row(const nlohmann::json& job, const Shape& sh, const std::map<std::string, std::string>& chief_nodes = {},
                             const std::string& event = "") {
  auto s = workflow::summarize(job);
  std::vector<std::string> r;
  if (sh.events) r.push_back(event);
  if (sh.all_ns) r.push_back(s.namespace_);
  r.push_back(s.name);
  r.push_back(s.state.empty() ? "<none>" : s.state);
  r.push_back(workflow::age(s.creation_timestamp));
  if (sh.wide) {
    r.push_back(workflow::replicas_column(s));
    r.push_back(std::to_string(s.gpus));
    auto d = duration(job);
    r.push_back(d.empty() ? "<none>" : d);
    auto n = chief_nodes.find(s.namespace_ + "/" + s.name);
    r.push_back(n == chief_nodes.end() || n->second.empty() ? "<none>" : n->second);
  }
  const auto labels = tfjob::detail::value_at(job, "/metadata/labels"_json_pointer, nlohmann::json::object());
  for (const auto& key : sh.label_columns) {  // kubectl: the label's value, "" when the job has none
    auto it = labels.find(key);
    r.push_back(it != labels.end() && it->is_string() ? it->get<std::string>() : "");
  }
  if (sh.show_labels) r.push_back(labels_text(job));
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
      throw flag::usage("--output", "custom-columns: \"" + part + "\" is not HEADER:JSONPATH", "give custom-columns=HEADER:JSONPATH[,...]");
    cols.push_back({part.substr(0, colon), kube::JsonPath(kube::relaxed_jsonpath(part.substr(colon + 1)), true)});
    if (comma == std::string::npos) break;
    i = comma + 1;
  }
  if (cols.empty()) throw flag::usage("--output", "custom-columns format specified but no custom columns given", "give custom-columns=HEADER:JSONPATH[,...]");
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

std::vector<std::string> header(const Shape& sh) {
  std::vector<std::string> h;
  if (sh.events) h.push_back("EVENT");
  if (sh.all_ns) h.push_back("NAMESPACE");
  h.insert(h.end(), {"NAME", "STATE", "AGE"});
  if (sh.wide) h.insert(h.end(), {"REPLICAS (ACTIVE/SUCCEEDED/FAILED)", "GPUS", "DURATION", "NODE"});
  for (const auto& key : sh.label_columns) {  // kubectl's formatLabelHeaders: the key's last path segment, upper case
    std::string col = key.substr(key.rfind('/') == std::string::npos ? 0 : key.rfind('/') + 1);
    for (auto& c : col) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    h.push_back(col);
  }
  if (sh.show_labels) h.push_back("LABELS");
  return h;
}

/// kubectl's name for a watch event type (--output-watch-events).
const char* event_name(kube::EventType t) {
  return t == kube::EventType::added ? "ADDED" : t == kube::EventType::deleted ? "DELETED" : "MODIFIED";
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
  std::string selector, field_selector;
  bool watch = false, watch_only = false, output_watch_events = false;
  bool no_headers = false, show_labels = false;
  std::vector<std::string> label_columns;
  std::string sort_by;

  /// -o as kubectl parses it: FORMAT or FORMAT=ARG (jsonpath, custom-columns, read by the
  /// flag layer); the JSONPath of --sort-by; no request.
  void validate() {
    if (output.rfind("jsonpath=", 0) == 0) jsonpath.emplace(output.substr(9));
    else if (output.rfind("custom-columns=", 0) == 0) columns = parse_custom_columns(output.substr(15));
    if (!sort_by.empty()) (void)kube::JsonPath(kube::relaxed_jsonpath(sort_by), true);
    if (!names.empty() && all_namespaces)
      throw flag::usage("--all-namespaces", "a job name cannot be combined with --all-namespaces", "give -n NAMESPACE instead");
    if (output_watch_events && !watch && !watch_only)
      throw flag::usage("--output-watch-events", "it needs a watch", "add --watch or --watch-only");
    shape.wide = output == "wide";
    shape.all_ns = all_namespaces;
    shape.show_labels = show_labels;
    shape.events = output_watch_events;
    for (const auto& l : label_columns) shape.label_columns.push_back(l);
  }
  int run(Context& ctx);

 private:
  std::optional<kube::JsonPath> jsonpath;
  std::vector<Column> columns;
  Shape shape;
  /// --watch: one line per change after the initial listing, as kubectl get -w does.
  int watch_changes(Context& ctx, const std::string& ns, const std::vector<nlohmann::json>& jobs, bool header_printed, int rc);
  /// One object, or a watch event, as -o json|yaml|name print it.
  void print_object(Context& ctx, const nlohmann::json& j, const char* event) const;
};

void GetCommand::print_object(Context& ctx, const nlohmann::json& j, const char* event) const {
  if (output_watch_events && (output == "json" || output == "yaml")) {
    const nlohmann::json ev = {{"type", event}, {"object", typed({j}).front()}};  // metav1.WatchEvent
    if (output == "json") ctx.out << ev.dump(4) << "\n";
    else ctx.out << to_yaml(ev) << "---\n";
    return;
  }
  print_objects(ctx.out, typed({j}), data_format(output));
  if (output == "yaml") ctx.out << "---\n";
}

int GetCommand::run(Context& ctx) {
  const auto& o = *this;
  auto& client = ctx.tfjobs();
  const std::string ns = o.all_namespaces ? "" : client.namespace_();
  const bool table = o.output.empty() || shape.wide;

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
    lp.field_selector = o.field_selector;
    jobs = workflow::list_items(client, workflow::resources::tfjobs(), ns, lp);
  }
  if (!o.sort_by.empty()) sort_jobs(jobs, o.sort_by);
  // --watch-only: the listing only says where the watch starts (kubectl get --watch-only)
  if (o.watch_only) return watch_changes(ctx, ns, jobs, o.no_headers, rc);
  const auto nodes = shape.wide && !jobs.empty() ? chief_nodes(client, ns) : std::map<std::string, std::string>{};

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
      if (!o.no_headers) rows.push_back(header(shape));
      for (const auto& j : jobs) rows.push_back(row(j, shape, nodes, "ADDED"));
      ctx.out << workflow::render_table(rows) << std::flush;
    }
  } else if (o.output_watch_events) {
    for (const auto& j : jobs) print_object(ctx, j, "ADDED");  // existing objects as initial ADDED events
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
  const bool table = o.output.empty() || shape.wide;
  kube::Api<kube::DynamicObject> api(client, workflow::resources::tfjobs(), ns);
  kube::WatchParams wp;
  wp.label_selector = o.selector;
  wp.field_selector = o.field_selector;
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
    const bool known = seen.count(key) > 0;
    seen[key] = ev.object.resource_version();
    const char* what = ev.type == kube::EventType::added && known ? "MODIFIED" : event_name(ev.type);
    if (table) {
      std::vector<std::vector<std::string>> r;
      if (!header_printed) r.push_back(header(shape));
      header_printed = true;
      auto cells = row(j, shape, {}, what);
      if (ev.type == kube::EventType::deleted && !o.output_watch_events) cells[o.all_namespaces ? 2 : 1] = "Deleted";
      r.push_back(cells);
      ctx.out << workflow::render_table(r);
    } else {
      print_object(ctx, j, what);
    }
    ctx.out << std::flush;
    return true;
  }, so);
  return rc;
}

}  // namespace

void setup_get(CLI::App& app, Globals& g) {
  auto o = std::make_shared<GetCommand>();
  auto* sub = app.add_subcommand("get", "List TFJobs or show some, as a table or as JSON/YAML");
  sub->alias("list");
  flag::text(*sub, "name", o->names, "TFJob names (default: every TFJob in the namespace)", "NAME");
  flag::choice(*sub, "-o,--output", o->output,
               "Output format: wide, json, yaml, name, jsonpath=TEMPLATE or custom-columns=HEADER:JSONPATH,... (as kubectl)",
               {"wide", "json", "yaml", "name"}, {"jsonpath=", "custom-columns="});
  flag::text(*sub, "--sort-by", o->sort_by, "Sort by the value of a JSONPath, e.g. .metadata.creationTimestamp", "JSONPATH");
  flag::boolean(*sub, "-A,--all-namespaces", o->all_namespaces, "List TFJobs in every namespace");
  flag::text(*sub, "-l,--selector", o->selector, "Label selector, e.g. team=vision,env!=prod", "SELECTOR");
  flag::text(*sub, "--field-selector", o->field_selector,
             "Field selector, e.g. metadata.name=mnist (TFJobs, as custom resources, select on metadata.name and "
             "metadata.namespace)", "SELECTOR");
  flag::boolean(*sub, "-w,--watch", o->watch, "After listing, print each change as it happens (Ctrl-C to stop)");
  flag::boolean(*sub, "--watch-only", o->watch_only, "Print each change as it happens, without listing first");
  flag::boolean(*sub, "--output-watch-events", o->output_watch_events,
                "With --watch or --watch-only: say each change's event (ADDED, MODIFIED, DELETED); existing jobs are ADDED");
  flag::boolean(*sub, "--no-headers", o->no_headers, "Omit the table header");
  flag::boolean(*sub, "--show-labels", o->show_labels, "Add the jobs' labels as the last column");
  flag::text(*sub, "-L,--label-columns", o->label_columns, "A column with the value of this label (repeatable, or KEY1,KEY2)", "KEY")
      ->delimiter(',');
  sub->footer(R"(Examples:
  kubectl tfjob get                      # TFJobs in the current namespace
  kubectl tfjob list -A -o wide          # every namespace, with replicas and GPUs
  kubectl tfjob get mnist -o yaml        # one job as YAML
  kubectl tfjob get -l team=vision -w    # follow changes
  kubectl tfjob get -o jsonpath='{range .items[*]}{.metadata.name}{"\t"}{.status.conditions[-1:].type}{"\n"}{end}'
  kubectl tfjob get -o custom-columns=NAME:.metadata.name,WORKERS:.spec.tfReplicaSpecs.Worker.replicas
  kubectl tfjob get --sort-by=.metadata.creationTimestamp
  kubectl tfjob get --show-labels -L team     # the labels, and a TEAM column
  kubectl tfjob get --field-selector metadata.name=mnist --watch-only --output-watch-events

Columns: STATE is the job's newest true condition (Created, Running, Restarting,
Succeeded, Failed, Suspended); -o wide adds REPLICAS as TYPE:active/succeeded/failed, the
GPUs the job asks for, DURATION (start to completion, or to now while it runs) and the
NODE of the chief's pod.

Exit codes: 0 listed, 1 a named job was not found or the request failed, 64 usage error.
The table for every command: kubectl tfjob --help.)");
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
