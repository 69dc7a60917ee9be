#pragma once
/// \file The one table renderer: columns padded to their widest cell and separated by 3
/// spaces, as kubectl's printers align them (printers/tabwriter.go: padding 3, pad char
/// ' '), no trailing spaces. Pure; used by describe, the local runner, the GPU preflight and
/// the plugin's Table.

#include <tfjob/detail/compiled.hpp>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tfjob::detail {

/// Columns a text takes on a terminal: its UTF-8 code points (Go's tabwriter counts runes),
/// so a µ or an é pads like one character.
std::size_t text_width(std::string_view s);

/// Wraps one cell in escape codes (not counted in the width): (row, column, cell) -> text.
using CellPainter = std::function<std::string(std::size_t, std::size_t, const std::string&)>;

/// Rows (the first is usually the header) as aligned text, each line `indent` + cells + "\n".
/// Rows may be of different lengths; a column is as wide as its widest cell.
std::string render_table(const std::vector<std::vector<std::string>>& rows, std::string_view indent = "",
                         const CellPainter& paint = nullptr);

}  // namespace tfjob::detail

#if TFJOB_SDK_DEFINE_CORE
namespace tfjob::detail {

TFJOB_INLINE std::size_t text_width(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

TFJOB_INLINE std::string render_table(const std::vector<std::vector<std::string>>& rows, std::string_view indent,
                                      const CellPainter& paint) {
  std::vector<std::size_t> w;
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (w.size() <= i) w.push_back(0);
      w[i] = std::max(w[i], text_width(r[i]));
    }
  std::string out;
  for (std::size_t row = 0; row < rows.size(); ++row) {
    const auto& r = rows[row];
    std::string line(indent);
    for (std::size_t i = 0; i < r.size(); ++i) {
      line += paint && !r[i].empty() ? paint(row, i, r[i]) : r[i];
      if (i + 1 < r.size()) line.append(w[i] - text_width(r[i]) + 3, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace tfjob::detail
#endif  // TFJOB_SDK_DEFINE_CORE
