#pragma once
/// \file Manifests as text: YAML (multi-document) or JSON in, `nlohmann::json` out, with
/// the line and column of any syntax error; and YAML out the way kubectl prints it
/// (keys sorted, block style, sequences flush with their key, strings quoted only when a
/// YAML 1.1 reader would take them for something else, as go-yaml v2 does).
///
/// Scalars are resolved like sigs.k8s.io/yaml (go-yaml v2, YAML 1.1): `yes`/`on` are
/// booleans, `~` is null, `0x1F` an integer; quoted scalars are always strings.

#include <tfjob/api/types.hpp>
#include <tfjob/error.hpp>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>  // YAML::Load / LoadAll and the parser's error marks

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace tfjob {

namespace detail {

inline bool yaml_is_null(const std::string& s) { return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL"; }

inline int yaml_bool(const std::string& s) {  // 1 true, 0 false, -1 not a bool (YAML 1.1)
  static const char* t[] = {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"};
  static const char* f[] = {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"};
  for (auto* x : t)
    if (s == x) return 1;
  for (auto* x : f)
    if (s == x) return 0;
  return -1;
}

/// YAML 1.1 integer (decimal, 0x hex, 0 octal, 0b binary, `_` separators) -> json.
inline bool yaml_int(const std::string& s, nlohmann::json& out) {
  std::string t;
  for (char c : s)
    if (c != '_') t += c;
  if (t.empty()) return false;
  std::size_t i = 0;
  bool neg = false;
  if (t[0] == '+' || t[0] == '-') {
    neg = t[0] == '-';
    i = 1;
  }
  if (i >= t.size()) return false;
  int base = 10;
  if (t.size() > i + 2 && t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'X')) base = 16, i += 2;
  else if (t.size() > i + 2 && t[i] == '0' && (t[i + 1] == 'b' || t[i + 1] == 'B')) base = 2, i += 2;
  else if (t.size() > i + 1 && t[i] == '0') base = 8, i += 1;
  if (s.find('_') != std::string::npos && base == 10 && false) return false;
  unsigned long long v = 0;
  for (; i < t.size(); ++i) {
    int d;
    char c = t[i];
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return false;
    if (d >= base) return false;
    if (v > (std::numeric_limits<unsigned long long>::max() - static_cast<unsigned>(d)) / static_cast<unsigned>(base))
      return false;  // too large: go-yaml falls back to float; so do we
    v = v * static_cast<unsigned>(base) + static_cast<unsigned>(d);
  }
  if (neg) {
    if (v > static_cast<unsigned long long>(std::numeric_limits<long long>::max()) + 1ULL) return false;
    out = v == static_cast<unsigned long long>(std::numeric_limits<long long>::max()) + 1ULL
              ? std::numeric_limits<long long>::min()
              : -static_cast<long long>(v);
  } else if (v <= static_cast<unsigned long long>(std::numeric_limits<long long>::max())) {
    out = static_cast<long long>(v);
  } else {
    out = v;
  }
  return true;
}

/// YAML 1.1 float (`1.5`, `-2e3`, `.inf`, `.nan`) -> json.
inline bool yaml_float(const std::string& s, nlohmann::json& out) {
  if (s == ".inf" || s == ".Inf" || s == ".INF" || s == "+.inf" || s == "+.Inf" || s == "+.INF" ||
      s == "-.inf" || s == "-.Inf" || s == "-.INF" || s == ".nan" || s == ".NaN" || s == ".NAN") {
    // JSON has no infinities or NaN: keep the text, as a string (the API would refuse it).
    return false;
  }
  // [-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?
  std::size_t i = 0;
  std::string t;
  for (char c : s)
    if (c != '_') t += c;
  if (t.empty()) return false;
  if (t[i] == '+' || t[i] == '-') ++i;
  std::size_t digits = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++digits;
  bool dot = false;
  if (i < t.size() && t[i] == '.') {
    dot = true;
    ++i;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++digits;
  }
  if (digits == 0) return false;
  bool exp = false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    exp = true;
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    std::size_t ed = 0;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++ed;
    if (ed == 0) return false;
  }
  if (i != t.size() || (!dot && !exp)) return false;
  out = std::strtod(t.c_str(), nullptr);
  return true;
}

/// A plain (unquoted) YAML scalar resolved as go-yaml v2 resolves it.
inline nlohmann::json resolve_plain(const std::string& s) {
  if (yaml_is_null(s)) return nullptr;
  if (int b = yaml_bool(s); b >= 0) return b == 1;
  nlohmann::json n;
  if (yaml_int(s, n)) return n;
  if (yaml_float(s, n)) return n;
  return s;
}

inline nlohmann::json yaml_to_json(const YAML::Node& node, const std::string& source) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return nullptr;
    case YAML::NodeType::Scalar: {
      // "?" = plain (needs resolving), "!" = quoted or block scalar (always a string).
      if (node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str") return node.Scalar();
      if (node.Tag() != "?" && !node.Tag().empty()) {
        if (node.Tag() == "tag:yaml.org,2002:int" || node.Tag() == "tag:yaml.org,2002:float" ||
            node.Tag() == "tag:yaml.org,2002:bool" || node.Tag() == "tag:yaml.org,2002:null")
          return resolve_plain(node.Scalar());
        return node.Scalar();
      }
      return resolve_plain(node.Scalar());
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& x : node) a.push_back(yaml_to_json(x, source));
      return a;
    }
    case YAML::NodeType::Map: {
      nlohmann::json o = nlohmann::json::object();
      for (const auto& kv : node) {
        const YAML::Node& k = kv.first;
        if (!k.IsScalar()) {
          auto m = k.Mark();
          throw parse_error(source + ": line " + std::to_string(m.line + 1) + ", column " +
                                std::to_string(m.column + 1) + ": mapping keys must be scalars",
                            m.line + 1, m.column + 1);
        }
        std::string key = k.Scalar();
        if (o.contains(key)) {
          auto m = k.Mark();
          throw parse_error(source + ": line " + std::to_string(m.line + 1) + ", column " +
                                std::to_string(m.column + 1) + ": duplicate key \"" + key + "\"",
                            m.line + 1, m.column + 1);
        }
        o[key] = yaml_to_json(kv.second, source);
      }
      return o;
    }
  }
  return nullptr;
}

inline std::pair<int, int> text_line_col(std::string_view text, std::size_t byte) {
  int line = 1, col = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') line++, col = 1;
    else ++col;
  }
  return {line, col};
}

