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
inline OutputFormat parse_output_format(const std::string& o, const std::vector<std::string>& allowed = {}) {
  auto ok = [&](const char* f) {
    if (allowed.empty()) return true;
    for (const auto& a : allowed)
      if (a == f) return true;
    return false;
  };
  auto list = [&] {
    std::string s;
    for (const auto& a : (allowed.empty() ? std::vector<std::string>{"json", "yaml", "name", "wide"} : allowed))
      s += (s.empty() ? "" : ", ") + a;
    return s;
  };
  if (o.empty()) return OutputFormat::table;
  if (o == "json" && ok("json")) return OutputFormat::json;
  if (o == "yaml" && ok("yaml")) return OutputFormat::yaml;
  if (o == "name" && ok("name")) return OutputFormat::name;
  if (o == "wide" && ok("wide")) return OutputFormat::wide;
  throw error("unable to match a printer suitable for the output format \"" + o +
              "\", allowed formats are: " + list());
}

/// kubectl's `-o name`: `tfjob.kubeflow.org/mnist` (lower-case kind.group/name).
inline std::string object_name(const nlohmann::json& obj) {
  std::string kind = tfjob::detail::value_at(obj, "kind", std::string());
  for (auto& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string av = tfjob::detail::value_at(obj, "apiVersion", std::string());
  auto slash = av.find('/');
  std::string group = slash == std::string::npos ? "" : av.substr(0, slash);
  return kind + (group.empty() ? "" : "." + group) + "/" + metadata_of(obj).name;
}

/// An object as kubectl's -o json writes it: Go's json.MarshalIndent(obj, "", "    ")
/// (cli-runtime printers/json.go): keys sorted, 4 spaces, and Go's HTML-safe escaping of
/// `<`, `>`, `&`, U+2028 and U+2029 inside strings (encoding/json's default), so the bytes
/// are kubectl's. Those characters occur only inside JSON strings, so the escaping is a
/// plain substitution over the text. `indent` -1: Go's json.Marshal (no spaces), as kubectl
/// prints a watch event (printers/json.go, the *metav1.WatchEvent case).
inline std::string kubectl_json(const nlohmann::json& obj, int indent = 4) {
  const std::string text = obj.dump(indent);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else if (c == '\xE2' && i + 2 < text.size() && text[i + 1] == '\x80' && (text[i + 2] == '\xA8' || text[i + 2] == '\xA9')) {
      out += text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

/// How several objects print. `documents`: as `kubectl create -f` prints what it made (one
/// object alone, several as a `List` in json and `---`-separated documents in yaml). `list`:
/// as `kubectl get` prints a list request's answer (a `List`, even of one object).
enum class Many { documents, list };

/// Prints objects as kubectl does for `-o json|yaml|name`.
inline void print_objects(std::ostream& out, const std::vector<nlohmann::json>& objs, OutputFormat f,
                          Many many = Many::documents) {
  const nlohmann::json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", objs}, {"metadata", {{"resourceVersion", ""}}}};
  switch (f) {
    case OutputFormat::json:
      out << kubectl_json(objs.size() == 1 && many == Many::documents ? objs[0] : list) << "\n";
      break;
    case OutputFormat::yaml:
      out << (many == Many::list ? to_yaml(list) : to_yaml_documents(objs));
      break;
    case OutputFormat::name:
      for (const auto& o : objs) out << object_name(o) << "\n";
      break;
    default:
      throw error("print_objects: table output needs a Table");
  }
}

/// kubectl's `--show-managed-fields=false` (its default since 1.21): metadata.managedFields
/// is left out of -o json|yaml (cli-runtime printers.OmitManagedFieldsPrinter).
inline void omit_managed_fields(nlohmann::json& obj) {
  if (auto md = obj.find("metadata"); md != obj.end() && md->is_object()) md->erase("managedFields");
}

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
inline bool use_color(const std::string& policy, int fd = 1) {
  if (policy == "always") return true;
  if (policy == "never") return false;
  const char* nc = std::getenv("NO_COLOR");
  if (nc && *nc) return false;
  const char* term = std::getenv("TERM");
  if (term && std::string(term) == "dumb") return false;
  return ::isatty(fd) != 0;
}

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
inline const char* pod_color(const std::string& name) {
  static const char* palette[] = {"\033[36m", "\033[32m", "\033[35m", "\033[33m", "\033[34m", "\033[31m",
                                  "\033[96m", "\033[92m", "\033[95m", "\033[93m", "\033[94m", "\033[91m"};
  std::uint32_t h = 2166136261u;
  for (unsigned char c : name) h = (h ^ c) * 16777619u;
  return palette[h % (sizeof(palette) / sizeof(palette[0]))];
}

/// `text` wrapped in `code` when `on`.
inline std::string paint(const std::string& text, const char* code, bool on) {
  return on ? std::string(code) + text + color::reset : text;
}

}  // namespace tfjob::cli
