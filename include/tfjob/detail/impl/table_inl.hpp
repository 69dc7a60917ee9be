#pragma once
/// \file The bodies of <tfjob/detail/table.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_CORE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/detail/table.hpp>, never this file.

namespace tfjob::detail {

TFJOB_INLINE std::size_t text_width(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

TFJOB_INLINE std::string escape_terminal(std::string_view s, bool keep_newlines) {
  auto plain = [&] {
    for (unsigned char c : s)
      if (c < 0x20 || c >= 0x7f) return false;
    return true;
  };
  if (plain()) return std::string(s);
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c == 0x1b) out += "^[";
      else if (c == '\r') out += "\\r";
      else if (c == '\n') out += keep_newlines ? "\n" : "\\n";
      else if (c == '\t') out += "\\t";
      else if (c < 0x20 || c == 0x7f) out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
      else out += static_cast<char>(c);
      ++i;
      continue;
    }
    // one UTF-8 sequence (RFC 3629 lengths; a bad one is escaped byte by byte)
    const std::size_t len = c >= 0xF5 ? 0 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    bool ok = len != 0 && i + len <= s.size();
    for (std::size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (!ok) {
      out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
      ++i;
      continue;
    }
    if (c == 0xC2 && static_cast<unsigned char>(s[i + 1]) <= 0x9F) {  // a C1 control, e.g. U+009B (CSI)
      const auto c1 = static_cast<unsigned char>(s[i + 1]);
      out += std::string("\\u00") + hex[c1 >> 4] + hex[c1 & 15];
    } else {
      out.append(s.data() + i, len);
    }
    i += len;
  }
  return out;
}

TFJOB_INLINE std::string render_table(const std::vector<std::vector<std::string>>& rows_in, std::string_view indent,
                                      const CellPainter& paint) {
  std::vector<std::vector<std::string>> escaped;  // made only when a cell needs it
  for (std::size_t r = 0; r < rows_in.size() && escaped.empty(); ++r)
    for (const auto& cell : rows_in[r])
      if (escape_terminal(cell) != cell) {
        escaped = rows_in;
        for (auto& row : escaped)
          for (auto& x : row) x = escape_terminal(x);
        break;
      }
  const auto& rows = escaped.empty() ? rows_in : escaped;
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
