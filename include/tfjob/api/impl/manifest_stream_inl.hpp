#pragma once
/// \file The bodies of <tfjob/api/manifest_stream.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/manifest_stream.hpp>, never this file.

namespace tfjob::detail {

TFJOB_INLINE DocumentSplitter::DocumentSplitter(std::istream& in, std::string source, std::size_t max_document)
    : in_(in.rdbuf()), source_(std::move(source)), max_(max_document) {}

TFJOB_INLINE void DocumentSplitter::utf8(unsigned char u) {
  // invalid_utf8_at()'s rules (RFC 3629), a byte at a time: only the first fault is kept
  if (bad_) return;
  auto fault = [&](const TextPlace& at, unsigned char b) {
    bad_ = true;
    bad_at_ = at;
    bad_byte_ = b;
  };
  if (need_) {
    if ((u & 0xC0) != 0x80) return fault(lead_at_, lead_);
    cp_ = (cp_ << 6) | (u & 0x3F);
    if (--need_ == 0 && ((len_ == 3 && (cp_ < 0x800 || (cp_ >= 0xD800 && cp_ <= 0xDFFF))) ||
                         (len_ == 4 && (cp_ < 0x10000 || cp_ > 0x10FFFF))))
      fault(lead_at_, lead_);
    return;
  }
  if (u < 0x80) return;
  if (u >= 0xC2 && u <= 0xDF) len_ = 2, cp_ = u & 0x1F;
  else if (u >= 0xE0 && u <= 0xEF) len_ = 3, cp_ = u & 0x0F;
  else if (u >= 0xF0 && u <= 0xF4) len_ = 4, cp_ = u & 0x07;
  else return fault(pos_, u);
  need_ = len_ - 1;
  lead_ = u;
  lead_at_ = pos_;
}

TFJOB_INLINE int DocumentSplitter::get() {
  if (peeked_ != -1) {
    const int c = peeked_;
    peeked_ = -1;
    return c;
  }
  const int c = in_ ? in_->sbumpc() : std::char_traits<char>::eof();
  if (c == std::char_traits<char>::eof()) return -1;
  const auto u = static_cast<unsigned char>(c);
  utf8(u);
  // a control byte: no manifest, refused as the bytes come (a binary file is never held),
  // at the first byte that is not UTF-8 before it when there is one (binary_byte_at's rule)
  if ((u < 0x20 && u != '\t' && u != '\n' && u != '\r') || u == 0x7F)
    bad_ ? refuse_binary(bad_byte_, bad_at_, source_) : refuse_binary(u, pos_, source_);
  ++pos_.byte;
  if (u == '\n') ++pos_.line, pos_.column = 1;
  else ++pos_.column;
  return u;
}

TFJOB_INLINE int DocumentSplitter::yaml_byte() {
  int c;
  if (carry_next_ < carry_.size()) {
    c = static_cast<unsigned char>(carry_[carry_next_++]);
  } else {
    c = get();
    if (c == -1) return -1;
  }
  ++ypos_.byte;
  if (c == '\n') ++ypos_.line, ypos_.column = 1;
  else ++ypos_.column;
  return c;
}

TFJOB_INLINE void DocumentSplitter::keep(DocumentText& d, const std::string& text) {
  if (d.text.size() + text.size() > max_)
    throw parse_error(source_ + ": line " + std::to_string(d.at.line) + ": a document of more than " + human_bytes(max_) +
                          " (the bound on one document of a manifest); split it into several documents",
                      d.at.line, 1);
  d.text += text;
}

TFJOB_INLINE bool DocumentSplitter::next(DocumentText& doc) {
  doc.text.clear();
  if (done_) return false;
  if (mode_ == Mode::unknown) {
    // white space, then the byte that says JSON or YAML: carried into the first document
    int c;
    while ((c = get()) != -1 && std::isspace(c)) carry_ += static_cast<char>(c);
    if (c == -1) {
      done_ = true;
      return false;
    }
    mode_ = c == '{' || c == '[' ? Mode::json : Mode::yaml;
    if (mode_ == Mode::yaml) {
      carry_ += static_cast<char>(c);
    } else {
      carry_.clear();
      peeked_ = c;
      peeked_at_ = pos_;
      --peeked_at_.byte, --peeked_at_.column;  // `{` or `[`: no newline
    }
  }
  return mode_ == Mode::json ? next_json(doc) : next_yaml(doc);
}

TFJOB_INLINE bool DocumentSplitter::next_json(DocumentText& d) {
  int c;
  TextPlace at = peeked_ != -1 ? peeked_at_ : pos_;
  while ((c = get()) != -1 && std::isspace(c)) at = pos_;
  if (c == -1) {
    done_ = true;
    return false;
  }
  d.at = at;
  std::string text(1, static_cast<char>(c));
  if (c != '{' && c != '[') {
    // no object or array: up to white space or the next value, for read_json to name
    while ((c = get()) != -1 && !std::isspace(c) && c != '{' && c != '[') text += static_cast<char>(c);
    if (c == '{' || c == '[') {
      peeked_ = c;
      peeked_at_ = pos_;
      --peeked_at_.byte, --peeked_at_.column;
    }
  } else {
    int depth = 1;
    bool in_string = false, escaped = false;
    while (depth > 0 && (c = get()) != -1) {
      text += static_cast<char>(c);
      if (text.size() >= 65536) {
        keep(d, text);
        text.clear();
      }
      if (in_string) {
        if (escaped) escaped = false;
        else if (c == '\\') escaped = true;
        else if (c == '"') in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        --depth;
      }
    }
  }
  keep(d, text);
  if (c == -1) done_ = true;
  return true;
}

TFJOB_INLINE bool DocumentSplitter::next_yaml(DocumentText& d) {
  auto marker = [](const std::string& line, char m) {  // `---` or `...`, alone or before a space
    return line.size() >= 3 && line[0] == m && line[1] == m && line[2] == m &&
           (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r' || line[3] == '\n');
  };
  auto content = [](const std::string& line) {  // not blank, a comment or a directive
    if (!line.empty() && line[0] == '%') return false;
    for (char c : line)
      if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return c != '#';
    return false;
  };
  bool begun = false;  // the document has content (its `---` line counts)
  std::string line;
  while (true) {
    const TextPlace line_at = ypos_;
    line.clear();
    int c = -1;
    while ((c = yaml_byte()) != -1) {
      line += static_cast<char>(c);
      if (c == '\n') break;
      if (line.size() > max_) {
        d.at = line_at;
        keep(d, line);
      }
    }
    if (line.empty()) {
      done_ = true;
      return !d.text.empty();
    }
    if (begun && marker(line, '-')) {  // the next document's first line: carried
      carry_ = std::move(line);
      carry_next_ = 0;
      ypos_ = line_at;
      return true;
    }
    if (d.text.empty()) d.at = line_at;
    keep(d, line);
    begun = begun || marker(line, '-') || content(line);
    if (c == -1) {
      done_ = true;
      return true;
    }
    if (marker(line, '.')) return true;  // `...` ends the document
  }
}

}  // namespace tfjob::detail
namespace tfjob {

TFJOB_INLINE ManifestReader::ManifestReader(std::istream& in, std::string source)
    : split_(in, source), source_(std::move(source)) {}

TFJOB_INLINE bool ManifestReader::fill() {
  detail::DocumentText doc;
  // once a document is over the bound, the rest is read only to name every other one that is
  while ((pending_.empty() || !too_big_.empty()) && split_.next(doc)) {
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    auto docs = split_.json() ? detail::parse_json_stream(doc.text, source_, &spans, doc.at.line, doc.at.column)
                              : detail::read_yaml_documents(doc.text, source_, {}, &spans, doc.at.line);
    for (std::size_t i = 0; i < docs.size(); ++i) {
      const std::size_t n = docs_++;
      auto& d = docs[i];
      const std::size_t bytes = i < spans.size() ? spans[i].second - spans[i].first : 0;
      auto* items = detail::list_items(d);
      if (bytes > limits::max_document_bytes) {
        const int line = doc.at.of(detail::line_col_at(doc.text, spans[i].first)).first;
        auto refuse = [&](bool in_list, std::size_t item, std::size_t size) {
          if (!too_big_line_) too_big_line_ = line;
          too_big_ += (too_big_.empty() ? "" : "\n") + detail::too_big_message(source_, n, line, in_list, item, size);
        };
        if (!items) refuse(false, 0, bytes);
        else
          for (std::size_t k = 0; k < items->size(); ++k)  // only in a big document: each item's own size
            if (auto size = (*items)[k].dump().size(); size > limits::max_document_bytes) refuse(true, k, size);
      }
      if (!too_big_.empty()) continue;
      auto add = [&](nlohmann::json&& x) {
        if (objects_++ >= limits::max_manifest_objects)
          throw parse_error(source_ + ": more than " + std::to_string(limits::max_manifest_objects) +
                            " objects in one manifest (the bound on objects per manifest); split it into several files");
        pending_.push_back(std::move(x));
      };
      if (items) {
        for (auto& x : *items) add(std::move(x));
      } else {
        add(std::move(d));
      }
    }
  }
  if (!too_big_.empty()) throw parse_error(too_big_, too_big_line_, 1);
  return !pending_.empty();
}

TFJOB_INLINE std::optional<nlohmann::json> ManifestReader::next() {
  if (pending_.empty() && !fill()) return std::nullopt;
  nlohmann::json o = std::move(pending_.front());
  pending_.pop_front();
  ++given_;
  return o;
}

TFJOB_INLINE bool ManifestReader::more() { return !pending_.empty() || fill(); }

TFJOB_INLINE std::size_t for_each_tfjob(std::istream& in, const std::string& source, FieldValidation validation,
                                        std::vector<field_error>* warnings, const std::function<void(TFJob&&)>& each) {
  ManifestReader reader(in, source);
  std::vector<field_error> errs;
  while (auto o = reader.next()) {
    const std::size_t i = reader.count() - 1;
    // an unnamed document is `document N` when the manifest holds several: this one is not the
    // first, or another follows (looked for only then: a named one is given before the next is read)
    std::string where = document_place(source, i, i > 0 ? 2 : 1, *o);
    if (i == 0 && where == source && reader.more()) where = document_place(source, i, 2, *o);
    if (auto job = detail::judge_tfjob(*o, where, validation, warnings, errs))
      each(std::move(*job));
  }
  if (!errs.empty()) throw validation_error(std::move(errs));
  return reader.count();
}

}  // namespace tfjob
