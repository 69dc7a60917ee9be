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
#include <string_view>
#include <utility>
#include <vector>

namespace tfjob::kube {

/// A complete (buffered) response.
/// Where a 2xx answer's body goes as it is read, instead of Response::body (Client::request_into):
/// a reader that builds what it needs from the bytes as they come holds that and a block,
/// never the whole text beside it. Its `data` should not throw: it notes what was wrong and
/// says so when asked for its result.
struct BodyConsumer {
  virtual ~BodyConsumer() = default;
  /// An attempt's body begins (again, after an attempt whose body was cut): forget what came before.
  virtual void start() = 0;
  virtual void data(std::string_view bytes) = 0;
};

struct Response {
  int status = 0;
  std::string reason;
  std::vector<std::pair<std::string, std::string>> headers;  ///< names lower-cased
  std::string body;  ///< empty for a 2xx answer given to `consumer`
  std::string header(const std::string& name) const;
  /// Set by Client::request_into: a 2xx answer's body goes there, not into `body`.
  BodyConsumer* consumer = nullptr;
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
