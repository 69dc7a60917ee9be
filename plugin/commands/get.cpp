// kubectl tfjob get|list [JOB...]: TFJobs as a kubectl-like table (NAME STATE AGE; -o wide
// adds replicas active/succeeded/failed per type, GPUs, DURATION and the chief's NODE), or
// -o json|yaml|name|jsonpath=...|custom-columns=... as kubectl parses them; --sort-by a
// JSONPath; -A for every namespace, -l/--field-selector to select, --show-labels and -L for
// label columns, --watch/--watch-only (with --output-watch-events) to follow changes.
// Lists are read page by page (--chunk-size); the plain table is the server's Table.
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
#include <cstdint>
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
std::string duration(const std::optional<JobStatus>& status, std::time_t now = std::time(nullptr)) {
  if (!status) return "";
  auto start = workflow::parse_time(status->start_time);
  if (!start) return "";
  auto end = workflow::parse_time(status->completion_time);
  return workflow::human_duration(static_cast<long long>((end ? *end : now) - *start));
}

/// The rows of a table held until it is printed (aligned over all of them): the cells of
/// every row in one string, with each cell's length and each row's count of cells, rather
/// than a vector of strings per row (half the memory over thousands of jobs, held while the
/// list's pages are read: a watch's first list).
class HeldRows {
 public:
  void add(const std::vector<std::string>& cells) {
    for (const auto& c : cells) {
      text_ += c;
      lengths_.push_back(static_cast<std::uint32_t>(c.size()));  // a cell is part of one answer: far below 4 GiB
    }
    cells_.push_back(static_cast<std::uint32_t>(cells.size()));
  }
  std::size_t size() const { return cells_.size(); }
  /// The rows as render_table takes them; none are held after.
  std::vector<std::vector<std::string>> release() {
    std::vector<std::vector<std::string>> rows(cells_.size());
    std::size_t cell = 0, at = 0;
    for (std::size_t r = 0; r < rows.size(); ++r)
      for (std::uint32_t i = 0; i < cells_[r]; ++i, ++cell) {
        rows[r].push_back(text_.substr(at, lengths_[cell]));
        at += lengths_[cell];
      }
    *this = HeldRows();
    return rows;
  }

 private:
  std::string text_;
  std::vector<std::uint32_t> lengths_, cells_;
};

/// The columns of the table: -o wide's, -A's NAMESPACE, -L's label columns, --show-labels'
/// LABELS, --output-watch-events' EVENT.
struct Shape {
  bool wide = false, all_ns = false, show_labels = false, events = false;
  std::vector<std::string> label_columns;  ///< -L keys
};

/// Labels as kubectl shows them (labels.FormatLabels: key=value, sorted, "<none>").
std::string labels_text(const std::map<std::string, std::string>& labels) {
  std::string out;
  for (const auto& [k, v] : labels) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out.empty() ? "<none>" : out;
}

/// The cells kubectl's table printer adds after a row's own (printers/tableprinter.go
/// decorateTable): one per -L key (the label's value, "" when the job has none), then
/// --show-labels' LABELS, both from the object's metadata.labels.
void add_label_cells(std::vector<std::string>& r, const ObjectMeta& md, const Shape& sh) {
  for (const auto& key : sh.label_columns) r.push_back(md.label(key));
  if (sh.show_labels) r.push_back(labels_text(md.labels));
}

/// Whether the table has label cells (add_label_cells), so that metadata is decoded only then.
bool has_label_cells(const Shape& sh) { return sh.show_labels || !sh.label_columns.empty(); }

