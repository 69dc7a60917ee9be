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

/// One row of the server's Table (kubectl get's request): NAMESPACE from the row's object
/// metadata, NAME and STATE from the cells of the columns so named (the TFJob CRD's
/// printer column State: `.status.conditions[-1:].type`, as kubectl get tfjobs shows it),
/// AGE from the creation timestamp, as row() words it. Empty when the Table has no State
/// column (a CRD without it): the caller then lists the objects.
std::vector<std::string> table_row(const nlohmann::json& r, const nlohmann::json& columns, bool all_ns) {
  int name_at = -1, state_at = -1;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    std::string n = tfjob::detail::value_at(columns[i], "name", std::string());
    for (auto& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (n == "name") name_at = static_cast<int>(i);
    if (n == "state") state_at = static_cast<int>(i);
  }
  if (state_at < 0) return {};
  const auto cells = tfjob::detail::value_at(r, "cells", nlohmann::json::array());
  auto cell = [&](int i) {
    if (i < 0 || static_cast<std::size_t>(i) >= cells.size() || !cells[i].is_string()) return std::string();
    return cells[i].get<std::string>();
  };
  const auto md = tfjob::detail::value_at(r, "/object/metadata"_json_pointer, nlohmann::json::object());
  std::vector<std::string> row;
  if (all_ns) row.push_back(tfjob::detail::value_at(md, "namespace", std::string()));
  std::string name = cell(name_at);
  row.push_back(name.empty() ? tfjob::detail::value_at(md, "name", std::string()) : name);
  const std::string state = cell(state_at);
  row.push_back(state.empty() ? "<none>" : state);
  row.push_back(workflow::age(tfjob::detail::value_at(md, "creationTimestamp", std::string())));
  return row;
}

/// The node of each job's chief pod (the pod the operator marks job-role=master), keyed
/// "ns/job": one list of pods for the whole table, read page by page into the map.
std::map<std::string, std::string> chief_nodes(kube::Client& client, const std::string& ns) {
  std::map<std::string, std::string> out;
  kube::ListParams lp;
  lp.label_selector = std::string(labels::job_role) + "=master";
  kube::list_pages(client, kube::RequestBuilder(workflow::resources::pods(), ns), lp, [&](kube::ListPage& page) {
    for (const auto& p : page.items) {
      auto job = tfjob::detail::value_at(p, "/metadata/labels"_json_pointer, nlohmann::json::object()).value(labels::job_name, "");
      auto node = tfjob::detail::value_at(p, "/spec/nodeName"_json_pointer, std::string());
      auto& slot = out[tfjob::detail::value_at(p, "/metadata/namespace"_json_pointer, std::string()) + "/" + job];
      if (slot.empty() || !node.empty()) slot = node;
    }
    return true;
  });
  return out;
}

