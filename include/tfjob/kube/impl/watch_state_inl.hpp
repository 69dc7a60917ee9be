#pragma once
/// \file The bodies of <tfjob/kube/watch_state.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/watch_state.hpp>, never this file.

namespace tfjob::kube {

TFJOB_INLINE WatchTransition watch_transition(WatchState from, WatchEnd how, bool had_events, WatchState after) {
  using S = WatchState;
  using E = WatchEnd;
  if (how == E::stopped) return {S::done};
  switch (from) {
    case S::list:
    case S::relist:
      if (how == E::listed) return {S::watch};
      break;
    case S::watch:
      // a watch that brought nothing is re-opened (or relisted) only after a pause, so a
      // server that ends every watch at once is not hammered (client-go reflector.go)
      if (how == E::closed) return had_events ? WatchTransition{S::watch} : WatchTransition{S::back_off, WatchPause::quiet, S::watch};
      if (how == E::gone) return had_events ? WatchTransition{S::relist} : WatchTransition{S::back_off, WatchPause::quiet, S::relist};
      if (how == E::failed) return {S::back_off, WatchPause::failure, S::watch};
      break;
    case S::back_off:
      if (how == E::paused) return {after};
      break;
    case S::done: break;
  }
  return {S::done};
}

TFJOB_INLINE const char* to_string(WatchState s) {
  switch (s) {
    case WatchState::list: return "list";
    case WatchState::watch: return "watch";
    case WatchState::relist: return "relist";
    case WatchState::back_off: return "back_off";
    case WatchState::done: return "done";
  }
  return "unknown";
}

}  // namespace tfjob::kube