std::vector<std::string> row(const nlohmann::json& job, const Shape& sh, const std::map<std::string, std::string>& chief_nodes = {},
                             const std::string& event = "") {
  const auto view = tfjob::detail::decoded<workflow::JobStatusView>(job);  // not the whole job: a row shows none of its templates
  const auto s = workflow::summarize(view);
  std::vector<std::string> r;
  if (sh.events) r.push_back(event);
  if (sh.all_ns) r.push_back(s.namespace_);
  r.push_back(s.name);
  // a job without conditions: an empty STATE, as kubectl get tfjobs shows the CRD's printer
  // column (the apiserver's tableconvertor gives a nil cell; cli-runtime printTable prints nothing)
  r.push_back(s.state);
  r.push_back(workflow::age(s.creation_timestamp));
  if (sh.wide) {
    r.push_back(workflow::replicas_column(s));
    r.push_back(std::to_string(s.gpus));
    auto d = duration(view.status);
    r.push_back(d.empty() ? "<none>" : d);
    auto n = chief_nodes.find(s.namespace_ + "/" + s.name);
    r.push_back(n == chief_nodes.end() || n->second.empty() ? "<none>" : n->second);
  }
  if (has_label_cells(sh)) add_label_cells(r, metadata_of(job), sh);
  return r;
}

/// One row of the server's Table (kubectl get's request): NAMESPACE from the row's object
/// metadata, NAME and STATE from the cells of the columns so named (the TFJob CRD's
/// printer column State: `.status.conditions[-1:].type`, as kubectl get tfjobs shows it),
/// AGE from the creation timestamp, as row() words it; -L and --show-labels from the row's
/// object metadata (PartialObjectMetadata), as kubectl decorates a server's Table. Empty
/// when the Table has no State column (a CRD without it): the caller then lists the objects.
std::vector<std::string> table_row(const nlohmann::json& r, const nlohmann::json& columns, const Shape& sh) {
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
  const ObjectMeta md = metadata_of(tfjob::detail::value_at(r, "object", nlohmann::json::object()));
  std::vector<std::string> row;
  if (sh.all_ns) row.push_back(md.namespace_);
  std::string name = cell(name_at);
  row.push_back(name.empty() ? md.name : name);
  row.push_back(cell(state_at));  // empty when the server's cell is nil (see row())
  row.push_back(workflow::age(md.creation_timestamp));
  add_label_cells(row, md, sh);
  return row;
}

/// The node of each job's chief pod (the pod the operator marks job-role=master), keyed
/// "ns/job": one list of pods for the whole table, read page by page into the map.
std::map<std::string, std::string> chief_nodes(kube::Client& client, const std::string& ns) {
  std::map<std::string, std::string> out;
  kube::ListParams lp;
  lp.label_selector = std::string(labels::job_role) + "=master";
  // a pod's node and labels are all the column reads: its containers, volumes and status are never built
  lp.omit = {"metadata.managedFields", "metadata.annotations", "spec.containers", "spec.initContainers", "spec.volumes", "status"};
  kube::list_pages(client, kube::RequestBuilder(workflow::resources::pods(), ns), lp, [&](kube::ListPage& page) {
    for (const auto& p : page.items) {
      if (!p.is_object()) continue;
      const auto pod = p.get<k8s::Pod>();
      const std::string& node = pod.spec.node_name;
      auto& slot = out[pod.metadata.namespace_ + "/" + pod.metadata.label(labels::job_name)];
      if (slot.empty() || !node.empty()) slot = node;
    }
    return true;
  });
  return out;
}

