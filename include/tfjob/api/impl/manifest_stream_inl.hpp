#pragma once
/// \file The bodies of <tfjob/api/manifest_stream.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/manifest_stream.hpp>, never this file.

namespace tfjob::detail {

TFJOB_INLINE DocumentSplitter::DocumentSplitter(std::istream& in, std::string source)
    : in_(in.rdbuf()), source_(std::move(source)) {}

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

TFJOB_INLINE bool DocumentSplitter::begin(TextPlace& at) {
  if (refused_) std::rethrow_exception(refused_);
  while (open_) {  // the rest of a document the caller left: skipped
    std::string rest;
    if (!piece(rest)) break;
  }
  first_.clear();
  last_ = false;
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
  open_ = mode_ == Mode::json ? begin_json(at) : begin_yaml(at);
  return open_;
}

TFJOB_INLINE bool DocumentSplitter::piece(std::string& out) {
  if (!open_) return false;
  if (!first_.empty()) {
    out += first_;
    first_.clear();
    if (last_) open_ = false;
    return true;
  }
  const bool more = read_piece(out);
  if (!more || last_) open_ = false;
  return more;
}

TFJOB_INLINE bool DocumentSplitter::read_piece(std::string& out) {
  if (refused_) std::rethrow_exception(refused_);
  const std::size_t size = out.size();
  try {
    return mode_ == Mode::json ? piece_json(out) : piece_yaml(out);
  } catch (const parse_error&) {
    // a binary byte: the bytes before it are given first, so that the reader is inside the
    // object that holds it when it is refused (at the next piece)
    if (out.size() == size) throw;
    refused_ = std::current_exception();
    return true;
  }
}

TFJOB_INLINE bool DocumentSplitter::begin_json(TextPlace& at) {
  int c;
  at = peeked_ != -1 ? peeked_at_ : pos_;
  while ((c = get()) != -1 && std::isspace(c)) at = pos_;
  if (c == -1) {
    done_ = true;
    return false;
  }
  first_.assign(1, static_cast<char>(c));
  depth_ = c == '{' || c == '[' ? 1 : 0;
  in_string_ = escaped_ = false;
  return true;
}

TFJOB_INLINE bool DocumentSplitter::piece_json(std::string& out) {
  const std::size_t size = out.size();
  int c = 0;
  if (depth_ == 0) {
    // no object or array: up to white space or the next value, for the JSON reader to name
    while (out.size() - size < max_piece && (c = get()) != -1 && !std::isspace(c) && c != '{' && c != '[')
      out += static_cast<char>(c);
    if (c == '{' || c == '[') {
      peeked_ = c;
      peeked_at_ = pos_;
      --peeked_at_.byte, --peeked_at_.column;
    }
    if (c == -1 || c == '{' || c == '[' || std::isspace(c)) last_ = true;
  } else {
    // past a line's end, or where a List's item (or a top-level array's) may end, a piece ends
    // when the stream has no more at hand (or at piece_size): what has come is parsed before the
    // stream is waited on (an item is given as soon as it is complete)
    bool passed = false;  // a boundary is behind
    while (depth_ > 0 && out.size() - size < max_piece && !(passed && (out.size() - size >= piece_size || !at_hand())) &&
           (c = get()) != -1) {
      out += static_cast<char>(c);
      if (in_string_) {
        if (escaped_) escaped_ = false;
        else if (c == '\\') escaped_ = true;
        else if (c == '"') in_string_ = false;
      } else if (c == '"') {
        in_string_ = true;
      } else if (c == '{' || c == '[') {
        ++depth_;
      } else if (c == '}' || c == ']') {
        passed = --depth_ <= 2 || passed;
      }
      passed = passed || c == '\n';
    }
    if (depth_ == 0 || c == -1) last_ = true;
  }
  if (c == -1) done_ = true;
  return out.size() > size;
}

TFJOB_INLINE int DocumentSplitter::yaml_line(std::string& line) {
  int c = -1;
  while (line.size() < max_piece && (c = yaml_byte()) != -1) {
    line += static_cast<char>(c);
    if (c == '\n') break;
  }
  return c;
}

TFJOB_INLINE bool DocumentSplitter::marker(const std::string& line, char m) {
  return line.size() >= 3 && line[0] == m && line[1] == m && line[2] == m &&
         (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r' || line[3] == '\n');
}

TFJOB_INLINE bool DocumentSplitter::begin_yaml(TextPlace& at) {
  content_ = false;
  line_start_ = true;
  at = ypos_;
  return read_piece(first_);  // its first line, given by the first piece()
}

TFJOB_INLINE bool DocumentSplitter::at_hand() const {
  return carry_next_ < carry_.size() || in_->in_avail() > 0;
}

TFJOB_INLINE bool DocumentSplitter::piece_yaml(std::string& out) {
  // lines while the stream has more at hand, up to piece_size: what has come is parsed before
  // the stream is waited on
  const std::size_t size = out.size();
  while (yaml_piece_line(out))
    if (last_ || refused_ || out.size() - size >= piece_size || !at_hand()) return true;
  if (out.size() == size) return false;
  last_ = true;  // the document ended (the next one's `---`, or the stream's end) after what was gathered
  return true;
}

TFJOB_INLINE bool DocumentSplitter::yaml_piece_line(std::string& out) {
  const TextPlace at = ypos_;
  const bool line_start = line_start_;
  std::string line;
  int c;
  try {
    c = yaml_line(line);
  } catch (const parse_error&) {
    if (line.empty()) throw;
    refused_ = std::current_exception();  // the line up to the binary byte first (read_piece)
    c = 0;
  }
  if (line.empty()) {
    done_ = true;
    return false;
  }
  if (line_start && content_ && marker(line, '-')) {  // the next document's first line: carried
    carry_ = line + carry_.substr(std::min(carry_next_, carry_.size()));
    carry_next_ = 0;
    ypos_ = at;
    return false;
  }
  // whether the document has content: a line that is not blank, a comment or a directive
  if (line_start) line_kind_ = !line.empty() && line[0] == '%' ? 2 : 0;
  for (char b : line) {
    if (line_kind_ != 0) break;
    if (b != ' ' && b != '\t' && b != '\r' && b != '\n') line_kind_ = b == '#' ? 2 : 1;
  }
  content_ = content_ || line_kind_ == 1 || (line_start && marker(line, '-'));
  line_start_ = c == '\n';
  out += line;
  if (c == -1) {
    done_ = true;
    last_ = true;
  } else if (line_start && marker(line, '.')) {
    last_ = true;  // `...` ends the document
  }
  return true;
}

// ---- DocumentBytes ------------------------------------------------------------------------

TFJOB_INLINE DocumentBytes::DocumentBytes(DocumentSplitter& split, const TextPlace& at, std::size_t max_document)
    : split_(split), max_document_(max_document), kept_at_(at) {
  setg(nullptr, nullptr, nullptr);
}

TFJOB_INLINE bool DocumentBytes::refill() {
  // what the parser has not read stays, and the last bytes it read before it: a reader may put
  // back what it looked at (yaml-cpp reads up to 4 bytes for a byte-order mark)
  const std::size_t read = eback() ? static_cast<std::size_t>(gptr() - eback()) : 0;
  const std::size_t back = std::min<std::size_t>(4, read);
  piece_.erase(0, read - back);
  // the parser asks for more only once it has read what it was given, but for read_ahead
  if (given_ > limit_ + read_ahead) throw ObjectTooBig{};
  const std::size_t before = piece_.size();
  const bool more = !ended_ && split_.piece(piece_);
  if (more) {
    given_ += piece_.size() - before;
    if (max_document_ && given_ > max_document_) throw DocumentTooBig{};
    kept_.append(piece_, before, std::string::npos);
    window_.text = kept_;
  }
  ended_ = !more;
  setg(piece_.data(), piece_.data() + back, piece_.data() + piece_.size());
  return more;
}

TFJOB_INLINE DocumentBytes::int_type DocumentBytes::underflow() {
  if (gptr() == egptr() && !refill()) return traits_type::eof();
  return traits_type::to_int_type(*gptr());
}

TFJOB_INLINE void DocumentBytes::prefetch(std::size_t n) {
  while (static_cast<std::size_t>(egptr() - gptr()) < n && refill()) {
  }
}

TFJOB_INLINE std::streamsize DocumentBytes::xsgetn(char* s, std::streamsize n) {
  // no more than the piece under way: a parser that asks for a block reads no further than it
  // needs, and what it reads belongs to the object it is reading
  if (n <= 0 || (gptr() == egptr() && traits_type::eq_int_type(underflow(), traits_type::eof()))) return 0;
  const std::streamsize k = std::min<std::streamsize>(n, egptr() - gptr());
  std::copy(gptr(), gptr() + k, s);
  gbump(static_cast<int>(k));
  return k;
}

TFJOB_INLINE TextPlace DocumentBytes::past(TextPlace at, std::string_view text) {
  for (char c : text) {
    ++at.byte;
    if (c == '\n') ++at.line, at.column = 1;
    else ++at.column;
  }
  return at;
}

TFJOB_INLINE void DocumentBytes::forget_before(std::size_t byte) {
  if (byte <= window_.offset) return;
  const std::size_t n = std::min(byte - window_.offset, kept_.size());
  kept_at_ = past(kept_at_, std::string_view(kept_).substr(0, n));
  kept_.erase(0, n);
  window_.offset += n;
  window_.text = kept_;
}

TFJOB_INLINE TextPlace DocumentBytes::place_of(std::size_t byte) const {
  if (byte <= window_.offset) return kept_at_;
  return past(kept_at_, std::string_view(kept_).substr(0, byte - window_.offset));
}

TFJOB_INLINE std::size_t DocumentBytes::drain() {
  setg(nullptr, nullptr, nullptr);
  kept_.clear();
  window_.text = kept_;
  std::string rest;
  while (!ended_ && split_.piece(rest)) {
    given_ += rest.size();
    rest.clear();
  }
  ended_ = true;
  return given_;
}

// ---- JSON ---------------------------------------------------------------------------------

TFJOB_INLINE void read_json_stream(std::istream& in, DocumentBytes& bytes, const std::string& source, ObjectSink& sink,
                                   int max_depth) {
  using E = nlohmann::json::parse_event_t;
  struct too_deep {};
  struct duplicate_key {
    std::string key;
  };
  int items_depth = -1;    // the depth of a List's items while they are read
  bool list = false;       // the document is a List: its items were given
  bool items_key = false;  // the top-level object's key just read is `items`
  UniqueKeys keys;  // a key given twice is refused (JsonKeys::unique)
  auto cb = [&](int depth, E ev, nlohmann::json& parsed) {
    if ((ev == E::object_start || ev == E::array_start) && depth >= max_depth) throw too_deep{};
    if (!keys.step(ev, parsed)) throw duplicate_key{parsed.get<std::string>()};
    if (items_depth >= 0) {
      if (depth == items_depth) {
        if (ev == E::object_start || ev == E::array_start) {
          const std::size_t byte = bytes.consumed() - 1;
          sink.item_begins(byte, bytes.place_of(byte).line);
        } else if (ev == E::object_end || ev == E::array_end || ev == E::value) {
          sink.take(std::move(parsed), true);
          return false;  // let go: the List is never held whole
        }
      } else if (depth == items_depth - 1 && ev == E::array_end) {
        items_depth = -1;
        sink.items_end();
      }
      return true;
    }
    // kubectl reads any object with `items` as a list (apimachinery's unstructuredJSONScheme)
    if (ev == E::array_start && (depth == 0 || (depth == 1 && items_key))) {
      items_depth = depth + 1;
      list = true;
      sink.items_begin();
    }
    if (depth == 1) items_key = ev == E::key && parsed.is_string() && parsed.get_ref<const std::string&>() == "items";
    return true;
  };
  auto fault = [&](std::size_t byte, const std::string& why) {
    const TextPlace at = bytes.place_of(byte);
    throw parse_error(source + ": invalid JSON at line " + std::to_string(at.line) + ", column " + std::to_string(at.column) +
                          ": " + why,
                      at.line, at.column);
  };
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in, cb);
  } catch (const too_deep&) {
    fault(bytes.consumed() - 1, "exceeded max depth of " + std::to_string(max_depth) + " nested arrays and objects");
  } catch (const duplicate_key& d) {
    // the parser has read the key's closing quote: the place is where the key begins
    const std::size_t close = bytes.consumed() - 1;
    const TextWindow& w = bytes.window();
    const std::size_t start =
        close >= w.offset && close < w.offset + w.text.size() ? w.offset + string_start(w.text, close - w.offset) : close;
    fault(start, duplicate_key_reason(d.key));
  } catch (const nlohmann::json::parse_error& e) {
    fault(e.byte > 0 ? e.byte - 1 : 0, json_syntax_reason(e));
  } catch (const nlohmann::json::exception& e) {
    // e.g. out_of_range.406 "number overflow parsing '1e999'": the reason without the library's tag
    const std::string msg = e.what();
    const auto tag = msg.find("] ");
    fault(bytes.consumed() ? bytes.consumed() - 1 : 0, tag == std::string::npos ? msg : msg.substr(tag + 2));
  }
  if (!list) sink.take(std::move(doc), false);
}

}  // namespace tfjob::detail
namespace tfjob {

TFJOB_INLINE ManifestReader::ManifestReader(std::istream& in, std::string source, std::size_t max_object)
    : split_(in, source), source_(std::move(source)), max_object_(max_object) {}

TFJOB_INLINE bool ManifestReader::read_document(const Each& sink, std::size_t max_document) {
  detail::TextPlace at;
  if (!split_.begin(at)) return false;
  detail::DocumentBytes bytes(split_, at, max_document);
  std::istream in(&bytes);
  in.exceptions(std::ios::badbit);  // what the stream throws (a broken pipe) reaches the caller as it is
  // the document under way: its number once it holds something, the List item being read
  std::optional<std::size_t> number;
  bool in_items = false;
  std::size_t item = 0;
  int item_line = 0;
  auto place = [&](bool is_item) {
    if (!number) number = docs_++;
    ObjectPlace p;
    p.document = *number;
    p.line = at.line;
    if (is_item) p.item = item, p.item_line = item_line;
    return p;
  };
  detail::ObjectSink objects;
  objects.items_begin = [&] {
    place(false);
    in_items = true;
  };
  objects.item_begins = [&](std::size_t byte, int line) {
    // the byte given last that agrees with `byte` modulo 2^32 (the parser reads little ahead)
    byte = bytes.given() - static_cast<std::uint32_t>(static_cast<std::uint32_t>(bytes.given()) - static_cast<std::uint32_t>(byte));
    bytes.forget_before(byte);  // what is held is the item under way
    bytes.bound(byte + max_object_);
    item_line = line;
  };
  objects.take = [&](nlohmann::json&& o, bool is_item) {
    if (auto* items = is_item ? nullptr : detail::list_items(o)) {
      // a List read whole (its items an anchor names): its items, as parse_objects gives them
      for (auto& x : *items) {
        const ObjectPlace p = place(true);
        ++item;
        if (too_big_.empty()) sink(std::move(x), p);
      }
      return;
    }
    const ObjectPlace p = place(is_item);
    if (is_item) {
      ++item;
      item_line = 0;
      bytes.bound(bytes.given() + max_object_);  // until the next item begins
    }
    if (too_big_.empty()) sink(std::move(o), p);  // else only the bound is looked for
  };
  objects.items_end = [&] {
    in_items = false;
    bytes.bound(bytes.given() + max_object_);
  };
  bytes.bound(max_object_);
  try {
    if (split_.json()) {
      detail::read_json_stream(in, bytes, source_, objects);
    } else {
      // what yaml-cpp reads while it is made is at hand first: it leaks its buffer when a read
      // throws in its constructor (Stream's, 0.7)
      bytes.prefetch(4);
      detail::read_yaml_stream(in, source_, objects, bytes.window(), {}, at.line);
    }
  } catch (const detail::ObjectTooBig&) {
    // the object is let go, the rest of its document read without holding it: a document is
    // named by its size, an item by the bound it passed (its end is not looked for)
    const ObjectPlace p = place(in_items);
    const std::size_t size = bytes.drain();
    if (!too_big_line_) too_big_line_ = p.item && p.item_line ? p.item_line : p.line;
    too_big_ += (too_big_.empty() ? "" : "\n") + detail::too_big_message(source_, p, p.item ? 0 : size, max_object_);
    return true;
  } catch (const detail::DocumentTooBig&) {
    throw parse_error(source_ + ": line " + std::to_string(at.line) + ": a document of more than " +
                          detail::human_bytes(max_document) +
                          " (the bound on one document of a manifest); split it into several documents",
                      at.line, 1);
  } catch (const parse_error& e) {
    if (!in_items) throw;
    // inside a List: which item, then what and where
    std::string what = e.what();
    const std::string head = source_ + ": ";
    if (what.rfind(head, 0) == 0) what.erase(0, head.size());
    throw parse_error(head + to_string(place(true)) + ": " + what, e.line(), e.column());
  }
  bytes.drain();
  return true;
}

TFJOB_INLINE bool ManifestReader::fill() {
  const Each hold = [&](nlohmann::json&& o, const ObjectPlace& p) {
    if (objects_++ >= limits::max_manifest_objects)
      throw parse_error(source_ + ": more than " + std::to_string(limits::max_manifest_objects) +
                        " objects in one manifest (the bound on objects per manifest); split it into several files");
    pending_.emplace_back(std::move(o), p);
  };
  // once an object is over the bound, the rest is read only to name every other one that is
  while ((pending_.empty() || !too_big_.empty()) && read_document(hold, limits::max_manifest_bytes)) {
  }
  if (!too_big_.empty()) throw parse_error(too_big_, too_big_line_, 1);
  return !pending_.empty();
}

TFJOB_INLINE std::optional<nlohmann::json> ManifestReader::next() {
  if (pending_.empty() && !fill()) return std::nullopt;
  nlohmann::json o = std::move(pending_.front().first);
  place_ = pending_.front().second;
  pending_.pop_front();
  ++given_;
  return o;
}

TFJOB_INLINE bool ManifestReader::more() { return !pending_.empty() || fill(); }

TFJOB_INLINE std::size_t ManifestReader::each(const Each& each) {
  while (!pending_.empty()) {
    auto [o, p] = std::move(pending_.front());
    pending_.pop_front();
    place_ = p;
    ++given_;
    each(std::move(o), place_);
  }
  const Each give = [&](nlohmann::json&& o, const ObjectPlace& p) {
    place_ = p;
    ++given_;
    each(std::move(o), place_);
  };
  while (read_document(give, 0)) {
  }
  if (!too_big_.empty()) throw parse_error(too_big_, too_big_line_, 1);
  return given_;
}

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
