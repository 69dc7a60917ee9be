#pragma once
/// \file The bodies of <tfjob/kube/jsonpath.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/jsonpath.hpp>, never this file.

namespace tfjob::kube {

namespace jsonpath_detail {

TFJOB_INLINE tfjob::error syntax(const std::string& expr, const std::string& why) {
  return tfjob::error("error parsing jsonpath " + expr + ", " + why);
}

TFJOB_INLINE std::vector<Step> parse_path(const std::string& expr, std::size_t& i, const std::string& whole, bool in_filter = false);

TFJOB_INLINE nlohmann::json parse_literal(const std::string& s, std::size_t& i, const std::string& whole) {
  if (i < s.size() && (s[i] == '"' || s[i] == '\'')) {
    char q = s[i++];
    std::string v;
    while (i < s.size() && s[i] != q) {
      if (s[i] == '\\' && i + 1 < s.size()) ++i;
      v += s[i++];
    }
    if (i >= s.size()) throw syntax(whole, "unterminated string");
    ++i;
    return v;
  }
  std::size_t start = i;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.' || s[i] == '-')) ++i;
  if (start == i) throw syntax(whole, "expected a literal at \"" + s.substr(start) + "\"");
  return std::stod(s.substr(start, i - start));
}

/// A `.` step at `i`: `..name` (recursive descent), `.*`, or `.name` (`\.` escapes a dot),
/// added to `steps` (an empty name adds none).
TFJOB_INLINE void parse_dot(const std::string& s, std::size_t& i, bool in_filter, std::vector<Step>& steps) {
  if (i + 1 < s.size() && s[i + 1] == '.') {
    i += 2;
    Step st;
    st.kind = Step::Kind::recursive;
    while (i < s.size() && s[i] != '.' && s[i] != '[' && s[i] != '}') st.name += s[i++];
    steps.push_back(st);
    return;
  }
  ++i;
  Step st;
  if (i < s.size() && s[i] == '*') {
    ++i;
    st.kind = Step::Kind::wildcard;
    steps.push_back(st);
    return;
  }
  while (i < s.size() && s[i] != '.' && s[i] != '[' && !(in_filter && (s[i] == ')' || s[i] == '=' || s[i] == '!' ||
                                                                       s[i] == '<' || s[i] == '>' || s[i] == ' '))) {
    if (s[i] == '\\' && i + 1 < s.size()) ++i;  // `nvidia\.com/gpu`
    st.name += s[i++];
  }
  if (!st.name.empty()) steps.push_back(st);
}

/// A filter at `i` (its `?`): `?(@.path)` or `?(@.path OP literal)`, into `st`.
TFJOB_INLINE void parse_filter(const std::string& s, std::size_t& i, const std::string& whole, Step& st) {
  ++i;
  if (i >= s.size() || s[i] != '(') throw syntax(whole, "expected ( after ?");
  ++i;
  while (i < s.size() && s[i] == ' ') ++i;
  st.kind = Step::Kind::filter;
  st.lhs = parse_path(s, i, whole, true);
  while (i < s.size() && s[i] == ' ') ++i;
  while (i < s.size() && (s[i] == '=' || s[i] == '!' || s[i] == '<' || s[i] == '>')) st.op += s[i++];
  if (!st.op.empty()) {
    while (i < s.size() && s[i] == ' ') ++i;
    st.literal = parse_literal(s, i, whole);
    while (i < s.size() && s[i] == ' ') ++i;
  }
  if (i >= s.size() || s[i] != ')') throw syntax(whole, "expected ) to end the filter");
  ++i;
}

/// An index (`n`, `-n`) or a slice (`a:b`, either end optional) at `i`, into `st`.
TFJOB_INLINE void parse_index(const std::string& s, std::size_t& i, const std::string& whole, Step& st) {
  auto num = [&](long long& v) {
    std::size_t st0 = i;
    if (i < s.size() && s[i] == '-') ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (st0 == i) return false;
    v = std::stoll(s.substr(st0, i - st0));
    return true;
  };
  st.kind = Step::Kind::index;
  st.has_a = num(st.a);
  if (i < s.size() && s[i] == ':') {
    ++i;
    st.kind = Step::Kind::slice;
    st.has_b = num(st.b);
  } else if (!st.has_a) {
    throw syntax(whole, "invalid array index at \"" + s.substr(i) + "\"");
  }
}

/// A `[...]` step at `i` (its `[`): a quoted name, `*`, a filter, an index or a slice; `i`
/// ends after the `]`.
TFJOB_INLINE Step parse_bracket(const std::string& s, std::size_t& i, const std::string& whole) {
  ++i;
  Step st;
  if (i < s.size() && (s[i] == '\'' || s[i] == '"')) {
    st.name = parse_literal(s, i, whole).get<std::string>();
  } else if (i < s.size() && s[i] == '*') {
    ++i;
    st.kind = Step::Kind::wildcard;
  } else if (i < s.size() && s[i] == '?') {
    parse_filter(s, i, whole, st);
  } else {
    parse_index(s, i, whole, st);
  }
  if (i >= s.size() || s[i] != ']') throw syntax(whole, "expected ]");
  ++i;
  return st;
}

TFJOB_INLINE std::vector<Step> parse_path(const std::string& s, std::size_t& i, const std::string& whole, bool in_filter) {
  std::vector<Step> steps;
  if (i < s.size() && (s[i] == '$' || s[i] == '@')) ++i;
  while (i < s.size()) {
    char c = s[i];
    if (in_filter && (c == ')' || c == '=' || c == '!' || c == '<' || c == '>' || c == ' ')) break;
    if (c == '.') {
      parse_dot(s, i, in_filter, steps);
      continue;
    }
    if (c == '[') {
      steps.push_back(parse_bracket(s, i, whole));
      continue;
    }
    // a bare name at the start (custom-columns and --sort-by accept "metadata.name")
    Step st;
    while (i < s.size() && s[i] != '.' && s[i] != '[') {
      if (s[i] == '\\' && i + 1 < s.size()) ++i;
      st.name += s[i++];
    }
    steps.push_back(st);
  }
  return steps;
}

TFJOB_INLINE void collect_recursive(const nlohmann::json& v, const std::string& name, std::vector<nlohmann::json>& out) {
  if (name.empty()) out.push_back(v);
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (!name.empty() && it.key() == name) out.push_back(it.value());
      collect_recursive(it.value(), name, out);
    }
  } else if (v.is_array()) {
    for (const auto& x : v) collect_recursive(x, name, out);
  }
}

