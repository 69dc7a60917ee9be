#pragma once
/// \file Small pure helpers for the kube layer: base64, URL encoding and parsing, durations,
/// file reading, redaction. No I/O beyond reading a named file.

#include <tfjob/error.hpp>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <chrono>
#include <cstdint>
#include <fcntl.h>
#include <unistd.h>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace tfjob::kube::detail {

/// Strict standard base64 (Go's `base64.StdEncoding`); line breaks and spaces are ignored.
inline std::optional<std::string> base64_decode(std::string_view in) {
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

inline std::string base64_encode(std::string_view in) {
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

/// Percent-encode a query component (RFC 3986 unreserved characters kept).
inline std::string url_encode(std::string_view s) {
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

/// Percent-encode a path segment (keeps the characters Kubernetes names may contain).
inline std::string path_escape(std::string_view s) { return url_encode(s); }

/// A parsed `scheme://[user:pass@]host[:port][/path]` URL.
struct Url {
  std::string scheme;  ///< "https" or "http" (lower case)
  std::string userinfo;
  std::string host;    ///< without IPv6 brackets
  int port = 0;        ///< defaulted from the scheme when absent
  std::string path;    ///< "" or starting with '/', without a trailing '/'
  bool ipv6 = false;
  /// host[:port] as it goes in a Host header or CONNECT line.
  std::string host_port() const {
    std::string h = ipv6 ? "[" + host + "]" : host;
    return h + ":" + std::to_string(port);
  }
  std::string origin() const { return scheme + "://" + host_port(); }
};

/// Parse a server or proxy URL; a bare `host:port` is taken as https (as client-go does).
inline Url parse_url(const std::string& in, const std::string& what = "URL") {
  Url u;
  std::string s = in;
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
    if (close == std::string::npos) throw config_error(what + " \"" + in + "\": unterminated IPv6 address");
    u.host = authority.substr(1, close - 1);
    u.ipv6 = true;
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') throw config_error(what + " \"" + in + "\": bad host");
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
  if (u.host.empty()) throw config_error(what + " \"" + in + "\" has no host");
  if (u.scheme != "https" && u.scheme != "http")
    throw config_error(what + " \"" + in + "\": unsupported scheme \"" + u.scheme +
                       "\" (use https:// or http://)");
  if (port.empty()) {
    u.port = u.scheme == "https" ? 443 : 80;
  } else {
    try {
      size_t used = 0;
      u.port = std::stoi(port, &used);
      if (used != port.size() || u.port <= 0 || u.port > 65535) throw std::out_of_range("port");
    } catch (const std::exception&) {
      throw config_error(what + " \"" + in + "\": bad port \"" + port + "\"");
    }
  }
  return u;
}

/// Parse a Go/kubectl duration as `--request-timeout` takes it: "0", "30" (seconds), "30s",
/// "1m", "2h", "1h30m", "500ms". Throws config_error naming the flag on bad input.
inline std::chrono::milliseconds parse_duration(const std::string& s, const std::string& what = "duration") {
  auto bad = [&]() {
    return config_error("invalid " + what + " \"" + s +
                        "\": must be a number of seconds or a duration with a unit (e.g. 0, 30s, 1m, 2h)");
  };
  // Go's time.Duration is int64 nanoseconds: at most 2562047h47m16.854775807s.
  constexpr double max_ms = 9223372036854.775807;
  auto too_long = [&]() {
    return config_error("invalid " + what + " \"" + s + "\": out of range (at most 2562047h, Go's longest duration)");
  };
  if (s.empty()) throw bad();
  bool all_digits = true;
  for (char c : s) all_digits = all_digits && std::isdigit(static_cast<unsigned char>(c));
  if (all_digits) {
    if (s.size() > 13 || std::stod(s) * 1000 > max_ms) throw too_long();
    return std::chrono::seconds(std::stoll(s));
  }
  double total_ms = 0;
  size_t i = 0;
  while (i < s.size()) {
    size_t start = i;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
    if (start == i) throw bad();
    double v = 0;
    try {
      v = std::stod(s.substr(start, i - start));
    } catch (const std::out_of_range&) {
      throw too_long();
    } catch (const std::invalid_argument&) {
      throw bad();
    }
    size_t ustart = i;
    while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
    std::string unit = s.substr(ustart, i - ustart);
    if (unit == "ms") total_ms += v;
    else if (unit == "s") total_ms += v * 1000;
    else if (unit == "m") total_ms += v * 60000;
    else if (unit == "h") total_ms += v * 3600000;
    else if (unit == "us" || unit == "µs") total_ms += v / 1000;
    else if (unit == "ns") total_ms += v / 1e6;
    else throw bad();
    if (!(total_ms <= max_ms)) throw too_long();
  }
  return std::chrono::milliseconds(static_cast<long long>(total_ms));
}

/// Read a whole file; throws config_error naming `what` and the path.
inline std::string read_file(const std::string& path, const std::string& what) {
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

/// Lower-case ASCII copy.
inline std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

inline std::string trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

/// Format a UTC time as RFC 3339 with seconds (`2024-01-02T03:04:05Z`).
inline std::string format_rfc3339(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// Parse RFC 3339 (`2024-01-02T03:04:05[.fff][Z|+hh:mm]`) to Unix seconds + nanoseconds.
/// Returns false on bad input.
inline bool parse_rfc3339(std::string_view s, std::int64_t& secs, std::int64_t& nanos) {
  if (s.size() < 20) return false;
  std::tm tm{};
  auto num = [&](size_t pos, size_t len, int& out) {
    out = 0;
    for (size_t i = pos; i < pos + len; ++i) {
      if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
      out = out * 10 + (s[i] - '0');
    }
    return true;
  };
  int Y, M, D, h, m, sec;
  if (!num(0, 4, Y) || s[4] != '-' || !num(5, 2, M) || s[7] != '-' || !num(8, 2, D) ||
      (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !num(11, 2, h) || s[13] != ':' ||
      !num(14, 2, m) || s[16] != ':' || !num(17, 2, sec))
    return false;
  tm.tm_year = Y - 1900;
  tm.tm_mon = M - 1;
  tm.tm_mday = D;
  tm.tm_hour = h;
  tm.tm_min = m;
  tm.tm_sec = sec;
  size_t i = 19;
  nanos = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    std::int64_t scale = 100000000;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      nanos += (s[i] - '0') * scale;
      scale /= 10;
      ++i;
    }
  }
  std::int64_t offset = 0;
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
    ++i;
  } else if (i + 6 <= s.size() && (s[i] == '+' || s[i] == '-')) {
    int oh, om;
    if (!num(i + 1, 2, oh) || s[i + 3] != ':' || !num(i + 4, 2, om)) return false;
    offset = (oh * 3600 + om * 60) * (s[i] == '+' ? 1 : -1);
    i += 6;
  } else {
    return false;
  }
  if (i != s.size()) return false;
  secs = static_cast<std::int64_t>(timegm(&tm)) - offset;
  return true;
}

}  // namespace tfjob::kube::detail
