// The release's glibc compatibility shim (release/glibc_compat.cpp): the steady-to-wall
// deadline conversion it does in place of pthread_cond_clockwait (GLIBC_2.30), and real
// waits through it. This binary is linked like the release (-Wl,--wrap=pthread_cond_clockwait,
// cmake/TfjobGlibcCompat.cmake), so std::condition_variable's steady waits go through it too.
#include <catch2/catch.hpp>

#include "glibc_compat.hpp"

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

using tfjob_release::realtime_deadline;

namespace {
timespec ts(time_t s, long ns) {
  timespec t{};
  t.tv_sec = s;
  t.tv_nsec = ns;
  return t;
}
timespec now(clockid_t c) {
  timespec t{};
  clock_gettime(c, &t);
  return t;
}
bool not_before(const timespec& a, const timespec& b) {  // a >= b
  return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec >= b.tv_nsec);
}
timespec plus_ms(timespec t, long ms) {
  t.tv_sec += ms / 1000;
  t.tv_nsec += (ms % 1000) * 1000000L;
  if (t.tv_nsec >= 1000000000L) {
    t.tv_nsec -= 1000000000L;
    ++t.tv_sec;
  }
  return t;
}
}  // namespace

TEST_CASE("a CLOCK_MONOTONIC deadline becomes now_rt + (deadline - now_mono)", "[release][glibc]") {
  timespec out{};
  // 2.5 s after the monotonic now, from a wall clock at 1700000000.1
  REQUIRE(realtime_deadline(CLOCK_MONOTONIC, ts(102, 600000000), ts(100, 100000000), ts(1700000000, 100000000), out) == 0);
  CHECK(out.tv_sec == 1700000002);
  CHECK(out.tv_nsec == 600000000);
  // nanoseconds carry into the seconds
  REQUIRE(realtime_deadline(CLOCK_MONOTONIC, ts(10, 900000000), ts(10, 0), ts(50, 300000000), out) == 0);
  CHECK(out.tv_sec == 51);
  CHECK(out.tv_nsec == 200000000);
  // and borrow from them
  REQUIRE(realtime_deadline(CLOCK_MONOTONIC, ts(11, 0), ts(10, 900000000), ts(50, 0), out) == 0);
  CHECK(out.tv_sec == 50);
  CHECK(out.tv_nsec == 100000000);
  // a deadline already past stays past (pthread_cond_timedwait then times out at once)
  REQUIRE(realtime_deadline(CLOCK_MONOTONIC, ts(5, 0), ts(10, 0), ts(1700000000, 0), out) == 0);
  CHECK(out.tv_sec == 1699999995);
  CHECK(out.tv_nsec == 0);
}

TEST_CASE("a CLOCK_REALTIME deadline passes through, other clocks and bad nanoseconds are EINVAL", "[release][glibc]") {
  timespec out{};
  REQUIRE(realtime_deadline(CLOCK_REALTIME, ts(1700000123, 456), ts(1, 0), ts(1700000000, 0), out) == 0);
  CHECK(out.tv_sec == 1700000123);
  CHECK(out.tv_nsec == 456);
  // as glibc's pthread_cond_clockwait: only CLOCK_REALTIME and CLOCK_MONOTONIC
  CHECK(realtime_deadline(CLOCK_PROCESS_CPUTIME_ID, ts(1, 0), ts(1, 0), ts(1, 0), out) == EINVAL);
  CHECK(realtime_deadline(CLOCK_MONOTONIC_RAW, ts(1, 0), ts(1, 0), ts(1, 0), out) == EINVAL);
  CHECK(realtime_deadline(CLOCK_BOOTTIME, ts(1, 0), ts(1, 0), ts(1, 0), out) == EINVAL);
  CHECK(realtime_deadline(CLOCK_MONOTONIC, ts(1, 1000000000L), ts(1, 0), ts(1, 0), out) == EINVAL);
  CHECK(realtime_deadline(CLOCK_REALTIME, ts(1, -1), ts(1, 0), ts(1, 0), out) == EINVAL);
}

TEST_CASE("a deadline too far to represent saturates instead of wrapping into the past", "[release][glibc]") {
  timespec out{};
  const time_t max = static_cast<time_t>(INT64_MAX);
  REQUIRE(realtime_deadline(CLOCK_MONOTONIC, ts(max, 999999999), ts(100, 0), ts(1700000000, 0), out) == 0);
  CHECK(out.tv_sec == max);
  CHECK(out.tv_nsec == 999999999);
  // what steady_clock::time_point::max() gives libstdc++ (in ns: 9.2e9 s) still fits
  REQUIRE(realtime_deadline(CLOCK_MONOTONIC, ts(9223372036, 854775807), ts(100, 0), ts(1700000000, 0), out) == 0);
  CHECK(out.tv_sec == 9223372036 - 100 + 1700000000);
  CHECK(out.tv_nsec == 854775807);
  // long past, below what time_t holds: the start of the epoch (times out at once)
  REQUIRE(realtime_deadline(CLOCK_MONOTONIC, ts(static_cast<time_t>(INT64_MIN), 0), ts(100, 0), ts(5, 0), out) == 0);
  CHECK(out.tv_sec == 0);
  CHECK(out.tv_nsec == 0);
}

