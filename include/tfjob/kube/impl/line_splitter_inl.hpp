#pragma once
/// \file The bodies of <tfjob/kube/line_splitter.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/line_splitter.hpp>, never this file.

namespace tfjob::kube {

TFJOB_INLINE void LineSplitter::reset() { partial_.clear(); }

TFJOB_INLINE void LineSplitter::check(std::size_t len) const {
  if (max_line != 0 && len > max_line)
    throw parse_error("a line of the stream is longer than " + tfjob::detail::human_bytes(max_line) +
                      " (the bound on one line); the server sent something that is no event");
}

TFJOB_INLINE std::string_view LineSplitter::strip_cr(std::string_view s) {
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

}  // namespace tfjob::kube