TFJOB_INLINE std::vector<nlohmann::json> eval(const std::vector<Step>& steps, const nlohmann::json& root, bool allow_missing,
                                              const std::string& whole);

TFJOB_INLINE bool compare(const nlohmann::json& a, const std::string& op, const nlohmann::json& b) {
  if (a.is_number() && b.is_number()) {
    double x = a.get<double>(), y = b.get<double>();
    return op == "==" ? x == y : op == "!=" ? x != y : op == "<" ? x < y : op == ">" ? x > y : op == "<=" ? x <= y : x >= y;
  }
  std::string x = a.is_string() ? a.get<std::string>() : a.dump();
  std::string y = b.is_string() ? b.get<std::string>() : b.dump();
  return op == "==" ? x == y : op == "!=" ? x != y : op == "<" ? x < y : op == ">" ? x > y : op == "<=" ? x <= y : x >= y;
}

TFJOB_INLINE std::vector<nlohmann::json> eval(const std::vector<Step>& steps, const nlohmann::json& root, bool allow_missing,
                                              const std::string& whole) {
  std::vector<nlohmann::json> cur{root};
  for (const auto& st : steps) {
    std::vector<nlohmann::json> next;
    for (const auto& v : cur) {
      switch (st.kind) {
        case Step::Kind::field:
          if (v.is_object() && v.contains(st.name)) next.push_back(v.at(st.name));
          else if (!allow_missing && !(v.is_array()))
            throw tfjob::error("error executing jsonpath " + whole + ": " + st.name + " is not found");
          break;
        case Step::Kind::wildcard:
          if (v.is_array() || v.is_object())
            for (const auto& x : v) next.push_back(x);
          break;
        case Step::Kind::recursive:
          collect_recursive(v, st.name, next);
          break;
        case Step::Kind::index: {
          if (!v.is_array()) break;
          long long n = static_cast<long long>(v.size()), k = st.a < 0 ? n + st.a : st.a;
          if (k >= 0 && k < n) next.push_back(v[static_cast<std::size_t>(k)]);
          else if (!allow_missing)
            throw tfjob::error("error executing jsonpath " + whole + ": array index out of bounds: index " +
                               std::to_string(st.a) + ", length " + std::to_string(n));
          break;
        }
        case Step::Kind::slice: {
          if (!v.is_array()) break;
          long long n = static_cast<long long>(v.size());
          long long a = st.has_a ? (st.a < 0 ? n + st.a : st.a) : 0, b = st.has_b ? (st.b < 0 ? n + st.b : st.b) : n;
          a = std::max(0LL, std::min(a, n));
          b = std::max(0LL, std::min(b, n));
          for (long long k = a; k < b; ++k) next.push_back(v[static_cast<std::size_t>(k)]);
          break;
        }
        case Step::Kind::filter: {
          std::vector<nlohmann::json> items;
          if (v.is_array()) items.assign(v.begin(), v.end());
          else items.push_back(v);
          for (const auto& x : items) {
            auto l = eval(st.lhs, x, true, whole);
            if (st.op.empty() ? !l.empty() : (!l.empty() && compare(l.front(), st.op, st.literal))) next.push_back(x);
          }
          break;
        }
      }
    }
    cur = std::move(next);
  }
  return cur;
}

