#pragma once
/// \file Small helpers the training-workflow commands (get, describe, logs, wait, delete,
/// submit's cluster path) share: durations and the live progress line on stderr. Colours and
/// tables are output.hpp's.

#include "command.hpp"

#include <tfjob/api/manifest.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/detail/util.hpp>  // parse_duration
#include <tfjob/workflow/progress.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>
#include <vector>

namespace tfjob::cli::wf {

/// "90", "90s", "5m", "1h30m", "2h" → duration (Go's time.ParseDuration, as kubectl takes
/// it for --timeout/--since): the SDK's one duration parser. Throws CLI::ValidationError
/// naming the flag.
inline std::chrono::milliseconds parse_duration(const std::string& text, const std::string& flag) {
  try {
    return tfjob::kube::detail::parse_duration(text, flag);
  } catch (const tfjob::config_error& e) {
    throw CLI::ValidationError(e.what());
  }
}

/// The live progress line on stderr: rewritten in place on a terminal, one line per change
/// otherwise (so logs and CI output stay readable).
class ProgressLine {
 public:
  /// `err` rewrites in place only when it is std::cerr on a terminal.
  ProgressLine(bool enabled, std::ostream& err)
      : enabled_(enabled), tty_(&err == &std::cerr && ::isatty(2) != 0), err_(err) {}
  ~ProgressLine() { finish(); }
  void show(const std::string& text) {
    if (!enabled_) return;
    std::lock_guard<std::mutex> lk(mu_);
    if (text == last_) return;
    last_ = text;
    if (tty_) {
      err_ << "\r\033[K" << text << std::flush;
      open_ = true;
    } else {
      err_ << text << "\n" << std::flush;
    }
  }
  void show(const tfjob::workflow::Progress& p) { show(p.line()); }
  /// End the in-place line before other output.
  void finish() {
    std::lock_guard<std::mutex> lk(mu_);
    if (open_) err_ << "\n" << std::flush;
    open_ = false;
  }

 private:
  bool enabled_, tty_, open_ = false;
  std::ostream& err_;
  std::string last_;
  std::mutex mu_;
};

/// What a timed-out wait says of the pods that kept the job from getting there, one line
/// each after the timeout line ("  pod p: 0/1 nodes are available: 1 Insufficient ...").
inline std::string waiting_lines(const std::vector<workflow::PendingReason>& waiting) {
  std::string s;
  for (const auto& w : waiting)
    s += "  pod " + w.pod + ": " +
         (w.message.empty() ? w.reason : w.message.rfind(w.reason, 0) == 0 ? w.message : w.reason + ": " + w.message) +
         "\n";
  return s;
}

/// What a wait that ended because a pod cannot start says: the pods and the kubelet's
/// reason, and what to do about it.
inline std::string stuck_lines(const std::vector<workflow::PendingReason>& stuck) {
  std::string s = waiting_lines(stuck);
  bool never = false, invalid = false;
  for (const auto& w : stuck) (w.reason == "ErrImageNeverPull" ? never : invalid) = true;
  if (never)
    s += "  the image is not on the node and imagePullPolicy is Never: load it onto the node (ctr images import) "
         "or push it to a registry and use imagePullPolicy IfNotPresent, then resubmit\n";
  if (invalid) s += "  the image reference does not parse: fix --image (REGISTRY/NAME:TAG), then resubmit\n";
  return s;
}

}  // namespace tfjob::cli::wf
