#pragma once
/// \file The bodies of <tfjob/kube/logs.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/logs.hpp>, never this file.

namespace tfjob::kube {

TFJOB_INLINE Request log_request(const std::string& ns, const std::string& pod, const LogParams& p) {
  if (pod.empty()) throw tfjob::error("cannot read logs: no pod name given");
  if (p.since_seconds && !p.since_time.empty())
    throw tfjob::error("cannot read logs: give at most one of sinceSeconds and sinceTime");
  Request r;
  r.path = "/api/v1/namespaces/" + detail::path_segment(ns, "namespace") + "/pods/" + detail::path_segment(pod, "resource name") + "/log";
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

namespace detail {

TFJOB_INLINE bool kubelet_log_unavailable(std::string_view body) {
  if (body.size() >= 512 || body.substr(0, kubelet_no_log.size()) != kubelet_no_log) return false;
  auto nl = body.find('\n');
  return (nl == std::string_view::npos || nl + 1 == body.size()) && body.find("://") != std::string_view::npos;
}

/// The length of the kubelet's timestamp and its space at the start of a line read with
/// timestamps=true ("2006-01-02T15:04:05.000000000Z07:00 "), 0 when the line has none.
TFJOB_INLINE std::size_t wire_timestamp_length(std::string_view line) {
  const auto sp = line.find(' ');
  return sp != std::string_view::npos && sp >= 20 && sp <= 40 && line[4] == '-' && line[10] == 'T' ? sp + 1 : 0;
}

/// With timestamps on the wire every line of the log starts with the kubelet's timestamp.
/// A last piece without one, short and unterminated, is the kubelet's error written after
/// the log: ReadLogs fails while following when the runtime has removed the container (its
/// pod was deleted: "rpc error: code = NotFound desc = an error occurred when try to find
/// container ...: not found", kuberuntime logs.go waitLogs), and server.go getContainerLogs
/// writes it with WriteError after the 200 and the log's bytes.
TFJOB_INLINE bool kubelet_error_after_log(std::string_view last_piece) {
  return !last_piece.empty() && last_piece.size() < 1024 && last_piece.find('\n') == std::string_view::npos &&
         wire_timestamp_length(last_piece) == 0;
}

TFJOB_INLINE bool may_be_kubelet_no_log(std::string_view head) {
  if (head.size() <= kubelet_no_log.size()) return kubelet_no_log.substr(0, head.size()) == head;
  return head.size() < 512 && head.substr(0, kubelet_no_log.size()) == kubelet_no_log &&
         head.substr(0, head.size() - 1).find('\n') == std::string_view::npos;
}

TFJOB_INLINE PartialEntryTimestamps::PartialEntryTimestamps(std::size_t entry_bytes) : entry_(entry_bytes) { new_line(); }

TFJOB_INLINE void PartialEntryTimestamps::reset() {
  holding_ = false;
  hold_.clear();
  new_line();
}

TFJOB_INLINE void PartialEntryTimestamps::new_line() {
  lead_ = true;
  lead_seen_ = 0;
  content_ = 0;
  next_ = entry_;
}

TFJOB_INLINE int PartialEntryTimestamps::match(std::size_t i, char ch) const {
  static constexpr const char shape[] = "dddd-dd-ddTdd:dd:dd.ddddddddd";  // 29 bytes
  static constexpr const char zone[] = "dd:dd";                           // after a sign
  auto fits = [](char want, char c) { return want == 'd' ? (c >= '0' && c <= '9') : c == want; };
  if (i < 29) return fits(shape[i], ch) ? 0 : -1;
  if (i == 29) return (ch == 'Z' || ch == '+' || ch == '-') ? 0 : -1;
  if (hold_[29] == 'Z') return i == 30 && ch == ' ' ? 1 : -1;
  if (i < 35) return fits(zone[i - 30], ch) ? 0 : -1;
  return i == 35 && ch == ' ' ? 1 : -1;
}

}  // namespace detail

TFJOB_INLINE LogStreamer::LogStreamer(Client client, std::string ns, std::string pod, LogParams p)
    : client_(std::move(client)), ns_(std::move(ns)), pod_(std::move(pod)), p_(std::move(p)) {}

TFJOB_INLINE bool LogStreamer::resumes_by_bytes() const {
  return !p_.follow && !p_.timestamps && !want_times && !p_.tail_lines && !p_.since_seconds;
}

TFJOB_INLINE bool LogStreamer::run_bytes(const DataFn& on_data, const StreamOptions& opts) {
  if (!resumes_by_bytes()) throw tfjob::error("LogStreamer::run_bytes needs a plain read (no follow, timestamps, tail or sinceSeconds)");
  return drive([&](std::string_view data) {
    stats_.bytes += data.size();
    return on_data(data);
  }, [] { return true; }, opts);
}

TFJOB_INLINE bool LogStreamer::run_pieces(const PieceFn& on_piece, const StreamOptions& opts) {
  on_piece_ = &on_piece;
  partial_ = detail::PartialEntryTimestamps(partial_entry_bytes);
  auto split = [&](std::string_view d) { return feed(d); };
  return drive([&](std::string_view data) { return stats_.wire_timestamps ? partial_.push(data, split) : feed(data); },
               [&] { return (!stats_.wire_timestamps || partial_.finish(split)) && end_of_body(); }, opts);
}

TFJOB_INLINE bool LogStreamer::run(const LineFn& on_line, const StreamOptions& opts) {
  std::string line;
  return run_pieces([&](const LogPiece& pc) {
    if (pc.first && pc.last) {
      if (p_.timestamps && !pc.timestamp.empty()) {
        line.assign(pc.timestamp);
        line.push_back(' ');
        line.append(pc.text);
        return on_line(line);
      }
      return on_line(pc.text);
    }
    if (pc.first) {
      line.clear();
      if (p_.timestamps && !pc.timestamp.empty()) line.append(pc.timestamp).push_back(' ');
    }
    line.append(pc.text);
    return pc.last ? on_line(line) : true;
  }, opts);
}

template <class Feed, class End>
inline bool LogStreamer::drive(Feed&& feed_fn, End&& at_end, const StreamOptions& opts) {
  const bool by_bytes = resumes_by_bytes();
  LogParams wire = p_;
  wire.timestamps = !by_bytes;
  stats_.wire_timestamps = wire.timestamps;
  bool resume = false;
  int failures = 0;
  for (;;) {
    bool stopped = false, progress = false;
    std::uint64_t skip = by_bytes ? body_bytes_ : 0;  // byte resume: what the last connections delivered
    begin_connection(by_bytes);
    std::string err;
    auto pass = [&](std::string_view data) {
      progress = true;
      if (by_bytes) body_bytes_ += data.size();
      if (!feed_fn(data)) {
        stopped = true;
        return false;
      }
      return true;
    };
    try {
      return read_once(wire, skip, pass, stopped, at_end, opts);
    } catch (const api_error& e) {
      if (!resume || e.code() < 500) throw;
      err = e.what();
    } catch (const auth_error&) {
      throw;
    } catch (const transport_error& e) {
      if (stopped) return false;
      err = e.what();
    }
    if (!pause_before_resume(failures, progress, err, opts)) return false;
    resume = true;
    prepare_resume(wire, by_bytes);
  }
}

TFJOB_INLINE void LogStreamer::begin_connection(bool by_bytes) {
  ++stats_.connections;
  if (!by_bytes) {  // a timestamp resume sends the unfinished line again whole
    cur_.clear();
    line_open_ = false;
    partial_.reset();
  }
  if (!head_done_) head_.clear();  // the log's first bytes, held while they may be the kubelet's error
}

TFJOB_INLINE bool LogStreamer::read_once(const LogParams& wire, std::uint64_t skip, const DataFn& pass, const bool& stopped,
                                         const std::function<bool()>& at_end, const StreamOptions& opts) {
  bool complete = client_.stream(
      log_request(ns_, pod_, wire),
      [&](std::string_view data) {
        if (skip) {
          auto n = std::min<std::uint64_t>(skip, data.size());
          skip -= n;
          stats_.skipped_on_resume += n;
          data.remove_prefix(static_cast<std::size_t>(n));
          if (data.empty()) return true;
        }
        if (!head_done_) {
          head_.append(data);
          if (detail::may_be_kubelet_no_log(head_)) return true;
          head_done_ = true;
          std::string h;
          h.swap(head_);
          return pass(h);
        }
        return pass(data);
      },
      opts);
  if (stopped || !complete) return false;
  if (!head_done_) {
    head_done_ = true;
    throw_if_no_log();
    std::string h;
    h.swap(head_);
    if (!h.empty() && !pass(h)) return false;
  }
  return at_end();
}

TFJOB_INLINE void LogStreamer::throw_if_no_log() const {
  if (detail::kubelet_log_unavailable(head_))
    throw tfjob::error("the kubelet has no log of " + std::string(p_.previous ? "the previous attempt of " : "") + "container " +
                       (p_.container.empty() ? std::string("(default)") : p_.container) + " of pod " + pod_ +
                       " in namespace " + ns_ + " (it answered \"" + std::string(detail::trim(head_)) + "\")" +
                       (p_.previous ? ": its garbage collection keeps one ended container per pod container "
                                      "(--maximum-dead-containers-per-container, default 1), so an attempt before the last "
                                      "is gone once the last has ended too"
                                    : ""));
}

TFJOB_INLINE bool LogStreamer::pause_before_resume(int& failures, bool progress, const std::string& err, const StreamOptions& opts) {
  if (opts.cancel && opts.cancel->load()) return false;
  failures = progress ? 1 : failures + 1;
  if (failures > max_failures)
    throw transport_error("log stream of pod " + pod_ + " failed " + std::to_string(failures) +
                          " times in a row; last error: " + err);
  if (!kube::sleep_for(std::chrono::milliseconds(50) * (1 << std::min(failures, 5)), opts.cancel, opts.deadline)) return false;
  return true;
}

TFJOB_INLINE void LogStreamer::prepare_resume(LogParams& wire, bool by_bytes) {
  ++stats_.resumes;
  if (!by_bytes && have_last_) {
    // Resume from the last whole line's timestamp; lines up to it (and as many lines of
    // that same timestamp as were delivered) are skipped; a line delivered in part has
    // its delivered bytes skipped.
    wire.since_seconds.reset();
    wire.tail_lines.reset();
    wire.since_time = detail::format_rfc3339(static_cast<std::time_t>(last_secs_));
    skipping_ = true;
    skipped_same_ = 0;
  } else if (!by_bytes && delivered_in_line_ > 0) {
    skipping_ = true;  // nothing whole yet: the partly delivered line is the first again
    skipped_same_ = 0;
  }
}

TFJOB_INLINE std::size_t LogStreamer::limit() const { return max_line_bytes + (line_open_ ? 0 : 64); }

TFJOB_INLINE bool LogStreamer::flush(bool ends) {
  std::string piece;
  piece.swap(cur_);
  return line(piece, ends, true);
}

TFJOB_INLINE bool LogStreamer::feed(std::string_view data) {
  while (!data.empty()) {
    auto nl = data.find('\n');
    std::string_view chunk = nl == std::string_view::npos ? data : data.substr(0, nl);
    if (cur_.empty() && nl != std::string_view::npos && chunk.size() <= limit()) {
      if (!line(chunk, true, true)) return false;  // the common case: no copy
    } else {
      for (;;) {  // gather up to the bound; a full buffer is a piece
        std::size_t take = std::min(limit() - cur_.size(), chunk.size());
        cur_.append(chunk.substr(0, take));
        chunk.remove_prefix(take);
        if (cur_.size() < limit() || (chunk.empty() && nl != std::string_view::npos)) break;
        if (!flush(false)) return false;
      }
      if (nl != std::string_view::npos && !flush(true)) return false;
    }
    if (nl == std::string_view::npos) {
      // (with timestamps on the wire, not before its timestamp has come: a piece without
      // one may be the kubelet's error after the log)
      if (eager && !cur_.empty() && (line_open_ || !stats_.wire_timestamps || detail::wire_timestamp_length(cur_) > 0) &&
          !flush(false))
        return false;
      break;
    }
    data.remove_prefix(nl + 1);
  }
  return true;
}

TFJOB_INLINE bool LogStreamer::end_of_body() {
  if (cur_.empty() && !line_open_) return true;
  std::string piece = std::move(cur_);
  cur_.clear();
  if (!line_open_ && stats_.wire_timestamps && detail::kubelet_error_after_log(piece)) {
    stats_.kubelet_error = std::move(piece);
    return true;
  }
  return line(piece, true, false);
}

TFJOB_INLINE bool LogStreamer::line(std::string_view raw, bool ends, bool terminated) {
  LogPiece pc;
  pc.first = !line_open_;
  pc.last = ends;
  pc.terminated = terminated;
  pc.text = raw;
  const bool wire_ts = stats_.wire_timestamps;
  if (pc.first && wire_ts) {
    if (const auto n = detail::wire_timestamp_length(raw)) {
      pc.timestamp = raw.substr(0, n - 1);
      pc.text = raw.substr(n);
    }
  }
  if (pc.first) {
    line_ts_.assign(pc.timestamp);
    if (skipping_ && !line_ts_.empty() && !resume_check()) {  // already delivered
      line_open_ = !ends;
      skip_rest_ = !ends;
      ++stats_.skipped_on_resume;
      return true;
    }
    skip_rest_ = false;
    skip_in_line_ = 0;
    if (skipping_ && !line_ts_.empty() && partial_ts_ == line_ts_ && delivered_in_line_ > 0) {
      skip_in_line_ = delivered_in_line_;  // the line we were in the middle of
      pc.first = false;
    }
    skipping_ = false;
  } else if (skip_rest_) {
    line_open_ = !ends;
    return true;
  }
  if (skip_in_line_) {
    auto n = std::min<std::uint64_t>(skip_in_line_, pc.text.size());
    pc.text.remove_prefix(static_cast<std::size_t>(n));
    skip_in_line_ -= n;
    if (pc.text.empty() && !ends) {
      line_open_ = true;
      return true;
    }
  }
  line_open_ = !ends;
  if (ends) {
    delivered_in_line_ = 0;
    partial_ts_.clear();
    if (!line_ts_.empty()) note_whole(line_ts_);
    ++stats_.lines;
  } else {
    partial_ts_ = line_ts_;
    delivered_in_line_ += pc.text.size();
  }
  stats_.bytes += pc.text.size();
  if (!(*on_piece_)(pc)) return false;
  return true;
}

TFJOB_INLINE bool LogStreamer::resume_check() {
  std::int64_t s = 0, ns = 0;
  if (!detail::parse_rfc3339(line_ts_, s, ns)) return true;
  bool before = s < last_secs_ || (s == last_secs_ && ns < last_nanos_);
  bool same = have_last_ && s == last_secs_ && ns == last_nanos_;
  if (have_last_ && (before || (same && skipped_same_ < same_count_))) {
    if (same) ++skipped_same_;
    return false;
  }
  return true;
}

TFJOB_INLINE void LogStreamer::note_whole(const std::string& ts) {
  if (ts == last_ts_) {
    ++same_count_;
  } else {
    last_ts_ = ts;
    same_count_ = 1;
    have_last_ = detail::parse_rfc3339(ts, last_secs_, last_nanos_);
  }
}

TFJOB_INLINE bool stream_logs(Client client, const std::string& ns, const std::string& pod, const LogParams& p,
                              const std::function<bool(std::string_view)>& on_line, const StreamOptions& opts) {
  LogStreamer s(std::move(client), ns, pod, p);
  return s.run(on_line, opts);
}

TFJOB_INLINE std::string get_logs(Client client, const std::string& ns, const std::string& pod, const LogParams& p) {
  std::string out;
  LogStreamer s(std::move(client), ns, pod, p);
  if (s.resumes_by_bytes()) {
    s.run_bytes([&](std::string_view b) {
      out.append(b);
      return true;
    });
    return out;
  }
  s.run_pieces([&](const LogPiece& pc) {
    if (pc.first && p.timestamps && !pc.timestamp.empty()) out.append(pc.timestamp).push_back(' ');
    out.append(pc.text);
    if (pc.last && pc.terminated) out.push_back('\n');
    return true;
  });
  return out;
}

}  // namespace tfjob::kube