/// What a watch keeps of each job to print its deletion after a relist (kube::Watcher::keep).
/// A plain table row needs the metadata and status only, not the pod templates that make
/// most of a job's bytes; other outputs print the object, kept whole but for its managed
/// fields and annotations (last-applied-configuration repeats the spec).
nlohmann::json watch_kept(const nlohmann::json& job, bool row_only) {
  if (!row_only) {
    nlohmann::json k = job;
    if (auto md = k.find("metadata"); md != k.end() && md->is_object()) {
      md->erase("managedFields");
      md->erase("annotations");
    }
    return k;
  }
  nlohmann::json k = nlohmann::json::object();
  for (const char* f : {"apiVersion", "kind", "status"})
    if (auto it = job.find(f); it != job.end()) k[f] = *it;
  if (auto md = job.find("metadata"); md != job.end() && md->is_object())
    for (const char* f : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"})
      if (auto it = md->find(f); it != md->end()) k["metadata"][f] = *it;
  return k;
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

/// Items of a list answer with their kind and apiVersion, as kubectl prints them, without
/// their managed fields unless asked for (kubectl --show-managed-fields).
std::vector<nlohmann::json> typed(std::vector<nlohmann::json> items, bool managed_fields = false) {
  for (auto& j : items) {
    if (!j.contains("apiVersion")) j["apiVersion"] = tfjob::api_version;
    if (!j.contains("kind")) j["kind"] = tfjob::kind;
    if (!managed_fields) omit_managed_fields(j);
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
  bool show_managed_fields = false;
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

  bool wide() const { return output == "wide"; }
  bool table() const { return output.empty() || wide(); }

  /// What one listing prints, fed one job at a time (add) and closed once (finish): rows of
  /// a table (aligned over all rows, so printed at the end: the output is what is held), or
  /// the items of a List written as they come. One per listing; `ns` is the namespace listed.
  class Listing {
   public:
    Listing(const GetCommand& o, Context& ctx, kube::Client& client, std::string ns)
        : o_(o), ctx_(ctx), client_(client), ns_(std::move(ns)) {
      if (!o.table() && o.columns.empty() && !o.jsonpath)
        writer_.emplace(ctx.out, data_format(o.output));
    }
    /// Whether this listing can use the server's Table (kubectl get's request): the plain
    /// table shows NAME, STATE and AGE, all of which the Table's rows give, so the server
    /// need not encode and send whole jobs (most of their bytes are pod templates).
    bool wants_table() const { return o_.table() && !o_.wide() && o_.columns.empty() && !o_.jsonpath; }
    /// One page as the server sent it: its objects, or its Table rows. False when a Table
    /// lacks the State column: the caller lists the objects instead.
    bool add_page(kube::ListPage& page) {
      if (page.columns.is_array()) {
        for (const auto& r : page.items) {
          auto cells = table_row(r, page.columns, o_.all_namespaces);
          if (cells.empty()) return false;
          rows_.push_back(std::move(cells));
          ++n_;
        }
        return true;
      }
      for (auto& j : page.items) add(j);
      return true;
    }
    /// One job of the list (apiVersion and kind present).
    void add(nlohmann::json& job) {
      if (writer_) {
        if (!o_.show_managed_fields) omit_managed_fields(job);
        writer_->add(job);
      } else if (o_.jsonpath) {  // a watch prints each object with the template, as kubectl get -w
        if (!o_.show_managed_fields) omit_managed_fields(job);
        ctx_.out << o_.jsonpath->execute(job) << std::flush;
      } else if (!o_.columns.empty()) {
        rows_.push_back(custom_row(o_.columns, job));
      } else {
        if (o_.wide() && !nodes_) nodes_ = chief_nodes(client_, ns_);  // one list of chief pods, when there is a job
        rows_.push_back(row(job, o_.wide(), o_.all_namespaces, nodes_ ? *nodes_ : std::map<std::string, std::string>{}));
      }
      ++n_;
    }
    /// The end of the list: the table, or the List closed; "No resources found" for an
    /// empty table (unless `quiet_when_empty`).
    void finish(bool quiet_when_empty = false) {
      if (writer_) return writer_->finish();
      if (o_.jsonpath) return;
      if (!o_.columns.empty()) {
        if (!o_.no_headers) {
          std::vector<std::string> h;
          for (const auto& c : o_.columns) h.push_back(c.header);
          rows_.insert(rows_.begin(), h);
        }
        if (n_ > 0) ctx_.out << workflow::render_table(rows_) << std::flush;
        return;
      }
      if (n_ == 0) {
        if (!quiet_when_empty)
          ctx_.err << (o_.all_namespaces ? std::string("No resources found") : "No resources found in " + ns_ + " namespace.") << "\n";
        return;
      }
      if (!o_.no_headers) rows_.insert(rows_.begin(), header(o_.wide(), o_.all_namespaces));
      ctx_.out << workflow::render_table(rows_) << std::flush;
      printed_header_ = !o_.no_headers;
    }
    std::size_t size() const { return n_; }
    /// Whether finish() printed a table header (a watch's later rows need none).
    bool printed_header() const { return printed_header_; }

   private:
    const GetCommand& o_;
    Context& ctx_;
    kube::Client& client_;
    std::string ns_;
    std::optional<ListWriter> writer_;
    std::optional<std::map<std::string, std::string>> nodes_;
    std::vector<std::vector<std::string>> rows_;
    std::size_t n_ = 0;
    bool printed_header_ = false;
  };

  /// Jobs by name (each a request; a missing one said as kubectl does).
  int get_named(Context& ctx, const std::string& ns, std::vector<nlohmann::json>& jobs) const;
  /// Every job at once, for the outputs that need the whole list first (--sort-by, jsonpath),
  /// as kubectl holds it for them.
  std::vector<nlohmann::json> list_whole(kube::Client& client, const std::string& ns) const;
  /// Prints jobs already held (by name, or the whole list): the table, a JSONPath, columns, objects.
  void print_held(Context& ctx, kube::Client& client, const std::string& ns, std::vector<nlohmann::json>& jobs) const;
  /// --watch of the whole namespace (no names): the watcher lists (page by page, into the
  /// listing) and then watches from that list's resourceVersion, so the first listing and
  /// the changes come from one list; a list or watch cut by an API server restart is
  /// taken up again (kube::Watcher), never ended.
  int watch_all(Context& ctx, const std::string& ns);
  /// --watch of named jobs, after their first print.
  int watch_named(Context& ctx, const std::string& ns, const std::vector<nlohmann::json>& jobs, bool header_printed, int rc);
  /// One change as a watch prints it: a table row (Deleted for a deletion), or the object.
  void print_change(Context& ctx, const kube::WatchEvent<kube::DynamicObject>& ev, bool& header_printed) const;
  /// A watcher's StreamOptions: --request-timeout bounds the watch, which then ends with exit 0 (kubectl get --watch).
  static kube::StreamOptions watch_options(const kube::Client& client);
};

int GetCommand::run(Context& ctx) {
  auto& client = ctx.tfjobs();
  const std::string ns = all_namespaces ? "" : client.namespace_();
  if (names.empty() && watch) return watch_all(ctx, ns);
  std::vector<nlohmann::json> jobs;
  int rc = exit_code::ok;
  if (!names.empty()) {
    rc = get_named(ctx, ns, jobs);
  } else if (!sort_by.empty() || jsonpath) {
    jobs = list_whole(client, ns);
  } else {
    // the list page by page, each job printed (or made a row) as its page arrives; the plain
    // table asks for the server's Table, as kubectl get does
    kube::ListParams lp;
    lp.label_selector = selector;
    std::optional<Listing> l;
    l.emplace(*this, ctx, client, ns);
    lp.as_table = l->wants_table();
    const kube::RequestBuilder rb(workflow::resources::tfjobs(), ns);
    if (!kube::list_pages(client, rb, lp, [&](kube::ListPage& page) { return l->add_page(page); })) {
      l.emplace(*this, ctx, client, ns);  // a Table without State: the jobs themselves
      lp.as_table = false;
      kube::list_pages(client, rb, lp, [&](kube::ListPage& page) { return l->add_page(page); });
    }
    l->finish();
    return rc;
  }
  print_held(ctx, client, ns, jobs);
  if (!watch) return rc;
  return watch_named(ctx, ns, jobs, table() && (!jobs.empty() || no_headers), rc);
}

int GetCommand::get_named(Context& ctx, const std::string& ns, std::vector<nlohmann::json>& jobs) const {
  int rc = exit_code::ok;
  for (const auto& n : names) {
    auto j = workflow::get_opt(ctx.tfjobs(), workflow::resources::tfjobs(), ns, n);
    if (!j) {
      rc = say_not_found(ctx, n);
      continue;
    }
    jobs.push_back(*j);
  }
  return rc;
}

std::vector<nlohmann::json> GetCommand::list_whole(kube::Client& client, const std::string& ns) const {
  std::vector<nlohmann::json> jobs;
  kube::ListParams lp;
  lp.label_selector = selector;
  kube::list_pages(client, kube::RequestBuilder(workflow::resources::tfjobs(), ns), lp, [&](kube::ListPage& page) {
    for (auto& j : page.items) jobs.push_back(std::move(j));
    return true;
  });
  return jobs;
}

void GetCommand::print_held(Context& ctx, kube::Client& client, const std::string& ns, std::vector<nlohmann::json>& jobs) const {
  if (!sort_by.empty()) sort_jobs(jobs, sort_by);
  if (jsonpath) {
    // kubectl applies the template to the object (one name) or to the List
    const nlohmann::json data = names.size() == 1 && jobs.size() == 1
                                    ? typed(jobs, show_managed_fields).front()
                                    : nlohmann::json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", typed(jobs, show_managed_fields)}};
    ctx.out << jsonpath->execute(data) << std::flush;
    return;
  }
  if (table() || !columns.empty()) {
    Listing l(*this, ctx, client, ns);
    for (auto& j : jobs) l.add(j);
    l.finish(!names.empty() || watch);
    return;
  }
  if (!jobs.empty() || names.empty())
    print_objects(ctx.out, typed(jobs, show_managed_fields), data_format(output), names.size() == 1 ? Many::documents : Many::list);
}

kube::StreamOptions GetCommand::watch_options(const kube::Client& client) {
  kube::StreamOptions so;
  if (client.config().timeout.count() > 0) so.deadline = std::chrono::steady_clock::now() + client.config().timeout;
  return so;
}

void GetCommand::print_change(Context& ctx, const kube::WatchEvent<kube::DynamicObject>& ev, bool& header_printed) const {
  const auto& j = ev.object.json;
  if (table()) {
    std::vector<std::vector<std::string>> r;
    if (!header_printed) r.push_back(header(wide(), all_namespaces));
    header_printed = true;
    auto cells = row(j, wide(), all_namespaces);
    if (ev.type == kube::EventType::deleted) cells[all_namespaces ? 2 : 1] = "Deleted";
    r.push_back(cells);
    ctx.out << workflow::render_table(r);
  } else if (!columns.empty()) {
    ctx.out << workflow::render_table({custom_row(columns, j)});
  } else if (jsonpath) {
    ctx.out << jsonpath->execute(typed({j}, show_managed_fields).front());
  } else {
    print_objects(ctx.out, typed({j}, show_managed_fields), data_format(output));
    if (output == "yaml") ctx.out << "---\n";
  }
  ctx.out << std::flush;
}

int GetCommand::watch_all(Context& ctx, const std::string& ns) {
  auto& client = ctx.tfjobs();
  kube::Api<kube::DynamicObject> api(client, workflow::resources::tfjobs(), ns);
  kube::WatchParams wp;
  wp.label_selector = selector;
  auto w = api.watcher(wp);
  const bool row_only = table() && !wide();
  w.keep = [row_only](const nlohmann::json& j) { return watch_kept(j, row_only); };
  std::optional<Listing> first;  // the first list, until the watcher has delivered it whole
  first.emplace(*this, ctx, client, ns);
  bool header_printed = no_headers;
  w.on_synced = [&] {
    if (!first) return;  // a relist after a 410: its changes were printed as changes
    first->finish(true);
    header_printed = header_printed || first->printed_header();
    first.reset();
  };
  w.run([&](const kube::WatchEvent<kube::DynamicObject>& ev) {
    if (first) {
      nlohmann::json j = ev.object.json;
      first->add(j);
    } else {
      print_change(ctx, ev, header_printed);
    }
    return true;
  }, watch_options(client));
  if (first) first->finish(true);  // the deadline came during the first list
  return exit_code::ok;
}

int GetCommand::watch_named(Context& ctx, const std::string& ns, const std::vector<nlohmann::json>& jobs,
                            bool header_printed, int rc) {
  auto& client = ctx.tfjobs();
  kube::Api<kube::DynamicObject> api(client, workflow::resources::tfjobs(), ns);
  kube::WatchParams wp;
  wp.label_selector = selector;
  if (names.size() == 1) wp.field_selector = "metadata.name=" + names[0];
  std::set<std::string> wanted(names.begin(), names.end());
  std::map<std::string, std::string> seen;  // ns/name -> resourceVersion printed
  for (const auto& j : jobs)
    seen[tfjob::detail::value_at(j, "/metadata/namespace"_json_pointer, std::string()) + "/" + tfjob::detail::value_at(j, "/metadata/name"_json_pointer, std::string())] =
        tfjob::detail::value_at(j, "/metadata/resourceVersion"_json_pointer, std::string());
  auto w = api.watcher(wp);
  const bool row_only = table() && !wide();
  w.keep = [row_only](const nlohmann::json& j) { return watch_kept(j, row_only); };
  w.run([&](const kube::WatchEvent<kube::DynamicObject>& ev) {
    std::string key = ev.object.namespace_() + "/" + ev.object.name();
    if (!wanted.count(ev.object.name())) return true;
    if (ev.type != kube::EventType::deleted && seen.count(key) && seen[key] == ev.object.resource_version()) return true;
    seen[key] = ev.object.resource_version();
    print_change(ctx, ev, header_printed);
    return true;
  }, watch_options(client));
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
  sub->add_flag("--show-managed-fields", o->show_managed_fields,
                "Keep metadata.managedFields in -o json|yaml (kubectl leaves them out by default)");
  sub->footer(R"(Examples:
  kubectl tfjob get                      # TFJobs in the current namespace
  kubectl tfjob list -A -o wide          # every namespace, with replicas and GPUs
  kubectl tfjob get mnist -o yaml        # one job as YAML
  kubectl tfjob get -l team=vision -w    # follow changes
  kubectl tfjob get -o jsonpath='{range .items[*]}{.metadata.name}{"\t"}{.status.conditions[-1:].type}{"\n"}{end}'
  kubectl tfjob get -o custom-columns=NAME:.metadata.name,WORKERS:.spec.tfReplicaSpecs.Worker.replicas
  kubectl tfjob get --sort-by=.metadata.creationTimestamp

Columns: STATE is the job's newest condition (Created, Running, Restarting, Succeeded,
Failed, Suspended): the plain table is the API server's Table, as kubectl get asks for it,
with the TFJob CRD's State column (the last condition the operator set); read from whole
jobs (-o wide, --watch, --sort-by) it is the newest condition that is true, the same but
for the moment the operator sets one false. -o wide adds REPLICAS as
TYPE:active/succeeded/failed, the GPUs the job asks for, DURATION (start to completion, or
to now while it runs) and the NODE of the chief's pod.

Lists are read page by page (--chunk-size, 500), each page made into rows, or written out
for -o json|yaml|name, before the next is asked for. -o json|yaml leave out
metadata.managedFields unless --show-managed-fields, as kubectl does.

Exit codes: 0 listed, 1 a named job was not found or the request failed, 64 usage error.)");
  set_action(*sub, g, o);
}

}  // namespace
TFJOB_REGISTER_COMMAND("get", 110, setup_get);
}  // namespace tfjob::cli
