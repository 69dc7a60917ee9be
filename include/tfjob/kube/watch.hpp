#pragma once
/// \file Watch as a state machine (kube-runtime watcher.rs, client-go Reflector): states
/// list -> watch from the list's resourceVersion with bookmarks -> on a dropped stream watch
/// again from the last version seen -> on 410 Gone relist and replay only the difference,
/// with back_off between a watch that brought nothing or failed and the next one
/// (<tfjob/kube/watch_state.hpp>: the states and their table; Watcher::step: one step). What
/// the caller has been told (namespace/name -> uid, resourceVersion, and the few metadata
/// fields of a deletion's tombstone) guarantees no event is lost or delivered twice across
/// reconnects and relists, in a few hundred bytes per object whatever the objects hold.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/input.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/line_splitter.hpp>
#include <tfjob/kube/pager.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/kube/watch_event.hpp>
#include <tfjob/kube/watch_state.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>  // jitter of the backoff
#include <string>
#include <string_view>

namespace tfjob::kube {

namespace detail {

/// What a watcher remembers of an object it has told the caller about: what tells "changed
/// or not" across a relist (its uid and resourceVersion; its namespace/name is the key) and
/// what a deletion that only a relist finds is told with (WatchKnown::tombstone). Never the
/// object itself: kubectl's watch printer remembers nothing, and client-go's reflector keeps
/// whole objects only because an informer's store serves them; a watcher's caller that wants
/// them keeps them itself. A few hundred bytes per object, whatever the object holds.
struct WatchKnown {
  std::string uid, rv;
  std::string kept;        ///< MessagePack of {creationTimestamp, labels} when the object has them, else ""
  std::uint32_t pass = 0;  ///< the pass of a (re)list that last listed it (Watcher::relist)
  WatchKnown(std::string u, std::string r, const nlohmann::json& object);
  /// The object as a deletion found by a relist tells it (client-go's DeletedFinalStateUnknown:
  /// its final state is unknown): apiVersion and kind of `res`, and metadata name, namespace,
  /// uid, resourceVersion (the last seen), creationTimestamp and labels. `key`: "namespace/name".
  nlohmann::json tombstone(const ResourceInfo& res, const std::string& key) const;
  /// The bytes this entry holds: its strings' capacity and its own size.
  std::size_t bytes() const;
};

/// A string field of an object from the server; absent = "", another type is an error
/// naming the field (the server's answer has the wrong shape). `res` is the watched collection.
std::string watch_field(const ResourceInfo& res, const nlohmann::json& o, const char* parent, const char* key,
                        const std::string& where);

/// The metadata of an object from the server, checked to be an object.
const nlohmann::json& watch_metadata_of(const ResourceInfo& res, const nlohmann::json& o, const std::string& where);

/// What every object of a kind keeps to (Kubernetes API conventions): an object of the
/// watched kind, `status` an object, `status.conditions` a list of objects. A server
/// answering otherwise is named, not taken for an object without conditions.
void watch_check_shape(const ResourceInfo& res, const nlohmann::json& o, const std::string& where);

/// "namespace/name" of an object from the server.
std::string watch_key_of(const ResourceInfo& res, const nlohmann::json& o, const std::string& where);

/// One item of a watcher's list, checked as watch_check_shape does, with its key, uid and
/// resourceVersion.
struct WatchListed {
  std::string key, uid, rv;
  nlohmann::json& object;
};

/// A watcher's (re)list: the collection page by page (kube::list_pages), each item handed to
/// `on_item` as its page arrives (the list's resourceVersion into `list_rv` first). A list
/// that fails (the connection, a 5xx or 429: an API server restarting) starts over after a
/// pause until `streak` gives up (FailureStreak); `on_pass` is told each time a pass begins.
/// Returns false when cancelled or `on_item` returned false; `whole` says whether every
/// item of the list was handed over (so when `on_item` stopped at the very last one).
bool watch_list_all(Client& client, const RequestBuilder& rb, const WatchParams& params, FailureStreak streak,
                    const StreamOptions& opts, const std::function<void()>& on_pass,
                    const std::function<bool(WatchListed&)>& on_item, std::string& list_rv, bool& whole);

}  // namespace detail

/// Watches one collection. Usually reached through `Api<T>::watch`.
///
/// An explicit state machine (kube-runtime watcher.rs: one state enum, one step function):
/// `run` steps from state to state (WatchState) until done; each step runs what its state
/// does once (list, open one watch, pause) and `watch_transition` says where it leads.
template <class T>
class Watcher {
 public:
  using Callback = std::function<bool(const WatchEvent<T>&)>;

