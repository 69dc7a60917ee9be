#pragma once
/// \file The bodies of <tfjob/kube/pager.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/pager.hpp>, never this file.

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
  tfjob::detail::JsonOmit omit;  // p.omit under each item, or each Table row's object
  omit.add({"items", "*"}, p.omit);
  omit.add({"rows", "*", "object"}, p.omit);
  std::string last_key;  // the last item handed over (the list starts over after it on a 410)
  bool skipping = false;
  int index = 0;
  for (;;) {
    nlohmann::json answer;
    try {
      answer = client.request_json(rb.list(p), &omit);
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
