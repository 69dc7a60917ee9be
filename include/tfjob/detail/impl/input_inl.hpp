#pragma once
/// \file The bodies of <tfjob/detail/input.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_CORE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/detail/input.hpp>, never this file.

namespace tfjob::detail {

TFJOB_INLINE std::string human_bytes(std::size_t n) {
  const char* unit[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  std::size_t whole = n, frac = 0;
  while (whole >= 1024 && u < 3) {
    frac = whole % 1024;
    whole /= 1024;
    ++u;
  }
  std::string s = std::to_string(whole);
  if (u > 0 && frac * 10 / 1024 > 0) s += "." + std::to_string(frac * 10 / 1024);
  return s + " " + unit[u];
}

TFJOB_INLINE std::size_t invalid_utf8_at(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len;
    std::uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) len = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF) len = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4) len = 4, cp = c & 0x07;
    else return i;
    if (i + len > n) return i;
    for (std::size_t k = 1; k < len; ++k) {
      auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
      return i;
    i += len;
  }
  return std::string_view::npos;
}

TFJOB_INLINE std::pair<int, int> line_col_at(std::string_view text, std::size_t byte) {
  int line = 1, col = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') line++, col = 1;
    else ++col;
  }
  return {line, col};
}

TFJOB_INLINE std::string describe_json_type(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::boolean: return v.get<bool>() ? "a boolean (true)" : "a boolean (false)";
    case nlohmann::json::value_t::string: {
      const auto& s = v.get_ref<const std::string&>();
      std::string shown;
      for (char c : s.substr(0, 40)) shown += static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F ? '?' : c;
      return "a string (\"" + shown + (s.size() > 40 ? "...\")" : "\")");
    }
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float: return "a number (" + v.dump() + ")";
    case nlohmann::json::value_t::array: return "a list";
    case nlohmann::json::value_t::object: return "an object";
    default: return "a value of another kind";
  }
}

TFJOB_INLINE std::string json_syntax_reason(const nlohmann::json::parse_error& e) {
  std::string msg = e.what();
  auto p = msg.find("syntax error");
  if (p == std::string::npos) p = msg.find("parse error");
  if (p != std::string::npos) msg = msg.substr(p);
  else if (auto b = msg.find("] "); b != std::string::npos) msg = msg.substr(b + 2);
  // "syntax error while parsing value - invalid literal; last read: 'x'" -> after the dash
  if (auto d = msg.find(" - "); d != std::string::npos) msg = msg.substr(d + 3);
  return msg;
}

TFJOB_INLINE void JsonOmit::add(const std::vector<std::string>& prefix, const std::vector<std::string>& fields) {
  for (const auto& f : fields) {
    std::vector<std::string> p = prefix;
    for (std::size_t i = 0;;) {
      const auto dot = f.find('.', i);
      p.push_back(f.substr(i, dot == std::string::npos ? std::string::npos : dot - i));
      if (dot == std::string::npos) break;
      i = dot + 1;
    }
    paths.push_back(std::move(p));
  }
}

/// What read_json's parser callback does for a JsonOmit: follows the path of the value being
/// parsed (the parser gives each event's depth, not its path) and refuses each key that a
/// path names, then every event inside its value, so no part of it is built.
struct JsonOmitWalk {
  using event = nlohmann::json::parse_event_t;
  const JsonOmit& omit;
  std::size_t longest = 0;
  std::vector<std::string> at;  ///< at[d]: the key (or "*" in a list) of the value at depth d
  int skipping = 0;             ///< > 0: inside the value of a key left out at this depth

  explicit JsonOmitWalk(const JsonOmit& o) : omit(o) {
    for (const auto& p : o.paths) longest = std::max(longest, p.size());
  }
  bool named(std::size_t depth) const {
    for (const auto& p : omit.paths) {
      if (p.size() != depth) continue;
      std::size_t i = 0;
      while (i < depth && (p[i] == "*" || p[i] == at[i + 1])) ++i;
      if (i == depth) return true;
    }
    return false;
  }
  /// Whether the parser keeps what this event begins.
  bool keep(int depth, event ev, const nlohmann::json& parsed) {
    const auto d = static_cast<std::size_t>(depth);
    if (skipping > 0) {
      if (depth > skipping) return false;  // inside the value left out
      if (ev != event::key && ev != event::object_end && ev != event::array_end) return true;  // the value itself: its key dropped it
      skipping = 0;
    }
    if ((ev == event::object_start || ev == event::array_start) && d + 1 <= longest) {
      at.resize(d + 2);
      at[d + 1] = ev == event::array_start ? "*" : "";
    } else if (ev == event::key && d <= longest && d >= 1) {
      if (at.size() < d + 1) at.resize(d + 1);
      at[d] = parsed.get_ref<const std::string&>();
      if (named(d)) {
        skipping = depth;
        return false;
      }
    }
    return true;
  }
};