/// A stream of JSON values (`{..}{..}` or one `[..]`), as kubectl accepts.
inline std::vector<nlohmann::json> parse_json_stream(std::string_view text, const std::string& source) {
  std::vector<nlohmann::json> docs;
  std::size_t pos = 0;
  while (true) {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
    if (pos >= text.size()) break;
    // find the end of one value by parsing with a SAX-less approach: try growing prefixes
    // is quadratic; instead parse the remainder and use the error position when the
    // failure is "unexpected" trailing content.
    std::string_view rest = text.substr(pos);
    try {
      docs.push_back(nlohmann::json::parse(rest.begin(), rest.end()));
      break;
    } catch (const nlohmann::json::parse_error& e) {
      // e.byte is 1-based, the position of the offending character
      std::size_t off = e.byte > 0 ? e.byte - 1 : 0;
      std::string msg = e.what();
      bool trailing = msg.find("expected end of input") != std::string::npos && off > 0;
      if (trailing) {
        try {
          docs.push_back(nlohmann::json::parse(rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(off)));
          pos += off;
          continue;
        } catch (const nlohmann::json::parse_error&) {
        }
      }
      auto [line, col] = text_line_col(text, pos + off);
      auto p = msg.find("syntax error");
      std::string why = p == std::string::npos ? msg : msg.substr(p);
      throw parse_error(source + ": invalid JSON at line " + std::to_string(line) + ", column " +
                            std::to_string(col) + ": " + why,
                        line, col);
    }
  }
  return docs;
}

}  // namespace detail

/// Parses YAML (one or more `---` documents) or JSON text into JSON values; empty
/// documents are skipped. `source` names the input in errors (a file name, "stdin").
/// Throws `parse_error` carrying the 1-based line and column of a syntax error.
inline std::vector<nlohmann::json> parse_manifests(std::string_view text,
                                                   const std::string& source = "input") {
  std::size_t first = 0;
  while (first < text.size() && std::isspace(static_cast<unsigned char>(text[first]))) ++first;
  if (first < text.size() && (text[first] == '{' || text[first] == '['))
    return detail::parse_json_stream(text, source);
  std::vector<nlohmann::json> docs;
  try {
    for (const auto& node : YAML::LoadAll(std::string(text))) {
      auto j = detail::yaml_to_json(node, source);
      if (!j.is_null()) docs.push_back(std::move(j));
    }
  } catch (const YAML::Exception& e) {
    int line = e.mark.is_null() ? 0 : e.mark.line + 1;
    int col = e.mark.is_null() ? 0 : e.mark.column + 1;
    std::string where = line ? ": line " + std::to_string(line) + ", column " + std::to_string(col) : "";
    throw parse_error(source + where + ": invalid YAML: " + e.msg, line, col);
  }
  return docs;
}