/// A JSONPath a flag gave, compiled; a template that does not parse is refused in the one
/// form, kubectl's words ("error parsing jsonpath {.x, unclosed action") after the flag.
kube::JsonPath flag_jsonpath(const char* flag, const std::string& expr, bool relaxed, const char* right) {
  try {
    return relaxed ? kube::JsonPath(kube::relaxed_jsonpath(expr), true) : kube::JsonPath(expr);
  } catch (const tfjob::error& e) {
    throw flag::usage(flag, e.what(), right);
  }
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
    cols.push_back({part.substr(0, colon),
                    flag_jsonpath("--output", part.substr(colon + 1), true, "give custom-columns=HEADER:JSONPATH[,...], e.g. NAME:.metadata.name")});
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

/// -o json|yaml|name as an OutputFormat (the table forms are printed by the command itself).
OutputFormat data_format(const std::string& output) {
  return output == "json" ? OutputFormat::json : output == "yaml" ? OutputFormat::yaml : OutputFormat::name;
}

/// A job as kubectl prints it: with its kind and apiVersion, without its managed fields
/// unless asked for (kubectl --show-managed-fields).
void typed_one(nlohmann::json& j, bool managed_fields) {
  if (!j.contains("apiVersion")) j["apiVersion"] = tfjob::api_version;
  if (!j.contains("kind")) j["kind"] = tfjob::kind;
  if (!managed_fields) omit_managed_fields(j);
}
std::vector<nlohmann::json> typed(std::vector<nlohmann::json> items, bool managed_fields) {
  for (auto& j : items) typed_one(j, managed_fields);
  return items;
}

struct GetCommand {
  std::vector<std::string> names;
  std::string output;
  bool all_namespaces = false;
  std::string selector, field_selector;
  bool watch = false, watch_only = false, output_watch_events = false;
  bool no_headers = false, show_labels = false, show_managed_fields = false;
  std::vector<std::string> label_columns;
  std::string sort_by;

  /// -o as kubectl parses it: FORMAT or FORMAT=ARG (jsonpath, custom-columns, read by the
  /// flag layer); the JSONPath of --sort-by; the combinations kubectl refuses; no request.
  void validate() {
    if (output.rfind("jsonpath=", 0) == 0)
      jsonpath.emplace(flag_jsonpath("--output", output.substr(9), false, "give jsonpath=TEMPLATE, e.g. jsonpath={.metadata.name}"));
    else if (output.rfind("custom-columns=", 0) == 0) columns = parse_custom_columns(output.substr(15));
    if (!sort_by.empty()) (void)flag_jsonpath("--sort-by", sort_by, true, "give a JSONPath, e.g. .metadata.name");
    if (!names.empty() && all_namespaces)
      throw flag::name_with_all_namespaces();
    // cli-runtime resource/builder.go visitBySelector: "name cannot be provided when a selector is specified"
    if (!names.empty() && (!selector.empty() || !field_selector.empty()))
      throw flag::usage(selector.empty() ? "--field-selector" : "--selector", "name cannot be provided when a selector is specified",
                        "give job names or a selector, not both");
    if (output_watch_events && !watch && !watch_only)
      throw flag::usage("--output-watch-events", "has no effect without --watch or --watch-only", "add --watch, or leave it out");
    shape.wide = output == "wide";
    shape.all_ns = all_namespaces;
    shape.show_labels = show_labels;
    shape.events = output_watch_events;
    shape.label_columns = label_columns;
  }
  int run(Context& ctx);

 private:
  std::optional<kube::JsonPath> jsonpath;
  std::vector<Column> columns;
  Shape shape;
  /// What a watch has printed so far: whether a table (or custom-columns) header, and how
  /// many documents (-o yaml separates the next one with "---", as kubectl's YAMLPrinter).
  bool header_printed_ = false;
  std::size_t documents_ = 0;

  bool wide() const { return output == "wide"; }
  bool table() const { return output.empty() || wide(); }
  bool watching() const { return watch || watch_only; }
  /// Whether a printed object keeps metadata.managedFields: --show-managed-fields, or a
  /// watch event (kubectl's OmitManagedFieldsPrinter reaches objects, not the object inside
  /// a metav1.WatchEvent, so kubectl get --output-watch-events prints them).
  bool managed_fields() const { return show_managed_fields || output_watch_events; }
  kube::ListParams list_params() const {
    kube::ListParams lp;
    lp.label_selector = selector;
    lp.field_selector = field_selector;
    return lp;
  }

  /// What one listing prints, fed one job at a time (add) and closed once (finish): rows of
  /// a table (aligned over all rows, so printed at the end: the output is what is held), the
  /// items of a List written as they come, or, under a watch, each job as kubectl's watch
  /// prints it (one document each, a WatchEvent with --output-watch-events). One per
  /// listing; `ns` is the namespace listed.
  class Listing {
   public:
    Listing(GetCommand& o, Context& ctx, kube::Client& client, std::string ns, bool watching)
        : o_(o), ctx_(ctx), client_(client), ns_(std::move(ns)) {
      if (!watching && !o.table() && o.columns.empty() && !o.jsonpath) writer_.emplace(ctx.out, data_format(o.output));
    }
    /// Whether this listing can use the server's Table (kubectl get's request): the plain
    /// table shows NAME, STATE and AGE, all of which the Table's rows give, and -L and
    /// --show-labels, which the rows' object metadata gives, so the server need not encode
    /// and send whole jobs (most of their bytes are pod templates). -o wide's columns come
    /// from the jobs' spec and status, which a Table row does not carry.
    bool wants_table() const { return o_.table() && !o_.wide() && o_.columns.empty() && !o_.jsonpath && !o_.shape.events; }
    /// One page as the server sent it: its objects, or its Table rows. False when a Table
    /// lacks the State column: the caller lists the objects instead.
    bool add_page(kube::ListPage& page) {
      if (page.columns.is_array()) {
        for (const auto& r : page.items) {
          auto cells = table_row(r, page.columns, o_.shape);
          if (cells.empty()) return false;
          rows_.add(cells);
          ++n_;
        }
        return true;
      }
      for (auto& j : page.items) add(j);
      return true;
    }
    /// One job of the list.
    void add(nlohmann::json& job) {
      if (writer_) {
        typed_one(job, o_.show_managed_fields);
        writer_->add(job);
      } else if (o_.table()) {
        if (o_.wide() && !nodes_) nodes_ = chief_nodes(client_, ns_);  // one list of chief pods, when there is a job
        rows_.add(row(job, o_.shape, nodes_ ? *nodes_ : std::map<std::string, std::string>{}, "ADDED"));
      } else if (!o_.columns.empty()) {
        rows_.add(custom_row(o_.columns, o_.subject(job, "ADDED")));
      } else {  // a watch's first listing: each job as the watch prints it
        o_.print_document(ctx_, job, "ADDED");
      }
      ++n_;
    }
    /// The end of the list: the table, or the List closed; "No resources found" for an
    /// empty table (unless `quiet_when_empty`).
    void finish(bool quiet_when_empty = false) {
      if (writer_) return writer_->finish();
      if (!o_.table() && o_.columns.empty()) return;
      std::vector<std::string> h;
      if (!o_.columns.empty()) {
        for (const auto& c : o_.columns) h.push_back(c.header);
      } else if (n_ == 0) {
        if (!quiet_when_empty)
          ctx_.err << (o_.all_namespaces ? std::string("No resources found") : "No resources found in " + ns_ + " namespace.") << "\n";
        return;
      } else {
        h = header(o_.shape);
      }
      if (n_ == 0) return;
      auto rows = rows_.release();
      if (!o_.header_printed_) rows.insert(rows.begin(), h);
      o_.header_printed_ = true;
      ctx_.out << workflow::render_table(rows) << std::flush;
    }

   private:
    GetCommand& o_;
    Context& ctx_;
    kube::Client& client_;
    std::string ns_;
    std::optional<ListWriter> writer_;
    std::optional<std::map<std::string, std::string>> nodes_;
    HeldRows rows_;
    std::size_t n_ = 0;
  };

  /// Jobs by name (each a request; a missing one said as kubectl does).
  int get_named(Context& ctx, const std::string& ns, std::vector<nlohmann::json>& jobs) const;
  /// Every job at once, for the outputs that need the whole list first (--sort-by, jsonpath),
  /// as kubectl holds it for them.
  std::vector<nlohmann::json> list_whole(kube::Client& client, const std::string& ns) const;
  /// The list page by page, each job printed (or made a row) as its page arrives; the plain
  /// table asks for the server's Table, as kubectl get does.
  void list_streamed(Context& ctx, kube::Client& client, const std::string& ns);
  /// Prints jobs already held (by name, or the whole list): the table, a JSONPath, columns, objects.
  void print_held(Context& ctx, kube::Client& client, const std::string& ns, std::vector<nlohmann::json>& jobs);
  /// --watch/--watch-only of the whole namespace (no names): the watcher lists (page by
  /// page, into the listing, or nowhere for --watch-only) and then watches from that list's
  /// resourceVersion, so the first listing and the changes come from one list; a list or
  /// watch cut by an API server restart is taken up again (kube::Watcher), never ended.
  int watch_all(Context& ctx, const std::string& ns);
  /// --watch/--watch-only of named jobs, after their first print (`jobs`: as got).
  int watch_named(Context& ctx, const std::string& ns, const std::vector<nlohmann::json>& jobs, int rc);
  /// One change as a watch prints it: a table row (Deleted for a deletion, or its EVENT), a
  /// custom-columns row, or the object. `final_state_unknown`: a deletion a relist found,
  /// told with what the watcher remembered (kube::WatchEvent), so a row's columns that come
  /// from the job's spec and status say <unknown>, and a document is that tombstone.
  void print_change(Context& ctx, const nlohmann::json& job, kube::EventType type, const char* what, bool final_state_unknown = false);
  /// What -o jsonpath and custom-columns read of a job under a watch: the job, or with
  /// --output-watch-events the metav1.WatchEvent {type, object} (kubectl's printers).
  nlohmann::json subject(nlohmann::json job, const char* event) const;
  /// One job (or event) as kubectl's watch prints a document: -o json (indented; a
  /// WatchEvent on one line), yaml ("---" between documents), name, jsonpath.
  void print_document(Context& ctx, nlohmann::json job, const char* event);
  /// A watcher's StreamOptions: --request-timeout bounds the watch, which then ends with exit 0 (kubectl get --watch).
  static kube::StreamOptions watch_options(const kube::Client& client);
  /// The watcher for `ns` with the command's selectors (`name`: one job's, by its name).
  kube::Watcher<kube::DynamicObject> watcher(kube::Client& client, const std::string& ns, const std::string& name = "") const;
};

int GetCommand::run(Context& ctx) {
  header_printed_ = no_headers;
  documents_ = 0;
  auto& client = ctx.tfjobs();
  const std::string ns = all_namespaces ? "" : client.namespace_();
  if (names.empty() && watching()) return watch_all(ctx, ns);
  if (!names.empty()) {
    std::vector<nlohmann::json> jobs;
    const int rc = get_named(ctx, ns, jobs);
    if (!watching()) {
      print_held(ctx, client, ns, jobs);
      return rc;
    }
    if (!watch_only) {  // --watch-only: the jobs only say where the watch starts (kubectl get --watch-only)
      Listing l(*this, ctx, client, ns, true);
      for (auto j : jobs) l.add(j);
      l.finish(true);
    }
    return watch_named(ctx, ns, jobs, rc);
  }
  if (!sort_by.empty() || jsonpath) {
    auto jobs = list_whole(client, ns);
    print_held(ctx, client, ns, jobs);
    return exit_code::ok;
  }
  list_streamed(ctx, client, ns);
  return exit_code::ok;
}

void GetCommand::list_streamed(Context& ctx, kube::Client& client, const std::string& ns) {
  kube::ListParams lp = list_params();
  std::optional<Listing> l;
  l.emplace(*this, ctx, client, ns, false);
  lp.as_table = l->wants_table();
  const kube::RequestBuilder rb(workflow::resources::tfjobs(), ns);
  if (!kube::list_pages(client, rb, lp, [&](kube::ListPage& page) { return l->add_page(page); })) {
    l.emplace(*this, ctx, client, ns, false);  // a Table without State: the jobs themselves
    lp.as_table = false;
    kube::list_pages(client, rb, lp, [&](kube::ListPage& page) { return l->add_page(page); });
  }
  l->finish();
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
  kube::list_pages(client, kube::RequestBuilder(workflow::resources::tfjobs(), ns), list_params(), [&](kube::ListPage& page) {
    for (auto& j : page.items) jobs.push_back(std::move(j));
    return true;
  });
  return jobs;
}

void GetCommand::print_held(Context& ctx, kube::Client& client, const std::string& ns, std::vector<nlohmann::json>& jobs) {
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
    Listing l(*this, ctx, client, ns, false);
    for (auto& j : jobs) l.add(j);
    l.finish(!names.empty());
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

kube::Watcher<kube::DynamicObject> GetCommand::watcher(kube::Client& client, const std::string& ns, const std::string& name) const {
  kube::Api<kube::DynamicObject> api(client, workflow::resources::tfjobs(), ns);
  kube::WatchParams wp;
  wp.label_selector = selector;
  wp.field_selector = field_selector;
  if (!name.empty()) wp.field_selector = "metadata.name=" + name;  // kubectl's watch of one object
  // what no printed row or document reads is never built, in the list's pages or in events:
  // managed fields (unless shown), for a table the annotations, for a plain row the spec (pod
  // templates, most of a job's bytes), for -o name all but the kind and metadata. What the
  // watcher remembers of each job is small and the same whatever -o is (kube::WatchKnown).
  if (!managed_fields()) wp.omit.push_back("metadata.managedFields");
  if (table()) wp.omit.push_back("metadata.annotations");
  if (table() && !wide()) wp.omit.push_back("spec");
  if (output == "name") wp.omit.insert(wp.omit.end(), {"spec", "status", "metadata.annotations"});
  auto w = api.watcher(wp);
  return w;
}

nlohmann::json GetCommand::subject(nlohmann::json job, const char* event) const {
  typed_one(job, managed_fields());
  if (!output_watch_events) return job;
  return nlohmann::json{{"type", event}, {"object", std::move(job)}};  // metav1.WatchEvent
}

void GetCommand::print_document(Context& ctx, nlohmann::json job, const char* event) {
  typed_one(job, managed_fields());
  if (jsonpath) {
    ctx.out << jsonpath->execute(subject(std::move(job), event));
  } else if (output == "json") {
    // kubectl's JSONPrinter: an object indented, a WatchEvent as json.Marshal writes it (type, then object, one line)
    if (output_watch_events)
      ctx.out << "{\"type\":" << nlohmann::json(event).dump() << ",\"object\":" << kubectl_json(job, -1) << "}\n";
    else
      ctx.out << kubectl_json(job) << "\n";
  } else if (output == "yaml") {
    if (documents_ > 0) ctx.out << "---\n";  // YAMLPrinter: a separator before every document but the first
    ctx.out << to_yaml(subject(std::move(job), event));
  } else {
    ctx.out << object_name(job) << "\n";
  }
  ++documents_;
  ctx.out << std::flush;
}

void GetCommand::print_change(Context& ctx, const nlohmann::json& j, kube::EventType type, const char* what, bool final_state_unknown) {
  if (table() || !columns.empty()) {
    std::vector<std::vector<std::string>> r;
    if (!header_printed_) {
      if (table()) {
        r.push_back(header(shape));
      } else {
        r.emplace_back();
        for (const auto& c : columns) r.back().push_back(c.header);
      }
    }
    header_printed_ = true;
    if (table()) {
      auto cells = row(j, shape, {}, what);
      const std::size_t state = (shape.events ? 1 : 0) + (all_namespaces ? 1 : 0) + 1;  // after EVENT, NAMESPACE, NAME
      if (final_state_unknown) {
        // REPLICAS, GPUS, DURATION (NODE is <none> for every change): the job's last state is not known
        if (shape.wide) for (std::size_t i = state + 2; i < state + 5; ++i) cells[i] = "<unknown>";
        cells[state] = shape.events ? "<unknown>" : "Deleted";
      } else if (type == kube::EventType::deleted && !shape.events) {
        cells[state] = "Deleted";
      }
      r.push_back(std::move(cells));
    } else {
      r.push_back(custom_row(columns, subject(j, what)));
    }
    ctx.out << workflow::render_table(r) << std::flush;
    return;
  }
  print_document(ctx, j, what);
}

int GetCommand::watch_all(Context& ctx, const std::string& ns) {
  auto& client = ctx.tfjobs();
  auto w = watcher(client, ns);
  std::optional<Listing> first;  // the first list, until the watcher has delivered it whole
  if (!watch_only) first.emplace(*this, ctx, client, ns, true);
  bool listing = true;  // --watch-only: the first list only says where the watch starts
  w.on_synced = [&] {
    if (!listing) return;  // a relist after a 410: its changes were printed as changes
    listing = false;
    if (first) first->finish(true);
    first.reset();
  };
  w.run([&](const kube::WatchEvent<kube::DynamicObject>& ev) {
    if (listing) {
      if (first) {
        nlohmann::json j = ev.object.json;
        first->add(j);
      }
    } else {
      print_change(ctx, ev.object.json, ev.type, kube::to_string(ev.type), ev.final_state_unknown);
    }
    return true;
  }, watch_options(client));
  if (first) first->finish(true);  // the deadline came during the first list
  return exit_code::ok;
}

int GetCommand::watch_named(Context& ctx, const std::string& ns, const std::vector<nlohmann::json>& jobs, int rc) {
  auto& client = ctx.tfjobs();
  std::set<std::string> wanted(names.begin(), names.end());
  std::map<std::string, std::string> seen;  // ns/name -> resourceVersion printed
  for (const auto& j : jobs) {
    const ObjectMeta m = metadata_of(j);
    seen[m.namespace_ + "/" + m.name] = m.resource_version;
  }
  auto w = watcher(client, ns, names.size() == 1 ? names[0] : "");
  w.run([&](const kube::WatchEvent<kube::DynamicObject>& ev) {
    const std::string key = ev.object.namespace_() + "/" + ev.object.name();
    if (!wanted.count(ev.object.name())) return true;
    auto it = seen.find(key);
    if (ev.type != kube::EventType::deleted && it != seen.end() && it->second == ev.object.resource_version()) return true;
    // the watcher's own list tells a job already printed as ADDED: to the user it changed
    const char* what = ev.type == kube::EventType::added && it != seen.end() ? "MODIFIED" : kube::to_string(ev.type);
    if (ev.type == kube::EventType::deleted) seen.erase(key);
    else seen[key] = ev.object.resource_version();
    print_change(ctx, ev.object.json, ev.type, what, ev.final_state_unknown);
    return true;
  }, watch_options(client));
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
  flag::boolean(*sub, "-w,--watch", o->watch,
                "After listing, print each change as it happens (Ctrl-C to stop); resumes across API server restarts");
  flag::boolean(*sub, "--watch-only", o->watch_only, "Print each change as it happens, without listing first");
  flag::boolean(*sub, "--output-watch-events", o->output_watch_events,
                "With --watch or --watch-only: say each change's event (ADDED, MODIFIED, DELETED); existing jobs are ADDED");
  flag::boolean(*sub, "--no-headers", o->no_headers, "Omit the table header");
  flag::boolean(*sub, "--show-labels", o->show_labels, "Add the jobs' labels as the last column");
  flag::text(*sub, "-L,--label-columns", o->label_columns, "A column with the value of this label (repeatable, or KEY1,KEY2)", "KEY")
      ->delimiter(',');
  flag::boolean(*sub, "--show-managed-fields", o->show_managed_fields,
                "Keep metadata.managedFields in -o json|yaml|jsonpath (kubectl leaves them out by default)");
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

Columns: STATE is the job's newest condition (Created, Running, Restarting, Succeeded,
Failed, Suspended): the plain table (with -L and --show-labels too) is the API server's
Table, as kubectl get asks for it, with the TFJob CRD's State column (the last condition
the operator set); read from whole jobs (-o wide, --watch, --sort-by) it is the newest
condition that is true, the same but for the moment the operator sets one false. -o wide
adds REPLICAS as TYPE:active/succeeded/failed, the GPUs the job asks for, DURATION (start
to completion, or to now while it runs) and the NODE of the chief's pod.

Lists are read page by page (--chunk-size, 500), each page made into rows, or written out
for -o json|yaml|name, before the next is asked for. -o json|yaml|jsonpath leave out
metadata.managedFields unless --show-managed-fields, as kubectl does. As kubectl's, a
watch prints each job as a document of its own (-o json|yaml|name), unsorted, and job
names cannot be combined with -l or --field-selector.

Exit codes: 0 listed, 1 a named job was not found or the request failed, 64 usage error.
The table for every command: kubectl tfjob --help.)");
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
