#pragma once
/// \file Pure request building (kube-core `request.rs`): every API call is first a `Request`
/// value (method, path, query, body) that a unit test can inspect without a server, then
/// sent by `Client`. Parameter structs mirror metav1 ListOptions/DeleteOptions/PatchOptions.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/kube/detail/util.hpp>
#include <tfjob/kube/resource.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tfjob::kube {

/// One HTTP request to the API server, before credentials are added.
struct Request {
  std::string method = "GET";
  std::string path;  ///< e.g. `/apis/kubeflow.org/v1/namespaces/team-a/tfjobs/mnist`
  std::vector<std::pair<std::string, std::string>> query;
  std::string body;
  std::string content_type;  ///< "" when there is no body
  std::string accept = "application/json";
  /// Whether repeating the request after it may have reached the server is harmless
  /// (GET, server-side apply). POST/merge-PATCH/DELETE are never repeated blindly.
  bool idempotent = true;
  /// A write of an object: sent with a fieldManager, the client's own
  /// (RestConfig::field_manager) when the query names none.
  bool takes_field_manager = false;
  std::string what;  ///< short description for errors, e.g. `get tfjobs/mnist`

  /// path + encoded query string.
  std::string target() const;
  /// The value of a query parameter ("" when absent).
  std::string param(const std::string& k) const;
};

/// Where a resource type lives (from resource_traits<T>).
struct ResourceInfo {
  std::string group;    ///< "" for the core group
  std::string version;  ///< "v1"
  std::string plural;   ///< "pods"
  std::string kind;     ///< "Pod"
  bool namespaced = true;
  /// `v1` or `kubeflow.org/v1`.
  std::string api_version() const;
  /// `pods` or `tfjobs.kubeflow.org` (as kubectl names resources in messages).
  std::string qualified() const;
};

template <class T>
ResourceInfo resource_info() {
  using tr = resource_traits<T>;
  return ResourceInfo{tr::group, tr::version, tr::plural, tr::kind, tr::namespaced};
}

/// metav1.ListOptions as kubectl uses them.
struct ListParams {
  std::string label_selector;  ///< e.g. `training.kubeflow.org/job-name=mnist`
  std::string field_selector;  ///< e.g. `status.phase=Running`
  /// Page size; unset = the client's (RestConfig::chunk_size, kubectl --chunk-size), 0 = the
  /// whole list at once. A single request (RequestBuilder::list) sends it only when above 0.
  std::optional<int> limit;
  std::string continue_token;  ///< start from this page (list_page)
  /// Ask for the server's Table (meta.k8s.io/v1), as kubectl get does for its tables: each
  /// row's cells (the resource's printer columns) and the object's metadata, not the whole
  /// objects, so the server encodes and sends a fraction of the bytes. A server that does not
  /// serve Tables answers the list as usual (kube::ListPage::columns says which came).
  bool as_table = false;
  std::string resource_version;
  std::optional<int> timeout_seconds;
  /// Fields of each item the caller never reads (keys joined by dots: "spec",
  /// "metadata.managedFields"), left out as each page is read (list_pages), so a page costs
  /// the memory of what is read. Not sent: the server answers whole objects. Never name
  /// what the pager or a watcher reads (metadata.name, namespace, uid, resourceVersion).
  std::vector<std::string> omit;
};

/// The list of the events about one object, as kubectl describe asks for them (client-go
/// kubernetes/typed/core/v1/event_expansion.go, Search and GetFieldSelector): the field
/// selector involvedObject.kind, .name, .namespace and, when known, .uid, so the answer holds
/// that object's events and nothing else of the namespace.
ListParams events_about(const std::string& kind, const std::string& name, const std::string& ns,
                        const std::string& uid = {});

