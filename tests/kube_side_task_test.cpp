// kube::SideTask and kube::sleep_for, the one mechanism behind every "look at something
// meanwhile" of a wait (wait's watches, serve's pod look, gpu-check's notes, the log savers):
// the task runs and repeats, returns false to end, its exception reaches the owner, and the
// owner's stop ends a task blocked in a cancellable pause or stream at once.
#include <catch2/catch.hpp>

#include <tfjob/kube/side_task.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>

using namespace std::chrono_literals;
using tfjob::kube::SideTask;

namespace {

/// Waits (at most `limit`, a bound for a broken build, not a speed claim) until `pred`.
template <class P>
bool eventually(P pred, std::chrono::seconds limit = 30s) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

}  // namespace

TEST_CASE("SideTask runs its task every period until it returns false", "[side_task]") {
  std::atomic<int> runs{0};
  SideTask t(1ms, [&](const std::atomic<bool>&) { return ++runs < 3; });
  REQUIRE(eventually([&] { return t.ended(); }));
  t.stop();
  CHECK(runs == 3);  // not called again once it said it is done
}

TEST_CASE("SideTask with no period runs once, given the token its streams take", "[side_task]") {
  std::atomic<int> runs{0};
  std::atomic<bool> saw_stop{false};
  std::promise<void> started;
  SideTask t([&](const std::atomic<bool>& stop) {
    ++runs;
    started.set_value();
    // a blocking watch or stream stands here: it returns when its cancel is raised
    while (!stop.load()) std::this_thread::sleep_for(1ms);
    saw_stop = true;
    return true;  // ignored: no period
  });
  started.get_future().wait();
  CHECK_FALSE(t.ended());
  t.stop();
  CHECK(saw_stop);
  CHECK(runs == 1);
  CHECK_FALSE(t.ended());  // stopped by its owner, not ended by itself
}

TEST_CASE("stopping a SideTask ends a long pause and a cancellable sleep at once", "[side_task]") {
  SECTION("the pause between runs") {
    std::atomic<int> runs{0};
    auto stopped = std::async(std::launch::async, [&] {
      SideTask t(std::chrono::hours(1), [&](const std::atomic<bool>&) {
        ++runs;
        return true;
      });
      REQUIRE(eventually([&] { return runs.load() == 1; }));
      t.stop();  // would be an hour if the pause did not end on stop
    });
    REQUIRE(stopped.wait_for(30s) == std::future_status::ready);
    stopped.get();
    CHECK(runs == 1);
  }
  SECTION("a retry's sleep inside the task") {
    std::atomic<bool> slept_whole{true};
    std::atomic<bool> entered{false};
    auto stopped = std::async(std::launch::async, [&] {
      SideTask t([&](const std::atomic<bool>& stop) {
        entered = true;
        slept_whole = tfjob::kube::sleep_for(std::chrono::hours(1), &stop);
        return false;
      });
      REQUIRE(eventually([&] { return entered.load(); }));
      t.stop();
    });
    REQUIRE(stopped.wait_for(30s) == std::future_status::ready);
    stopped.get();
    CHECK_FALSE(slept_whole);  // cut short, and it says so
  }
  SECTION("the first run waits one period when asked, and never comes if stopped before") {
    std::atomic<int> runs{0};
    {
      SideTask t(std::chrono::hours(1), [&](const std::atomic<bool>&) {
        ++runs;
        return true;
      }, false);
    }
    CHECK(runs == 0);
  }
}

TEST_CASE("what a SideTask throws surfaces in stop(), once", "[side_task]") {
  SideTask t(1ms, [](const std::atomic<bool>&) -> bool { throw std::runtime_error("the side look failed: 403"); });
  REQUIRE(eventually([&] { return t.ended(); }));
  CHECK_THROWS_WITH(t.stop(), "the side look failed: 403");
  CHECK_NOTHROW(t.stop());
  // an exception nobody took does not escape the destructor
  {
    SideTask u([](const std::atomic<bool>&) -> bool { throw std::runtime_error("dropped"); });
    REQUIRE(eventually([&] { return u.ended(); }));
  }
}

TEST_CASE("sleep_for: whole, cut by cancel, cut by a deadline", "[side_task]") {
  CHECK(tfjob::kube::sleep_for(1ms));
  CHECK(tfjob::kube::sleep_for(0ms));
  std::atomic<bool> raised{true};
  CHECK_FALSE(tfjob::kube::sleep_for(std::chrono::hours(1), &raised));
  CHECK_FALSE(tfjob::kube::sleep_for(std::chrono::hours(1), nullptr, std::chrono::steady_clock::now()));
  CHECK_FALSE(tfjob::kube::sleep_for(std::chrono::hours(1), nullptr, std::chrono::steady_clock::now() + 5ms));
}
