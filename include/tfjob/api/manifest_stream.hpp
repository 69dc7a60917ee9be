#pragma once
/// \file Manifests read from a stream an object at a time, as kubectl's resource builder
/// reads `-f` (k8s.io/apimachinery util/yaml YAMLOrJSONDecoder over a YAMLReader: a document
/// is cut at each `---` line, then decoded): what is held is one document and the objects it
/// holds (ManifestReader::next), or only the object being read (ManifestReader::each: a List's
/// items one at a time), never the whole file. Each object is judged by the bounds
/// parse_objects() applies to a whole text (binary bytes, nesting, aliases, one object's
/// 3 MiB) and read by the same YAML and JSON readers, from their events; a document that
/// next() holds is bounded by limits::max_manifest_bytes, a stream and a List each() reads are not.

#include <tfjob/api/manifest.hpp>
#include <tfjob/api/schema.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/input.hpp>
#include <tfjob/detail/yaml_reader.hpp>  // read_yaml_stream, ObjectSink, TextWindow
#include <tfjob/error.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <istream>
#include <optional>
#include <streambuf>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tfjob {

namespace detail {

/// Cuts a YAML or JSON stream into documents without parsing them, a piece at a time. YAML: a
/// new document begins at each line that is a `---` marker (a `---` line that only follows
/// comments, blank lines and directives belongs to their document); a `...` line ends one. A
/// stream whose first byte other than white space is `{` or `[` is a stream of JSON values,
/// each one document. Refuses a control byte (a binary file) as soon as the bytes before it are
/// taken, naming `source` and the place.
class DocumentSplitter {
 public:
  DocumentSplitter(std::istream& in, std::string source);

  /// Begins the next document: false at the end of the stream. `at`: where it begins.
  bool begin(TextPlace& at);

  /// Appends the next piece of the document begun to `out`: up to a line's end (JSON: or where a
  /// List's item may end) when the stream has no more at hand, else going on to 4 KiB; 64 KiB at
  /// most of a longer line. False when the document has no more.
  bool piece(std::string& out);

  /// Whether the stream is a stream of JSON values (known after the first begin()).
  bool json() const { return mode_ == Mode::json; }

 private:
  enum class Mode { unknown, yaml, json };
  static constexpr std::size_t max_piece = 65536;
  static constexpr std::size_t piece_size = 4096;  ///< a piece gathers lines up to this while the stream has them at hand
  bool at_hand() const;            ///< whether more bytes can be read without waiting on the stream
  int get();                       ///< the next byte, or -1 at the end; refuses binary bytes
  void utf8(unsigned char u);      ///< notes the first byte that is not UTF-8 (named if a control byte follows)
  int yaml_byte();                 ///< the next byte of YAML: what was carried first, then the stream's
  int yaml_line(std::string& line);  ///< a line of YAML or max_piece of it; its last byte, -1 at the end
  static bool marker(const std::string& line, char m);  ///< a `---` or `...` line: the marker alone, or before a space
  bool begin_json(TextPlace& at);
  bool begin_yaml(TextPlace& at);
  bool read_piece(std::string& out);  ///< piece_json or piece_yaml, a binary byte refused at the next piece
  bool piece_json(std::string& out);
  bool piece_yaml(std::string& out);
  bool yaml_piece_line(std::string& out);  ///< one line (or max_piece of one) of the document; false when it has ended

  std::streambuf* in_;
  std::string source_;
  Mode mode_ = Mode::unknown;
  TextPlace pos_;                  ///< the place of the next byte get() reads
  TextPlace ypos_;                 ///< the place of the next byte yaml_byte() gives
  std::string carry_;              ///< bytes read and not yet taken (a `---` line: the next document's first)
  std::size_t carry_next_ = 0;
  int peeked_ = -1;                ///< JSON: a byte read ahead (-1: none)
  TextPlace peeked_at_;
  bool done_ = false;              ///< the stream has ended
  std::exception_ptr refused_;     ///< a binary byte, refused once the bytes before it are taken
  // the document begun
  bool open_ = false;              ///< it has more pieces
  bool last_ = false;              ///< the piece given last was its last
  std::string first_;              ///< its first piece, read by begin()
  bool content_ = false;           ///< YAML: it has content (its `---` line counts)
  bool line_start_ = true;         ///< YAML: the next piece begins a line
  int line_kind_ = 0;              ///< YAML: the line under way so far: 0 blank, 1 content, 2 comment or directive
  int depth_ = 0;                  ///< JSON: open brackets (0: a value that is no object or array)
  bool in_string_ = false, escaped_ = false;
  // UTF-8 read so far: a sequence under way, and the first byte that is not UTF-8
  int need_ = 0, len_ = 0;
  std::uint32_t cp_ = 0;
  unsigned char lead_ = 0, bad_byte_ = 0;
  TextPlace lead_at_, bad_at_;
  bool bad_ = false;
};

/// Thrown by DocumentBytes when the object being read runs past its bound.
struct ObjectTooBig {};
/// Thrown by DocumentBytes when the document runs past its bound as a whole.
struct DocumentTooBig {};

/// The document a DocumentSplitter has begun, as a stream a parser reads (a piece at a time:
/// the parser reads no further ahead than the piece it needs). Holds the text from the object
/// under way on (forget_before), for the YAML reader's checks and the places errors name.
class DocumentBytes : public std::streambuf {
 public:
  /// `at`: where the document begins; `max_document`: its bound as a whole (0: none): reading
  /// past it throws DocumentTooBig.
  DocumentBytes(DocumentSplitter& split, const TextPlace& at, std::size_t max_document);

