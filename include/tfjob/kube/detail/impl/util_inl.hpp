#pragma once
/// \file The bodies of <tfjob/kube/detail/util.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/detail/util.hpp>, never this file.

namespace tfjob::kube {
TFJOB_INLINE std::string redact_url(const std::string& url) {
  auto scheme = url.find("://");
  std::size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  auto end = url.find_first_of("/?#", start);
  std::string authority = url.substr(start, end == std::string::npos ? std::string::npos : end - start);
  auto at = authority.rfind('@');
  if (at == std::string::npos) return url;
  std::string userinfo = authority.substr(0, at);
  auto colon = userinfo.find(':');
  if (colon == std::string::npos) return url;
  return url.substr(0, start) + userinfo.substr(0, colon) + ":xxxxx" + url.substr(start + at);
}
}  // namespace tfjob::kube

namespace tfjob::kube::detail {

TFJOB_INLINE std::optional<std::string> base64_decode(std::string_view in) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string clean;
  clean.reserve(in.size());
  for (char c : in)
    if (!std::isspace(static_cast<unsigned char>(c))) clean.push_back(c);
  if (clean.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(clean.size() / 4 * 3);
  for (size_t i = 0; i < clean.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      char c = clean[i + k];
      if (c == '=') {
        if (i + 4 != clean.size() || k < 2) return std::nullopt;
        v[k] = 0;
        ++pad;
      } else {
        if (pad) return std::nullopt;  // data after padding
        v[k] = val(c);
        if (v[k] < 0) return std::nullopt;
      }
    }
    uint32_t n = (uint32_t(v[0]) << 18) | (uint32_t(v[1]) << 12) | (uint32_t(v[2]) << 6) | uint32_t(v[3]);
    out.push_back(char((n >> 16) & 0xff));
    if (pad < 2) out.push_back(char((n >> 8) & 0xff));
    if (pad < 1) out.push_back(char(n & 0xff));
  }
  return out;
}

