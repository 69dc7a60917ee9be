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

/// Text from a cluster made safe to print on a terminal: kubectl's escaper
/// (cli-runtime printers/terminal.go, kubernetes#101695: ESC as "^[", CR as "\r"), and
/// further every other C0 control and DEL as "\xNN" ("\t", "\n" for tab and newline, a
/// newline kept when `keep_newlines`), a C1 control (U+0080..U+009F) as "\uNNNN" and a byte
/// that is not UTF-8 as "\xNN": a name or message cannot move the cursor, retitle the window,
/// or rewrite what was printed before it.
std::string escape_terminal(std::string_view s, bool keep_newlines = false);

/// Wraps one cell in escape codes (not counted in the width): (row, column, cell) -> text.
using CellPainter = std::function<std::string(std::size_t, std::size_t, const std::string&)>;

/// Rows (the first is usually the header) as aligned text, each line `indent` + cells + "\n".
/// Rows may be of different lengths; a column is as wide as its widest cell. Each cell is
/// printed through escape_terminal (before `paint` sees it).
std::string render_table(const std::vector<std::vector<std::string>>& rows, std::string_view indent = "",
                         const CellPainter& paint = nullptr);

}  // namespace tfjob::detail

#if TFJOB_SDK_DEFINE_CORE
#include <tfjob/detail/impl/table_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_CORE
