#pragma once
/// \file Output like kubectl: aligned tables with upper-case headers (kubectl's printers
/// use a tabwriter with 3 spaces of padding), `-o json|yaml|name|wide`, and colour policy
/// (`--color auto|always|never`, NO_COLOR honoured, a stable colour per pod name as stern).

#include <tfjob/api/manifest.hpp>
#include <tfjob/api/meta.hpp>  // metadata_of
#include <tfjob/detail/json.hpp>
#include <tfjob/detail/table.hpp>
#include <tfjob/error.hpp>

#include <nlohmann/json.hpp>
#include <unistd.h>  // isatty

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <exception>  // uncaught_exceptions
#include <iostream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace tfjob::cli {

/// The `-o` formats.
enum class OutputFormat { table, wide, json, yaml, name };

/// Parses `-o`; "" is the table. `allowed` lists the formats a command supports
/// (empty = all). Throws `tfjob::error` naming the supported ones.
OutputFormat parse_output_format(const std::string& o, const std::vector<std::string>& allowed = {});

/// kubectl's `-o name`: `tfjob.kubeflow.org/mnist` (lower-case kind.group/name).
std::string object_name(const nlohmann::json& obj);

/// An object as kubectl's -o json writes it: Go's json.MarshalIndent(obj, "", "    ")
/// (cli-runtime printers/json.go): keys sorted, 4 spaces, and Go's HTML-safe escaping of
/// `<`, `>`, `&`, U+2028 and U+2029 inside strings (encoding/json's default), so the bytes
/// are kubectl's. Those characters occur only inside JSON strings, so the escaping is a
/// plain substitution over the text. `indent` -1: Go's json.Marshal (no spaces), as kubectl
/// prints a watch event (printers/json.go, the *metav1.WatchEvent case).
std::string kubectl_json(const nlohmann::json& obj, int indent = 4);

/// How several objects print. `documents`: as `kubectl create -f` prints what it made (one
/// object alone, several as a `List` in json and `---`-separated documents in yaml). `list`:
/// as `kubectl get` prints a list request's answer (a `List`, even of one object).
enum class Many { documents, list };

/// Prints objects as kubectl does for `-o json|yaml|name`.
void print_objects(std::ostream& out, const std::vector<nlohmann::json>& objs, OutputFormat f,
                   Many many = Many::documents);

/// kubectl's `--show-managed-fields=false` (its default since 1.21): metadata.managedFields
/// is left out of -o json|yaml (cli-runtime printers.OmitManagedFieldsPrinter).
void omit_managed_fields(nlohmann::json& obj);

/// A list answer printed one item at a time, as `kubectl get -o json|yaml|name` prints a
/// list (a `kind: List` whose items are the objects), byte for byte what print_objects
/// writes for the whole list (Many::list) but without holding it: each item is written
/// when it is added. json: Go's json.MarshalIndent(list, "", "    ") layout (keys sorted,
/// 4 spaces); yaml: kubectl's block style; name: one line per item.
class ListWriter {
 public:
  ListWriter(std::ostream& out, OutputFormat f) : out_(out), f_(f) {}
  ListWriter(const ListWriter&) = delete;
  ListWriter& operator=(const ListWriter&) = delete;
  /// Closes the list unless an exception is on its way out: a list that failed half-way
  /// stays unclosed, so that no reader takes it for the whole list.
  ~ListWriter() {
    if (std::uncaught_exceptions() == uncaught_) finish();
  }

  void add(const nlohmann::json& item) {
    switch (f_) {
      case OutputFormat::json: {
        out_ << (n_ == 0 ? "{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n" : ",\n");
        // the item at the depth of the list's items: 8 spaces before each of its lines
        // (a newline inside a JSON string is escaped, so each '\n' starts a line)
        const std::string text = kubectl_json(item);
        std::string indented = "        ";
        indented.reserve(text.size() + text.size() / 8);
        for (char c : text) {
          indented += c;
          if (c == '\n') indented += "        ";
        }
        out_ << indented;
        break;
      }
      case OutputFormat::yaml: {
        std::string text = n_ == 0 ? "apiVersion: v1\nitems:\n" : "";
        if (item.is_object() && !item.empty()) {
          text += "- ";
          tfjob::detail::emit_map(text, item, 2, true);  // as emit_seq lays out "items:"
        } else {
          text += "- " + to_yaml(item);
        }
        out_ << text;
        break;
      }
      case OutputFormat::name:
        out_ << object_name(item) << "\n";
        break;
      default:
        throw error("ListWriter: table output needs a Table");
    }
    ++n_;
  }