/// Options for create (POST).
struct PostParams {
  bool dry_run = false;
  std::string field_manager;  ///< "" = the client's (RestConfig::field_manager)
  /// metav1 fieldValidation: "Strict" refuses unknown or duplicate fields, "Warn" names each
  /// in a Warning header, "Ignore" drops them; "" = the server's default (Warn). Known to
  /// kube-apiserver 1.23+ (on by default from 1.25); older servers ignore the parameter, as
  /// kubectl's QueryParamVerifier (cli-runtime resource/query_param_verifier.go) allows for.
  std::string field_validation;
};

/// Server-side apply (PATCH application/apply-patch+yaml).
struct ApplyParams {
  std::string field_manager;  ///< "" = the client's (RestConfig::field_manager)
  bool force = false;  ///< take over fields owned by other managers
  bool dry_run = false;
  /// metav1 fieldValidation: "Strict" refuses unknown or duplicate fields, "Warn" names each
  /// in a Warning header, "Ignore" drops them; "" = the server's default (Warn). Known to
  /// kube-apiserver 1.23+ (on by default from 1.25); older servers ignore the parameter, as
  /// kubectl's QueryParamVerifier (cli-runtime resource/query_param_verifier.go) allows for.
  std::string field_validation;
};

/// Merge patch (PATCH application/merge-patch+json).
struct PatchParams {
  std::string field_manager;  ///< "" = the client's (RestConfig::field_manager)
  bool dry_run = false;
  /// metav1 fieldValidation: "Strict" refuses unknown or duplicate fields, "Warn" names each
  /// in a Warning header, "Ignore" drops them; "" = the server's default (Warn). Known to
  /// kube-apiserver 1.23+ (on by default from 1.25); older servers ignore the parameter, as
  /// kubectl's QueryParamVerifier (cli-runtime resource/query_param_verifier.go) allows for.
  std::string field_validation;
};

/// metav1.DeleteOptions.
struct DeleteParams {
  std::string propagation_policy;  ///< "" (server default), Foreground, Background, Orphan
  std::optional<int> grace_period_seconds;
  bool dry_run = false;
};

/// Options for Api<T>::watch.
struct WatchParams {
  std::string label_selector, field_selector;
  /// Start after this version; "" = list first (initial objects arrive as ADDED events).
  std::string resource_version;
  bool allow_bookmarks = true;
  int timeout_seconds = 290;  ///< per watch connection (the watcher reconnects after it)
  bool deliver_bookmarks = false;  ///< pass BOOKMARK events to the callback too
  /// Fields of each object the caller never reads, left out of the watcher's lists and
  /// events as they are read (ListParams::omit); the callback gets the objects without them.
  std::vector<std::string> omit;
};

/// Builds the requests for one resource type in one namespace ("" = all namespaces, or
/// cluster-scoped).
class RequestBuilder {
 public:
  RequestBuilder(ResourceInfo res, std::string ns);

  const ResourceInfo& resource() const { return res_; }
  const std::string& namespace_() const { return ns_; }

  std::string collection_path() const;
  std::string item_path(const std::string& name, const std::string& subresource = {}) const;

  Request get(const std::string& name, const std::string& subresource = {}) const;

  Request list(const ListParams& p) const;

  Request watch(const WatchParams& p, const std::string& resource_version) const;

  Request create(const nlohmann::json& obj, const PostParams& p = {}) const;

  Request replace(const std::string& name, const nlohmann::json& obj, const PostParams& p = {}) const;

  /// Server-side apply: the object must carry apiVersion, kind and metadata.name.
  Request apply(const std::string& name, const nlohmann::json& obj, const ApplyParams& p = {},
                const std::string& subresource = {}) const;

  Request merge_patch(const std::string& name, const nlohmann::json& patch, const PatchParams& p = {},
                      const std::string& subresource = {}) const;

  Request remove(const std::string& name, const DeleteParams& p = {}) const;

  /// The object with apiVersion/kind filled from the resource when missing.
  nlohmann::json with_type(const nlohmann::json& obj) const;

  std::string describe(const std::string& name) const;

 private:
  std::string where() const;
  void need_name(const std::string& name, const char* verb) const;
  ResourceInfo res_;
  std::string ns_;
};

}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
#include <tfjob/kube/impl/request_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
