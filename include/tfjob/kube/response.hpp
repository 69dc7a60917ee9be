#pragma once
/// \file What the API server answered: a buffered `Response`, its `Warning` headers, and a
/// failed answer read as a Kubernetes `Status` (client-go's rest.Result and
/// newUnstructuredResponseError; apimachinery's ParseWarningHeaders).

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/input.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/detail/util.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace tfjob::kube {

/// A complete (buffered) response.
struct Response {
  int status = 0;
  std::string reason;
  std::vector<std::pair<std::string, std::string>> headers;  ///< names lower-cased
  std::string body;
  std::string header(const std::string& name) const;
};

/// One warning of a `Warning` response header (RFC 7234 5.5: `299 - "text"`).
struct WarningHeader {
  int code = 0;
  std::string agent;  ///< "-" from kube-apiserver
  std::string text;   ///< unquoted
};

/// Every warning in the values of a response's `Warning` headers (one value may hold several,
/// comma-separated); a malformed one ends the parse of its value, as apimachinery's
/// util/net ParseWarningHeaders does.
std::vector<WarningHeader> parse_warning_headers(const std::vector<std::string>& values);

/// Decode a failed response into a Kubernetes Status (client-go's newUnstructuredResponseError
/// for bodies that are not a Status).
status status_from_response(int code, const std::string& reason_phrase, const std::string& body,
                            const std::string& retry_after = {});

}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
#include <tfjob/kube/impl/response_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