  /// Closes the list (once; the destructor calls it too).
  void finish() {
    if (done_) return;
    done_ = true;
    if (f_ == OutputFormat::json)
      out_ << (n_ == 0 ? "{\n    \"apiVersion\": \"v1\",\n    \"items\": [],\n" : "\n    ],\n")
           << "    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n";
    else if (f_ == OutputFormat::yaml)
      out_ << (n_ == 0 ? "apiVersion: v1\nitems: []\n" : "") << "kind: List\nmetadata:\n  resourceVersion: \"\"\n";
    out_ << std::flush;
  }

  std::size_t size() const { return n_; }

 private:
  std::ostream& out_;
  OutputFormat f_;
  std::size_t n_ = 0;
  bool done_ = false;
  int uncaught_ = std::uncaught_exceptions();
};

/// Objects printed one at a time, byte for byte as print_objects prints them together
/// (Many::documents), for commands that make objects one after another (submit -f): json,
/// one object alone or several as one List (ListWriter); yaml, documents split by `---`;
/// name, a line each. `many`: whether more than one object may come (known before the first).
class ObjectPrinter {
 public:
  ObjectPrinter(std::ostream& out, OutputFormat f, bool many) : out_(out), f_(f) {
    if (f == OutputFormat::table) throw error("ObjectPrinter: table output needs a Table");
    if (f == OutputFormat::json && many) list_.emplace(out, f);
  }

  void add(const nlohmann::json& obj) {
    if (list_) list_->add(obj);
    else if (f_ == OutputFormat::json) out_ << kubectl_json(obj) << "\n";
    else if (f_ == OutputFormat::yaml) out_ << (n_ ? "---\n" : "") << to_yaml(obj);
    else out_ << object_name(obj) << "\n";
    ++n_;
  }

  /// Closes a List (once; its destructor does too unless an exception is on its way out).
  void finish() {
    if (list_) list_->finish();
  }

 private:
  std::ostream& out_;
  OutputFormat f_;
  std::optional<ListWriter> list_;
  std::size_t n_ = 0;
};

/// An aligned table: upper-case headers, columns padded with 3 spaces, no trailing spaces.
class Table {
 public:
  explicit Table(std::vector<std::string> headers) : headers_(std::move(headers)) {
    for (auto& h : headers_)
      for (auto& c : h) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  /// Headers printed as given, for units whose case matters (`BANDWIDTH GB/s`, like
  /// kubectl top's `CPU(cores)`).
  struct KeepCase {};
  Table(std::vector<std::string> headers, KeepCase) : headers_(std::move(headers)) {}
  /// Adds a row; missing cells print empty, extra cells are an error.
  void add_row(std::vector<std::string> cells) {
    if (cells.size() > headers_.size()) throw error("table row has more cells than headers");
    cells.resize(headers_.size());
    rows_.push_back(std::move(cells));
  }
  /// Colours one cell (escape codes are not counted in the width).
  void color_cell(std::size_t row, std::size_t col, std::string code) {
    colors_.push_back({row, col, std::move(code)});
  }
  std::size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }

  void print(std::ostream& out, bool headers = true) const {
    std::vector<std::vector<std::string>> rows;
    if (headers) rows.push_back(headers_);
    rows.insert(rows.end(), rows_.begin(), rows_.end());
    const std::size_t first = headers ? 1 : 0;  // rows_ index = row - first
    out << tfjob::detail::render_table(rows, "", [&](std::size_t row, std::size_t col, const std::string& cell) {
      if (row < first) return cell;
      std::string code;
      for (const auto& c : colors_)
        if (c.row == row - first && c.col == col) code = c.code;
      return code.empty() ? cell : code + cell + "\033[0m";
    });
  }

 private:
  struct CellColor {
    std::size_t row, col;
    std::string code;
  };
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<CellColor> colors_;
};

// ---- colour --------------------------------------------------------------------------

/// Whether to colour what goes to `fd`: `always` yes, `never` no, `auto` when `fd` is a
/// terminal, TERM is not "dumb" and NO_COLOR is unset or empty (no-color.org).
bool use_color(const std::string& policy, int fd = 1);

namespace color {
inline constexpr const char* reset = "\033[0m";
inline constexpr const char* bold = "\033[1m";
inline constexpr const char* red = "\033[31m";
inline constexpr const char* green = "\033[32m";
inline constexpr const char* yellow = "\033[33m";
inline constexpr const char* faint = "\033[2m";
}  // namespace color

/// A stable colour for a pod name (FNV-1a hash into stern's palette), so each pod keeps
/// its colour across runs.
const char* pod_color(const std::string& name);

/// `text` wrapped in `code` when `on`.
std::string paint(const std::string& text, const char* code, bool on);

}  // namespace tfjob::cli
