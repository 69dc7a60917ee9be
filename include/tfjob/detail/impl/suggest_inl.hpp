#pragma once
/// \file The bodies of <tfjob/detail/suggest.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_CORE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/detail/suggest.hpp>, never this file.

#include <algorithm>
#include <cctype>
#include <limits>

namespace tfjob::detail {

TFJOB_INLINE std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

TFJOB_INLINE std::string closest(const std::string& word, const std::vector<std::string>& candidates,
                                 std::size_t max_distance) {
  auto lower = [](std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  const std::string lw = lower(word);
  for (const auto& c : candidates)
    if (c != word && lower(c) == lw) return c;  // cobra: strings.EqualFold first
  std::string best;
  std::size_t best_d = std::numeric_limits<std::size_t>::max();
  for (const auto& c : candidates) {
    auto d = edit_distance(word, c);
    if (d <= max_distance && d < best_d) best = c, best_d = d;
  }
  return best;
}

}  // namespace tfjob::detail
