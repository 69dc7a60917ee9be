#pragma once
/// \file Watch as a state machine (kube-runtime watcher.rs, client-go Reflector):
/// list -> watch from the list's resourceVersion with bookmarks -> on a dropped stream resume
/// from the last version seen -> on 410 Gone relist and replay only the difference. A cache
/// of what the caller has been told (name -> uid/resourceVersion) guarantees no event is
/// lost or delivered twice across reconnects and relists.

#include <tfjob/error.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/request.hpp>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <thread>

namespace tfjob::kube {

/// One change. `type`: ADDED, MODIFIED, DELETED or BOOKMARK.
template <class T>
struct WatchEvent {
  std::string type;
  T object;
};

/// Splits a byte stream into lines (the watch and log wire formats).
class LineSplitter {
 public:
  /// Feed bytes; `on_line` gets each complete line without '\n' (and '\r'); it returns false
  /// to stop, in which case feed returns false.
  template <class F>
  bool feed(std::string_view data, F&& on_line) {
    while (!data.empty()) {
      auto nl = data.find('\n');
      if (nl == std::string_view::npos) {
        partial_.append(data);
        return true;
      }
      bool more;
      if (partial_.empty()) {
        more = on_line(strip_cr(data.substr(0, nl)));
      } else {
        partial_.append(data.substr(0, nl));
        std::string line = std::move(partial_);
        partial_.clear();
        more = on_line(strip_cr(line));
      }
      data.remove_prefix(nl + 1);
      if (!more) return false;
    }
    return true;
  }
  /// Bytes of an unfinished line.
  const std::string& partial() const { return partial_; }
  void reset() { partial_.clear(); }

 private:
  static std::string_view strip_cr(std::string_view s) {
    if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
    return s;
  }
  std::string partial_;
};

/// Statistics a watcher keeps (for tests and -v logs).
struct WatchStats {
  int lists = 0;       ///< full lists (initial + after 410)
  int connections = 0; ///< watch requests opened
  int resumes = 0;     ///< reconnects after a drop or a normal end
  int duplicates_skipped = 0;
};

/// Watches one collection. Usually reached through `Api<T>::watch`.
template <class T>
class Watcher {
 public:
  using Callback = std::function<bool(const WatchEvent<T>&)>;

  Watcher(Client client, RequestBuilder rb, WatchParams params)
      : client_(std::move(client)), rb_(std::move(rb)), params_(std::move(params)), rv_(params_.resource_version) {}

  /// Deliver events until the callback returns false or `opts.cancel` is raised. Throws when
  /// the server keeps failing (more than `max_failures` reconnects in a row without progress)
  /// or answers with an error other than 410.
  void run(const Callback& cb, const StreamOptions& opts = {}) {
    stopped_ = false;
    if (rv_.empty()) {
      if (!relist(cb, opts)) return;
    }
    int failures = 0;
    while (!stopped_ && !(opts.cancel && opts.cancel->load())) {
      bool progress = false;
      bool gone = false;
      LineSplitter lines;
      ++stats_.connections;
      std::string error_text;
      try {
        Request req = rb_.watch(params_, rv_);
        client_.stream(
            req,
            [&](std::string_view data) {
              return lines.feed(data, [&](std::string_view line) {
                if (line.empty()) return true;
                progress = true;
                return handle_line(line, cb, gone);
              });
            },
            opts);
      } catch (const api_error& e) {
        if (e.is_gone()) {
          gone = true;
        } else if (e.code() >= 500 || e.code() == 429) {
          error_text = e.what();
        } else {
          throw;
        }
      } catch (const auth_error&) {
        throw;
      } catch (const transport_error& e) {
        error_text = e.what();
      }
      if (stopped_ || (opts.cancel && opts.cancel->load())) return;
      if (gone) {
        // The version we hold is too old: relist and replay only the difference.
        if (!relist(cb, opts)) return;
        failures = 0;
        continue;
      }
      if (!error_text.empty()) {
        failures = progress ? 1 : failures + 1;
        if (failures > max_failures)
          throw transport_error(rb_.resource().qualified() + " watch failed " + std::to_string(failures) +
                                " times in a row; last error: " + error_text);
        sleep(std::chrono::milliseconds(100) * (1 << std::min(failures, 6)), opts);
      } else {
        failures = 0;
      }
      ++stats_.resumes;
    }
  }

  /// The last resourceVersion seen (from an event, a bookmark or a list).
  const std::string& resource_version() const { return rv_; }
  const WatchStats& stats() const { return stats_; }
  int max_failures = 8;

 private:
  struct Known {
    std::string uid, rv;
    nlohmann::json object;
  };

  static std::string key_of(const nlohmann::json& o) {
    const auto& md = o.contains("metadata") ? o["metadata"] : nlohmann::json::object();
    return md.value("namespace", "") + "/" + md.value("name", "");
  }

  bool deliver(const Callback& cb, const char* type, const nlohmann::json& obj) {
    WatchEvent<T> ev{type, obj.template get<T>()};
    if (!cb(ev)) {
      stopped_ = true;
      return false;
    }
    return true;
  }