/// Like parse_manifests(), and expands `kind: List` (and `*List`) into its items.
inline std::vector<nlohmann::json> parse_objects(std::string_view text, const std::string& source = "input") {
  std::vector<nlohmann::json> out;
  for (auto& d : parse_manifests(text, source)) {
    if (d.is_array()) {
      for (auto& x : d) out.push_back(std::move(x));
    } else if (d.is_object() && d.contains("items") && d["items"].is_array() && d.value("kind", std::string()).size() >= 4 &&
               d.value("kind", std::string()).substr(d.value("kind", std::string()).size() - 4) == "List") {
      for (auto& x : d["items"]) out.push_back(std::move(x));
    } else {
      out.push_back(std::move(d));
    }
  }
  return out;
}

/// Decodes every TFJob in `text`; a document of another kind or with fields of the wrong
/// type is an error naming the document.
inline std::vector<TFJob> parse_tfjobs(std::string_view text, const std::string& source = "input") {
  std::vector<TFJob> jobs;
  auto objs = parse_objects(text, source);
  for (std::size_t i = 0; i < objs.size(); ++i) {
    const auto& o = objs[i];
    std::string where = source + (objs.size() > 1 ? " (document " + std::to_string(i + 1) + ")" : "");
    if (!o.is_object()) throw parse_error(where + ": expected a TFJob object, got " + detail::decoder::type_name(o));
    std::string k = o.value("kind", std::string());
    std::string av = o.value("apiVersion", std::string());
    if (k != kind || (av != api_version && !av.empty()))
      throw parse_error(where + ": expected kind TFJob (apiVersion " + std::string(api_version) + "), got " +
                        (k.empty() ? std::string("no kind") : "kind " + k) + (av.empty() ? "" : " (" + av + ")"));
    jobs.push_back(o.get<TFJob>());
  }
  return jobs;
}

// ---- YAML out ------------------------------------------------------------------------------

namespace detail {

/// Would a YAML 1.1 reader (go-yaml v2) resolve this plain scalar to a non-string?
inline bool resolves_to_non_string(const std::string& s) {
  if (yaml_is_null(s) || yaml_bool(s) >= 0) return true;
  nlohmann::json n;
  if (yaml_int(s, n) || yaml_float(s, n)) return true;
  static const char* special[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
                                  "-.Inf", "-.INF", ".nan", ".NaN", ".NAN", "<<", "="};
  for (auto* x : special)
    if (s == x) return true;
  // base-60 numbers (190:20:30) are YAML 1.1 ints/floats too
  bool sexagesimal = !s.empty() && std::isdigit(static_cast<unsigned char>(s[0])) && s.find(':') != std::string::npos;
  for (char c : s)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.' || c == '_')) sexagesimal = false;
  return sexagesimal;
}

/// Can `s` be written as a plain scalar in block context (libyaml's analyze_scalar)?
inline bool plain_allowed(const std::string& s) {
  if (s.empty()) return false;
  if (s.front() == ' ' || s.back() == ' ' || s.front() == '\t' || s.back() == '\t') return false;
  const std::string indicators = "-?:,[]{}#&*!|>'\"%@`";
  if (indicators.find(s.front()) != std::string::npos) {
    // "-", "?" and ":" may start a plain scalar when followed by a non-space
    bool ok = (s.front() == '-' || s.front() == '?' || s.front() == ':') && s.size() > 1 && s[1] != ' ';
    if (!ok) return false;
  }
  if (s == "---" || s == "...") return false;
  if (s.rfind("--- ", 0) == 0 || s.rfind("... ", 0) == 0) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7F) return false;  // control characters need escapes
    if (c == ':' && (i + 1 == s.size() || s[i + 1] == ' ')) return false;
    if (c == '#' && i > 0 && s[i - 1] == ' ') return false;
  }
  return true;
}

inline std::string double_quoted(const std::string& s) {
  std::string out = "\"";
  static const char* hex = "0123456789ABCDEF";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out += "\\x";
          out += hex[c >> 4];
          out += hex[c & 0xF];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

inline std::string single_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "''";
    else out += c;
  }
  return out + "'";
}

/// A string scalar as go-yaml v2 writes it (without literal blocks, handled by the caller).
inline std::string yaml_string(const std::string& s) {
  if (s.empty()) return "\"\"";
  if (resolves_to_non_string(s)) return double_quoted(s);
  if (plain_allowed(s)) return s;
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7F) return double_quoted(s);
  return single_quoted(s);
}

/// Can a multi-line string be written as a literal block (`|`)?
inline bool literal_allowed(const std::string& s) {
  for (unsigned char c : s)
    if ((c < 0x20 && c != '\n') || c == 0x7F) return false;
  // trailing spaces on a line or a leading space on the first line break the round trip
  if (!s.empty() && (s.front() == ' ' || s.front() == '\n')) return false;
  for (std::size_t i = 0; i + 1 < s.size(); ++i)
    if (s[i] == ' ' && s[i + 1] == '\n') return false;
  return true;
}

