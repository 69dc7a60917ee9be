#pragma once
/// \file The bodies of <tfjob/kube/watch.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/watch.hpp>, never this file.

namespace tfjob::kube {

namespace detail {

TFJOB_INLINE WatchKnown::WatchKnown(std::string u, std::string r, const nlohmann::json& object)
    : uid(std::move(u)), rv(std::move(r)) {
  uid.shrink_to_fit();
  auto md = object.find("metadata");
  if (md == object.end() || !md->is_object()) return;
  nlohmann::json k = nlohmann::json::object();
  if (auto c = md->find("creationTimestamp"); c != md->end() && c->is_string()) k["creationTimestamp"] = *c;
  if (auto l = md->find("labels"); l != md->end() && l->is_object() && !l->empty()) k["labels"] = *l;
  if (k.empty()) return;
  nlohmann::json::to_msgpack(k, nlohmann::detail::output_adapter<char>(kept));
  kept.shrink_to_fit();
}

TFJOB_INLINE nlohmann::json WatchKnown::tombstone(const ResourceInfo& res, const std::string& key) const {
  nlohmann::json md = kept.empty() ? nlohmann::json::object() : nlohmann::json::from_msgpack(kept);
  const auto slash = key.find('/');  // watch_key_of: "namespace/name" (neither holds a "/")
  md["name"] = key.substr(slash + 1);
  if (slash > 0) md["namespace"] = key.substr(0, slash);
  if (!uid.empty()) md["uid"] = uid;
  if (!rv.empty()) md["resourceVersion"] = rv;
  return nlohmann::json{{"apiVersion", res.api_version()}, {"kind", res.kind}, {"metadata", std::move(md)}};
}

TFJOB_INLINE std::size_t WatchKnown::bytes() const {
  auto heap = [](const std::string& s) { return s.capacity() > 15 ? s.capacity() + 1 : 0; };  // beyond the small-string buffer
  return sizeof(WatchKnown) + heap(uid) + heap(rv) + heap(kept);
}

TFJOB_INLINE std::string watch_field(const ResourceInfo& res, const nlohmann::json& o, const char* parent, const char* key,
                                     const std::string& where) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return {};
  if (!it->is_string())
    throw parse_error(res.qualified() + " " + where + ": " + parent + key + " is " +
                      tfjob::detail::describe_json_type(*it) + ", not a string; the server's answer has the wrong shape");
  return it->get<std::string>();
}

TFJOB_INLINE const nlohmann::json& watch_metadata_of(const ResourceInfo& res, const nlohmann::json& o, const std::string& where) {
  static const nlohmann::json empty = nlohmann::json::object();
  if (!o.is_object())
    throw parse_error(res.qualified() + " " + where + ": the object is " +
                      tfjob::detail::describe_json_type(o) + ", not an object; the server's answer has the wrong shape");
  auto it = o.find("metadata");
  if (it == o.end() || it->is_null()) return empty;
  if (!it->is_object())
    throw parse_error(res.qualified() + " " + where + ": metadata is " +
                      tfjob::detail::describe_json_type(*it) + ", not an object; the server's answer has the wrong shape");
  return *it;
}

TFJOB_INLINE void watch_check_shape(const ResourceInfo& res, const nlohmann::json& o, const std::string& where) {
  const std::string prefix = res.qualified() + " " + where + ": ";
  const std::string tail = "; the server's answer has the wrong shape";
  watch_metadata_of(res, o, where);
  if (auto k = o.find("kind"); k != o.end() && k->is_string() && !res.kind.empty() &&
                               k->get_ref<const std::string&>() != res.kind)
    throw parse_error(prefix + "the object is of kind \"" + k->get<std::string>() + "\", not " + res.kind + tail);
  auto st = o.find("status");
  if (st == o.end() || st->is_null()) return;
  if (!st->is_object())
    throw parse_error(prefix + "status is " + tfjob::detail::describe_json_type(*st) + ", not an object" + tail);
  auto cs = st->find("conditions");
  if (cs == st->end() || cs->is_null()) return;
  if (!cs->is_array())
    throw parse_error(prefix + "status.conditions is " + tfjob::detail::describe_json_type(*cs) + ", not a list" + tail);
  for (std::size_t i = 0; i < cs->size(); ++i)
    if (!(*cs)[i].is_object())
      throw parse_error(prefix + "status.conditions[" + std::to_string(i) + "] is " +
                        tfjob::detail::describe_json_type((*cs)[i]) + ", not an object" + tail);
}

TFJOB_INLINE std::string watch_key_of(const ResourceInfo& res, const nlohmann::json& o, const std::string& where) {
  const auto& md = watch_metadata_of(res, o, where);
  return watch_field(res, md, "metadata.", "namespace", where) + "/" + watch_field(res, md, "metadata.", "name", where);
}

TFJOB_INLINE bool watch_list_all(Client& client, const RequestBuilder& rb, const WatchParams& params, FailureStreak streak,
                                 const StreamOptions& opts, const std::function<void()>& on_pass,
                                 const std::function<bool(WatchListed&)>& on_item, std::string& list_rv, bool& whole) {
  const ResourceInfo& res = rb.resource();
  whole = false;
  ListParams lp;
  lp.label_selector = params.label_selector;
  lp.field_selector = params.field_selector;
  lp.omit = params.omit;
  for (;;) {
    bool stopped = false;
    on_pass();
    try {
      std::size_t index = 0;
      kube::list_pages(client, rb, lp, [&](ListPage& page) {
        if (page.index == 0) list_rv = page.resource_version;
        for (std::size_t i = 0; i < page.items.size(); ++i) {
          auto& item = page.items[i];
          const std::string where = "list item " + std::to_string(index++);
          watch_check_shape(res, item, where);
          const auto& imd = watch_metadata_of(res, item, where);
          WatchListed l{watch_key_of(res, item, where), watch_field(res, imd, "metadata.", "uid", where),
                        watch_field(res, imd, "metadata.", "resourceVersion", where), item};
          if (!on_item(l)) {
            stopped = true;
            whole = page.continue_token.empty() && i + 1 == page.items.size();
            return false;
          }
        }
        return true;
      }, opts.cancel);
      if (!stopped) whole = true;
      return !stopped;
    } catch (const kube::detail::cancelled&) {
      return false;  // the owner stopped the watch during the list
    } catch (const api_error& e) {
      // an API server restarting answers 5xx (or 429) for a while: list again after a pause
      if (e.code() < 500 && e.code() != 429) throw;
      if (streak.fail()) throw;
    } catch (const auth_error&) {
      throw;
    } catch (const transport_error&) {
      if (streak.fail()) throw;
    }
    // the watch's own pacing of failures (Watcher::run): 200 ms doubling to 6.4 s
    kube::sleep_for(std::chrono::milliseconds(100) * (1 << std::min(streak.count, 6)), opts.cancel, opts.deadline);
    if (opts.cancel && opts.cancel->load()) return false;
    if (opts.deadline != std::chrono::steady_clock::time_point::max() && std::chrono::steady_clock::now() >= opts.deadline)
      return false;
  }
}

}  // namespace detail
}  // namespace tfjob::kube
