#pragma once
/// \file `LineSplitter`: a byte stream cut into lines, each bounded (the watch and the log wire
/// formats: one JSON event, one log line per line).

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/input.hpp>
#include <tfjob/error.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace tfjob::kube {

/// Splits a byte stream into lines (the watch and log wire formats).
class LineSplitter {
 public:
  /// Feed bytes; `on_line` gets each complete line without '\n' (and '\r'); it returns false
  /// to stop, in which case feed returns false.
  template <class F>
  bool feed(std::string_view data, F&& on_line) {
    while (!data.empty()) {
      auto nl = data.find('\n');
      if (nl == std::string_view::npos) {
        check(partial_.size() + data.size());
        partial_.append(data);
        return true;
      }
      check(partial_.size() + nl);
      bool more;
      if (partial_.empty()) {
        more = on_line(strip_cr(data.substr(0, nl)));
      } else {
        partial_.append(data.substr(0, nl));
        std::string line = std::move(partial_);
        partial_.clear();
        more = on_line(strip_cr(line));
      }
      data.remove_prefix(nl + 1);
      if (!more) return false;
    }
    return true;
  }
  /// Bytes of an unfinished line.
  const std::string& partial() const { return partial_; }
  /// Longest line accepted (0 = no bound): a longer one throws parse_error naming the
  /// bound, before it is buffered further.
  std::size_t max_line = 0;
  void reset();

 private:
  void check(std::size_t len) const;
  static std::string_view strip_cr(std::string_view s);
  std::string partial_;
};

}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
#include <tfjob/kube/impl/line_splitter_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
