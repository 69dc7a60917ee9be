// The release build's glibc compatibility shim (TFJOB_GLIBC_COMPAT, set by
// scripts/release-chroot.sh): the one glibc symbol newer than 2.28 that the release binary
// needed, implemented with older ones, so it starts on glibc 2.28 (RHEL 8). Built into the
// release binary only, never into the header-only SDK; docs/release.md says what is proven.
//
// pthread_cond_clockwait@GLIBC_2.30 comes from libstdc++'s steady_clock waits
// (std::condition_variable::wait_for/wait_until, gcc >= 10 built for glibc >= 2.30). The
// link wraps it (-Wl,--wrap=pthread_cond_clockwait) so that those calls reach
// __wrap_pthread_cond_clockwait below, which waits with pthread_cond_timedwait@GLIBC_2.3.2.
#include "glibc_compat.hpp"

#include <cerrno>    // EINVAL
#include <cstdint>   // INT64_MAX

namespace tfjob_release {

namespace {
constexpr long nanos_per_second = 1000000000L;

bool valid_nanoseconds(long ns) { return ns >= 0 && ns < nanos_per_second; }

timespec latest() {
  timespec t{};
  t.tv_sec = static_cast<time_t>(INT64_MAX);  // time_t is 64-bit on amd64 and arm64
  t.tv_nsec = nanos_per_second - 1;
  return t;
}
}  // namespace

int realtime_deadline(clockid_t clock, const timespec& deadline, const timespec& now_mono,
                      const timespec& now_rt, timespec& out) {
  // glibc's pthread_cond_clockwait: EINVAL for an invalid tv_nsec, then for a clock other
  // than CLOCK_REALTIME or CLOCK_MONOTONIC (nptl/pthread_cond_wait.c, futex_abstimed_supported_clockid).
  if (!valid_nanoseconds(deadline.tv_nsec)) return EINVAL;
  if (clock == CLOCK_REALTIME) {
    out = deadline;
    return 0;
  }
  if (clock != CLOCK_MONOTONIC) return EINVAL;
  // libstdc++ before gcc 10 ("DR 887 - Sync unknown clock to known clock", <condition_variable>):
  // a steady deadline became system_clock::now() + (deadline - steady_clock::now()).
  time_t sec = 0;
  long nsec = deadline.tv_nsec - now_mono.tv_nsec + now_rt.tv_nsec;  // in (-1e9, 2e9)
  if (__builtin_sub_overflow(deadline.tv_sec, now_mono.tv_sec, &sec) ||
      __builtin_add_overflow(sec, now_rt.tv_sec, &sec)) {
    // only a deadline decades away (time_point::max()) or long past overflows
    if (deadline.tv_sec > now_mono.tv_sec) {
      out = latest();
    } else {
      out = timespec{};
    }
    return 0;
  }
  if (nsec < 0) {
    nsec += nanos_per_second;
    if (__builtin_sub_overflow(sec, 1, &sec)) {
      out = timespec{};
      return 0;
    }
  } else if (nsec >= nanos_per_second) {
    nsec -= nanos_per_second;
    if (__builtin_add_overflow(sec, 1, &sec)) {
      out = latest();
      return 0;
    }
  }
  out.tv_sec = sec;
  out.tv_nsec = nsec;
  return 0;
}

}  // namespace tfjob_release

extern "C" int __wrap_pthread_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clock,
                                             const timespec* deadline) {
  // The monotonic clock is read first, so the converted deadline is never earlier than the
  // asked one. libstdc++ creates its condition variables on CLOCK_REALTIME (no condattr),
  // which is what pthread_cond_timedwait's deadline is measured on; it re-reads steady_clock
  // after the wait to decide timeout or not, so a wall clock step is a spurious wakeup.
  timespec now_mono{}, now_rt{}, rt{};
  clock_gettime(CLOCK_MONOTONIC, &now_mono);
  clock_gettime(CLOCK_REALTIME, &now_rt);
  if (const int rc = tfjob_release::realtime_deadline(clock, *deadline, now_mono, now_rt, rt)) return rc;
  return pthread_cond_timedwait(cond, mutex, &rt);
}
