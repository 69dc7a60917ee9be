#pragma once
/// \file The bodies of <tfjob/detail/yaml_reader.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_CORE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/detail/yaml_reader.hpp>, never this file.

namespace tfjob::detail {

TFJOB_INLINE bool yaml_is_null(const std::string& s) { return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL"; }

TFJOB_INLINE int yaml_bool(const std::string& s) {
  static const char* t[] = {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"};
  static const char* f[] = {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"};
  for (auto* x : t)
    if (s == x) return 1;
  for (auto* x : f)
    if (s == x) return 0;
  return -1;
}

TFJOB_INLINE bool yaml_int(const std::string& s, nlohmann::json& out) {
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

TFJOB_INLINE bool yaml_float(const std::string& s, nlohmann::json& out) {
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
  double d = std::strtod(t.c_str(), nullptr);
  if (!std::isfinite(d)) return false;
  out = d;
  return true;
}

TFJOB_INLINE nlohmann::json resolve_plain(const std::string& s) {
  if (yaml_is_null(s)) return nullptr;
  if (int b = yaml_bool(s); b >= 0) return b == 1;
  nlohmann::json n;
  if (yaml_int(s, n)) return n;
  if (yaml_float(s, n)) return n;
  return s;
}

}  // namespace tfjob::detail

namespace tfjob::detail::yaml_impl {

TFJOB_INLINE double allowed_alias_ratio(double decode_count) {
  constexpr double low = 400000, high = 4000000;
  if (decode_count <= low) return 0.99;
  if (decode_count >= high) return 0.10;
  return 0.99 - 0.89 * ((decode_count - low) / (high - low));
}

TFJOB_INLINE void Builder::OnDocumentStart(const YAML::Mark& m) {
  // yaml-cpp 0.7 (Debian 12's) never consumes a ',' outside a flow collection: it starts an
  // empty document at the same place forever. go-yaml refuses such input ("did not find
  // expected node content"); so do we, on the second document that begins where one began.
  if (started_any_ && m.pos == last_doc_pos_)
    fail(m, "invalid YAML: did not find expected node content (a ',' outside [...] or {...}?)");
  started_any_ = true;
  if (!spans.empty() && spans.back().second == std::string_view::npos) spans.back().second = static_cast<std::size_t>(m.pos);
  last_doc_pos_ = m.pos;
  stack_.clear();
  anchors_.clear();
  have_doc_ = false;
  doc_is_list_ = false;
  anchored_bytes_ = 0;
  // the alias bound is per document: kubectl splits the stream and decodes each document
  // with a decoder of its own (go-yaml v2 yaml.go newDecoder per Unmarshal), so many
  // documents with a few aliases each are not one "excessive aliasing"
  decode_count_ = alias_count_ = 0;
}

TFJOB_INLINE void Builder::OnDocumentEnd() {
  if (sink_) {
    if (have_doc_ && !doc_is_list_ && !doc_.json.is_null()) sink_->take(std::move(doc_.json), false);
  } else if (have_doc_ && !doc_.json.is_null()) {
    docs.push_back(std::move(doc_.json));
    spans.emplace_back(static_cast<std::size_t>(std::max(last_doc_pos_, 0)), std::string_view::npos);
  }
  doc_ = Value{};
  have_doc_ = false;
}

TFJOB_INLINE void Builder::OnNull(const YAML::Mark& m, YAML::anchor_t a) {
  node_begins(m);
  Value v;
  v.scalar = true;
  v.plain = true;
  v.json = nullptr;
  count(m, 1, false);
  finish(m, std::move(v), a);
}

TFJOB_INLINE void Builder::OnAlias(const YAML::Mark& m, YAML::anchor_t a) {
  node_begins(m);
  auto it = anchors_.find(a);
  if (it == anchors_.end()) fail(m, "unknown anchor referenced");
  count(m, it->second.nodes, true);
  Value v = it->second;  // the copy is what alias expansion costs; counted above
  finish(m, std::move(v), 0);
}

TFJOB_INLINE void Builder::OnScalar(const YAML::Mark& m, const std::string& tag, YAML::anchor_t a, const std::string& value) {
  node_begins(m);
  check_utf8(m, value);
  check_quote_closed(m);
  count(m, 1, false);
  Value v;
  v.scalar = true;
  v.raw = value;
  v.plain = tag == "?";
  if (tag == "!" || tag == "tag:yaml.org,2002:str") v.json = value;  // quoted or block: a string
  else if (tag == "?" || tag == "tag:yaml.org,2002:int" || tag == "tag:yaml.org,2002:float" ||
           tag == "tag:yaml.org,2002:bool" || tag == "tag:yaml.org,2002:null")
    v.json = resolve_plain(value);
  else v.json = value;  // other tags: the text, as sigs.k8s.io/yaml does for unknown tags
  finish(m, std::move(v), a);
}

TFJOB_INLINE void Builder::OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t a, YAML::EmitterStyle::value) {
  open(m, false, a);
}

TFJOB_INLINE void Builder::OnSequenceEnd() { close(); }

TFJOB_INLINE void Builder::OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t a, YAML::EmitterStyle::value) {
  open(m, true, a);
}

TFJOB_INLINE void Builder::OnMapEnd() { close(); }

TFJOB_INLINE void Builder::fail(const YAML::Mark& m, const std::string& why) const {
  int line = m.is_null() ? 0 : m.line + first_line_, col = m.is_null() ? 0 : m.column + 1;
  throw parse_error(source_ + (line ? ": line " + std::to_string(line) + ", column " + std::to_string(col) : "") +
                        ": " + why,
                    line, col);
}

TFJOB_INLINE void Builder::count(const YAML::Mark& m, std::size_t nodes, bool alias) {
  decode_count_ += static_cast<double>(nodes);
  if (alias) alias_count_ += static_cast<double>(nodes);
  // go-yaml v2 decode.go: more than 100 alias-driven nodes among more than 1000, at a
  // ratio above allowedAliasRatio, is "excessive aliasing".
  if (alias_count_ > 100 && decode_count_ > 1000 && alias_count_ / decode_count_ > allowed_alias_ratio(decode_count_))
    fail(m, "document contains excessive aliasing (an alias expansion bomb?): " +
                std::to_string(static_cast<long long>(alias_count_)) + " of " +
                std::to_string(static_cast<long long>(decode_count_)) +
                " values come from aliases, more than go-yaml's bound (kubectl refuses it too)");
}

TFJOB_INLINE void Builder::check_utf8(const YAML::Mark& m, const std::string& s) const {
  if (auto bad = invalid_utf8_at(s); bad != std::string_view::npos)
    fail(m, "invalid UTF-8 in a string (byte " + std::to_string(bad + 1) +
                " of the value); manifests must be UTF-8 text");
}

TFJOB_INLINE void Builder::check_quote_closed(const YAML::Mark& m) const {
  // a stream's reader holds the text from the object under way on: the scalar is in it (its
  // place modulo 2^32: yaml-cpp's marks are ints, they wrap past 2 GiB)
  if (m.is_null()) return;
  const std::string_view text = text_.text;
  std::size_t i = static_cast<std::uint32_t>(static_cast<std::uint32_t>(m.pos) - static_cast<std::uint32_t>(text_.offset));
  if (i >= text.size()) return;
  char q = text[i];
  if (q != '"' && q != '\'') return;
  for (++i; i < text.size(); ++i) {
    char c = text[i];
    if (q == '"' && c == '\\') { ++i; continue; }
    if (c == q) {
      if (q == '\'' && i + 1 < text.size() && text[i + 1] == '\'') { ++i; continue; }
      return;
    }
  }
  fail(m, std::string("found unexpected end of stream while scanning a quoted scalar: the ") +
              (q == '"' ? "double" : "single") + " quote opened here is never closed");
}

TFJOB_INLINE void Builder::node_begins(const YAML::Mark& m) {
  // the byte modulo 2^32 (yaml-cpp's marks are ints): the reader knows which one it is
  if (sink_ && !stack_.empty() && stack_.back().items)
    sink_->item_begins(m.is_null() ? 0 : static_cast<std::uint32_t>(m.pos), first_line_ + m.line);
}

TFJOB_INLINE void Builder::open(const YAML::Mark& m, bool map, YAML::anchor_t a) {
  node_begins(m);
  if (static_cast<int>(stack_.size()) >= lim_.max_depth)
    fail(m, "exceeded max depth of " + std::to_string(lim_.max_depth) + " nested mappings and sequences");
  count(m, 1, false);
  Frame f;
  f.map = map;
  f.anchor = a;
  f.mark = m;
  f.value.json = map ? nlohmann::json::object() : nlohmann::json::array();
  // a List's items (kubectl reads any object with `items` as a list: apimachinery's
  // unstructuredJSONScheme), or a top-level sequence: given one at a time. One an anchor names
  // is read whole (an alias may repeat it).
  const bool under_items = stack_.size() == 1 && stack_[0].map && stack_[0].have_key && !stack_[0].merge_next &&
                           stack_[0].key == "items";
  f.items = sink_ && !map && a == 0 && (stack_.empty() || under_items);
  stack_.push_back(std::move(f));
  if (stack_.back().items) {
    doc_is_list_ = true;
    sink_->items_begin();
  }
}

TFJOB_INLINE void Builder::close() {
  Frame f = std::move(stack_.back());
  stack_.pop_back();
  if (f.items) sink_->items_end();
  if (f.map) {
    if (f.have_key) fail(f.key_mark, "a mapping key without a value");
    for (const auto& src : f.merges)
      for (const auto& [k, v] : src.items())
        if (!f.value.json.contains(k)) f.value.json[k] = v;
  }
  finish(f.mark, std::move(f.value), f.anchor);
}

TFJOB_INLINE void Builder::finish(const YAML::Mark& m, Value v, YAML::anchor_t a) {
  if (a != 0) {
    // read as a stream, a List's items are let go once given: only what anchors name stays,
    // bounded as a whole text is
    if (sink_ && (anchored_bytes_ += static_cast<double>(v.json.dump().size())) > static_cast<double>(lim_.max_bytes))
      fail(m, "the values this document's anchors name are more than " + human_bytes(lim_.max_bytes) +
                  " (the bound on a manifest): each stays until the document ends; use fewer anchors or split the document");
    anchors_[a] = v;
  }
  if (stack_.empty()) {
    doc_ = std::move(v);
    have_doc_ = true;
    return;
  }
  Frame& p = stack_.back();
  p.value.nodes += v.nodes;
  if (!p.map) {
    if (p.items) sink_->take(std::move(v.json), true);
    else p.value.json.push_back(std::move(v.json));
    return;
  }
  if (!p.have_key) {
    if (!v.scalar || (v.json.is_null() && v.raw.empty())) fail(m, "mapping keys must be scalars");
    p.have_key = true;
    p.key = v.raw;
    p.key_mark = m;
    p.merge_next = v.plain && v.raw == "<<";
    return;
  }
  p.have_key = false;
  if (p.merge_next) {
    // YAML merge key (yaml.org/type/merge): a mapping, or a sequence of mappings where
    // earlier ones win; keys the mapping sets itself win over merged ones (go-yaml).
    if (v.json.is_object()) {
      p.merges.push_back(std::move(v.json));
    } else if (v.json.is_array()) {
      for (auto& x : v.json) {
        if (!x.is_object()) fail(p.key_mark, "map merge requires map or sequence of maps as the value");
        p.merges.push_back(std::move(x));
      }
    } else {
      fail(p.key_mark, "map merge requires map or sequence of maps as the value");
    }
    return;
  }
  if (p.value.json.contains(p.key)) fail(p.key_mark, duplicate_key_reason(p.key));
  p.value.json[p.key] = std::move(v.json);
}

}  // namespace tfjob::detail::yaml_impl

namespace tfjob::detail {

namespace yaml_impl {
/// Every document of `in` through `b`, yaml-cpp's errors worded as ours (source, line, column).
TFJOB_INLINE void run(std::istream& in, Builder& b, const std::string& source, int first_line) {
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(b)) {
    }
  } catch (const parse_error&) {
    throw;
  } catch (const YAML::DeepRecursion& e) {
    b.fail(e.mark, "exceeded max depth of " + std::to_string(e.depth()) +
                       " nested mappings and sequences (the YAML parser's bound)");
  } catch (const YAML::Exception& e) {
    int line = e.mark.is_null() ? 0 : e.mark.line + first_line;
    int col = e.mark.is_null() ? 0 : e.mark.column + 1;
    std::string where = line ? ": line " + std::to_string(line) + ", column " + std::to_string(col) : "";
    throw parse_error(source + where + ": invalid YAML: " + e.msg, line, col);
  }
}
}  // namespace yaml_impl

TFJOB_INLINE std::vector<nlohmann::json> read_yaml_documents(std::string_view text, const std::string& source, const YamlLimits& lim,
                                                             std::vector<std::pair<std::size_t, std::size_t>>* spans,
                                                             int first_line) {
  if (text.size() > lim.max_bytes)
    throw parse_error(source + ": " + human_bytes(text.size()) + " is more than the " + human_bytes(lim.max_bytes) +
                      " a manifest may have; split it into several files");
  const TextWindow window{text, 0};
  yaml_impl::Builder b(window, source, lim, first_line);
  std::istringstream in{std::string(text)};
  yaml_impl::run(in, b, source, first_line);
  if (spans) {
    for (auto& sp : b.spans)
      if (sp.second == std::string_view::npos) sp.second = text.size();
    *spans = std::move(b.spans);
  }
  return std::move(b.docs);
}

TFJOB_INLINE void read_yaml_stream(std::istream& in, const std::string& source, ObjectSink& sink, const TextWindow& text,
                                   const YamlLimits& lim, int first_line) {
  yaml_impl::Builder b(text, source, lim, first_line, &sink);
  yaml_impl::run(in, b, source, first_line);
}

}  // namespace tfjob::detail