  /// One line of the watch stream. Returns false to stop reading.
  bool handle_line(std::string_view line, const Callback& cb, bool& gone) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      throw transport_error(rb_.resource().qualified() + " watch: the server sent a line that is not JSON: " +
                            std::string(line.substr(0, 200)));
    std::string type = j.value("type", "");
    const nlohmann::json& obj = j.contains("object") ? j["object"] : nlohmann::json::object();
    if (type == "ERROR") {
      status st = status_from_response(obj.value("code", 500), "", obj.dump());
      if (st.code == 410 || st.reason == "Expired" || st.reason == "Gone") {
        gone = true;
        return false;
      }
      throw api_error(st, "watch " + rb_.resource().qualified());
    }
    std::string rv = obj.contains("metadata") ? obj["metadata"].value("resourceVersion", "") : "";
    if (type == "BOOKMARK") {
      if (!rv.empty()) rv_ = rv;
      if (params_.deliver_bookmarks) return deliver(cb, "BOOKMARK", obj);
      return true;
    }
    if (type != "ADDED" && type != "MODIFIED" && type != "DELETED") return true;  // unknown: ignore
    std::string key = key_of(obj);
    std::string uid = obj.contains("metadata") ? obj["metadata"].value("uid", "") : "";
    auto it = known_.find(key);
    if (!rv.empty()) rv_ = rv;
    if (type == "DELETED") {
      if (it == known_.end() && listed_) {  // already told (or never existed for us)
        ++stats_.duplicates_skipped;
        return true;
      }
      if (it != known_.end()) known_.erase(it);
      return deliver(cb, "DELETED", obj);
    }
    if (it != known_.end() && it->second.uid == uid && it->second.rv == rv) {
      ++stats_.duplicates_skipped;  // replayed after a reconnect
      return true;
    }
    const char* t = type.c_str();
    // A MODIFIED for something we have not announced is an ADDED to the caller, and vice versa.
    if (listed_) t = (it == known_.end() || it->second.uid != uid) ? "ADDED" : "MODIFIED";
    known_[key] = Known{uid, rv, obj};
    return deliver(cb, t, obj);
  }

  /// List everything (following `continue`) and tell the caller what changed since the
  /// last state it knows: ADDED, MODIFIED, DELETED. Returns false when the caller stopped.
  bool relist(const Callback& cb, const StreamOptions& opts) {
    ++stats_.lists;
    std::map<std::string, Known> fresh;
    ListParams lp;
    lp.label_selector = params_.label_selector;
    lp.field_selector = params_.field_selector;
    lp.limit = 500;
    std::string list_rv;
    int failures = 0;
    for (;;) {
      nlohmann::json page;
      try {
        page = client_.request_json(rb_.list(lp));
      } catch (const api_error& e) {
        if (e.is_gone() && !lp.continue_token.empty()) {  // continue token expired: start over
          fresh.clear();
          lp.continue_token.clear();
          continue;
        }
        throw;
      } catch (const transport_error&) {
        if (++failures > max_failures) throw;
        sleep(std::chrono::milliseconds(200) * failures, opts);
        if (opts.cancel && opts.cancel->load()) return false;
        continue;
      }
      if (page.contains("items") && page["items"].is_array())
        for (auto& item : page["items"]) {
          if (!item.contains("apiVersion") || !item.contains("kind")) {
            item["apiVersion"] = rb_.resource().api_version();
            item["kind"] = rb_.resource().kind;
          }
          std::string k = key_of(item);
          fresh[k] = Known{item["metadata"].value("uid", ""), item["metadata"].value("resourceVersion", ""), item};
        }
      const auto& md = page.contains("metadata") ? page["metadata"] : nlohmann::json::object();
      if (lp.continue_token.empty()) list_rv = md.value("resourceVersion", "");
      std::string cont = md.value("continue", "");
      if (cont.empty()) break;
      lp.continue_token = cont;
    }
    rv_ = list_rv;
    // Deletions first (objects the caller knows that are gone), then additions/changes.
    for (auto it = known_.begin(); it != known_.end();) {
      auto f = fresh.find(it->first);
      if (f == fresh.end() || f->second.uid != it->second.uid) {
        nlohmann::json last = it->second.object;
        it = known_.erase(it);
        if (!deliver(cb, "DELETED", last)) return false;
      } else {
        ++it;
      }
    }
    for (auto& [k, v] : fresh) {
      auto it = known_.find(k);
      if (it == known_.end()) {
        known_[k] = v;
        if (!deliver(cb, "ADDED", v.object)) return false;
      } else if (it->second.rv != v.rv) {
        it->second = v;
        if (!deliver(cb, "MODIFIED", v.object)) return false;
      }
    }
    listed_ = true;
    return true;
  }

  static void sleep(std::chrono::milliseconds d, const StreamOptions& opts) {
    auto end = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < end && !(opts.cancel && opts.cancel->load()))
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  Client client_;
  RequestBuilder rb_;
  WatchParams params_;
  std::string rv_;
  std::map<std::string, Known> known_;
  bool listed_ = false;
  bool stopped_ = false;
  WatchStats stats_;
};

}  // namespace tfjob::kube