TFJOB_INLINE bool UniqueKeys::step(nlohmann::json::parse_event_t ev, const nlohmann::json& parsed) {
  using E = nlohmann::json::parse_event_t;
  if (ev == E::object_start) open_.emplace_back();
  else if (ev == E::object_end && !open_.empty()) open_.pop_back();
  else if (ev == E::key && !open_.empty()) return open_.back().insert(parsed.get_ref<const std::string&>()).second;
  return true;
}

TFJOB_INLINE std::string duplicate_key_reason(const std::string& key) {
  return "duplicate key " + nlohmann::json(key).dump() + ": give each key once";
}

/// The byte where the `n`-th key (1-based) of `text` begins: a string followed by a colon.
TFJOB_INLINE std::size_t nth_key_at(std::string_view text, std::size_t n) {
  bool in_str = false, esc = false;
  std::size_t start = 0, seen = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (!in_str) {
      if (c == '"') in_str = true, start = i;
      continue;
    }
    if (esc) esc = false;
    else if (c == '\\') esc = true;
    else if (c == '"') {
      in_str = false;
      std::size_t j = i + 1;
      while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j]))) ++j;
      if (j < text.size() && text[j] == ':' && ++seen == n) return start;
    }
  }
  return 0;
}

TFJOB_INLINE std::size_t string_start(std::string_view text, std::size_t close) {
  for (std::size_t i = std::min(close, text.size()); i-- > 0;) {
    if (text[i] != '"') continue;
    std::size_t slashes = 0;
    while (slashes < i && text[i - 1 - slashes] == '\\') ++slashes;
    if (slashes % 2 == 0) return i;
  }
  return close;
}

TFJOB_INLINE JsonRead read_json(std::string_view text, int max_depth, const JsonOmit* omit, JsonKeys keys) {
  JsonRead r;
  struct too_deep {};
  struct duplicate_key {
    std::string key;
  };
  std::size_t depth_seen = 0;
  std::optional<JsonOmitWalk> walk;
  if (omit && !omit->empty()) walk.emplace(*omit);
  std::optional<UniqueKeys> unique;
  if (keys == JsonKeys::unique) unique.emplace();
  std::size_t keys_seen = 0;
  auto cb = [&](int depth, nlohmann::json::parse_event_t ev, nlohmann::json& parsed) {
    if ((ev == nlohmann::json::parse_event_t::object_start || ev == nlohmann::json::parse_event_t::array_start) &&
        depth >= max_depth) {
      depth_seen = static_cast<std::size_t>(depth);
      throw too_deep{};
    }
    if (unique) {
      keys_seen += ev == nlohmann::json::parse_event_t::key;
      if (!unique->step(ev, parsed)) throw duplicate_key{parsed.get<std::string>()};
    }
    return !walk || walk->keep(depth, ev, parsed);
  };
  try {
    r.value = nlohmann::json::parse(text.begin(), text.end(), cb);
  } catch (const duplicate_key& d) {
    r.value = nullptr;
    r.byte = nth_key_at(text, keys_seen);
    r.error = duplicate_key_reason(d.key);
  } catch (const too_deep&) {
    // find the offending bracket: the (max_depth+1)-th unclosed one
    int d = 0;
    bool in_str = false, esc = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
      char c = text[i];
      if (in_str) {
        if (esc) esc = false;
        else if (c == '\\') esc = true;
        else if (c == '"') in_str = false;
        continue;
      }
      if (c == '"') in_str = true;
      else if (c == '[' || c == '{') {
        if (++d > max_depth) { r.byte = i; break; }
      } else if (c == ']' || c == '}') --d;
    }
    (void)depth_seen;
    r.value = nullptr;
    r.error = "exceeded max depth of " + std::to_string(max_depth) + " nested arrays and objects";
  } catch (const nlohmann::json::parse_error& e) {
    r.value = nullptr;
    r.byte = e.byte > 0 ? e.byte - 1 : 0;
    r.error = json_syntax_reason(e);
    r.trailing = std::string(e.what()).find("expected end of input") != std::string::npos && r.byte > 0;
  } catch (const nlohmann::json::exception& e) {
    // e.g. out_of_range.406 "number overflow parsing '1e999'": the reason without the library's tag
    r.value = nullptr;
    std::string msg = e.what();
    auto tag = msg.find("] ");
    r.error = tag == std::string::npos ? msg : msg.substr(tag + 2);
  }
  return r;
}

TFJOB_INLINE std::string json_fault_place(std::string_view text, const JsonRead& r) {
  auto [line, col] = line_col_at(text, r.byte);
  return "at line " + std::to_string(line) + ", column " + std::to_string(col);
}

}  // namespace tfjob::detail
