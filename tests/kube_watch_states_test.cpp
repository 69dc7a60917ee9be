// The watcher's states and transitions (kube/watch.hpp: WatchState, watch_transition), one
// case per row of the table, without a server: what a watch that ended one way leads to.
// The same machine against the fake API server (nothing lost or repeated across drops,
// 410s and empty watches) is kube_stream_test and hostile_test.
#include <catch2/catch.hpp>

#include <tfjob/kube/watch.hpp>

using tfjob::kube::to_string;
using tfjob::kube::watch_transition;
using tfjob::kube::WatchEnd;
using tfjob::kube::WatchPause;
using tfjob::kube::WatchState;
using tfjob::kube::WatchTransition;

namespace {

/// "next" or "back_off(quiet)->after", for readable failures.
std::string said(const WatchTransition& t) {
  std::string s = to_string(t.next);
  if (t.next == WatchState::back_off)
    s += std::string(t.pause == WatchPause::quiet ? "(quiet)" : t.pause == WatchPause::failure ? "(failure)" : "(none)") +
         "->" + to_string(t.after);
  return s;
}

}  // namespace

TEST_CASE("watch states: the first list leads to a watch", "[kube][watch][states]") {
  CHECK(said(watch_transition(WatchState::list, WatchEnd::listed, false)) == "watch");
}

TEST_CASE("watch states: a relist after 410 leads to a watch", "[kube][watch][states]") {
  CHECK(said(watch_transition(WatchState::relist, WatchEnd::listed, false)) == "watch");
}

TEST_CASE("watch states: a watch the server closed after events is opened again at once", "[kube][watch][states]") {
  CHECK(said(watch_transition(WatchState::watch, WatchEnd::closed, true)) == "watch");
}

TEST_CASE("watch states: a watch closed without an event backs off before the next watch", "[kube][watch][states]") {
  CHECK(said(watch_transition(WatchState::watch, WatchEnd::closed, false)) == "back_off(quiet)->watch");
}

TEST_CASE("watch states: 410 Gone after events relists at once", "[kube][watch][states]") {
  CHECK(said(watch_transition(WatchState::watch, WatchEnd::gone, true)) == "relist");
}

TEST_CASE("watch states: 410 Gone at once backs off before the relist", "[kube][watch][states]") {
  CHECK(said(watch_transition(WatchState::watch, WatchEnd::gone, false)) == "back_off(quiet)->relist");
}

TEST_CASE("watch states: a failed watch backs off, then watches from the same version", "[kube][watch][states]") {
  // events or not: the failure pause, never a relist (the version is still good)
  CHECK(said(watch_transition(WatchState::watch, WatchEnd::failed, false)) == "back_off(failure)->watch");
  CHECK(said(watch_transition(WatchState::watch, WatchEnd::failed, true)) == "back_off(failure)->watch");
}

TEST_CASE("watch states: a pause leads where it was going", "[kube][watch][states]") {
  CHECK(said(watch_transition(WatchState::back_off, WatchEnd::paused, false, WatchState::watch)) == "watch");
  CHECK(said(watch_transition(WatchState::back_off, WatchEnd::paused, false, WatchState::relist)) == "relist");
}

TEST_CASE("watch states: stopped in any state is done", "[kube][watch][states]") {
  for (WatchState s : {WatchState::list, WatchState::watch, WatchState::relist, WatchState::back_off})
    for (bool events : {false, true}) {
      INFO(to_string(s) << (events ? " with events" : ""));
      CHECK(said(watch_transition(s, WatchEnd::stopped, events)) == "done");
    }
}

TEST_CASE("watch states: an end a state cannot have ends the watch", "[kube][watch][states]") {
  // a list neither closes nor pauses; a pause brings no events; done stays done
  CHECK(watch_transition(WatchState::list, WatchEnd::closed, false).next == WatchState::done);
  CHECK(watch_transition(WatchState::relist, WatchEnd::gone, false).next == WatchState::done);
  CHECK(watch_transition(WatchState::back_off, WatchEnd::listed, false).next == WatchState::done);
  CHECK(watch_transition(WatchState::watch, WatchEnd::paused, false).next == WatchState::done);
  CHECK(watch_transition(WatchState::done, WatchEnd::listed, false).next == WatchState::done);
}

TEST_CASE("watch states: failures in a row give up only when they are many and have lasted the outage", "[kube][watch][states]") {
  using namespace std::chrono;
  tfjob::kube::FailureStreak s{3, milliseconds(60000)};  // (the default waits 120 s)
  const auto t0 = steady_clock::time_point{} + hours(1);
  // a restart that refuses connections for 50 s: eight quick failures do not end the watch
  for (int i = 0; i < 8; ++i) CHECK_FALSE(s.fail(t0 + seconds(i)));
  CHECK_FALSE(s.fail(t0 + seconds(50)));
  CHECK(s.count == 9);
  // past the outage, with more failures than max_failures: give up
  CHECK(s.fail(t0 + seconds(61)));
  // a success starts a new streak, timed from its own first failure
  s.reset();
  CHECK_FALSE(s.fail(t0 + seconds(200)));
  for (int i = 0; i < 5; ++i) CHECK_FALSE(s.fail(t0 + seconds(201 + i)));
  CHECK(s.fail(t0 + seconds(260)));
  // over the outage but not yet more than max_failures: one more try
  tfjob::kube::FailureStreak few{3, milliseconds(1000)};
  CHECK_FALSE(few.fail(t0));
  CHECK_FALSE(few.fail(t0 + seconds(10)));
  CHECK_FALSE(few.fail(t0 + seconds(20)));
  CHECK(few.fail(t0 + seconds(30)));
  // max_outage 0 and max_failures 0 (fuzzing): the first failure ends it
  tfjob::kube::FailureStreak none{0, milliseconds(0)};
  CHECK(none.fail(t0));
}