  Watcher(Client client, RequestBuilder rb, WatchParams params)
      : client_(std::move(client)), rb_(std::move(rb)), params_(std::move(params)), rv_(params_.resource_version) {
    event_omit_.add({"object"}, params_.omit);
  }

  /// Deliver events until the callback returns false or `opts.cancel` is raised. Throws when
  /// the server keeps failing (more than `max_failures` reconnects in a row without progress,
  /// over `max_outage` or longer)
  /// or answers with an error other than 410.
  /// `opts.deadline` ends the watch normally when it passes (kubectl get --watch with
  /// --request-timeout).
  void run(const Callback& cb, const StreamOptions& opts = {}) {
    stopped_ = false;
    failures_ = FailureStreak{max_failures, max_outage};
    state_ = rv_.empty() ? WatchState::list : WatchState::watch;
    while (state_ != WatchState::done) step(cb, opts);
  }

  /// Pacing of re-opened watches that brought no event (client-go's reflector defaults).
  WatchBackoff backoff;
  /// Called with each such wait before it is slept (tests, -v logs).
  std::function<void(std::chrono::milliseconds)> on_backoff;
  /// Called once each (re)list has been delivered: the caller's picture is whole now
  /// (client-go's HasSynced), e.g. to tell "no pods yet" from "not listed yet".
  std::function<void()> on_synced;
  /// Called after each step with the state it ran in, how it ended and the next state
  /// (tests, -v logs).
  std::function<void(WatchState, WatchEnd, WatchState)> on_step;

  /// The last resourceVersion seen (from an event, a bookmark or a list).
  const std::string& resource_version() const { return rv_; }
  const WatchStats& stats() const { return stats_; }
  /// Where the watcher is (done once `run` has returned).
  WatchState state() const { return state_; }
  /// What the watcher remembers now of the objects it has told (WatchKnown): how many, and
  /// the bytes held for them with their keys; the same few hundred bytes per object for any
  /// caller, whatever the objects hold.
  WatchMemory remembered() const {
    WatchMemory m;
    m.objects = known_.size();
    for (const auto& [key, k] : known_)  // the key, beyond its small-string buffer; the map node's links
      m.bytes += sizeof(key) + (key.capacity() > 15 ? key.capacity() + 1 : 0) + k.bytes() + 4 * sizeof(void*);
    return m;
  }
  int max_failures = 8;
  /// A run of failures shorter than this never ends the watch (FailureStreak).
  std::chrono::milliseconds max_outage{120000};

 private:
  using Known = detail::WatchKnown;

  /// Runs the current state once and moves on (watcher.rs `step`).
  void step(const Callback& cb, const StreamOptions& opts) {
    const WatchState from = state_;
    WatchEnd how = WatchEnd::stopped;
    switch (from) {
      case WatchState::list:
      case WatchState::relist: how = list_step(cb, opts); break;
      case WatchState::watch: how = watch_step(cb, opts); break;
      case WatchState::back_off: how = pause_step(opts); break;
      case WatchState::done: return;
    }
    account(from, how);
    const WatchTransition t = watch_transition(from, how, events_ > 0, after_);
    if (t.next == WatchState::back_off) {
      after_ = t.after;
      pause_ = t.pause == WatchPause::quiet ? quiet_pause() : failure_pause();
    }
    state_ = t.next;
    if (on_step) on_step(from, how, state_);
  }

