#pragma once
/// \file The bodies of <tfjob/serving/saved_model.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/saved_model.hpp>, never this file.

namespace tfjob::serving {

namespace detail {

/// Protobuf's wire format over a byte range: varints (at most 10 bytes), the four wire types
/// in use (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32); groups (3, 4) and anything
/// else end the reading. Never reads past the end.
class WireReader {
 public:
  explicit WireReader(std::string_view b) : b_(b) {}
  bool at_end() const { return pos_ >= b_.size(); }
  /// Reads a varint; nullopt at the end or on an over-long one.
  std::optional<std::uint64_t> varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (pos_ >= b_.size()) return std::nullopt;
      const auto byte = static_cast<unsigned char>(b_[pos_++]);
      if (shift == 63 && (byte & 0x7e)) return std::nullopt;  // more than 64 bits
      v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
    return std::nullopt;
  }
  struct Field {
    std::uint64_t number = 0;
    int wire = 0;
    std::string_view bytes;   ///< length-delimited: what the data holds (cut at the end of the input)
    bool cut = false;         ///< length-delimited: the input ended inside it
  };
  /// The next field; nullopt at the end or on bytes that are not a field.
  std::optional<Field> next() {
    auto tag = varint();
    if (!tag) return std::nullopt;
    Field f;
    f.number = *tag >> 3;
    f.wire = static_cast<int>(*tag & 7);
    if (f.number == 0) return std::nullopt;
    switch (f.wire) {
      case 0:
        if (!varint()) return std::nullopt;
        return f;
      case 1: return skip(8) ? std::optional<Field>(f) : std::nullopt;
      case 5: return skip(4) ? std::optional<Field>(f) : std::nullopt;
      case 2: {
        auto len = varint();
        if (!len) return std::nullopt;
        const std::size_t left = b_.size() - pos_;
        if (*len > left) {
          f.cut = true;
          f.bytes = b_.substr(pos_, left);
          pos_ = b_.size();
        } else {
          f.bytes = b_.substr(pos_, static_cast<std::size_t>(*len));
          pos_ += static_cast<std::size_t>(*len);
        }
        return f;
      }
      default: return std::nullopt;
    }
  }

 private:
  bool skip(std::size_t n) {
    if (b_.size() - pos_ < n) return false;
    pos_ += n;
    return true;
  }
  std::string_view b_;
  std::size_t pos_ = 0;
};

/// A version string as read: printable ASCII only, at most 64 bytes ("" otherwise).
TFJOB_INLINE std::string version_text(std::string_view s) {
  if (s.size() > 64) return {};
  for (char c : s)
    if (c < 0x20 || c > 0x7e) return {};
  return std::string(s);
}

}  // namespace detail

TFJOB_INLINE SavedModelInfo saved_model_info(std::string_view bytes) {
  SavedModelInfo info;
  detail::WireReader top(bytes);
  while (auto f = top.next()) {
    if (f->number == 1 && f->wire == 0) continue;  // saved_model_schema_version
    if (f->number != 2 || f->wire != 2) return info;  // not a SavedModel as it starts
    detail::WireReader mg(f->bytes);  // the first MetaGraphDef
    info.parsed = true;
    while (auto g = mg.next()) {
      if (g->number != 1 || g->wire != 2) continue;  // meta_info_def
      detail::WireReader mi(g->bytes);
      while (auto h = mi.next()) {
        if (h->wire != 2 || h->cut) continue;
        if (h->number == 5) info.tensorflow_version = detail::version_text(h->bytes);
        if (h->number == 6) info.tensorflow_git_version = detail::version_text(h->bytes);
      }
      info.truncated = g->cut && info.tensorflow_version.empty();
      return info;
    }
    info.truncated = f->cut;
    return info;
  }
  return info;
}

}  // namespace tfjob::serving
