#pragma once
/// \file The bodies of <tfjob/api/manifest.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/manifest.hpp>, never this file.

namespace tfjob::detail {

TFJOB_INLINE std::vector<nlohmann::json> parse_json_stream(std::string_view text, const std::string& source,
                                                           std::vector<std::pair<std::size_t, std::size_t>>* spans,
                                                           int first_line, int first_column) {
  std::vector<nlohmann::json> docs;
  std::size_t pos = 0;
  while (true) {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
    if (pos >= text.size()) break;
    // Parse the remainder; when the only fault is what follows one complete value, that
    // value ends where the fault begins (a stream of values).
    std::string_view rest = text.substr(pos);
    auto r = read_json(rest, limits::max_depth, nullptr, JsonKeys::unique);
    if (r.ok()) {
      docs.push_back(std::move(r.value));
      if (spans) spans->emplace_back(pos, text.size());
      break;
    }
    if (r.trailing) {
      auto one = read_json(rest.substr(0, r.byte), limits::max_depth, nullptr, JsonKeys::unique);
      if (one.ok()) {
        docs.push_back(std::move(one.value));
        if (spans) spans->emplace_back(pos, pos + r.byte);
        pos += r.byte;
        continue;
      }
    }
    auto [line, col] = TextPlace{0, first_line, first_column}.of(line_col_at(text, pos + r.byte));
    throw parse_error(source + ": invalid JSON at line " + std::to_string(line) + ", column " + std::to_string(col) +
                          ": " + r.error,
                      line, col);
  }
  return docs;
}

TFJOB_INLINE std::size_t binary_byte_at(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) return std::min(i, invalid_utf8_at(text.substr(0, i)));
  }
  return std::string_view::npos;
}

TFJOB_INLINE void refuse_binary(unsigned char c, const TextPlace& at, const std::string& source) {
  static const char* hex = "0123456789ABCDEF";
  throw parse_error(source + ": not YAML or JSON text (a binary file?): byte " + std::to_string(at.byte) + " (line " +
                        std::to_string(at.line) + ", column " + std::to_string(at.column) + ") is 0x" + hex[c >> 4] +
                        hex[c & 0xF] + (c < 0x80 ? ", a control character" : ", not UTF-8"),
                    at.line, at.column);
}

TFJOB_INLINE nlohmann::json* list_items(nlohmann::json& doc) {
  if (doc.is_array()) return &doc;
  if (!doc.is_object()) return nullptr;
  auto items = doc.find("items");
  return items != doc.end() && items->is_array() ? &*items : nullptr;
}