  /// list, relist: everything, then tell the caller what changed since what it knows.
  WatchEnd list_step(const Callback& cb, const StreamOptions& opts) {
    return relist(cb, opts) ? WatchEnd::listed : WatchEnd::stopped;
  }

  /// watch: one watch from the last version seen, its events delivered, until it ends.
  WatchEnd watch_step(const Callback& cb, const StreamOptions& opts) {
    if (should_stop(opts)) return WatchEnd::stopped;
    bool gone = false;
    progress_ = false;
    LineSplitter lines;
    lines.max_line = limits::max_watch_line_bytes;
    ++stats_.connections;
    std::string error_text;
    events_ = 0;
    try {
      Request req = rb_.watch(params_, rv_);
      client_.stream(
          req,
          [&](std::string_view data) {
            return lines.feed(data, [&](std::string_view line) {
              if (line.empty()) return true;
              progress_ = true;
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
    if (should_stop(opts)) return WatchEnd::stopped;
    if (gone) return WatchEnd::gone;
    if (!error_text.empty()) {
      last_error_ = std::move(error_text);
      return WatchEnd::failed;
    }
    return WatchEnd::closed;
  }

  /// back_off: sleep the pause the transition chose.
  WatchEnd pause_step(const StreamOptions& opts) {
    sleep(pause_, opts);
    return should_stop(opts) ? WatchEnd::stopped : WatchEnd::paused;
  }

  /// What a step's end changes in the counts: failures in a row (too many throws), quiet
  /// watches in a row (the quiet pause grows), resumes.
  void account(WatchState from, WatchEnd how) {
    if (how == WatchEnd::listed) failures_.reset();
    if (from != WatchState::watch || how == WatchEnd::stopped) return;
    if (events_ > 0) quiet_ = 0;
    if (how == WatchEnd::failed) {
      if (progress_) failures_.reset();
      if (failures_.fail())
        throw transport_error(rb_.resource().qualified() + " watch failed " + std::to_string(failures_.count) +
                              " times in a row; last error: " + last_error_);
    } else if (how == WatchEnd::closed) {
      failures_.reset();
    }
    if (how != WatchEnd::gone) ++stats_.resumes;
  }

  bool should_stop(const StreamOptions& opts) const {
    return stopped_ || (opts.cancel && opts.cancel->load()) || past(opts);
  }

  static bool past(const StreamOptions& opts) {
    return opts.deadline != std::chrono::steady_clock::time_point::max() && std::chrono::steady_clock::now() >= opts.deadline;
  }

  /// The pause after a watch that failed: 200 ms doubling per failure in a row, up to 6.4 s.
  std::chrono::milliseconds failure_pause() const {
    return std::chrono::milliseconds(100) * (1 << std::min(failures_.count, 6));
  }

  /// The pause after a watch that brought no event (client-go's reflector backoff).
  std::chrono::milliseconds quiet_pause() {
    auto now = std::chrono::steady_clock::now();
    if (quiet_ > 0 && now - last_backoff_ > backoff.reset_after) quiet_ = 0;
    auto d = backoff.initial * (1LL << std::min(quiet_, 20));
    if (d > backoff.cap) d = backoff.cap;
    std::uniform_real_distribution<double> u(0.0, backoff.jitter);
    auto wait = d + std::chrono::milliseconds(static_cast<long long>(static_cast<double>(d.count()) * u(rng_)));
    ++quiet_;
    ++stats_.empty_ends;
    last_backoff_ = now;
    if (on_backoff) on_backoff(wait);
    return wait;
  }

  /// A string field of an object from the server; absent = "", another type is an error
  /// naming the field (the server's answer has the wrong shape).
  std::string field(const nlohmann::json& o, const char* parent, const char* key, const std::string& where) const {
    return detail::watch_field(rb_.resource(), o, parent, key, where);
  }

  /// The metadata of an object from the server, checked to be an object.
  const nlohmann::json& metadata_of(const nlohmann::json& o, const std::string& where) const {
    return detail::watch_metadata_of(rb_.resource(), o, where);
  }

  /// What every object of a kind keeps to (see detail::watch_check_shape).
  void check_shape(const nlohmann::json& o, const std::string& where) const {
    detail::watch_check_shape(rb_.resource(), o, where);
  }

  std::string key_of(const nlohmann::json& o, const std::string& where) const {
    return detail::watch_key_of(rb_.resource(), o, where);
  }

  bool deliver(const Callback& cb, EventType type, const nlohmann::json& obj, bool final_state_unknown = false) {
    WatchEvent<T> ev{type, tfjob::detail::from_json_of<T>(obj), final_state_unknown};
    if (!cb(ev)) {
      stopped_ = true;
      return false;
    }
    return true;
  }

  /// One line of the watch stream. Returns false to stop reading.
  bool handle_line(std::string_view line, const Callback& cb, bool& gone) {
    auto r = tfjob::detail::read_json(line, limits::max_depth, &event_omit_);
    if (!r.ok() || !r.value.is_object()) {
      std::string shown;
      for (char c : line.substr(0, 200)) shown += static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F ? '?' : c;
      throw parse_error(rb_.resource().qualified() + " watch: the server sent an event that is not a JSON object (" +
                        (r.ok() ? tfjob::detail::describe_json_type(r.value) : r.error) + "): " + shown);
    }
    const nlohmann::json& j = r.value;
    const std::string type_text = field(j, "", "type", "watch event");
    static const nlohmann::json no_object = nlohmann::json::object();
    auto oit = j.find("object");
    const nlohmann::json& obj = oit != j.end() ? *oit : no_object;
    const auto type = parse_event_type(type_text);
    if (!type) return true;  // unknown: ignore
    if (*type == EventType::error) {
      int code = 500;
      if (obj.is_object())
        if (auto c = obj.find("code"); c != obj.end() && c->is_number_integer() && *c >= 100 && *c <= 999) code = c->get<int>();
      status st = status_from_response(code, "", obj.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      if (st.code == 410 || st.reason == "Expired" || st.reason == "Gone") {
        gone = true;
        return false;
      }
      throw api_error(st, "watch " + rb_.resource().qualified());
    }
    const std::string where = type_text + " event";
    const auto& md = metadata_of(obj, where);
    std::string rv = field(md, "metadata.", "resourceVersion", where);
    if (*type == EventType::bookmark) {
      if (!rv.empty()) rv_ = rv;
      if (params_.deliver_bookmarks) return deliver(cb, EventType::bookmark, obj);
      return true;
    }
    ++events_;
    check_shape(obj, where);
    std::string key = key_of(obj, where);
    std::string uid = field(md, "metadata.", "uid", where);
    auto it = known_.find(key);
    if (!rv.empty()) rv_ = rv;
    if (*type == EventType::deleted) {
      if (it == known_.end() && listed_) {  // already told (or never existed for us)
        ++stats_.duplicates_skipped;
        return true;
      }
      if (it != known_.end()) known_.erase(it);
      return deliver(cb, EventType::deleted, obj);
    }
    if (it != known_.end() && it->second.uid == uid && it->second.rv == rv) {
      ++stats_.duplicates_skipped;  // replayed after a reconnect
      return true;
    }
    EventType t = *type;
    // A MODIFIED for something we have not announced is an ADDED to the caller, and vice versa.
    if (listed_) t = (it == known_.end() || it->second.uid != uid) ? EventType::added : EventType::modified;
    known_.insert_or_assign(key, Known(uid, rv, obj));
    return deliver(cb, t, obj);
  }

  /// List everything, page by page, and tell the caller what changed since the last state
  /// it knows: ADDED and MODIFIED as each page arrives, then DELETED for what the list no
  /// longer has. Returns false when the caller stopped.
  bool relist(const Callback& cb, const StreamOptions& opts) {
    ++stats_.lists;
    // what this pass has listed: each object's `pass` (no set of keys beside known_), and how many
    std::size_t listed = 0;
    std::string list_rv;
    auto on_item = [&](detail::WatchListed& l) {
      if (++listed > limits::max_list_objects)
        throw parse_error(rb_.resource().qualified() + " list: more than " + std::to_string(limits::max_list_objects) +
                          " objects (the bound on objects in one list); narrow it with a label selector or a namespace");
      return replay_one(cb, l);
    };
    bool whole = false;
    // Stopped by the caller: resume from this list only when nothing of it is left to tell
    // (every item handed over, nothing gone untold); else the next run lists again, and what
    // the caller already has is not told twice (known_).
    auto stopped = [&] {
      if (whole && std::all_of(known_.begin(), known_.end(), [&](const auto& k) { return k.second.pass == pass_; })) {
        rv_ = list_rv;
        listed_ = true;
      }
      return false;
    };
    if (!detail::watch_list_all(client_, rb_, params_, FailureStreak{max_failures, max_outage}, opts, [&] { ++pass_, listed = 0; }, on_item, list_rv, whole))
      return stopped();
    // deletions: objects the caller knows that the list no longer has
    for (auto it = known_.begin(); it != known_.end();) {
      if (it->second.pass == pass_) {
        ++it;
        continue;
      }
      nlohmann::json last = it->second.tombstone(rb_.resource(), it->first);
      it = known_.erase(it);
      if (!deliver(cb, EventType::deleted, last, true)) return stopped();
    }
    rv_ = list_rv;
    listed_ = true;
    if (on_synced) on_synced();
    return true;
  }

  /// Tell the caller how one listed object differs from what it knows: ADDED when new (a
  /// DELETED first for an object of that name with another uid), MODIFIED when its version
  /// moved, nothing when the caller has it. Returns false when the caller stopped.
  bool replay_one(const Callback& cb, detail::WatchListed& l) {
    auto it = known_.find(l.key);
    if (it != known_.end() && it->second.uid != l.uid) {  // deleted and made again meanwhile
      nlohmann::json last = it->second.tombstone(rb_.resource(), it->first);
      known_.erase(it);
      if (!deliver(cb, EventType::deleted, last, true)) return false;
      it = known_.end();
    }
    if (it != known_.end() && it->second.rv == l.rv) {
      it->second.pass = pass_;
      return true;
    }
    const EventType t = it == known_.end() ? EventType::added : EventType::modified;
    known_.insert_or_assign(l.key, Known(l.uid, l.rv, l.object)).first->second.pass = pass_;
    return deliver(cb, t, l.object);
  }

  static void sleep(std::chrono::milliseconds d, const StreamOptions& opts) { kube::sleep_for(d, opts.cancel, opts.deadline); }

  Client client_;
  RequestBuilder rb_;
  WatchParams params_;
  tfjob::detail::JsonOmit event_omit_;  ///< params_.omit under each event's object
  std::string rv_;
  std::map<std::string, Known> known_;
  std::uint32_t pass_ = 0;  ///< passes of (re)lists begun, each a list from its first page
  bool listed_ = false;
  bool stopped_ = false;
  WatchStats stats_;
  WatchState state_ = WatchState::list;
  WatchState after_ = WatchState::watch;  ///< where the pause of back_off leads
  std::chrono::milliseconds pause_{0};    ///< the pause back_off sleeps
  int events_ = 0;  ///< ADDED/MODIFIED/DELETED events of the current watch (not bookmarks)
  bool progress_ = false;  ///< the current watch brought a line
  FailureStreak failures_;  ///< watches in a row that failed without progress
  std::string last_error_;
  int quiet_ = 0;   ///< watches in a row that ended without an event
  std::chrono::steady_clock::time_point last_backoff_{};
  std::minstd_rand rng_{std::random_device{}()};
};

}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
#include <tfjob/kube/impl/watch_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
