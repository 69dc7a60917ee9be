#pragma once
// Internals of the fake API server shared by its translation units (not for tests).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include <tfjob/api/schema.hpp>  // the one validator (SchemaValidator words and prunes with it)

#include "support/fake_apiserver.hpp"

namespace tfjob::test::fake {

using json = nlohmann::json;
using Clock = std::chrono::system_clock;

/// One REST resource the server serves.
struct ResourceInfo {
  std::string group;     ///< "" for core
  std::string version;
  std::string plural;
  std::string singular;
  std::string kind;
  bool namespaced = true;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  bool has_status = false;     ///< a /status subresource (status ignored on main writes)
  bool has_generation = false; ///< metadata.generation bumps on spec changes
  bool builtin = true;         ///< false for CRDs (merge patch only, items keep kind)
  std::vector<std::string> subresources;  ///< extra ones: "log", "proxy", "scale"
  std::string key() const { return group.empty() ? plural : plural + "." + group; }
  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
};

const std::vector<ResourceInfo>& resources();
/// KServe's API group: served only with FakeApiServerOptions::kserve (its CRD "installed").
inline constexpr const char* kserve_group = "serving.kserve.io";
const ResourceInfo* find_resource(const std::string& group, const std::string& version, const std::string& plural);
const ResourceInfo* find_resource_by_kind(const std::string& api_version, const std::string& kind);
/// "pods", "tfjobs", "tfjobs.kubeflow.org", "deployments.apps"
const ResourceInfo* find_resource_name(const std::string& name);

// ---- time, ids ----
std::string rfc3339(Clock::time_point t);
std::string rfc3339_nano(Clock::time_point t);
std::string now_rfc3339();
bool parse_rfc3339(const std::string& s, Clock::time_point& out);
std::string new_uid();
std::string base64_encode(const std::string& in);
std::string base64_decode(const std::string& in);
bool glob_match(const std::string& pattern, const std::string& text);
std::string human_age(Clock::time_point since, Clock::time_point now);

// ---- Status errors shaped like kube-apiserver's ----
json status_failure(int code, const std::string& reason, const std::string& message,
                    const json& details = json());
json status_success(const json& details = json());
std::string reason_for_code(int code);
/// `resource` like "pods" or "tfjobs.kubeflow.org" (group-qualified for non-core).
std::string qualified(const ResourceInfo& ri);

/// A structured error thrown inside handlers and turned into a Status response.
struct ApiError {
  int code;
  json status;
};
ApiError err_not_found(const ResourceInfo& ri, const std::string& name);
ApiError err_already_exists(const ResourceInfo& ri, const std::string& name);
ApiError err_conflict(const ResourceInfo& ri, const std::string& name, const std::string& why);
ApiError err_bad_request(const std::string& message);
ApiError err_invalid(const ResourceInfo& ri, const std::string& name, const json& causes);
ApiError err_method_not_allowed(const std::string& message);
ApiError err_unsupported_media(const std::string& message);
ApiError err_gone(const std::string& message);

// ---- YAML / patches ----
/// Parses YAML (or JSON, which is YAML) into JSON; throws std::runtime_error with position.
json yaml_to_json(const std::string& text);
/// RFC 7386 merge patch.
json apply_merge_patch(const json& target, const json& patch);
/// Kubernetes strategic merge patch, with merge keys for the core types' lists.
json apply_strategic_merge_patch(const json& target, const json& patch);
/// Server-side apply (simplified: applied config merged over the live object with
/// list-map merge keys; fields owned by the manager and no longer applied are removed).
json apply_server_side(const json& live, const json& applied, const json& previously_applied);
/// Records a write in obj.metadata.managedFields (FieldsV1) as kube-apiserver does:
/// "Apply" gives `manager` exactly the fields of `applied` (and, with `force`, takes them
/// from the others); "Update" gives it the fields that changed from `before` (null for a
/// create) and takes them from the others. Simplified: lists are atomic (no k:/v: items).
/// An entry whose set did not change keeps its time, so a no-op write stays a no-op.
void record_managed_fields(json& obj, const json& before, const std::string& manager, const std::string& operation,
                           const json& applied, bool force, const std::string& api_version,
                           const std::string& subresource = "");
/// kube-apiserver's default field manager for non-apply writes: the User-Agent up to '/'.
std::string manager_from_user_agent(const std::string& user_agent);

// ---- schema validation ----
/// One cause of a 422.
struct Cause {
  std::string reason;  ///< FieldValueRequired, FieldValueInvalid, FieldValueNotSupported, FieldValueTypeInvalid, FieldValueDuplicate
  std::string message;
  std::string field;
};
class SchemaValidator {
 public:
  bool load_crd(const std::string& path, std::string& error);
  bool loaded() const { return !schema_.is_null(); }
  /// The schema's causes (metadata aside: Handler::validate_meta), as apiextensions words them.
  std::vector<Cause> validate(const json& object) const;
  /// Drops fields not in the schema (what a real server prunes), in place; returns their
  /// paths as strict decoding names them (`spec.runPolcy`).
  std::vector<std::string> prune(json& object) const;
  /// Applies the schema's `default:` values (structural defaulting), in place.
  void apply_defaults(json& object) const;
  const json& schema() const { return schema_; }
  const json& crd() const { return crd_; }

 private:
  json crd_;
  json schema_;
  std::optional<tfjob::schema::Schema> judge_;  ///< the SDK's validator over schema_
};
json causes_to_json(const std::vector<Cause>& causes);
std::string causes_message(const std::string& kind, const std::string& name, const std::vector<Cause>& causes);

// ---- label and field selectors ----
struct Selector {
  struct Req {
    std::string key, op;  ///< "=", "!=", "in", "notin", "exists", "!"
    std::vector<std::string> values;
  };
  std::vector<Req> reqs;
  static Selector parse(const std::string& text, bool field, std::string& error);
  bool matches_labels(const json& labels) const;
  bool matches_fields(const json& object) const;
};

// ---- discovery / tables ----
json discovery_api_versions(const std::string& address);
json discovery_groups();
json discovery_group(const std::string& group);
json discovery_resources(const std::string& group, const std::string& version);
json version_info();
json openapi_v3_index();
/// nullopt = not served
std::optional<json> openapi_v3_doc(const std::string& gv_path, const SchemaValidator& tfjob_schema);
json to_table(const ResourceInfo& ri, const std::vector<json>& objects, const json& list_meta);

// ---- fault rules ----
struct FaultRule {
  enum Kind { fail, gone, drop_watch, cut, stall, raw } kind = fail;
  std::string body, content_type, query;  ///< raw: the answer, and a substring of the query to match
  int status = 0;
  int retry_after = -1;
  int count = 1;
  std::string path, method;
  int events = 0;
  bool abrupt = true;
  std::size_t bytes = 0;
  std::chrono::milliseconds delay{0};
};

}  // namespace tfjob::test::fake

namespace tfjob::test {

struct Faults::Impl {
  mutable std::mutex mu;
  std::vector<fake::FaultRule> rules;
  std::size_t fired = 0;
  FakeApiServer::Impl* server = nullptr;
  /// Takes the first armed rule of `kind` that matches; false when none.
  bool take(fake::FaultRule::Kind kind, const std::string& method, const std::string& path,
            fake::FaultRule& out, const std::string& query = "");
};

}  // namespace tfjob::test
