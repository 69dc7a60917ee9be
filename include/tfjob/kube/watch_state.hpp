#pragma once
/// \file Where a watcher is and where it goes next (kube-runtime watcher.rs `State`, client-go's
/// Reflector): the states, how a step ends, the pure transition table, the pacing of
/// re-opened watches and the counts a watcher keeps.

#include <tfjob/detail/compiled.hpp>

#include <chrono>
#include <cstddef>

namespace tfjob::kube {

/// Statistics a watcher keeps (for tests and -v logs).
struct WatchStats {
  int lists = 0;       ///< full lists (initial + after 410)
  int connections = 0; ///< watch requests opened
  int resumes = 0;     ///< reconnects after a drop or a normal end
  int duplicates_skipped = 0;
  int empty_ends = 0;  ///< watches that ended without an event (each one backed off)
};

/// What a watcher remembers of the objects it has told (Watcher::remembered).
struct WatchMemory {
  std::size_t objects = 0;  ///< told and not deleted since
  std::size_t bytes = 0;    ///< held for them, keys included
};

/// How a watcher paces re-opening a watch that ended without an event: client-go's
/// reflector (tools/cache/reflector.go NewReflectorWithOptions: backoffManager 800ms
/// doubling to a 30s cap, jitter 1.0, reset after 2 quiet minutes), so a server that ends
/// every watch at once is not hammered in a hot loop.
struct WatchBackoff {
  std::chrono::milliseconds initial{800};
  std::chrono::milliseconds cap{30000};
  double jitter = 1.0;  ///< each wait is d + U(0, jitter * d)
  std::chrono::milliseconds reset_after{120000};
};

/// Failures in a row and when they end a watcher: after more than `max_failures` of them that
/// have lasted `max_outage` or longer. An API server restarting on a busy node can refuse
/// connections for tens of seconds; client-go's reflector retries for ever, kubectl's watch
/// not at all; this keeps trying for two minutes, then says why it stopped.
struct FailureStreak {
  int max_failures = 8;
  std::chrono::milliseconds max_outage{120000};
  int count = 0;  ///< failures in a row now
  std::chrono::steady_clock::time_point since{};  ///< when the first of them happened

  void reset() { count = 0; }
  /// Counts one more failure at `now`; true when the watcher should give up.
  bool fail(std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now()) {
    if (count++ == 0) since = now;
    return count > max_failures && now - since >= max_outage;
  }
};

/// Where a watcher is (kube-runtime watcher.rs `State`; client-go's Reflector ListAndWatch).
enum class WatchState {
  list,      ///< the first list: every object (as ADDED), then the caller's picture is whole
  watch,     ///< a watch open from the last resourceVersion seen
  relist,    ///< after 410 Gone: list again and deliver only what changed meanwhile
  back_off,  ///< a pause before the next watch or relist
  done,      ///< the callback said stop, `cancel` was raised, or the deadline passed
};

/// How one step of a watcher ended.
enum class WatchEnd {
  listed,   ///< a list (first or again) was delivered
  stopped,  ///< the callback returned false, `cancel` was raised, or the deadline passed
  closed,   ///< the server ended the watch without an error
  gone,     ///< 410 Gone (the answer, or an ERROR event in the stream): the version is too old
  failed,   ///< the connection broke, or the server answered 5xx or 429
  paused,   ///< a back-off pause is over
};

/// Which pause leads into WatchState::back_off.
enum class WatchPause {
  none,
  quiet,    ///< the watch brought no event: client-go's reflector backoff (WatchBackoff)
  failure,  ///< the watch failed: 200 ms doubling per failure in a row, up to 6.4 s
};

/// One row of the watcher's transition table.
struct WatchTransition {
  WatchState next = WatchState::done;
  WatchPause pause = WatchPause::none;   ///< when `next` is back_off: which pause
  WatchState after = WatchState::watch;  ///< when `next` is back_off: where the pause leads
};

/// The watcher's transitions (pure; `had_events`: the watch that ended brought an ADDED,
/// MODIFIED or DELETED event; `after`: where the current pause leads):
/// - list, relist --listed--> watch
/// - watch --closed--> watch when it brought events, else back_off (quiet), then watch
/// - watch --gone--> relist when it brought events, else back_off (quiet), then relist
/// - watch --failed--> back_off (failure), then watch
/// - back_off --paused--> `after`
/// - any --stopped--> done (and any pair a state cannot end with)
WatchTransition watch_transition(WatchState from, WatchEnd how, bool had_events, WatchState after = WatchState::watch);

/// "list", "watch", "relist", "back_off", "done" (for -v logs and test names).
const char* to_string(WatchState s);

}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
#include <tfjob/kube/impl/watch_state_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
