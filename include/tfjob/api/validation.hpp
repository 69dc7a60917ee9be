#pragma once
/// \file Validation as the training operator v1.9's admission webhook
/// (`pkg/webhooks/tensorflow/tfjob_webhook.go`, `pkg/common/util/webhooks.go`), with the
/// apimachinery messages (`field.Error`, `IsDNS1035Label`), plus client-side checks the
/// API server would otherwise reject later (quantities, enum values, negative counts).
/// Every problem is reported at once, each with its field path.

#include <tfjob/api/quantity.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

namespace tfjob {

namespace detail {

/// `validation.IsDNS1035Label`: the messages apimachinery returns.
std::vector<std::string> dns1035_label_errors(const std::string& value);

/// `validation.IsDNS1123Label` (a namespace's name): the messages apimachinery returns.
std::vector<std::string> dns1123_label_errors(const std::string& value);

// apimachinery's formats, matched by hand: std::regex cost every includer about a second
// of compile time, and several at -O2 where it is called.
bool is_alnum_ascii(char c);
bool is_lower_alnum(char c);
/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`, the whole string (apimachinery's qualifiedNameFmt).
bool is_qualified_name_part(const std::string& s);
/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`, the whole string
/// (apimachinery's dns1123SubdomainFmt): dot-separated labels, each starting and ending alphanumeric.
bool is_dns1123_subdomain(const std::string& s);

/// apimachinery's `IsQualifiedName`: `[prefix/]name`, the prefix a DNS-1123 subdomain
/// (at most 253 characters), the name at most 63 of `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`.
std::vector<std::string> qualified_name_errors(const std::string& value);

/// apimachinery's `IsValidLabelValue`.
std::vector<std::string> label_value_errors(const std::string& value);

/// Go's `%q`-like quoting of a bad value for messages.
std::string quoted(const std::string& s);
std::string join(const std::vector<std::string>& v, const char* sep);
field_error required(std::string field, std::string detail);
field_error invalid(std::string field, const std::string& value, std::string detail);
field_error not_supported(std::string field, const std::string& value,
                          const std::vector<std::string>& supported);
field_error forbidden(std::string field, std::string detail);
field_error duplicate(std::string field, const std::string& value);

/// Quantities under `resources.limits/requests` of every container of a pod spec.
void validate_container_resources(const nlohmann::json& container, const std::string& path,
                                  std::vector<field_error>& errs);

/// metadata (name, labels, annotations), apiVersion and kind: the object's own fields.
void validate_metadata(const TFJob& job, std::vector<field_error>& errs);

/// spec.runPolicy (ValidateRunPolicy + enum/range checks), then spec.successPolicy.
void validate_run_policy(const TFJob& job, std::vector<field_error>& errs);

/// The containers of one replica spec (image, resources, ports); true when one is named `tensorflow`.
bool validate_replica_containers(const ReplicaSpec& r, const std::string& containers_path,
                                 std::vector<field_error>& errs);

/// One entry of spec.tfReplicaSpecs: its type (known, not a duplicate; Chief/Master counted),
/// replicas, restartPolicy and containers.
void validate_replica_spec(const std::string& specs_path, const std::string& rtype, const ReplicaSpec& r,
                           std::map<std::string, std::string>& seen, int& chief_or_master,
                           std::vector<field_error>& errs);

/// spec.tfReplicaSpecs (validateTFReplicaSpecs): present, each entry, at most one Chief or Master.
void validate_replica_specs(const TFJob& job, std::vector<field_error>& errs);

}  // namespace detail

/// Not the operator's rule but this SDK's, for a job read from a manifest (parse_tfjobs, lint):
/// it is applied by its name (server-side apply, as kubectl apply: "cannot use generate name
/// with apply") and its TF_CONFIG names its pods by it, so a name left for the server to
/// generate is refused as the file is read. Empty when the job has a name.
std::vector<field_error> manifest_name_errors(const TFJob& job);

/// Every problem with `job`, each with its field path (empty when valid). Mirrors the
/// operator's webhook (name, managedBy, containers, images, `tensorflow` container, one
/// Chief/Master) and adds client-side checks for values the API server or the operator
/// would refuse later.
std::vector<field_error> validate(const TFJob& job);

/// Throws `validation_error` listing every problem; returns normally when valid.
void validate_or_throw(const TFJob& job);

}  // namespace tfjob

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/impl/validation_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
