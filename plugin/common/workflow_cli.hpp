#pragma once
/// \file Small helpers the training-workflow commands (get, describe, logs, wait, delete,
/// submit's cluster path) share: durations and the live progress line on stderr. Colours and
/// tables are output.hpp's.

#include "command.hpp"

#include <tfjob/api/manifest.hpp>
#include <tfjob/error.hpp>
#include <tfjob/workflow/progress.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>
#include <vector>

namespace tfjob::cli::wf {

/// "90", "90s", "5m", "1h30m", "2h" → duration (Go's time.ParseDuration subset kubectl
/// accepts for --timeout/--since). Throws CLI::ValidationError naming the flag.
inline std::chrono::milliseconds parse_duration(const std::string& text, const std::string& flag) {
  if (text.empty()) throw CLI::ValidationError(flag, "empty duration");
  bool digits_only = text.find_first_not_of("0123456789") == std::string::npos;
  if (digits_only) return std::chrono::seconds(std::stoll(text));
  double total_ms = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = i;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.')) ++j;
    if (j == i) throw CLI::ValidationError(flag, "\"" + text + "\" is not a duration (use e.g. 30s, 5m, 1h)");
    double v = std::stod(text.substr(i, j - i));
    size_t k = j;
    while (k < text.size() && std::isalpha(static_cast<unsigned char>(text[k]))) ++k;
    std::string unit = text.substr(j, k - j);
    if (unit == "ms") total_ms += v;
    else if (unit == "s") total_ms += v * 1000;
    else if (unit == "m") total_ms += v * 60000;
    else if (unit == "h") total_ms += v * 3600000;
    else throw CLI::ValidationError(flag, "\"" + text + "\" has an unknown unit \"" + unit + "\" (use ms, s, m, h)");
    i = k;
  }
  return std::chrono::milliseconds(static_cast<long long>(total_ms));
}

/// The live progress line on stderr: rewritten in place on a terminal, one line per change
/// otherwise (so logs and CI output stay readable).
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled = true) : enabled_(enabled), tty_(::isatty(2) != 0) {}
  ~ProgressLine() { finish(); }
  void show(const std::string& text) {
    if (!enabled_) return;
    std::lock_guard<std::mutex> lk(mu_);
    if (text == last_) return;
    last_ = text;
    if (tty_) {
      std::cerr << "\r\033[K" << text << std::flush;
      open_ = true;
    } else {
      std::cerr << text << "\n" << std::flush;
    }
  }
  void show(const tfjob::workflow::Progress& p) { show(p.line()); }
  /// End the in-place line before other output.
  void finish() {
    std::lock_guard<std::mutex> lk(mu_);
    if (open_) std::cerr << "\n" << std::flush;
    open_ = false;
  }

 private:
  bool enabled_, tty_, open_ = false;
  std::string last_;
  std::mutex mu_;
};

}  // namespace tfjob::cli::wf
