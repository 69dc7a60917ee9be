// The release build's glibc compatibility shim (release/glibc_compat.cpp): what it
// declares, for the unit test (tests/glibc_compat_test.cpp). Not part of the SDK.
#pragma once

#include <pthread.h>  // pthread_cond_t, pthread_mutex_t
#include <time.h>     // clockid_t, timespec

namespace tfjob_release {

/// The CLOCK_REALTIME deadline for a wait until `deadline` on `clock`, given both clocks'
/// readings now: CLOCK_MONOTONIC becomes now_rt + (deadline - now_mono) (saturated at the
/// largest timespec), CLOCK_REALTIME passes through. 0, or EINVAL for another clock or a
/// tv_nsec outside [0, 1e9), as glibc's pthread_cond_clockwait answers.
int realtime_deadline(clockid_t clock, const timespec& deadline, const timespec& now_mono,
                      const timespec& now_rt, timespec& out);

}  // namespace tfjob_release

extern "C" {
/// pthread_cond_clockwait (GLIBC_2.30) for glibc 2.28: the release links with
/// -Wl,--wrap=pthread_cond_clockwait, so every call (libstdc++'s steady_clock waits) lands here.
int __wrap_pthread_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clock,
                                  const timespec* deadline);
}
