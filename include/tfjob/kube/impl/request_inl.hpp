#pragma once
/// \file The bodies of <tfjob/kube/request.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/request.hpp>, never this file.

namespace tfjob::kube {

TFJOB_INLINE std::string Request::target() const {
  std::string t = path;
  char sep = '?';
  for (const auto& [k, v] : query) {
    t += sep;
    t += detail::url_encode(k) + "=" + detail::url_encode(v);
    sep = '&';
  }
  return t;
}

TFJOB_INLINE std::string Request::param(const std::string& k) const {
  for (const auto& [qk, v] : query)
    if (qk == k) return v;
  return {};
}

TFJOB_INLINE std::string ResourceInfo::api_version() const { return group.empty() ? version : group + "/" + version; }

TFJOB_INLINE std::string ResourceInfo::qualified() const { return group.empty() ? plural : plural + "." + group; }

TFJOB_INLINE RequestBuilder::RequestBuilder(ResourceInfo res, std::string ns) : res_(std::move(res)), ns_(std::move(ns)) {}

TFJOB_INLINE std::string RequestBuilder::collection_path() const {
  std::string p = res_.group.empty() ? "/api/" + res_.version : "/apis/" + res_.group + "/" + res_.version;
  if (res_.namespaced && !ns_.empty()) p += "/namespaces/" + detail::path_segment(ns_, "namespace");
  return p + "/" + res_.plural;
}

TFJOB_INLINE std::string RequestBuilder::item_path(const std::string& name, const std::string& subresource) const {
  std::string p = collection_path() + "/" + detail::path_segment(name, "resource name");
  if (!subresource.empty()) p += "/" + subresource;
  return p;
}

TFJOB_INLINE Request RequestBuilder::get(const std::string& name, const std::string& subresource) const {
  need_name(name, "get");
  Request r;
  r.path = item_path(name, subresource);
  r.what = "get " + describe(name);
  return r;
}

TFJOB_INLINE ListParams events_about(const std::string& kind, const std::string& name, const std::string& ns,
                                     const std::string& uid) {
  ListParams p;
  p.field_selector = "involvedObject.kind=" + kind + ",involvedObject.name=" + name;
  if (!ns.empty()) p.field_selector += ",involvedObject.namespace=" + ns;
  if (!uid.empty()) p.field_selector += ",involvedObject.uid=" + uid;
  return p;
}

TFJOB_INLINE Request RequestBuilder::list(const ListParams& p) const {
  Request r;
  r.path = collection_path();
  if (!p.label_selector.empty()) r.query.emplace_back("labelSelector", p.label_selector);
  if (!p.field_selector.empty()) r.query.emplace_back("fieldSelector", p.field_selector);
  if (p.limit && *p.limit > 0) r.query.emplace_back("limit", std::to_string(*p.limit));
  if (!p.continue_token.empty()) r.query.emplace_back("continue", p.continue_token);
  if (!p.resource_version.empty()) r.query.emplace_back("resourceVersion", p.resource_version);
  if (p.timeout_seconds) r.query.emplace_back("timeoutSeconds", std::to_string(*p.timeout_seconds));
  // kubectl get's Accept (cli-runtime resource/builder.go: the Table, else the plain list)
  if (p.as_table) r.accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
  r.what = "list " + res_.qualified() + where();
  return r;
}

TFJOB_INLINE Request RequestBuilder::watch(const WatchParams& p, const std::string& resource_version) const {
  Request r;
  r.path = collection_path();
  r.query.emplace_back("watch", "true");
  if (!p.label_selector.empty()) r.query.emplace_back("labelSelector", p.label_selector);
  if (!p.field_selector.empty()) r.query.emplace_back("fieldSelector", p.field_selector);
  if (!resource_version.empty()) r.query.emplace_back("resourceVersion", resource_version);
  if (p.allow_bookmarks) r.query.emplace_back("allowWatchBookmarks", "true");
  if (p.timeout_seconds > 0) r.query.emplace_back("timeoutSeconds", std::to_string(p.timeout_seconds));
  r.what = "watch " + res_.qualified() + where();
  return r;
}

TFJOB_INLINE Request RequestBuilder::create(const nlohmann::json& obj, const PostParams& p) const {
  Request r;
  r.method = "POST";
  r.path = collection_path();
  r.body = with_type(obj).dump();
  r.content_type = "application/json";
  r.idempotent = false;
  r.takes_field_manager = true;
  if (p.dry_run) r.query.emplace_back("dryRun", "All");
  if (!p.field_manager.empty()) r.query.emplace_back("fieldManager", p.field_manager);
  if (!p.field_validation.empty()) r.query.emplace_back("fieldValidation", p.field_validation);
  r.what = "create " + describe(tfjob::detail::value_at(obj, "/metadata/name"_json_pointer, std::string(
                                    tfjob::detail::value_at(obj, "/metadata/generateName"_json_pointer, std::string()))));
  return r;
}

TFJOB_INLINE Request RequestBuilder::replace(const std::string& name, const nlohmann::json& obj, const PostParams& p) const {
  need_name(name, "replace");
  Request r;
  r.method = "PUT";
  r.path = item_path(name);
  r.body = with_type(obj).dump();
  r.content_type = "application/json";
  r.idempotent = false;  // a PUT with a stale resourceVersion must surface as a conflict
  r.takes_field_manager = true;
  if (p.dry_run) r.query.emplace_back("dryRun", "All");
  if (!p.field_manager.empty()) r.query.emplace_back("fieldManager", p.field_manager);
  if (!p.field_validation.empty()) r.query.emplace_back("fieldValidation", p.field_validation);
  r.what = "replace " + describe(name);
  return r;
}

TFJOB_INLINE Request RequestBuilder::apply(const std::string& name, const nlohmann::json& obj, const ApplyParams& p,
                                           const std::string& subresource) const {
  need_name(name, "apply");
  Request r;
  r.method = "PATCH";
  r.path = item_path(name, subresource);
  nlohmann::json body = with_type(obj);
  if (body.contains("metadata") && body["metadata"].is_object()) {
    body["metadata"].erase("managedFields");  // the server rejects applies that set them
    body["metadata"].erase("resourceVersion");
    body["metadata"].erase("uid");
    body["metadata"].erase("creationTimestamp");
  }
  r.body = body.dump();
  r.content_type = "application/apply-patch+yaml";  // JSON is YAML
  r.idempotent = true;  // declarative: applying twice gives the same result
  // the server requires one for apply: the client adds its own when none is named here
  r.takes_field_manager = true;
  if (!p.field_manager.empty()) r.query.emplace_back("fieldManager", p.field_manager);
  if (p.force) r.query.emplace_back("force", "true");
  if (p.dry_run) r.query.emplace_back("dryRun", "All");
  if (!p.field_validation.empty()) r.query.emplace_back("fieldValidation", p.field_validation);
  r.what = "apply " + describe(name);
  return r;
}

TFJOB_INLINE Request RequestBuilder::merge_patch(const std::string& name, const nlohmann::json& patch, const PatchParams& p,
                                                 const std::string& subresource) const {
  need_name(name, "patch");
  Request r;
  r.method = "PATCH";
  r.path = item_path(name, subresource);
  r.body = patch.dump();
  r.content_type = "application/merge-patch+json";
  r.idempotent = false;
  r.takes_field_manager = true;
  if (!p.field_manager.empty()) r.query.emplace_back("fieldManager", p.field_manager);
  if (p.dry_run) r.query.emplace_back("dryRun", "All");
  if (!p.field_validation.empty()) r.query.emplace_back("fieldValidation", p.field_validation);
  r.what = "patch " + describe(name) + (subresource.empty() ? "" : " (" + subresource + ")");
  return r;
}

TFJOB_INLINE Request RequestBuilder::remove(const std::string& name, const DeleteParams& p) const {
  need_name(name, "delete");
  Request r;
  r.method = "DELETE";
  r.path = item_path(name);
  nlohmann::json opts = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  if (!p.propagation_policy.empty()) opts["propagationPolicy"] = p.propagation_policy;
  if (p.grace_period_seconds) opts["gracePeriodSeconds"] = *p.grace_period_seconds;
  if (p.dry_run) opts["dryRun"] = nlohmann::json::array({"All"});
  r.body = opts.dump();
  r.content_type = "application/json";
  r.idempotent = false;  // a repeated delete would report NotFound for a delete that worked
  r.what = "delete " + describe(name);
  return r;
}

TFJOB_INLINE nlohmann::json RequestBuilder::with_type(const nlohmann::json& obj) const {
  nlohmann::json j = obj;
  if (!j.is_object()) throw tfjob::error("cannot send " + res_.kind + ": not a JSON object");
  if (!j.contains("apiVersion") || j["apiVersion"].is_null() || j["apiVersion"] == "") j["apiVersion"] = res_.api_version();
  if (!j.contains("kind") || j["kind"].is_null() || j["kind"] == "") j["kind"] = res_.kind;
  return j;
}

TFJOB_INLINE std::string RequestBuilder::describe(const std::string& name) const { return res_.qualified() + "/" + name + where(); }

TFJOB_INLINE std::string RequestBuilder::where() const {
  if (!res_.namespaced) return "";
  return ns_.empty() ? " in all namespaces" : " in namespace " + ns_;
}

TFJOB_INLINE void RequestBuilder::need_name(const std::string& name, const char* verb) const {
  if (name.empty()) throw tfjob::error(std::string("cannot ") + verb + " " + res_.qualified() + ": no name given");
}

}  // namespace tfjob::kube
