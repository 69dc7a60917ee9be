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

TFJOB_INLINE ListBodyReader::ListBodyReader(const std::vector<std::string>& omit) {
  item_omit_.add({}, omit);
  row_omit_.add({"object"}, omit);
}

TFJOB_INLINE void ListBodyReader::start() {
  skeleton_.clear();
  std::string().swap(item_);
  items_ = nlohmann::json::array();
  array_.clear();
  read_.clear();
  key_.clear();
  str_.clear();
  head_.clear();
  error_.clear();
  count_ = 0;
  depth_ = 0;
  in_str_ = esc_ = after_colon_ = false;
}

TFJOB_INLINE void ListBodyReader::data(std::string_view bytes) {
  if (head_.size() < 120) head_.append(bytes.substr(0, 120 - head_.size()));
  if (!error_.empty()) return;
  for (char c : bytes) put(c);
}

// A scanner of JSON's structure only (strings, brackets, commas, colons): where each item
// begins and ends; each item's text, and the rest, is then parsed by read_json, which judges it.
TFJOB_INLINE void ListBodyReader::put(char c) {
  const bool in_item = !array_.empty() && depth_ >= 2;
  std::string& to = in_item ? item_ : skeleton_;
  if (in_str_) {
    to += c;
    if (esc_) esc_ = false;
    else if (c == '\\') esc_ = true;
    else if (c == '"') in_str_ = false;
    else if (depth_ == 1 && str_.size() < 8) str_ += c;  // enough to tell "items" and "rows"
    return;
  }
  switch (c) {
    case '"':
      in_str_ = true;
      if (depth_ == 1) str_.clear();
      break;
    case '[':
      if (depth_ == 1 && after_colon_ && (key_ == "items" || key_ == "rows")) {
        array_ = key_;  // the items: each read on its own (a second "items" replaces the first, as a parse of the whole would)
        items_ = nlohmann::json::array();
        count_ = 0;
        skeleton_ += c;
        depth_ = 2;
        return;
      }
      ++depth_;
      break;
    case '{': ++depth_; break;
    case ']':
    case '}':
      if (!array_.empty() && depth_ == 2) {  // the items' end
        end_item(true);
        read_ = array_;
        array_.clear();
        skeleton_ += c;
        depth_ = 1;
        return;
      }
      --depth_;
      break;
    case ',':
      if (!array_.empty() && depth_ == 2) return end_item(false);
      if (depth_ == 1) after_colon_ = false;
      break;
    case ':':
      if (depth_ == 1) {
        after_colon_ = true;
        key_ = str_;
      }
      break;
    default: break;
  }
  (!array_.empty() && depth_ >= 2 ? item_ : skeleton_) += c;
}

TFJOB_INLINE void ListBodyReader::end_item(bool closing) {
  const bool blank = item_.find_first_not_of(" \t\r\n") == std::string::npos;
  if (blank) {
    // "[]" has no item; "[,", "[1,,2]" and "[1,]" lack one
    if (!closing || count_ > 0) error_ = "a list with an empty element in \"" + array_ + "\"";
    item_.clear();
    return;
  }
  auto r = tfjob::detail::read_json(item_, limits::max_depth - 2, array_ == "rows" ? &row_omit_ : &item_omit_);
  if (!r.ok()) {
    error_ = r.error + " " + tfjob::detail::json_fault_place(item_, r) + " of " + array_ + "[" + std::to_string(count_) + "]";
  } else {
    items_.push_back(std::move(r.value));
    ++count_;
  }
  if (item_.capacity() > (std::size_t(1) << 20)) std::string().swap(item_);  // an uncommonly large item: not kept for the next
  else item_.clear();
}

TFJOB_INLINE nlohmann::json ListBodyReader::finish(const Request& req, int http_status) {
  auto fail = [&](const std::string& why) {
    std::string shown;
    for (char c : head_) shown += static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F ? '?' : c;
    return decode_error(req.what + ": the server answered " + std::to_string(http_status) + " but its body is not valid JSON (" +
                            why + "); the body begins: " + shown + (head_.size() >= 120 ? "..." : ""),
                        http_status);
  };
  if (!error_.empty()) throw fail(error_);
  if (!array_.empty() || in_str_) throw fail("it ends inside " + (in_str_ ? std::string("a string") : "\"" + array_ + "\""));
  if (skeleton_.find_first_not_of(" \t\r\n") == std::string::npos) return nlohmann::json::object();
  auto r = tfjob::detail::read_json(skeleton_, limits::max_depth);
  if (!r.ok()) throw fail(r.error + " " + tfjob::detail::json_fault_place(skeleton_, r) + (read_.empty() ? "" : " of what is not an item"));
  std::string().swap(skeleton_);
  // the items read one by one, where the skeleton has "items": [] (the last such array, as a parse of the whole keeps)
  if (!read_.empty() && r.value.is_object())
    if (auto it = r.value.find(read_); it != r.value.end() && it->is_array()) *it = std::move(items_);
  items_ = nlohmann::json::array();
  return std::move(r.value);
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
                             const std::function<bool(ListPage&)>& on_page, const std::atomic<bool>* cancel) {
  p.limit = page_size(client, p);
  detail::ListBodyReader body(p.omit);  // each page's items parsed as their text arrives, without p.omit
  std::string last_key;  // the last item handed over (the list starts over after it on a 410)
  bool skipping = false;
  int index = 0;
  for (;;) {
    nlohmann::json answer;
    try {
      const Request req = rb.list(p);
      const int status = client.request_into(req, body, cancel);
      answer = body.finish(req, status);
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
