#pragma once
/// \file Pod logs (GET .../pods/NAME/log, kubectl logs): container, follow, tailLines,
/// sinceSeconds/sinceTime, timestamps, previous. A followed stream that breaks is resumed
/// without losing or repeating a line: timestamps are always requested internally, the
/// resume asks for `sinceTime` (whole seconds, as the API takes it) and skips what was
/// already delivered; the prefix is stripped again unless the caller asked for timestamps.

#include <tfjob/error.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/detail/util.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/kube/watch.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace tfjob::kube {

/// corev1.PodLogOptions as kubectl logs sets them.
struct LogParams {
  std::string container;  ///< "" = the pod's only (or default) container
  bool follow = false;
  std::optional<std::int64_t> tail_lines;
  std::optional<std::int64_t> since_seconds;
  std::string since_time;  ///< RFC 3339
  bool timestamps = false;  ///< keep the RFC 3339 prefix on each line
  bool previous = false;    ///< the previous (crashed) instance of the container
  std::optional<std::int64_t> limit_bytes;
};

/// The log request (pure).
inline Request log_request(const std::string& ns, const std::string& pod, const LogParams& p) {
  if (pod.empty()) throw tfjob::error("cannot read logs: no pod name given");
  if (p.since_seconds && !p.since_time.empty())
    throw tfjob::error("cannot read logs: give at most one of sinceSeconds and sinceTime");
  Request r;
  r.path = "/api/v1/namespaces/" + detail::path_escape(ns) + "/pods/" + detail::path_escape(pod) + "/log";
  r.accept = "*/*";
  if (!p.container.empty()) r.query.emplace_back("container", p.container);
  if (p.follow) r.query.emplace_back("follow", "true");
  if (p.previous) r.query.emplace_back("previous", "true");
  if (p.timestamps) r.query.emplace_back("timestamps", "true");
  if (p.tail_lines) r.query.emplace_back("tailLines", std::to_string(*p.tail_lines));
  if (p.since_seconds) r.query.emplace_back("sinceSeconds", std::to_string(*p.since_seconds));
  if (!p.since_time.empty()) r.query.emplace_back("sinceTime", p.since_time);
  if (p.limit_bytes) r.query.emplace_back("limitBytes", std::to_string(*p.limit_bytes));
  r.what = "logs of pod " + pod + (p.container.empty() ? "" : " container " + p.container) + " in namespace " + ns;
  return r;
}

/// Statistics of one log stream (for tests and diagnostics).
struct LogStats {
  int connections = 0;
  int resumes = 0;
  std::uint64_t lines = 0;
  std::uint64_t skipped_on_resume = 0;
};

/// Streams a pod's log line by line, resuming a broken stream.
class LogStreamer {
 public:
  using LineFn = std::function<bool(std::string_view line)>;

  LogStreamer(Client client, std::string ns, std::string pod, LogParams p)
      : client_(std::move(client)), ns_(std::move(ns)), pod_(std::move(pod)), p_(std::move(p)) {}

  /// Deliver each line (without '\n') until the log ends, `on_line` returns false, or
  /// `opts.cancel` is raised. Returns false when stopped early.
  bool run(const LineFn& on_line, const StreamOptions& opts = {}) {
    LogParams wire = p_;
    wire.timestamps = true;  // needed to resume without loss or repetition
    bool resume = false;
    int failures = 0;
    for (;;) {
      LineSplitter lines;
      bool stopped = false;
      bool progress = false;
      ++stats_.connections;
      std::string err;
      try {
        bool complete = client_.stream(
            log_request(ns_, pod_, wire),
            [&](std::string_view data) {
              bool more = lines.feed(data, [&](std::string_view line) {
                progress = true;
                return handle(line, on_line, stopped);
              });
              return more;
            },
            opts);
        if (stopped || !complete) return false;
        // The body ended normally: a last line without '\n' is still a line.
        if (!lines.partial().empty()) {
          std::string last = lines.partial();
          lines.reset();
          if (!handle(last, on_line, stopped)) return false;
        }
        return true;
      } catch (const api_error& e) {
        if (!resume || e.code() < 500) throw;
        err = e.what();
      } catch (const auth_error&) {
        throw;
      } catch (const transport_error& e) {
        if (stopped) return false;
        err = e.what();
      }
      if (opts.cancel && opts.cancel->load()) return false;
      // The stream broke. Resume from the last timestamp delivered (a partial line is
      // dropped: it arrives again whole).
      failures = progress ? 1 : failures + 1;
      if (failures > max_failures)
        throw transport_error("log stream of pod " + pod_ + " failed " + std::to_string(failures) +
                              " times in a row; last error: " + err);
      std::this_thread::sleep_for(std::chrono::milliseconds(50) * (1 << std::min(failures, 5)));
      resume = true;
      ++stats_.resumes;
      if (have_last_) {
        wire.since_seconds.reset();
        wire.tail_lines.reset();
        wire.since_time = detail::format_rfc3339(static_cast<std::time_t>(last_secs_));
        skipping_ = true;
        skipped_same_ = 0;
      }
    }
  }

  const LogStats& stats() const { return stats_; }
  int max_failures = 8;

 private:
  /// One line with its timestamp prefix. Returns false to stop.
  bool handle(std::string_view line, const LineFn& on_line, bool& stopped) {
    std::string_view ts, text = line;
    auto sp = line.find(' ');
    if (sp != std::string_view::npos && sp >= 20 && sp <= 40 && line[4] == '-' && line[10] == 'T') {
      ts = line.substr(0, sp);
      text = line.substr(sp + 1);
    }
    if (!ts.empty()) {
      if (skipping_) {
        std::int64_t s = 0, ns = 0;
        if (detail::parse_rfc3339(ts, s, ns)) {
          bool before = s < last_secs_ || (s == last_secs_ && ns < last_nanos_);
          bool same = s == last_secs_ && ns == last_nanos_;
          if (before || (same && skipped_same_ < same_count_)) {
            if (same) ++skipped_same_;
            ++stats_.skipped_on_resume;
            return true;
          }
          skipping_ = false;
        }
      }
      if (ts == last_ts_) {
        ++same_count_;
      } else {
        last_ts_.assign(ts.data(), ts.size());
        same_count_ = 1;
        have_last_ = detail::parse_rfc3339(ts, last_secs_, last_nanos_);
      }
    }
    ++stats_.lines;
    if (!on_line(p_.timestamps ? line : text)) {
      stopped = true;
      return false;
    }
    return true;
  }

  Client client_;
  std::string ns_, pod_;
  LogParams p_;
  LogStats stats_;
  std::string last_ts_;
  std::int64_t last_secs_ = 0, last_nanos_ = 0;
  std::int64_t same_count_ = 0, skipped_same_ = 0;
  bool have_last_ = false, skipping_ = false;
};

/// Stream a pod's log lines to `on_line` (see LogStreamer). Returns false when stopped early.
inline bool stream_logs(Client client, const std::string& ns, const std::string& pod, const LogParams& p,
                        const std::function<bool(std::string_view)>& on_line, const StreamOptions& opts = {}) {
  LogStreamer s(std::move(client), ns, pod, p);
  return s.run(on_line, opts);
}

/// The whole log as text (each line followed by '\n'); use without `follow`.
inline std::string get_logs(Client client, const std::string& ns, const std::string& pod, const LogParams& p = {}) {
  std::string out;
  stream_logs(std::move(client), ns, pod, p, [&](std::string_view l) {
    out.append(l);
    out.push_back('\n');
    return true;
  });
  return out;
}

}  // namespace tfjob::kube
