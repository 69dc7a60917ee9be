#pragma once
/// \file The TFJob CRD's openAPIV3Schema as the judge of manifests, as `kubectl
/// --validate=strict` and kube-apiserver judge them: unknown fields (named with their path,
/// the known name nearest to a typo, or the level a field belongs at), types, enums,
/// int-or-string, required fields, the quantity pattern, minimum and maximum, duplicate keys
/// of list-maps and sets; a field under `x-kubernetes-preserve-unknown-fields` is kept, not
/// judged. The root `metadata` is judged as ObjectMeta's Go type (apiextensions does the
/// same: a CRD's schema may only say `type: object` there). Pure: the schema is the CRD's
/// (embedded, detail/tfjob_crd_schema.hpp) or any other openAPIV3Schema given.
///
/// Not judged here: CEL rules (`x-kubernetes-validations`, they need the old object),
/// `format`s (the API server checks `date-time` on status fields the client never writes),
/// and patterns other than Kubernetes' quantity pattern (the only one the TFJob CRD has; a
/// test holds that true).
///
/// ```cpp
/// for (const auto& issue : tfjob::schema::check_tfjob(manifest))
///   std::cerr << issue.message() << "\n";   // unknown field "spec.runPolcy"; did you mean "runPolicy"?
/// ```

#include <tfjob/detail/compiled.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace tfjob {

/// kubectl's `--validate` (strict, warn, ignore; cmd/util GetValidationDirective) and the
/// `fieldValidation` parameter a create or apply sends with it (metav1.FieldValidation).
enum class FieldValidation { strict, warn, ignore };

/// "Strict", "Warn" or "Ignore": the value of the `fieldValidation` query parameter.
const char* to_query_value(FieldValidation v);

namespace schema {

/// One step of a path into an object: a property, a key of a map (additionalProperties) or
/// an index of a list.
struct PathStep {
  enum class Kind { property, key, index };
  Kind kind = Kind::property;
  std::string name;  ///< the property or key, or the index in decimal
};
using Path = std::vector<PathStep>;

/// The path as kube-apiserver writes it in schema errors and strict decoding's "unknown
/// field" (`spec.tfReplicaSpecs.Worker.template.spec.containers[0].image`); "" for the root.
std::string to_string(const Path& p);

/// The path as a JSON pointer (`/spec/tfReplicaSpecs/Worker/template/spec/containers/0/image`).
nlohmann::json::json_pointer to_pointer(const Path& p);

/// One thing the schema (or TFJob's kind and apiVersion) refuses in an object.
struct Issue {
  enum class Kind {
    unknown_field,      ///< a field the schema does not have (the API server would drop it)
    wrong_type,         ///< `expected`: the type wanted ("integer", "integer,string" for int-or-string)
    unsupported_value,  ///< a value outside `supported` (the schema's enum)
    required,           ///< a required field is missing (`path` names it)
    pattern,            ///< a string that does not match `expected` (the pattern)
    out_of_range,       ///< a number below the minimum or above the maximum (`expected`: ">= 0")
    duplicate,          ///< a second item with the same key(s) in a list-map, or value in a set
    wrong_kind,         ///< `kind` is not TFJob (`suggestion`: "TFJob" for a near miss)
    wrong_api_version,  ///< `apiVersion` is not kubeflow.org/v1 (`expected`: what is served)
  };
  Kind kind = Kind::unknown_field;
  Path path;
  nlohmann::json value;                  ///< what was found (null where nothing was)
  std::string expected;                  ///< see Kind
  std::vector<nlohmann::json> supported; ///< unsupported_value: the schema's enum
  std::string suggestion;                ///< unknown_field: the known field nearest to it ("runPolicy")
  /// unknown_field: the path of the object where a known field of this name lives
  /// ("spec.runPolicy" for spec.cleanPodPolicy); "." when it is the top level.
  std::string belongs_in;

  /// kube-apiserver's form of `path` ("" for the root).
  std::string field() const { return to_string(path); }
  /// One line that names the path: `unknown field "spec.runPolcy"; did you mean
  /// "runPolicy"?`, `unknown field "spec.cleanPodPolicy"; it belongs in spec.runPolicy`,
  /// `spec.tfReplicaSpecs.Worker.replicas: Invalid value: "two": must be of type integer`.
  std::string message() const;
  /// What to do, in one line ("move it into spec.runPolicy", "rename it to runPolicy",
  /// "kind: TFJob"); "" when the message says it already.
  std::string fix() const;
  /// The replica type a path under spec.tfReplicaSpecs is in ("Worker"), "" elsewhere.
  std::string replica() const;
};

/// A stable name for an issue's kind, for lint codes: UnknownField, FieldWrongType,
/// UnsupportedValue, RequiredField, InvalidValue (pattern, range), DuplicateValue, WrongKind,
/// WrongApiVersion.
const char* code(Issue::Kind k);

/// A structural schema (apiextensions' openAPIV3Schema) that judges objects.
class Schema {
 public:
  /// `open_api_v3` is a CRD version's `schema.openAPIV3Schema`.
  explicit Schema(nlohmann::json open_api_v3);
  /// The schema of `version` in a CustomResourceDefinition (as JSON); throws tfjob::error
  /// when the CRD has no such version or it has no schema.
  static Schema from_crd(const nlohmann::json& crd, const std::string& version = "v1");
  /// The schema as given (the root metadata's ObjectMeta fields are the validator's own).
  const nlohmann::json& json() const { return schema_; }
  /// Every issue of `object`, in document order (none when it is valid).
  std::vector<Issue> validate(const nlohmann::json& object) const;

 private:
  nlohmann::json schema_;
  nlohmann::json object_meta_;
};

/// The training operator v1.9's TFJob schema (kubeflow.org/v1), embedded; parsed once.
const Schema& tfjob_schema();

/// The embedded schema's JSON text (the CRD's openAPIV3Schema without descriptions).
std::string_view tfjob_schema_text();

/// How a document stands to TFJob: one (`kind: TFJob`), a near miss that was meant to be
/// one (`TfJob`, `TFJobs`, or any kind under kubeflow.org/v1alpha*, v1beta*), or another kind.
enum class DocumentKind { tfjob, near_miss, other };
DocumentKind classify(const nlohmann::json& object);

/// A TFJob's `kind` and `apiVersion`: each wrong one as an issue saying what would be right
/// (an empty apiVersion is left to the caller, as `parse_tfjobs` fills it in).
std::vector<Issue> check_type_meta(const nlohmann::json& object);

/// Every issue of an object meant as a TFJob: its kind and apiVersion, then the schema
/// (when its kind and apiVersion are right).
std::vector<Issue> check_tfjob(const nlohmann::json& object);

namespace detail {
/// Whether `pattern` is Kubernetes' resource.Quantity pattern (the CRD's only one).
bool is_quantity_pattern(const std::string& pattern);
/// `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`,
/// matched by hand (std::regex costs every includer compile time, and recurses per character).
bool matches_quantity_pattern(const std::string& s);
/// The JSON type of a value as the schema names it: null, boolean, integer, number, string, array, object.
std::string json_type(const nlohmann::json& v);
/// ObjectMeta's fields (apimachinery pkg/apis/meta/v1 types.go), as a schema.
nlohmann::json object_meta_schema();
}  // namespace detail

}  // namespace schema
}  // namespace tfjob

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/impl/schema_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
