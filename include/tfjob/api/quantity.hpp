#pragma once
/// \file Kubernetes resource quantities (`k8s.io/apimachinery/pkg/api/resource`):
/// `<signedNumber><suffix>` with binary (Ki..Ei), decimal (n, u, m, "", k, M, G, T, P, E)
/// or exponent (e3, E-2) suffixes.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>

#include <cmath>
#include <cstdlib>  // strtod
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace tfjob {

/// A parsed quantity. `value()` is in base units (cores, bytes, devices).
class Quantity {
 public:
  /// Parses `text`; std::nullopt when it is not a Kubernetes quantity.
  static std::optional<Quantity> try_parse(std::string_view text);
  /// Parses `text`; throws `tfjob::error` naming the text when it is not a quantity.
  static Quantity parse(std::string_view text);

  /// The value in base units.
  double value() const { return value_; }
  /// The value in thousandths, rounded up as Kubernetes does (`MilliValue`); capped at the
  /// int64 range (apimachinery's Quantity: "numbers larger ... will be capped").
  long long milli_value() const;
  /// The value rounded up to a whole unit (`Value`), capped like milli_value().
  long long int_value() const;
  /// The text as written.
  const std::string& str() const { return text_; }

 private:
  static long long capped(double v);
  std::string text_;
  double value_ = 0;
};

/// Whether `text` is a Kubernetes quantity.
bool is_quantity(std::string_view text);

}  // namespace tfjob

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/impl/quantity_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
