#pragma once
/// \file Small pure helpers for the kube layer: base64, URL encoding and parsing, durations,
/// file reading, redaction. No I/O beyond reading a named file.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/time.hpp>
#include <tfjob/error.hpp>

#include <cmath>  // ceil: durations rounded up to a millisecond
#include <cctype>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <chrono>
#include <cstdint>
#include <fcntl.h>
#include <unistd.h>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tfjob::kube::detail {

/// Strict standard base64 (Go's `base64.StdEncoding`); line breaks and spaces are ignored.
std::optional<std::string> base64_decode(std::string_view in);

std::string base64_encode(std::string_view in);

/// Percent-encode a query component (RFC 3986 unreserved characters kept).
std::string url_encode(std::string_view s);

/// Percent-encode a path segment (keeps the characters Kubernetes names may contain).
std::string path_escape(std::string_view s);

/// A name or namespace as one segment of a request's path, or an error in client-go's words
/// (rest.Request's Name/Namespace: `invalid resource name "..": [may not be '..']`): "." and
/// ".." would be read as folders of the path, and a "/" or "%" as more than one segment.
/// `what`: "resource name" or "namespace".
std::string path_segment(std::string_view s, const char* what);

/// path_segment's check alone, for a segment that is sent as it is (a service proxy's `NAME:PORT`).
void check_path_segment(std::string_view s, const char* what);

/// A parsed `scheme://[user:pass@]host[:port][/path]` URL.
struct Url {
  std::string scheme;  ///< "https" or "http" (lower case)
  std::string userinfo;
  std::string host;    ///< without IPv6 brackets
  int port = 0;        ///< defaulted from the scheme when absent
  std::string path;    ///< "" or starting with '/', without a trailing '/'
  bool ipv6 = false;
  /// host[:port] as it goes in a Host header or CONNECT line.
  std::string host_port() const;
  std::string origin() const;
};

/// Parse a server or proxy URL; a bare `host:port` is taken as https (as client-go does).
Url parse_url(const std::string& in, const std::string& what = "URL");

/// Parse a Go/kubectl duration as `--request-timeout`, `--timeout` and `--since` take it:
/// "0", "30" (a bare integer is seconds, as kubectl's --request-timeout), or Go's
/// time.ParseDuration form without a sign: "30s", "1m", "2h", "1h30m", "1.5h", "500ms",
/// "10us"/"10µs", "100ns". Like Go, a value beyond int64 nanoseconds (about 292 years) is
/// refused, not wrapped. A positive value is rounded up to a whole millisecond, so it never
/// becomes 0 ("no limit"): 500us is 1ms. Throws config_error naming `what` on bad input.
std::chrono::milliseconds parse_duration(const std::string& s, const Text& what = "duration");

/// parse_duration without the exception: nullopt on bad input, with `why` (when given) set
/// to what is wrong ("unknown unit \"x\" (use ns, us, ms, s, m or h)").
std::optional<std::chrono::milliseconds> try_parse_duration(const std::string& s, std::string* why = nullptr);

/// Read a whole file; throws config_error naming `what` and the path.
std::string read_file(const std::string& path, const Text& what);

/// Lower-case ASCII copy.
std::string lower(std::string s);

std::string trim(std::string_view s);

// RFC 3339 time helpers are pure and shared with api/ (the operator's rules).
using tfjob::detail::format_rfc3339;
using tfjob::detail::parse_rfc3339;

}  // namespace tfjob::kube::detail

namespace tfjob::kube {
/// A server URL fit to print: a password in it is replaced by "xxxxx", as Go's
/// url.URL.Redacted() does for kubectl (https://user:xxxxx@host): every message
/// that shows a server or proxy URL shows it through this function.
std::string redact_url(const std::string& url);
}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
#include <tfjob/kube/detail/impl/util_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
