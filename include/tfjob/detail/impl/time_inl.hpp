#pragma once
/// \file The bodies of <tfjob/detail/time.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_CORE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/detail/time.hpp>, never this file.

namespace tfjob::detail {

TFJOB_INLINE std::string format_rfc3339(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

TFJOB_INLINE std::int64_t days_from_civil(int y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

TFJOB_INLINE bool parse_rfc3339(std::string_view s, std::int64_t& secs, std::int64_t& nanos) {
  if (s.size() < 20) return false;
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
  static constexpr int month_days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (Y % 4 == 0 && Y % 100 != 0) || Y % 400 == 0;
  if (M < 1 || M > 12 || D < 1 || D > month_days[M - 1] || (M == 2 && D == 29 && !leap) || h > 23 || m > 59 || sec > 59)
    return false;
  size_t i = 19;
  std::int64_t frac = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    std::int64_t scale = 100000000;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      frac += (s[i] - '0') * scale;
      scale /= 10;
      ++i;
    }
  }
  std::int64_t offset = 0;
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
    ++i;
  } else if (i + 6 <= s.size() && (s[i] == '+' || s[i] == '-')) {
    int oh, om;
    if (!num(i + 1, 2, oh) || s[i + 3] != ':' || !num(i + 4, 2, om) || oh > 23 || om > 59) return false;
    offset = (oh * 3600 + om * 60) * (s[i] == '+' ? 1 : -1);
    i += 6;
  } else {
    return false;
  }
  if (i != s.size()) return false;
  secs = days_from_civil(Y, static_cast<unsigned>(M), static_cast<unsigned>(D)) * 86400 + h * 3600 + m * 60 + sec - offset;
  nanos = frac;
  return true;
}

TFJOB_INLINE std::optional<std::int64_t> rfc3339_seconds(std::string_view s) {
  std::int64_t secs = 0, nanos = 0;
  if (!parse_rfc3339(s, secs, nanos)) return std::nullopt;
  return secs;
}

}  // namespace tfjob::detail
