#pragma once
/// \file Pod logs (GET .../pods/NAME/log, kubectl logs): container, follow, tailLines,
/// sinceSeconds/sinceTime, timestamps, previous, limitBytes. Exactly the bytes the
/// container wrote: '\r', invalid UTF-8 and an unterminated last line pass through. A
/// stream that breaks is resumed without losing or repeating a byte:
/// - a plain read (no follow, tail or sinceSeconds) is asked for without timestamps (the
///   kubelet's cost grows with them) and resumed by re-reading and skipping the bytes
///   already delivered;
/// - otherwise timestamps are requested on the wire and the resume asks for `sinceTime`
///   (whole seconds, as the API takes it) and skips what was already delivered; the prefix
///   is stripped again unless the caller asked for timestamps.
/// Memory is bounded: a line longer than `max_line_bytes` is delivered in pieces.

#include <tfjob/detail/compiled.hpp>
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
Request log_request(const std::string& ns, const std::string& pod, const LogParams& p);

/// Statistics of one log stream (for tests and diagnostics).
struct LogStats {
  int connections = 0;
  int resumes = 0;
  std::uint64_t lines = 0;
  std::uint64_t bytes = 0;              ///< bytes of log text delivered (timestamps not counted)
  std::uint64_t skipped_on_resume = 0;  ///< lines (timestamp resume) or bytes (byte resume) skipped
  bool wire_timestamps = false;         ///< whether timestamps=true was sent
  /// What the kubelet wrote after the log instead of ending it cleanly (see
  /// detail::kubelet_error_after_log): not delivered as a line; "" when none.
  std::string kubelet_error;
};

/// A piece of a log line. Most lines are one piece (`first` and `last`); a line longer
/// than LogStreamer::max_line_bytes comes as several.
struct LogPiece {
  std::string_view text;       ///< the container's bytes, without the '\n' ('\r' kept)
  std::string_view timestamp;  ///< the kubelet's RFC 3339 time of the line ("" when not on the wire)
  bool first = true;           ///< starts a line (carries the timestamp)
  bool last = true;            ///< ends a line
  bool terminated = true;      ///< with `last`: the line ended with '\n' (the log's last line may not)
};

namespace detail {

/// The kubelet answers 200 and writes its error as the body when the runtime no longer has
/// the container it picked (kubelet server.go getContainerLogs commits the header with a
/// zero-byte write first; kuberuntime GetContainerLogs: "unable to retrieve container logs
/// for <runtime>://<id>"): a short body of that one line is that error, not a log.
inline constexpr std::string_view kubelet_no_log = "unable to retrieve container logs for ";
bool kubelet_log_unavailable(std::string_view body);
/// Whether the start of a body may still turn out to be that error (held back until known).
bool may_be_kubelet_no_log(std::string_view head);

/// With timestamps=true the kubelet prefixes every CRI log entry with its time, and a line
/// longer than the runtime's maximum entry (containerd's max_container_log_line_size and
/// Docker's json-file: 16 KiB by default) is stored as several partial entries
/// (kubelet pkg/kubelet/kuberuntime/logs/logs.go: logWriter.write prefixes each message,
/// partial or not), so the timestamps of the second and later entries land inside the
/// line. This filter takes them out again: within a line, after every `entry_bytes` bytes
/// of text, a timestamp in the kubelet's fixed format ("2006-01-02T15:04:05.000000000Z07:00"
/// and a space) is the next entry's prefix, not the container's bytes. Bytes that only
/// start like one are handed on unchanged once they stop matching.
class PartialEntryTimestamps {
 public:
  explicit PartialEntryTimestamps(std::size_t entry_bytes);