inline std::string yaml_number(const nlohmann::json& v) {
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isnan(d)) return ".nan";
    if (std::isinf(d)) return d > 0 ? ".inf" : "-.inf";
    if (d == std::floor(d) && std::fabs(d) < 1e15) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.0f", d);
      return buf;
    }
    return v.dump();  // nlohmann: shortest round-trip representation
  }
  return v.dump();
}

inline bool is_scalar(const nlohmann::json& v) {
  return !(v.is_object() && !v.empty()) && !(v.is_array() && !v.empty());
}

inline void emit_scalar(std::string& out, const nlohmann::json& v, int indent) {
  if (v.is_null()) out += "null";
  else if (v.is_boolean()) out += v.get<bool>() ? "true" : "false";
  else if (v.is_number()) out += yaml_number(v);
  else if (v.is_object()) out += "{}";
  else if (v.is_array()) out += "[]";
  else {
    const std::string& s = v.get_ref<const std::string&>();
    if (s.find('\n') != std::string::npos && literal_allowed(s)) {
      // literal block: |- strips the final newline, | keeps one, |+ keeps more
      std::size_t trailing = 0;
      while (trailing < s.size() && s[s.size() - 1 - trailing] == '\n') ++trailing;
      out += trailing == 0 ? "|-" : trailing == 1 ? "|" : "|+";
      std::string body = s.substr(0, s.size() - (trailing == 0 ? 0 : 1));
      std::string pad(static_cast<std::size_t>(indent), ' ');
      std::size_t start = 0;
      while (start <= body.size()) {
        auto nl = body.find('\n', start);
        std::string line = body.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
        out += "\n";
        if (!line.empty()) out += pad + line;
        if (nl == std::string::npos) break;
        start = nl + 1;
      }
    } else if (s.find('\n') != std::string::npos) {
      out += double_quoted(s);
    } else {
      out += yaml_string(s);
    }
  }
}

inline void emit_node(std::string& out, const nlohmann::json& v, int indent);

inline void emit_map(std::string& out, const nlohmann::json& m, int indent, bool first_inline) {
  std::string pad(static_cast<std::size_t>(indent), ' ');
  bool first = true;
  for (const auto& [k, v] : m.items()) {
    if (!(first && first_inline)) out += pad;
    first = false;
    out += yaml_string(k) + ":";
    if (is_scalar(v)) {
      out += " ";
      emit_scalar(out, v, indent + 2);
      out += "\n";
    } else if (v.is_object()) {
      out += "\n";
      emit_map(out, v, indent + 2, false);
    } else {  // non-empty array: kubectl style, items flush with the key
      out += "\n";
      emit_node(out, v, indent);
    }
  }
}

/// A block sequence; `first_inline`: the first "- " follows a "- " already written.
inline void emit_seq(std::string& out, const nlohmann::json& v, int indent, bool first_inline) {
  std::string pad(static_cast<std::size_t>(indent), ' ');
  bool first = true;
  for (const auto& x : v) {
    if (!(first && first_inline)) out += pad;
    first = false;
    out += "- ";
    if (is_scalar(x)) {
      emit_scalar(out, x, indent + 2);
      out += "\n";
    } else if (x.is_object()) {
      emit_map(out, x, indent + 2, true);
    } else {  // nested non-empty list, compact like libyaml: "- - a"
      emit_seq(out, x, indent + 2, true);
    }
  }
}

inline void emit_node(std::string& out, const nlohmann::json& v, int indent) {
  std::string pad(static_cast<std::size_t>(indent), ' ');
  if (v.is_object() && !v.empty()) {
    emit_map(out, v, indent, false);
  } else if (v.is_array() && !v.empty()) {
    emit_seq(out, v, indent, false);
  } else {
    out += pad;
    emit_scalar(out, v, indent);
    out += "\n";
  }
}

}  // namespace detail

/// YAML as kubectl prints it: keys sorted (apiVersion, kind, metadata, spec, status),
/// block style, list items flush with their key, two-space indent, strings quoted only
/// when needed. Ends with a newline. Reading it back gives a JSON-equal value.
inline std::string to_yaml(const nlohmann::json& j) {
  std::string out;
  detail::emit_node(out, j, 0);
  return out;
}

/// Several documents separated by `---`.
inline std::string to_yaml_documents(const std::vector<nlohmann::json>& docs) {
  std::string out;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    if (i) out += "---\n";
    out += to_yaml(docs[i]);
  }
  return out;
}

}  // namespace tfjob
