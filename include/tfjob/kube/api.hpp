#pragma once
/// \file Typed access per resource (kube-rs `Api<K>`, client-go typed clients): `Api<T>`
/// builds requests with `RequestBuilder` and sends them with `Client`. T is any type with a
/// `resource_traits<T>` specialisation and ADL `to_json`/`from_json` (TFJob, Pod, ...).

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/pager.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/kube/resource.hpp>
#include <tfjob/kube/watch.hpp>

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tfjob::kube {

/// One page (or, from `list`, all pages) of a list, its items decoded.
template <class T>
struct ObjectList {
  std::vector<T> items;
  std::string resource_version;  ///< of the list (start a watch from here)
  std::string continue_token;    ///< "" on the last page
  std::optional<long long> remaining_item_count;
};

namespace detail {

/// `name`, when `rb` has a namespace or its resource is cluster-scoped; else the error an
/// Api spanning all namespaces gives for `verb` on one object.
const std::string& api_need_namespace(const RequestBuilder& rb, const std::string& name, const char* verb);

/// An object about to be sent through `rb`: a JSON object whose metadata.namespace, if
/// any, is `rb`'s namespace.
void api_check_sendable(const RequestBuilder& rb, const nlohmann::json& j);

}  // namespace detail

/// Typed API for one resource type in one namespace.
template <class T>
class Api {
 public:
  /// Namespaced resources use the client's default namespace.
  explicit Api(Client client) : Api(client, client.namespace_()) {}
  /// A given namespace ("" = all namespaces for list/watch).
  Api(Client client, std::string ns) : Api(std::move(client), resource_info<T>(), std::move(ns)) {}
  /// A resource known only at run time (e.g. `Api<DynamicObject>`).
  Api(Client client, ResourceInfo info, std::string ns)
      : client_(std::move(client)), rb_(info, rb_ns(info.namespaced, ns)) {}
  /// Every namespace (list/watch across the cluster).
  static Api all(Client client) { return Api(std::move(client), std::string()); }

  Client& client() { return client_; }
  const RequestBuilder& requests() const { return rb_; }
  const std::string& namespace_() const { return rb_.namespace_(); }

  /// The object; throws api_error (is_not_found()) when it does not exist.
  T get(const std::string& name) { return decode(client_.request_json(rb_.get(need_ns(name, "get")))); }

  /// The object, or nullopt when it does not exist.
  std::optional<T> get_opt(const std::string& name) {
    try {
      return get(name);
    } catch (const api_error& e) {
      if (e.is_not_found()) return std::nullopt;
      throw;
    }
  }

  /// One page (p.limit, else the client's chunk size; p.continue_token where it starts).
  ObjectList<T> list_page(ListParams p) {
    p.limit = page_size(client_, p);
    ListPage page;
    kube::detail::read_list_page(rb_.resource(), client_.request_json(rb_.list(p)), page);
    return decode_page(page);
  }

  /// The list page by page (kube::list_pages: kubectl's --chunk-size, client-go's pager),
  /// each page's items decoded into T and handed to `on_page` before the next page is asked
  /// for; `on_page` returns false to stop. Decode each page into what the caller needs
  /// (rows, counts) and let it go: memory stays one page however long the list.
  bool list_pages(const ListParams& p, const std::function<bool(ObjectList<T>&)>& on_page) {
    return kube::list_pages(client_, rb_, p, [&](ListPage& page) {
      ObjectList<T> typed = decode_page(page);
      return on_page(typed);
    });
  }

  /// Every item at once, page by page (list_pages). Holds the whole list: prefer
  /// list_pages where the items can be used as they come.
  ObjectList<T> list(const ListParams& p = {}) {
    ObjectList<T> all;
    list_pages(p, [&](ObjectList<T>& page) {
      if (all.items.empty() && all.resource_version.empty()) all.resource_version = page.resource_version;
      for (auto& i : page.items) all.items.push_back(std::move(i));
      return true;
    });
    return all;
  }

  /// POST. Never retried after it may have reached the server.
  T create(const T& obj, const PostParams& p = {}) {
    nlohmann::json j = to_json_checked(obj);
    need_ns(tfjob::detail::value_at(j, "/metadata/name"_json_pointer, std::string("(generated)")), "create");
    return decode(client_.request_json(rb_.create(j, p)));
  }

  /// PUT the whole object (optimistic concurrency through metadata.resourceVersion).
  T replace(const std::string& name, const T& obj, const PostParams& p = {}) {
    return decode(client_.request_json(rb_.replace(need_ns(name, "replace"), to_json_checked(obj), p)));
  }

  /// Server-side apply with the client's field manager (RestConfig::field_manager; optionally forcing conflicts).
  T apply(const T& obj, const ApplyParams& p = {}) {
    nlohmann::json j = to_json_checked(obj);
    std::string name = tfjob::detail::value_at(j, "/metadata/name"_json_pointer, std::string());
    return decode(client_.request_json(rb_.apply(need_ns(name, "apply"), j, p)));
  }

  /// JSON merge patch (RFC 7386).
  T patch(const std::string& name, const nlohmann::json& merge_patch, const PatchParams& p = {}) {
    return decode(client_.request_json(rb_.merge_patch(need_ns(name, "patch"), merge_patch, p)));
  }

  /// JSON merge patch of the status subresource.
  T patch_status(const std::string& name, const nlohmann::json& merge_patch, const PatchParams& p = {}) {
    return decode(client_.request_json(rb_.merge_patch(need_ns(name, "patch"), merge_patch, p, "status")));
  }

  /// DELETE; throws api_error (is_not_found()) when it does not exist.
  void remove(const std::string& name, const DeleteParams& p = {}) {
    client_.request_json(rb_.remove(need_ns(name, "delete"), p));
  }

  /// DELETE; false when it did not exist.
  bool remove_opt(const std::string& name, const DeleteParams& p = {}) {
    try {
      remove(name, p);
      return true;
    } catch (const api_error& e) {
      if (e.is_not_found()) return false;
      throw;
    }
  }

  /// Watch the collection (see watch.hpp): with an empty `resource_version` the current
  /// objects arrive first as ADDED events. Returns when `cb` returns false or `opts.cancel`
  /// is raised.
  void watch(const WatchParams& p, const std::function<bool(const WatchEvent<T>&)>& cb,
             const StreamOptions& opts = {}) {
    Watcher<T> w(client_, rb_, p);
    w.run(cb, opts);
  }

  /// A watcher whose state (resourceVersion, statistics) the caller keeps.
  Watcher<T> watcher(const WatchParams& p) { return Watcher<T>(client_, rb_, p); }

 private:
  static std::string rb_ns(bool namespaced, const std::string& ns) { return namespaced ? ns : std::string(); }

  const std::string& need_ns(const std::string& name, const char* verb) const {
    return detail::api_need_namespace(rb_, name, verb);
  }

  nlohmann::json to_json_checked(const T& obj) const {
    nlohmann::json j = tfjob::detail::json_of(obj);
    detail::api_check_sendable(rb_, j);
    // a value type built in code may leave apiVersion and kind to its resource's description
    if (!j.contains("apiVersion")) j["apiVersion"] = rb_.resource().api_version();
    if (!j.contains("kind")) j["kind"] = rb_.resource().kind;
    return j;
  }

  ObjectList<T> decode_page(ListPage& page) const {
    ObjectList<T> out;
    out.resource_version = std::move(page.resource_version);
    out.continue_token = std::move(page.continue_token);
    out.remaining_item_count = page.remaining_item_count;
    out.items.reserve(page.items.size());
    for (auto& item : page.items) {
      out.items.push_back(decode(item));
      item = nullptr;  // decoded: let the JSON go as the typed items grow
    }
    return out;
  }

  T decode(const nlohmann::json& j) const {
    try {
      return tfjob::detail::from_json_of<T>(j);
    } catch (const tfjob::error&) {
      throw;
    } catch (const std::exception& e) {
      throw tfjob::error("cannot decode the " + rb_.resource().kind + " the server returned: " + e.what());
    }
  }

  Client client_;
  RequestBuilder rb_;
};

}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
#include <tfjob/kube/impl/api_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