  /// Bytes handed to the parser so far.
  std::size_t given() const { return given_; }
  /// Bytes the parser has taken (the JSON reader takes one at a time).
  std::size_t consumed() const { return given_ - static_cast<std::size_t>(egptr() - gptr()); }
  /// The object being read ends at byte `limit` at the latest: asking for more once past it
  /// (give or take read_ahead) throws ObjectTooBig.
  void bound(std::size_t limit) { limit_ = limit; }
  /// How far ahead of where it is a parser may have read (yaml-cpp buffers 2 KiB and looks a
  /// few bytes further): an object is refused once the bytes read are this much past its bound,
  /// never for bytes of the next one.
  static constexpr std::size_t read_ahead = 4096;
  /// Lets go of the text before `byte` (where the object under way begins).
  void forget_before(std::size_t byte);
  /// What is held of the text (kept up to date as the parser reads).
  const TextWindow& window() const { return window_; }
  /// Where byte `byte` of the document is in the source (a byte still held, else the first held).
  TextPlace place_of(std::size_t byte) const;
  /// Reads the rest of the document, holding none of it: its size.
  std::size_t drain();
  /// Reads ahead until `n` bytes are at hand for the parser, or the document ends.
  void prefetch(std::size_t n);

 protected:
  TFJOB_INLINE int_type underflow() override;
  TFJOB_INLINE std::streamsize xsgetn(char* s, std::streamsize n) override;

 private:
  bool refill();  ///< appends the next piece to what the parser has not read; false at the document's end
  static TextPlace past(TextPlace at, std::string_view text);  ///< `at` moved past `text`
  DocumentSplitter& split_;
  std::size_t max_document_;
  std::string piece_;              ///< the piece the parser reads
  std::string kept_;               ///< the text from window_.offset on
  TextPlace kept_at_;              ///< where kept_ begins
  TextWindow window_;
  std::size_t given_ = 0, limit_ = static_cast<std::size_t>(-1);
  bool ended_ = false;
};

/// One document of a JSON stream (`bytes`: what DocumentBytes gives `in`) to `sink`, as
/// read_yaml_stream gives a YAML one: a List's items (the array under the top-level object's
/// `items`, or a top-level array) one at a time, each let go once given; nesting bounded by
/// `max_depth`. Throws parse_error naming `source`, the line and the column.
void read_json_stream(std::istream& in, DocumentBytes& bytes, const std::string& source, ObjectSink& sink,
                      int max_depth = limits::max_depth);

}  // namespace detail

/// The objects of a manifest read from a stream (List items and JSON arrays expanded, null
/// documents skipped), each judged as parse_objects() judges a whole text, each with its place
/// (ObjectPlace). next() reads a document at a time and holds its objects until they are given;
/// each() gives every object as soon as it is read, a List's items one at a time, holding only
/// the item being read (what its anchors name aside): a List has no bound as a whole, each of
/// its items the bound on one object. An object over that bound (`max_object`,
/// limits::max_document_bytes) ends the objects: the rest of the stream is read to name every
/// such document or item, then parse_error says them all (`jobs.yaml: document 2 (line 16):
/// 3.5 MiB is more than ...`). An error found inside a List's item names the item.
class ManifestReader {
 public:
  using Each = std::function<void(nlohmann::json&&, const ObjectPlace&)>;

  explicit ManifestReader(std::istream& in, std::string source = "input",
                          std::size_t max_object = limits::max_document_bytes);

  /// The next object; nullopt at the end. Throws parse_error for what cannot be read. A
  /// document is read whole (limits::max_manifest_bytes), and a stream gives no more than
  /// limits::max_manifest_objects objects.
  std::optional<nlohmann::json> next();

  /// Whether another object follows the one next() gave last (reads ahead one document).
  bool more();

  /// Gives every object not given yet to `each`, in the stream's order, as soon as it is read
  /// (a List's items one at a time). Throws as next(). Returns count().
  std::size_t each(const Each& each);

  /// How many objects next() or each() have given.
  std::size_t count() const { return given_; }

  /// Where the object given last is.
  const ObjectPlace& place() const { return place_; }

  const std::string& source() const { return source_; }

 private:
  bool fill();  ///< reads documents until an object is pending or the stream ends
  /// Reads one document, its objects to `sink`; false at the end of the stream.
  /// `max_document`: its bound as a whole (0: none).
  bool read_document(const Each& sink, std::size_t max_document);

  detail::DocumentSplitter split_;
  std::string source_;
  std::size_t max_object_;
  std::deque<std::pair<nlohmann::json, ObjectPlace>> pending_;
  ObjectPlace place_;
  std::size_t docs_ = 0;   ///< documents read (not null): "document N"
  std::size_t given_ = 0;
  std::size_t objects_ = 0;
  std::string too_big_;
  int too_big_line_ = 0;
};

/// parse_tfjobs() over a stream: each TFJob is judged as it is read and given to `each` (in
/// the stream's order), so that no more than one document is held. What is wrong with the
/// others (every problem of every document) is thrown as one validation_error after the
/// stream ends; parse_error at once, for what cannot be read. Returns how many objects were read.
std::size_t for_each_tfjob(std::istream& in, const std::string& source, FieldValidation validation,
                           std::vector<field_error>* warnings, const std::function<void(TFJob&&)>& each);

}  // namespace tfjob

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/impl/manifest_stream_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
