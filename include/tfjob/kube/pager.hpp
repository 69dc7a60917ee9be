#pragma once
/// \file Lists read page by page (client-go tools/pager, kubectl `--chunk-size`): each page
/// is handed to the caller, who decodes what it needs (rows, counts, findings), before the
/// next is asked for, so a list of any length costs one page of memory plus what the caller
/// keeps. `Api<T>::list_pages` is the typed form; this is the one loop beneath it and the
/// watcher's list.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/request.hpp>

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>

namespace tfjob::kube {

/// One page of a list as the server sent it (metav1.ListMeta and its items).
struct ListPage {
  /// The items, a JSON array; each one has its apiVersion and kind (a typed list's items
  /// carry none: they are restored from the resource).
  nlohmann::json items = nlohmann::json::array();
  /// The list's resourceVersion: the first page's is the snapshot every page belongs to
  /// (start a watch from it); later pages repeat it.
  std::string resource_version;
  std::string continue_token;  ///< "" on the last page
  std::optional<long long> remaining_item_count;
  int index = 0;  ///< 0 for the first page
  /// When the list was asked for as a Table (ListParams::as_table) and the server answered
  /// one: its columnDefinitions, and `items` holds its rows ({cells, object: the object's
  /// metadata}). Null for a plain list.
  nlohmann::json columns;
};

/// The page size a list asks for: `p.limit` when set, else the client's
/// (RestConfig::chunk_size, kubectl --chunk-size, 500); 0 = the whole list at once.
int page_size(const Client& client, const ListParams& p);

/// Lists `rb`'s collection page by page (from `p.continue_token` when set), calling
/// `on_page` with each before asking for the next; `on_page` returns false to stop
/// (list_pages then returns false). The answer of each page is bounded
/// (RestConfig::max_response_bytes), not the whole list.
///
/// A continue token that expired (410 Gone, after the first page) starts the list over,
/// as client-go's pager does (tools/pager/pager.go: FullListIfExpired lists again from
/// the start). It lists again page by page rather than in full (a full list would hold the
/// whole collection), and skips the items already handed over: a list comes in key order
/// (namespace/name, etcd's order), so everything up to the last key delivered is skipped,
/// and nothing is delivered twice (the apiserver's own 410 offers the same continuation:
/// its "inconsistent" continue token). A 410 on the first page is the caller's (a
/// resourceVersion too old).
bool list_pages(Client& client, const RequestBuilder& rb, ListParams p, const std::function<bool(ListPage&)>& on_page);

namespace detail {

/// "namespace/name" of a list item (name alone for cluster-scoped ones): its place in the
/// list's order.
std::string list_item_key(const nlohmann::json& item);

/// A page's answer: its items (apiVersion and kind restored) and metadata into `page`.
/// A body of the wrong shape (not an object, items not a list) is a parse_error naming it.
void read_list_page(const ResourceInfo& res, nlohmann::json&& answer, ListPage& page);

}  // namespace detail

}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
namespace tfjob::kube {

TFJOB_INLINE int page_size(const Client& client, const ListParams& p) {
  if (p.limit) return *p.limit > 0 ? *p.limit : 0;
  return client.config().chunk_size > 0 ? client.config().chunk_size : 0;
}

namespace detail {

TFJOB_INLINE std::string list_item_key(const nlohmann::json& item) {
  if (auto o = item.find("object"); o != item.end() && o->is_object() && item.contains("cells")) return list_item_key(*o);  // a Table row
  auto md = item.find("metadata");
  if (md == item.end() || !md->is_object()) return {};
  auto str = [&](const char* k) {
    auto it = md->find(k);
    return it != md->end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  std::string ns = str("namespace");
  return ns.empty() ? str("name") : ns + "/" + str("name");
}

TFJOB_INLINE void read_list_page(const ResourceInfo& res, nlohmann::json&& answer, ListPage& page) {
  if (!answer.is_object())
    throw parse_error(res.qualified() + " list: the server's answer is " + tfjob::detail::describe_json_type(answer) +
                      ", not a list object; the answer has the wrong shape");
  if (auto md = answer.find("metadata"); md != answer.end() && md->is_object()) {
    auto str = [&](const char* k) {
      auto it = md->find(k);
      return it != md->end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    page.resource_version = str("resourceVersion");
    page.continue_token = str("continue");
    if (auto r = md->find("remainingItemCount"); r != md->end() && r->is_number_integer())
      page.remaining_item_count = r->get<long long>();
  }
  const auto kind = answer.find("kind");
  const bool table = kind != answer.end() && kind->is_string() && kind->get_ref<const std::string&>() == "Table";
  if (table) {
    auto cols = answer.find("columnDefinitions");
    page.columns = cols != answer.end() && cols->is_array() ? *cols : nlohmann::json::array();
  }
  const char* what = table ? "rows" : "items";
  auto items = answer.find(what);
  if (items == answer.end() || items->is_null()) {
    page.items = nlohmann::json::array();
    return;
  }
  if (!items->is_array())
    throw parse_error(res.qualified() + " list: " + what + " is " + tfjob::detail::describe_json_type(*items) +
                      ", not a list; the server's answer has the wrong shape");
  page.items = std::move(*items);
  if (table) return;
  const std::string av = res.api_version();
  for (auto& item : page.items) {
    // items of a typed list carry no apiVersion/kind; restore them so objects are whole
    if (!item.is_object()) continue;
    if (!item.contains("apiVersion")) item["apiVersion"] = av;
    if (!item.contains("kind")) item["kind"] = res.kind;
  }
}

}  // namespace detail

TFJOB_INLINE bool list_pages(Client& client, const RequestBuilder& rb, ListParams p,
                             const std::function<bool(ListPage&)>& on_page) {
  p.limit = page_size(client, p);
  std::string last_key;  // the last item handed over (the list starts over after it on a 410)
  bool skipping = false;
  int index = 0;
  for (;;) {
    nlohmann::json answer;
    try {
      answer = client.request_json(rb.list(p));
    } catch (const api_error& e) {
      if (e.is_gone() && !p.continue_token.empty()) {  // the continue token expired: start over
        p.continue_token.clear();
        skipping = !last_key.empty();
        continue;
      }
      throw;
    }
    ListPage page;
    detail::read_list_page(rb.resource(), std::move(answer), page);
    answer = nullptr;  // its items moved into the page; free the rest now
    if (skipping) {
      nlohmann::json kept = nlohmann::json::array();
      for (auto& item : page.items) {
        if (skipping && detail::list_item_key(item) <= last_key) continue;
        skipping = false;
        kept.push_back(std::move(item));
      }
      page.items = std::move(kept);
    }
    if (!page.items.empty()) last_key = detail::list_item_key(page.items.back());
    page.index = index++;
    const std::string next = page.continue_token;
    if (!on_page(page)) return false;
    if (next.empty()) return true;
    p.continue_token = next;
  }
}

}  // namespace tfjob::kube
#endif  // TFJOB_SDK_DEFINE_KUBE
