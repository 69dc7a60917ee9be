#pragma once
/// \file RFC 3339 times as Kubernetes writes them (`metav1.Time`): pure, shared by the
/// api/ layer (the operator's rules) and kube/ (logs, exec credentials).

#include <tfjob/detail/compiled.hpp>

#include <cctype>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>

namespace tfjob::detail {

/// Format a UTC time as RFC 3339 with seconds (`2024-01-02T03:04:05Z`).
std::string format_rfc3339(std::time_t t);

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil:
/// portable, no timegm, no overflow for any four-digit year).
std::int64_t days_from_civil(int y, unsigned m, unsigned d);

/// Parse RFC 3339 (`2024-01-02T03:04:05[.fff][Z|+hh:mm]`) to Unix seconds + nanoseconds,
/// the one parser of the SDK's times (metav1.Time, log timestamps, exec credentials'
/// expirationTimestamp). Go's time.Parse(time.RFC3339Nano) ranges: month 1-12, a day that
/// exists in the month, hour 0-23, minute 0-59, second 0-59, zone offset below 24h; digits
/// past nanoseconds are dropped. Returns false on bad input.
bool parse_rfc3339(std::string_view s, std::int64_t& secs, std::int64_t& nanos);

/// Unix seconds of an RFC 3339 time (fractions dropped); nullopt when it is not one.
std::optional<std::int64_t> rfc3339_seconds(std::string_view s);

}  // namespace tfjob::detail

#if TFJOB_SDK_DEFINE_CORE
#include <tfjob/detail/impl/time_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_CORE
