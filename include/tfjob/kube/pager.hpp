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

#include <atomic>
#include <functional>
#include <string_view>
#include <vector>
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
/// (RestConfig::max_response_bytes), not the whole list; its items are read without the
/// fields `p.omit` names.
///
/// A continue token that expired (410 Gone, after the first page) starts the list over,
/// as client-go's pager does (tools/pager/pager.go: FullListIfExpired lists again from
/// the start). It lists again page by page rather than in full (a full list would hold the
/// whole collection), and skips the items already handed over: a list comes in key order
/// (namespace/name, etcd's order), so everything up to the last key delivered is skipped,
/// and nothing is delivered twice (the apiserver's own 410 offers the same continuation:
/// its "inconsistent" continue token). A 410 on the first page is the caller's (a
/// resourceVersion too old).
///
/// Raising `cancel` ends the list where it is, a page's retries included (it throws
/// transport_error "cancelled"): a watch's list stops when its owner stops it.
bool list_pages(Client& client, const RequestBuilder& rb, ListParams p, const std::function<bool(ListPage&)>& on_page,
                const std::atomic<bool>* cancel = nullptr);

namespace detail {

/// "namespace/name" of a list item (name alone for cluster-scoped ones): its place in the
/// list's order.
std::string list_item_key(const nlohmann::json& item);

/// A list page's body read as it arrives (a BodyConsumer): each item of its `items` (a
/// Table's `rows`) parsed on its own as soon as its text is complete, without what `omit`
/// names, and its text dropped; the rest of the answer (kind, metadata, a Table's columns)
/// gathered as text and parsed at the end. So a page costs its objects plus one item's text
/// and a block, not the page's text beside its objects (5.2 MiB for 500 TFJobs of 10 KB).
class ListBodyReader : public BodyConsumer {
 public:
  /// `omit`: ListParams::omit, under each item (a Table row: under its object).
  explicit ListBodyReader(const std::vector<std::string>& omit);
  TFJOB_INLINE void start() override;
  TFJOB_INLINE void data(std::string_view bytes) override;
  /// The answer as one parse of the whole body would have built it (an empty body: `{}`);
  /// decode_error, as Client::decode_json's, when it is not JSON or nests too deep.
  nlohmann::json finish(const Request& req, int http_status);
  /// The text it holds now (what is not an item, and the item being read): never the page's.
  std::size_t text_held() const { return skeleton_.capacity() + item_.capacity(); }

 private:
  void put(char c);
  void end_item(bool closing);
  tfjob::detail::JsonOmit item_omit_, row_omit_;
  std::string skeleton_;  ///< the answer without its items' text ("items":[])
  std::string item_;      ///< the text of the item being read
  nlohmann::json items_ = nlohmann::json::array();
  std::string array_;     ///< "items" or "rows" while inside that array, else ""
  std::string read_;      ///< the array whose items `items_` holds, once it has ended
  std::string key_, str_; ///< the last key at the top level; the top-level string being read (its first bytes)
  std::string head_;      ///< the body's first bytes, for messages
  std::string error_;     ///< the first fault found ("" while none)
  std::size_t count_ = 0; ///< items read in the current array
  int depth_ = 0;
  bool in_str_ = false, esc_ = false, after_colon_ = false;
};

/// A page's answer: its items (apiVersion and kind restored) and metadata into `page`.
/// A body of the wrong shape (not an object, items not a list) is a parse_error naming it.
void read_list_page(const ResourceInfo& res, nlohmann::json&& answer, ListPage& page);

}  // namespace detail

}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
#include <tfjob/kube/impl/pager_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
