#pragma once
/// \file The SDK's small error family (kube-rs `Error`, client-go `StatusError`).
///
/// The rule for how SDK functions answer (docs/sdk.md, "Errors"):
/// - absence that is normal is `std::optional` (`Api<T>::get_opt`, a field not set);
/// - a failure is an exception of this family: the caller could not get what it asked for
///   (unreachable server, refused credentials, an error Status, an answer that is not what
///   the API promises, invalid input);
/// - an outcome a caller branches on (a wait that timed out, a node not ready, a job that
///   failed) is a report struct with an enum, never an exception.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/setting.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tfjob {

/// Base of every error the SDK throws.
///
/// An error whose remedy is a setting the caller controls carries it apart from the
/// problem (as a Kubernetes `Status` carries its `reason`): `reason()` is a stable name for
/// the case, `problem()` says what is wrong, `advice()` what to do. The message names the
/// SDK's settings by key (setting.hpp): `what()` words them with the SDK's own names
/// (`SubmitOptions::replace`), and an application words `text()` with its own (the plugin:
/// `--replace`); `what()` is problem and advice together.
class error : public std::runtime_error {
 public:
  /// A message, plain or naming settings by key.
  explicit error(const Text& message);
  error(const std::string& message);  // NOLINT: the family is thrown with plain strings
  error(const char* message);         // NOLINT
  /// `advice` begins with its separator ("; set ...", ".\nSet ..."), so what() reads as one message.
  /// `subject` is the object the advice is about (a service's name), "" when none.
  error(std::string reason, const Text& problem, const Text& advice, std::string subject = {});
  /// An error about the value of one setting (reasons::invalid_setting): `problem` begins
  /// with the setting, subject() is its SDK name and setting() the key.
  error(std::string reason, const Text& problem, const Text& advice, tfjob::setting about);
  /// The case, e.g. "SpecConflict" (an api_error's: the Status's, e.g. "NotFound"); "" when
  /// the error names none.
  const std::string& reason() const noexcept { return reason_; }
  const std::string& subject() const noexcept { return subject_; }
  /// The setting the error is about (reasons::invalid_setting), else nullopt.
  const std::optional<tfjob::setting>& setting() const noexcept { return setting_; }
  /// The message without the advice (the whole message when there is no reason).
  std::string problem() const;
  /// The SDK's advice, with its leading separator ("" when there is no reason).
  std::string advice() const;
  /// The whole message (problem and advice) with the settings it names as keys.
  Text text() const;
  /// problem() and advice() with the settings they name as keys.
  const Text& problem_text() const noexcept { return problem_; }
  const Text& advice_text() const noexcept { return advice_; }

 private:
  std::string reason_, subject_;
  Text problem_, advice_;
  std::optional<tfjob::setting> setting_;
};

/// The stable reasons of errors that carry advice (error::reason()).
namespace reasons {
inline constexpr const char* spec_conflict = "SpecConflict";            ///< the TFJob exists with another spec
inline constexpr const char* service_not_found = "ServiceNotFound";     ///< no model server of that name
inline constexpr const char* kubeconfig_missing = "KubeconfigMissing";  ///< the explicitly named kubeconfig file
inline constexpr const char* user_not_found = "UserNotFound";           ///< the explicitly named user
inline constexpr const char* no_configuration = "NoConfiguration";      ///< no kubeconfig and no server
inline constexpr const char* no_current_context = "NoCurrentContext";   ///< a kubeconfig that selects no context
/// The server refused the connection (nothing listens there): subject() is the server's
/// host[:port] as configured. The connection was never opened, so nothing was sent.
inline constexpr const char* connection_refused = "ConnectionRefused";
/// The server could not be reached (its name does not resolve, the dial timed out, TLS
/// could not be set up): subject() is the server's host[:port]; problem() says why.
inline constexpr const char* server_unreachable = "ServerUnreachable";
/// A value given for one of the SDK's settings cannot be used: setting() is the key and
/// subject() its SDK name (e.g. "ServeOperations::batching"); the message begins with it, or,
/// when nothing was given, says what to give in parentheses; any other setting its advice
/// names is in parentheses too, `(ServeSpec::cpu 2)`. The message names each by key, so an
/// application words them with its own flags (the plugin: `--batching`, `(--cpu 2)`,
/// plugin/common/error_words.hpp).
inline constexpr const char* invalid_setting = "InvalidSetting";
/// The TFJob named is not in its namespace (no_such_job): subject() is its name.
inline constexpr const char* job_not_found = "TFJobNotFound";
}  // namespace reasons

