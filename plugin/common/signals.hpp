#pragma once
/// \file Ctrl-C for a command that runs until it is stopped: while a `StopSignals` lives,
/// SIGINT and SIGTERM call the command's handler (which sets its stop flag); the handlers
/// that were there before come back when it goes.

#include <signal.h>

namespace tfjob::cli {

class StopSignals {
 public:
  /// `handler` runs on SIGINT and SIGTERM; `flags` as sigaction's (SA_RESTART: a request in
  /// flight carries on, and the command sees its flag afterwards).
  explicit StopSignals(void (*handler)(int), int flags = 0) {
    struct sigaction sa {};
    sa.sa_handler = handler;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

}  // namespace tfjob::cli