  /// The wire's bytes in, the log's bytes (with each line's leading timestamp) out.
  template <class Out>
  bool push(std::string_view data, Out&& out) {
    if (entry_ == 0) return out(data);
    while (!data.empty()) {
      if (holding_) {  // matching a candidate timestamp byte by byte
        const int m = match(hold_.size(), data.front());
        if (m < 0) {  // not a timestamp: the held bytes are the container's
          holding_ = false;
          next_ = content_ + entry_;
          content_ += hold_.size();
          std::string h;
          h.swap(hold_);
          if (!out(std::string_view(h))) return false;
          continue;  // this byte is looked at again as text
        }
        hold_.push_back(data.front());
        data.remove_prefix(1);
        if (m == 1) {  // a whole timestamp: the next entry's prefix, dropped
          holding_ = false;
          hold_.clear();
          next_ = content_ + entry_;
        }
        continue;
      }
      if (lead_) {  // the line's own timestamp, up to its space
        auto stop = data.find_first_of(" \n");
        if (stop == std::string_view::npos) {
          lead_seen_ += data.size();
          if (lead_seen_ > 41) {  // no timestamp on this line: all of it is text
            lead_ = false;
            content_ = lead_seen_;
            next_ = (content_ / entry_ + 1) * entry_;
          }
          return out(data);
        }
        if (!out(data.substr(0, stop + 1))) return false;
        if (data[stop] == '\n') new_line();
        else lead_ = false;
        data.remove_prefix(stop + 1);
        continue;
      }
      if (content_ == next_) {  // an entry boundary: the line ends, or the next entry's time follows
        if (data.front() == '\n') {
          if (!out(data.substr(0, 1))) return false;
          data.remove_prefix(1);
          new_line();
          continue;
        }
        if (match(0, data.front()) < 0) {
          next_ = content_ + entry_;
          continue;
        }
        holding_ = true;
        hold_.assign(1, data.front());
        data.remove_prefix(1);
        continue;
      }
      std::size_t n = std::min<std::size_t>(data.find('\n'), data.size());
      std::size_t take = std::min<std::uint64_t>(n, next_ - content_);
      if (take > 0) {
        if (!out(data.substr(0, take))) return false;
        content_ += take;
        data.remove_prefix(take);
        continue;
      }
      if (!out(data.substr(0, 1))) return false;  // the line's '\n'
      data.remove_prefix(1);
      new_line();
    }
    return true;
  }

  /// The body ended: bytes held as a possible timestamp are the container's.
  template <class Out>
  bool finish(Out&& out) {
    if (!holding_) return true;
    holding_ = false;
    std::string h;
    h.swap(hold_);
    return out(std::string_view(h));
  }

  /// A new body (a resumed stream starts at a line's start).
  void reset();

 private:
  void new_line();
  /// Whether `ch` fits at position `i` of "YYYY-MM-DDTHH:MM:SS.NNNNNNNNN(Z|+HH:MM|-HH:MM) ":
  /// -1 no, 0 so far, 1 complete.
  int match(std::size_t i, char ch) const;

  std::size_t entry_;
  std::string hold_;
  bool holding_ = false;
  bool lead_ = true;           // in the line's leading timestamp
  std::size_t lead_seen_ = 0;
  std::uint64_t content_ = 0;  // the line's text bytes so far
  std::uint64_t next_ = 0;     // where the next entry would start
};

}  // namespace detail

/// Streams a pod's log, resuming a broken stream (see the file comment).
class LogStreamer {
 public:
  using LineFn = std::function<bool(std::string_view line)>;
  using PieceFn = std::function<bool(const LogPiece&)>;
  using DataFn = std::function<bool(std::string_view bytes)>;

  LogStreamer(Client client, std::string ns, std::string pod, LogParams p);

  /// The caller needs each line's time (merging several streams) even without
  /// LogParams::timestamps: timestamps go on the wire, LogPiece::timestamp carries them.
  bool want_times = false;
  /// Longest piece handed over; longer lines come in pieces (memory stays bounded).
  std::size_t max_line_bytes = std::size_t{1} << 20;
  int max_failures = 8;
  /// Hand over what has come of an unfinished line at the end of each chunk (a progress
  /// bar shows as it is drawn), instead of waiting for its '\n' or the bound.
  bool eager = false;
  /// The runtime's largest log entry (containerd's max_container_log_line_size, Docker's
  /// json-file: 16 KiB by default): with timestamps on the wire, a longer line carries the
  /// kubelet's timestamp of each further entry, which is taken out (0: never).
  std::size_t partial_entry_bytes = 16384;

  /// Whether this read resumes by bytes (plain) or by timestamp. A plain read covers the
  /// log from its start (or an absolute sinceTime) to its end when asked, and a log only
  /// grows, so a re-read skipping the bytes delivered continues exactly; tailLines and
  /// sinceSeconds move with the log's end and the clock, and following may outlive a
  /// rotation, so those resume by timestamp (kubelet rotation: containerLogMaxSize).
  bool resumes_by_bytes() const;

