#pragma once
/// \file The bodies of <tfjob/api/quantity.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/quantity.hpp>, never this file.

namespace tfjob {

TFJOB_INLINE std::optional<Quantity> Quantity::try_parse(std::string_view text) {
  // quantity regex: ^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$ with the number
  // `digits[.digits]` or `.digits` and exactly one known suffix (ParseQuantity).
  std::size_t i = 0;
  const std::size_t n = text.size();
  if (n == 0) return std::nullopt;
  bool negative = false;
  if (text[i] == '+' || text[i] == '-') negative = text[i++] == '-';
  std::size_t int_start = i;
  while (i < n && text[i] >= '0' && text[i] <= '9') ++i;
  std::size_t int_digits = i - int_start;
  std::size_t frac_digits = 0;
  if (i < n && text[i] == '.') {
    ++i;
    std::size_t f = i;
    while (i < n && text[i] >= '0' && text[i] <= '9') ++i;
    frac_digits = i - f;
  }
  if (int_digits + frac_digits == 0) return std::nullopt;
  std::string number(text.substr(int_start, i - int_start));
  std::string_view suffix = text.substr(i);
  double mult = 1;
  if (suffix.empty()) {
  } else if (suffix == "Ki") mult = std::ldexp(1.0, 10);
  else if (suffix == "Mi") mult = std::ldexp(1.0, 20);
  else if (suffix == "Gi") mult = std::ldexp(1.0, 30);
  else if (suffix == "Ti") mult = std::ldexp(1.0, 40);
  else if (suffix == "Pi") mult = std::ldexp(1.0, 50);
  else if (suffix == "Ei") mult = std::ldexp(1.0, 60);
  else if (suffix == "n") mult = 1e-9;
  else if (suffix == "u") mult = 1e-6;
  else if (suffix == "m") mult = 1e-3;
  else if (suffix == "k") mult = 1e3;
  else if (suffix == "M") mult = 1e6;
  else if (suffix == "G") mult = 1e9;
  else if (suffix == "T") mult = 1e12;
  else if (suffix == "P") mult = 1e15;
  else if (suffix == "E") mult = 1e18;
  else if (suffix[0] == 'e' || suffix[0] == 'E') {
    std::size_t k = 1;
    if (k < suffix.size() && (suffix[k] == '+' || suffix[k] == '-')) ++k;
    if (k == suffix.size()) return std::nullopt;
    int e = 0;
    for (; k < suffix.size(); ++k) {
      if (suffix[k] < '0' || suffix[k] > '9') return std::nullopt;
      e = e * 10 + (suffix[k] - '0');
      if (e > 1000) return std::nullopt;
    }
    // strtod reads the exponent with the digits (one rounding, not two): no pow(), whose
    // GLIBC_2.29 version would lift the release binary's glibc floor (docs/release.md)
    number += suffix;
  } else {
    return std::nullopt;
  }
  Quantity q;
  q.text_ = std::string(text);
  // strtod, not stod: a number too large for a double is "not a quantity" below, not an
  // std::out_of_range escaping to the caller.
  q.value_ = std::strtod(number.c_str(), nullptr) * mult;
  if (negative) q.value_ = -q.value_;
  if (!std::isfinite(q.value_)) return std::nullopt;
  return q;
}

TFJOB_INLINE Quantity Quantity::parse(std::string_view text) {
  auto q = try_parse(text);
  if (!q)
    throw error("\"" + std::string(text) +
                "\" is not a Kubernetes quantity (e.g. 500m, 2, 1.5, 4Gi, 512Mi, 1e3)");
  return *q;
}

TFJOB_INLINE long long Quantity::milli_value() const { return capped(std::ceil(value_ * 1000 - 1e-9)); }

TFJOB_INLINE long long Quantity::int_value() const { return capped(std::ceil(value_ - 1e-9)); }

TFJOB_INLINE long long Quantity::capped(double v) {
  // 2^63 is exactly representable; every double below it converts without overflow.
  if (v >= 9223372036854775808.0) return std::numeric_limits<long long>::max();
  if (v <= -9223372036854775808.0) return std::numeric_limits<long long>::min();
  return static_cast<long long>(v);
}

TFJOB_INLINE bool is_quantity(std::string_view text) { return Quantity::try_parse(text).has_value(); }

}  // namespace tfjob