/// A TFJob that is not there, said once for every caller: problem() is kube-apiserver's words
/// (`tfjobs.kubeflow.org "NAME" not found in namespace "NS"`), `advice` (with its separator)
/// what the caller's setting meant, reason() reasons::job_not_found.
error no_such_job(const std::string& ns, const std::string& name, const Text& advice = {});

/// A kubeconfig, in-cluster config or flag combination that cannot be used.
class config_error : public error {
 public:
  using error::error;
};

/// Credentials could not be obtained or were refused (exec plugin, token file, 401).
class auth_error : public error {
 public:
  using error::error;
};

/// The server could not be reached or the connection broke (DNS, TCP, TLS, timeout).
class transport_error : public error {
 public:
  using error::error;
};

/// Bad YAML/JSON input: carries the position when known (1-based; 0 = unknown).
class parse_error : public error {
 public:
  parse_error(const std::string& what, int line = 0, int column = 0);
  int line() const noexcept { return line_; }
  int column() const noexcept { return column_; }

 private:
  int line_, column_;
};

/// The server answered 2xx, but its body is not the JSON the API promises (not JSON at
/// all, or nested beyond the SDK's bound): no transport problem, so retrying or resuming
/// will not help (client-go's decode errors are not retried either).
class decode_error : public parse_error {
 public:
  decode_error(const std::string& what, int http_status);
  int http_status() const noexcept { return http_status_; }

 private:
  int http_status_;
};

/// One invalid field, as the API server reports it (`field: Type value: detail`).
struct field_error {
  field_error() = default;
  field_error(std::string field_, std::string type_, std::string detail_ = {}, std::string where_ = {})
      : field(std::move(field_)), type(std::move(type_)), detail(std::move(detail_)), where(std::move(where_)) {}
  std::string field;   ///< e.g. `spec.tfReplicaSpecs[Worker].template.spec.containers[0].image`
  std::string type;    ///< e.g. `Required value`, `Invalid value`, `Unsupported value`; "" when
                       ///< `detail` is a whole sentence that names the field (the schema's
                       ///< `unknown field "spec.runPolcy"; did you mean "runPolicy"?`)
  std::string detail;  ///< human explanation
  std::string where;   ///< what the field belongs to, for people: `tfjob.yaml: TFJob mnist` ("" = the job at hand)
  /// `[where: ]field: type: detail`, or `[where: ]detail` when type is "".
  std::string to_string() const;
};

/// A spec that fails validation: every problem at once, each with its field path.
class validation_error : public error {
 public:
  explicit validation_error(std::vector<field_error> errors);
  const std::vector<field_error>& errors() const noexcept { return errors_; }

 private:
  static std::string join(const std::vector<field_error>& errs);
  std::vector<field_error> errors_;
};

/// The `details.causes[]` entry of a Kubernetes `Status`.
struct status_cause {
  std::string reason, message, field;
};

/// A Kubernetes `metav1.Status` as returned with a failed request.
struct status {
  std::string status;   ///< "Failure"
  std::string message;
  std::string reason;   ///< NotFound, AlreadyExists, Conflict, Forbidden, Invalid, Expired...
  int code = 0;         ///< HTTP status code
  std::string details_name, details_group, details_kind;
  std::vector<status_cause> causes;
  int retry_after_seconds = 0;
};

/// The API server answered with an error `Status`.
class api_error : public error {
 public:
  /// reason() is the Status's (NotFound, AlreadyExists, Conflict, ...).
  explicit api_error(struct status st, const std::string& context = {});
  const struct status& status() const noexcept { return status_; }
  int code() const noexcept { return status_.code; }
  bool is_not_found() const noexcept { return status_.code == 404 || status_.reason == "NotFound"; }
  bool is_already_exists() const noexcept { return status_.reason == "AlreadyExists"; }
  bool is_conflict() const noexcept { return status_.code == 409; }
  bool is_forbidden() const noexcept { return status_.code == 403 || status_.reason == "Forbidden"; }
  bool is_unauthorized() const noexcept { return status_.code == 401; }
  bool is_invalid() const noexcept { return status_.code == 422 || status_.reason == "Invalid"; }
  bool is_gone() const noexcept { return status_.code == 410 || status_.reason == "Expired" || status_.reason == "Gone"; }
  bool is_too_many_requests() const noexcept { return status_.code == 429; }

 private:
  static std::string make_message(const struct status& st, const std::string& context);
  struct status status_;
};

}  // namespace tfjob

#if TFJOB_SDK_DEFINE_CORE
#include <tfjob/impl/error_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_CORE