  /// Deliver the log's bytes exactly as written, until it ends or `on_data` returns false.
  /// Only for reads that resume by bytes (timestamps would be in the bytes otherwise).
  bool run_bytes(const DataFn& on_data, const StreamOptions& opts = {});

  /// Deliver the log line by line in pieces (see LogPiece). Returns false when stopped early.
  bool run_pieces(const PieceFn& on_piece, const StreamOptions& opts = {});

  /// Deliver each whole line (without '\n'); the compatibility form for small logs (a long
  /// line is gathered whole: unbounded). Returns false when stopped early.
  bool run(const LineFn& on_line, const StreamOptions& opts = {});

  const LogStats& stats() const { return stats_; }

 private:
  template <class Feed, class End>
  bool drive(Feed&& feed_fn, End&& at_end, const StreamOptions& opts);

  /// A new connection: a timestamp resume sends the unfinished line again whole, and the
  /// log's first bytes are held again while they may be the kubelet's error.
  void begin_connection(bool by_bytes);

  /// One connection: the log with the `skip` bytes the last connections delivered (byte
  /// resume) dropped, handed to `pass`, then `at_end` when the body ended normally. False
  /// when stopped (`pass` raised `stopped`) or cancelled; a failure throws.
  bool read_once(const LogParams& wire, std::uint64_t skip, const DataFn& pass, const bool& stopped,
                 const std::function<bool()>& at_end, const StreamOptions& opts);

  /// The whole body was the kubelet's answer that it has no log of the container: an error.
  void throw_if_no_log() const;

  /// After a failed connection (`err`): false when cancelled, or when the pause is cut
  /// short; throws when too many failed in a row (`failures`, reset by `progress`).
  bool pause_before_resume(int& failures, bool progress, const std::string& err, const StreamOptions& opts);

  /// Before the next connection: a timestamp resume asks from the last whole line's time on
  /// and skips what was delivered.
  void prepare_resume(LogParams& wire, bool by_bytes);

  /// Line splitting over the body (timestamps on the wire or not).
  std::size_t limit() const;  // room for a timestamp
  bool flush(bool ends);
  bool feed(std::string_view data);

  /// The body ended normally: a last line without '\n' is still a line, unless it is the
  /// kubelet's error after the log (kept in stats, never shown as the container's).
  bool end_of_body();

  /// One piece of the body: `ends` it ends a line (`terminated` by '\n').
  bool line(std::string_view raw, bool ends, bool terminated);

  /// While skipping after a timestamp resume: whether the line of `line_ts_` is new.
  bool resume_check();

  /// A whole line with timestamp `ts` was delivered.
  void note_whole(const std::string& ts);

  Client client_;
  std::string ns_, pod_;
  LogParams p_;
  LogStats stats_;
  const PieceFn* on_piece_ = nullptr;
  detail::PartialEntryTimestamps partial_{0};
  std::string head_;        // the log's first bytes while they may be the kubelet's error
  bool head_done_ = false;
  std::string cur_;                     // a line being gathered (at most limit())
  bool line_open_ = false;              // a piece of the current line went out, its end not yet
  std::string line_ts_;                 // timestamp of the current line
  std::uint64_t body_bytes_ = 0;        // byte resume: body bytes delivered
  std::string partial_ts_;              // timestamp of a line delivered in part
  std::uint64_t delivered_in_line_ = 0;  // and how much of it
  std::uint64_t skip_in_line_ = 0;
  bool skip_rest_ = false;
  std::string last_ts_;
  std::int64_t last_secs_ = 0, last_nanos_ = 0;
  std::int64_t same_count_ = 0, skipped_same_ = 0;
  bool have_last_ = false, skipping_ = false;
};

/// Stream a pod's log lines to `on_line` (see LogStreamer). Returns false when stopped early.
bool stream_logs(Client client, const std::string& ns, const std::string& pod, const LogParams& p,
                 const std::function<bool(std::string_view)>& on_line, const StreamOptions& opts = {});

/// The whole log as the container wrote it (an unterminated last line stays so); use
/// without `follow`. With `timestamps`, each line carries its prefix.
std::string get_logs(Client client, const std::string& ns, const std::string& pod, const LogParams& p = {});

}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
#include <tfjob/kube/impl/logs_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