TFJOB_INLINE std::string text_of(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

TFJOB_INLINE std::vector<Node> parse_template(const std::string& t, std::size_t& i, bool in_range) {
  std::vector<Node> out;
  std::string text;
  auto flush = [&] {
    if (!text.empty()) out.push_back({Node::Kind::text, text, {}, {}});
    text.clear();
  };
  while (i < t.size()) {
    if (t[i] != '{') {
      text += t[i++];
      continue;
    }
    std::size_t close = i + 1;
    bool quoted = false;
    for (; close < t.size(); ++close) {
      if (t[close] == '"' && t[close - 1] != '\\') quoted = !quoted;
      if (!quoted && t[close] == '}') break;
    }
    if (close >= t.size()) throw syntax(t, "unclosed action");
    std::string inner = t.substr(i + 1, close - i - 1);
    i = close + 1;
    while (!inner.empty() && inner.front() == ' ') inner.erase(0, 1);
    while (!inner.empty() && inner.back() == ' ') inner.pop_back();
    flush();
    if (inner == "end") {
      if (!in_range) throw syntax(t, "not in range, nothing to end");
      return out;
    }
    if (inner.rfind("range ", 0) == 0) {
      Node n{Node::Kind::range, "", {}, {}};
      std::size_t j = 0;
      std::string e = inner.substr(6);
      n.path = parse_path(e, j, t);
      n.body = parse_template(t, i, true);
      out.push_back(std::move(n));
      continue;
    }
    if (!inner.empty() && inner.front() == '"') {
      std::string lit;
      for (std::size_t k = 1; k + 1 < inner.size(); ++k) {
        if (inner[k] == '\\' && k + 2 < inner.size() + 1) {
          char e = inner[++k];
          lit += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
        } else {
          lit += inner[k];
        }
      }
      out.push_back({Node::Kind::text, lit, {}, {}});
      continue;
    }
    std::size_t j = 0;
    out.push_back({Node::Kind::expr, "", parse_path(inner, j, t), {}});
  }
  if (in_range) throw syntax(t, "range without end");
  flush();
  return out;
}

TFJOB_INLINE void execute(const std::vector<Node>& nodes, const nlohmann::json& data, bool allow_missing,
                          const std::string& whole, std::string& out) {
  for (const auto& n : nodes) {
    if (n.kind == Node::Kind::text) {
      out += n.text;
    } else if (n.kind == Node::Kind::expr) {
      auto r = eval(n.path, data, allow_missing, whole);
      for (std::size_t k = 0; k < r.size(); ++k) {
        if (k) out += ' ';
        // a list element or object prints as JSON; `[*]` over an array prints each element
        out += text_of(r[k]);
      }
    } else {
      auto r = eval(n.path, data, allow_missing, whole);
      std::vector<nlohmann::json> items;
      for (const auto& x : r) {
        if (x.is_array()) items.insert(items.end(), x.begin(), x.end());
        else items.push_back(x);
      }
      for (const auto& x : items) execute(n.body, x, allow_missing, whole, out);
    }
  }
}

}  // namespace jsonpath_detail

TFJOB_INLINE JsonPath::JsonPath(std::string tmpl, bool allow_missing) : tmpl_(std::move(tmpl)), allow_missing_(allow_missing) {
  std::size_t i = 0;
  nodes_ = jsonpath_detail::parse_template(tmpl_, i, false);
}

TFJOB_INLINE std::string JsonPath::execute(const nlohmann::json& data) const {
  std::string out;
  jsonpath_detail::execute(nodes_, data, allow_missing_, tmpl_, out);
  return out;
}

TFJOB_INLINE std::vector<nlohmann::json> JsonPath::values(const nlohmann::json& data) const {
  std::vector<nlohmann::json> out;
  for (const auto& n : nodes_)
    if (n.kind == jsonpath_detail::Node::Kind::expr)
      for (auto& v : jsonpath_detail::eval(n.path, data, allow_missing_, tmpl_)) out.push_back(std::move(v));
  return out;
}

TFJOB_INLINE std::string relaxed_jsonpath(std::string e) {
  if (e.size() >= 2 && e.front() == '{' && e.back() == '}') e = e.substr(1, e.size() - 2);
  if (e.empty()) throw tfjob::error("jsonpath expression cannot be empty");
  // kubectl's jsonRegexp (pkg/cmd/get/customcolumn.go): ^\{\.?([^{}]+)\}$|^\.?([^{}]+)$, one path, no braces inside
  if (e.find_first_of("{}") != std::string::npos)
    throw tfjob::error("unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'");
  if (e.front() != '.' && e.front() != '$' && e.front() != '@') e = "." + e;
  return "{" + e + "}";
}

}  // namespace tfjob::kube
