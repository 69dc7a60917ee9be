#pragma once
/// \file RFC 3339 times as Kubernetes writes them (`metav1.Time`): pure, shared by the
/// api/ layer (the operator's rules) and kube/ (logs, exec credentials).

#include <cctype>
#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>

namespace tfjob::detail {

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

}  // namespace tfjob::detail