TFJOB_INLINE std::string too_big_message(const std::string& source, const ObjectPlace& at, std::size_t bytes, std::size_t max) {
  const std::string size = bytes == 0 ? "more than"
                           : human_bytes(bytes) == human_bytes(max) ? std::to_string(bytes) + " bytes is more than"
                                                                    : human_bytes(bytes) + " is more than";
  return source + ": " + to_string(at) + ": " + size + " the " + human_bytes(max) +
         " one object may have (kube-apiserver's bound on a request body); split it or make it smaller";
}

}  // namespace tfjob::detail
namespace tfjob {

TFJOB_INLINE std::string to_string(const ObjectPlace& at) {
  std::string s = "document " + std::to_string(at.document + 1) + " (line " + std::to_string(at.line) + ")";
  if (at.item) {
    s += ", item " + std::to_string(*at.item + 1);
    if (at.item_line > 0) s += " (line " + std::to_string(at.item_line) + ")";
  }
  return s;
}

TFJOB_INLINE std::vector<nlohmann::json> parse_manifests(std::string_view text,
                                                         const std::string& source) {
  return detail::parse_manifest_documents(text, source, nullptr);
}

TFJOB_INLINE std::vector<nlohmann::json> detail::parse_manifest_documents(std::string_view text, const std::string& source,
                                                                          std::vector<std::pair<std::size_t, std::size_t>>* spans) {
  if (text.size() > limits::max_manifest_bytes)
    throw parse_error(source + ": " + detail::human_bytes(text.size()) + " is more than the " +
                      detail::human_bytes(limits::max_manifest_bytes) +
                      " a manifest may have; split it into several files");
  // A binary file is no manifest: say so, and where. Text that is only not UTF-8 is the YAML
  // reader's to name, value by value.
  if (auto bad = detail::binary_byte_at(text); bad != std::string_view::npos) {
    auto [line, col] = detail::line_col_at(text, bad);
    detail::refuse_binary(static_cast<unsigned char>(text[bad]), {bad, line, col}, source);
  }
  std::size_t first = 0;
  while (first < text.size() && std::isspace(static_cast<unsigned char>(text[first]))) ++first;
  if (first < text.size() && (text[first] == '{' || text[first] == '['))
    return detail::parse_json_stream(text, source, spans);
  return detail::read_yaml_documents(text, source, {}, spans);
}

TFJOB_INLINE std::vector<nlohmann::json> parse_objects(std::string_view text, const std::string& source) {
  std::vector<nlohmann::json> out;
  auto add = [&](nlohmann::json&& x) {
    if (out.size() >= limits::max_manifest_objects)
      throw parse_error(source + ": more than " + std::to_string(limits::max_manifest_objects) +
                        " objects in one manifest (the bound on objects per manifest); split it into several files");
    out.push_back(std::move(x));
  };
  // the bound on one object (limits::max_document_bytes), judged per document: a big
  // document is refused by its place and size, every such one named, whatever else the
  // file holds; a List's or an array's items are each an object of their own
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  auto docs = detail::parse_manifest_documents(text, source, &spans);
  std::string too_big;
  int first_line = 0;
  for (std::size_t i = 0; i < docs.size() && i < spans.size(); ++i) {
    const std::size_t bytes = spans[i].second - spans[i].first;
    if (bytes <= limits::max_document_bytes) continue;
    const int line = detail::line_col_at(text, spans[i].first).first;
    auto refuse = [&](bool in_list, std::size_t item, std::size_t n) {
      if (!first_line) first_line = line;
      ObjectPlace at;
      at.document = i;
      at.line = line;
      if (in_list) at.item = item;
      too_big += (too_big.empty() ? "" : "\n") + detail::too_big_message(source, at, n);
    };
    const nlohmann::json* items = detail::list_items(docs[i]);
    if (!items) {
      refuse(false, 0, bytes);
      continue;
    }
    for (std::size_t k = 0; k < items->size(); ++k)  // only in a big document: each item's own size
      if (auto n = (*items)[k].dump().size(); n > limits::max_document_bytes) refuse(true, k, n);
  }
  if (!too_big.empty()) throw parse_error(too_big, first_line, 1);
  for (auto& d : docs) {
    if (auto* items = detail::list_items(d)) {
      for (auto& x : *items) add(std::move(x));
    } else {
      add(std::move(d));
    }
  }
  return out;
}

TFJOB_INLINE std::string document_place(const std::string& source, std::size_t index, std::size_t count,
                                        const nlohmann::json& object) {
  std::string name, k;
  if (object.is_object()) {
    auto md = object.find("metadata");
    if (md != object.end() && md->is_object()) {
      auto n = md->find("name");
      if (n != md->end() && n->is_string()) name = n->get<std::string>();
    }
    auto kd = object.find("kind");
    if (kd != object.end() && kd->is_string()) k = kd->get<std::string>();
  }
  if (name.empty()) return count > 1 ? source + " (document " + std::to_string(index + 1) + ")" : source;
  return source + ": " + (k.empty() ? std::string(kind) : k) + " " + name;
}

TFJOB_INLINE field_error to_field_error(const schema::Issue& issue, const std::string& where) {
  field_error fe;
  fe.field = issue.field();
  fe.detail = issue.message();
  fe.where = where;
  return fe;
}

TFJOB_INLINE std::optional<TFJob> detail::judge_tfjob(const nlohmann::json& o, const std::string& where,
                                                     FieldValidation validation, std::vector<field_error>* warnings,
                                                     std::vector<field_error>& errs) {
  if (!o.is_object()) throw parse_error(where + ": expected a TFJob object, got " + detail::decoder::type_name(o));
  // kind and apiVersion first: a document that is not a TFJob is refused whatever
  // --validate says (the API server has no such kind to create)
  auto type_issues = schema::check_type_meta(o);
  if (!type_issues.empty()) {
    for (const auto& is : type_issues) errs.push_back(to_field_error(is, where));
    return std::nullopt;
  }
  if (validation != FieldValidation::ignore) {
    auto issues = schema::tfjob_schema().validate(o);
    for (const auto& is : issues) {
      if (validation == FieldValidation::strict) errs.push_back(to_field_error(is, where));
      else if (warnings) warnings->push_back(to_field_error(is, where));
    }
    if (validation == FieldValidation::strict && !issues.empty()) return std::nullopt;
  }
  try {
    TFJob job = tfjob::detail::from_json_of<TFJob>(o);
    auto unnamed = manifest_name_errors(job);
    if (unnamed.empty()) return job;
    for (auto& fe : unnamed) errs.emplace_back(std::move(fe.field), std::move(fe.type), std::move(fe.detail), where);
  } catch (const validation_error& e) {
    for (auto fe : e.errors()) {
      fe.where = where;
      errs.push_back(std::move(fe));
    }
  }
  return std::nullopt;
}

TFJOB_INLINE std::vector<TFJob> parse_tfjobs(std::string_view text, const std::string& source, FieldValidation validation,
                                             std::vector<field_error>* warnings) {
  std::vector<TFJob> jobs;
  std::vector<field_error> errs;
  auto objs = parse_objects(text, source);
  for (std::size_t i = 0; i < objs.size(); ++i)
    if (auto job = detail::judge_tfjob(objs[i], document_place(source, i, objs.size(), objs[i]), validation, warnings, errs))
      jobs.push_back(std::move(*job));
  if (!errs.empty()) throw validation_error(std::move(errs));
  return jobs;
}

}  // namespace tfjob
namespace tfjob::detail {

TFJOB_INLINE bool resolves_to_non_string(const std::string& s) {
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

TFJOB_INLINE bool plain_allowed(const std::string& s) {
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

TFJOB_INLINE std::string double_quoted(const std::string& s) {
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

TFJOB_INLINE std::string single_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "''";
    else out += c;
  }
  return out + "'";
}

TFJOB_INLINE std::string yaml_string(const std::string& s) {
  if (s.empty()) return "\"\"";
  if (resolves_to_non_string(s)) return double_quoted(s);
  if (plain_allowed(s)) return s;
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7F) return double_quoted(s);
  return single_quoted(s);
}

TFJOB_INLINE bool literal_allowed(const std::string& s) {
  for (unsigned char c : s)
    if ((c < 0x20 && c != '\n') || c == 0x7F) return false;
  // trailing spaces on a line or a leading space on the first line break the round trip
  if (!s.empty() && (s.front() == ' ' || s.front() == '\n')) return false;
  for (std::size_t i = 0; i + 1 < s.size(); ++i)
    if (s[i] == ' ' && s[i + 1] == '\n') return false;
  return true;
}

TFJOB_INLINE std::string yaml_number(const nlohmann::json& v) {
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

TFJOB_INLINE bool is_scalar(const nlohmann::json& v) {
  return !(v.is_object() && !v.empty()) && !(v.is_array() && !v.empty());
}

TFJOB_INLINE void emit_scalar(std::string& out, const nlohmann::json& v, int indent) {
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

TFJOB_INLINE void emit_map(std::string& out, const nlohmann::json& m, int indent, bool first_inline) {
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

TFJOB_INLINE void emit_seq(std::string& out, const nlohmann::json& v, int indent, bool first_inline) {
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

TFJOB_INLINE void emit_node(std::string& out, const nlohmann::json& v, int indent) {
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

}  // namespace tfjob::detail
namespace tfjob {

TFJOB_INLINE std::string to_yaml(const nlohmann::json& j) {
  std::string out;
  detail::emit_node(out, j, 0);
  return out;
}

TFJOB_INLINE std::string to_yaml_documents(const std::vector<nlohmann::json>& docs) {
  std::string out;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    if (i) out += "---\n";
    out += to_yaml(docs[i]);
  }
  return out;
}

}  // namespace tfjob