TFJOB_INLINE std::string base64_encode(std::string_view in) {
  static const char* tbl = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    out += tbl[(n >> 18) & 63];
    out += tbl[(n >> 12) & 63];
    out += tbl[(n >> 6) & 63];
    out += tbl[n & 63];
  }
  if (i < in.size()) {
    uint32_t n = uint8_t(in[i]) << 16;
    if (i + 1 < in.size()) n |= uint8_t(in[i + 1]) << 8;
    out += tbl[(n >> 18) & 63];
    out += tbl[(n >> 12) & 63];
    out += (i + 1 < in.size()) ? tbl[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

TFJOB_INLINE std::string url_encode(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(char(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

TFJOB_INLINE std::string path_escape(std::string_view s) { return url_encode(s); }

TFJOB_INLINE void check_path_segment(std::string_view s, const char* what) {
  // apimachinery path.IsValidPathSegmentName, as client-go applies it before a request is sent
  std::string why;
  if (s == "." || s == "..") why = "may not be '" + std::string(s) + "'";
  for (const char* bad : {"/", "%"})
    if (s.find(bad) != std::string_view::npos) why += (why.empty() ? "" : " ") + std::string("may not contain '") + bad + "'";
  if (!why.empty()) throw tfjob::error(std::string("invalid ") + what + " \"" + std::string(s) + "\": [" + why + "]");
}

TFJOB_INLINE std::string path_segment(std::string_view s, const char* what) {
  check_path_segment(s, what);
  return path_escape(s);
}

TFJOB_INLINE std::string Url::host_port() const {
  std::string h = ipv6 ? "[" + host + "]" : host;
  return h + ":" + std::to_string(port);
}

TFJOB_INLINE std::string Url::origin() const { return scheme + "://" + host_port(); }

TFJOB_INLINE Url parse_url(const std::string& in, const std::string& what) {
  Url u;
  std::string s = in;
  const std::string shown = redact_url(in);  // a password in it is never printed
  auto p = s.find("://");
  if (p == std::string::npos) {
    u.scheme = "https";
  } else {
    u.scheme = s.substr(0, p);
    for (auto& c : u.scheme) c = char(std::tolower(static_cast<unsigned char>(c)));
    s = s.substr(p + 3);
  }
  auto slash = s.find('/');
  std::string authority = s.substr(0, slash);
  u.path = slash == std::string::npos ? "" : s.substr(slash);
  while (!u.path.empty() && u.path.back() == '/') u.path.pop_back();
  auto at = authority.rfind('@');
  if (at != std::string::npos) {
    u.userinfo = authority.substr(0, at);
    authority = authority.substr(at + 1);
  }
  std::string port;
  if (!authority.empty() && authority[0] == '[') {
    auto close = authority.find(']');
    if (close == std::string::npos) throw config_error(what + " \"" + shown + "\": unterminated IPv6 address");
    u.host = authority.substr(1, close - 1);
    u.ipv6 = true;
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') throw config_error(what + " \"" + shown + "\": bad host");
      port = authority.substr(close + 2);
    }
  } else {
    auto colon = authority.rfind(':');
    if (colon != std::string::npos) {
      u.host = authority.substr(0, colon);
      port = authority.substr(colon + 1);
    } else {
      u.host = authority;
    }
  }
  if (u.host.empty()) throw config_error(what + " \"" + shown + "\" has no host");
  if (u.scheme != "https" && u.scheme != "http")
    throw config_error(what + " \"" + shown + "\": unsupported scheme \"" + u.scheme +
                       "\" (use https:// or http://)");
  if (port.empty()) {
    u.port = u.scheme == "https" ? 443 : 80;
  } else {
    try {
      size_t used = 0;
      u.port = std::stoi(port, &used);
      if (used != port.size() || u.port <= 0 || u.port > 65535) throw std::out_of_range("port");
    } catch (const std::exception&) {
      throw config_error(what + " \"" + shown + "\": bad port \"" + port + "\"");
    }
  }
  return u;
}

TFJOB_INLINE std::optional<std::chrono::milliseconds> try_parse_duration(const std::string& s, std::string* why) {
  auto bad = [&](const std::string& w = "must be a number of seconds or a duration with a unit (e.g. 0, 30s, 1m, 2h)")
      -> std::optional<std::chrono::milliseconds> {
    if (why) *why = w;
    return std::nullopt;
  };
  constexpr long double max_ns = 9223372036854775807.0L;  // Go's time.Duration is int64 ns
  const char* too_large = "out of range (at most 2562047h)";
  if (s.empty()) return bad();
  bool all_digits = true;
  for (char c : s) all_digits = all_digits && c >= '0' && c <= '9';
  if (all_digits) {
    long double secs = 0;
    for (char c : s) {
      secs = secs * 10 + (c - '0');
      if (secs * 1e9L > max_ns) return bad(too_large);
    }
    return std::chrono::milliseconds(static_cast<long long>(secs) * 1000);
  }
  long double total_ns = 0;
  size_t i = 0;
  while (i < s.size()) {
    // time.ParseDuration: [0-9]*(\.[0-9]*)? with at least one digit, then a unit.
    long double v = 0, scale = 1;
    size_t digits = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits)
      if (v <= max_ns) v = v * 10 + (s[i] - '0');  // past the maximum it stays too large
    if (i < s.size() && s[i] == '.')
      for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits)
        if (scale > 1e-30L) v += (s[i] - '0') * (scale /= 10);
    if (digits == 0) return bad();
    size_t ustart = i;
    while (i < s.size() && !(s[i] >= '0' && s[i] <= '9') && s[i] != '.') ++i;
    const std::string unit = s.substr(ustart, i - ustart);
    long double unit_ns;
    if (unit == "ns") unit_ns = 1;
    else if (unit == "us" || unit == "\xc2\xb5s" || unit == "\xce\xbcs") unit_ns = 1e3L;  // µs (micro sign, Greek mu)
    else if (unit == "ms") unit_ns = 1e6L;
    else if (unit == "s") unit_ns = 1e9L;
    else if (unit == "m") unit_ns = 60e9L;
    else if (unit == "h") unit_ns = 3600e9L;
    else if (unit.empty()) return bad("missing unit after a number (use ns, us, ms, s, m or h)");
    else return bad("unknown unit \"" + unit.substr(0, 16) + "\" (use ns, us, ms, s, m or h)");
    total_ns += v * unit_ns;
    if (total_ns > max_ns) return bad(too_large);
  }
  // rounded up: a positive duration below a millisecond is a limit of 1ms, never none
  return std::chrono::milliseconds(static_cast<long long>(std::ceil(total_ns / 1e6L)));
}

TFJOB_INLINE std::chrono::milliseconds parse_duration(const std::string& s, const Text& what) {
  std::string why;
  auto d = try_parse_duration(s, &why);
  if (!d) throw config_error("invalid " + what + " \"" + s.substr(0, 64) + (s.size() > 64 ? "..." : "") + "\": " + why);
  return *d;
}

TFJOB_INLINE std::string read_file(const std::string& path, const Text& what) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw config_error("cannot read " + what + " \"" + path + "\": " + std::strerror(errno));
  std::string out;
  char buf[16384];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) { out.append(buf, static_cast<size_t>(n)); continue; }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      throw config_error("cannot read " + what + " \"" + path + "\": " + std::strerror(e));
    }
    break;
  }
  ::close(fd);
  return out;
}

TFJOB_INLINE std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

TFJOB_INLINE std::string trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

}  // namespace tfjob::kube::detail