TEST_CASE("the wrapped pthread_cond_clockwait waits until the deadline, wakes when signalled, refuses other clocks", "[release][glibc]") {
  pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

  SECTION("a monotonic deadline nobody signals: ETIMEDOUT, not before the deadline") {
    const timespec deadline = plus_ms(now(CLOCK_MONOTONIC), 50);
    pthread_mutex_lock(&mu);
    int rc = 0;
    do rc = __wrap_pthread_cond_clockwait(&cv, &mu, CLOCK_MONOTONIC, &deadline);
    while (rc == 0);  // a spurious wakeup may return 0 early
    pthread_mutex_unlock(&mu);
    CHECK(rc == ETIMEDOUT);
    CHECK(not_before(now(CLOCK_MONOTONIC), deadline));
  }
  SECTION("a realtime deadline nobody signals: ETIMEDOUT, not before the deadline") {
    const timespec deadline = plus_ms(now(CLOCK_REALTIME), 50);
    pthread_mutex_lock(&mu);
    int rc = 0;
    do rc = __wrap_pthread_cond_clockwait(&cv, &mu, CLOCK_REALTIME, &deadline);
    while (rc == 0);
    pthread_mutex_unlock(&mu);
    CHECK(rc == ETIMEDOUT);
    CHECK(not_before(now(CLOCK_REALTIME), deadline));
  }
  SECTION("signalled long before a far deadline: returns 0 with the mutex held") {
    bool ready = false;
    const timespec deadline = plus_ms(now(CLOCK_MONOTONIC), 600000);  // ten minutes
    std::thread signaller([&] {
      pthread_mutex_lock(&mu);
      ready = true;
      pthread_cond_signal(&cv);
      pthread_mutex_unlock(&mu);
    });
    pthread_mutex_lock(&mu);
    int rc = 0;
    while (!ready && rc == 0) rc = __wrap_pthread_cond_clockwait(&cv, &mu, CLOCK_MONOTONIC, &deadline);
    CHECK(pthread_mutex_trylock(&mu) == EBUSY);  // still ours
    pthread_mutex_unlock(&mu);
    signaller.join();
    CHECK(rc == 0);
    CHECK(ready);
  }
  SECTION("another clock: EINVAL at once, the mutex still held") {
    const timespec deadline = plus_ms(now(CLOCK_MONOTONIC), 600000);
    pthread_mutex_lock(&mu);
    CHECK(__wrap_pthread_cond_clockwait(&cv, &mu, CLOCK_PROCESS_CPUTIME_ID, &deadline) == EINVAL);
    CHECK(pthread_mutex_trylock(&mu) == EBUSY);
    pthread_mutex_unlock(&mu);
  }
  pthread_cond_destroy(&cv);
  pthread_mutex_destroy(&mu);
}

#if defined(__GLIBC__)
#if __GLIBC_PREREQ(2, 30)  // glibc declares pthread_cond_clockwait
TEST_CASE("linked like the release, pthread_cond_clockwait is the shim and std::condition_variable waits through it", "[release][glibc]") {
  // --wrap resolves every reference to pthread_cond_clockwait to __wrap_pthread_cond_clockwait
  CHECK(reinterpret_cast<void*>(&pthread_cond_clockwait) == reinterpret_cast<void*>(&__wrap_pthread_cond_clockwait));

  std::mutex m;
  std::condition_variable cv;
  bool flag = false;
  {
    // a steady wait nobody ends: times out, not before its deadline
    std::unique_lock<std::mutex> lk(m);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
    CHECK_FALSE(cv.wait_until(lk, deadline, [&] { return flag; }));
    CHECK(std::chrono::steady_clock::now() >= deadline);
  }
  {
    // and one that is ended by a notify long before its deadline
    std::thread t([&] {
      std::lock_guard<std::mutex> g(m);
      flag = true;
      cv.notify_all();
    });
    std::unique_lock<std::mutex> lk(m);
    CHECK(cv.wait_for(lk, std::chrono::minutes(10), [&] { return flag; }));
    lk.unlock();
    t.join();
  }
}
#endif
#endif
