#pragma once
/// \file Manifests read from a stream one document at a time, as kubectl's resource builder
/// reads `-f` (k8s.io/apimachinery util/yaml YAMLOrJSONDecoder over a YAMLReader: a document
/// is cut at each `---` line, then decoded): what is held is one document and the objects it
/// holds, never the whole file. Each document is judged by the bounds parse_objects() applies
/// to a whole text (binary bytes, nesting, aliases, one object's 3 MiB) and read by the same
/// YAML and JSON readers; a document is bounded by limits::max_manifest_bytes, a stream is not.

#include <tfjob/api/manifest.hpp>
#include <tfjob/api/schema.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/input.hpp>
#include <tfjob/error.hpp>

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <istream>
#include <optional>
#include <string>
#include <vector>

namespace tfjob {

namespace detail {

/// One document's text cut from a manifest stream, and where it begins there.
struct DocumentText {
  std::string text;
  TextPlace at;
};

/// Cuts a YAML or JSON stream into documents' texts without parsing them. YAML: a new
/// document begins at each line that is a `---` marker (a `---` line that only follows
/// comments, blank lines and directives belongs to their document); a `...` line ends one.
/// A stream whose first byte other than white space is `{` or `[` is a stream of JSON values,
/// each one document. Refuses a control byte at once (a binary file), and a document over
/// `max_document` bytes, each naming `source` and the place.
class DocumentSplitter {
 public:
  DocumentSplitter(std::istream& in, std::string source, std::size_t max_document = limits::max_manifest_bytes);

  /// The next document's text; false at the end of the stream.
  bool next(DocumentText& doc);

  /// Whether the stream is a stream of JSON values (known after the first next()).
  bool json() const { return mode_ == Mode::json; }

 private:
  enum class Mode { unknown, yaml, json };
  int get();                       ///< the next byte, or -1 at the end; refuses binary bytes
  void utf8(unsigned char u);      ///< notes the first byte that is not UTF-8 (named if a control byte follows)
  int yaml_byte();                 ///< the next byte of YAML: what was carried first, then the stream's
  void keep(DocumentText& d, const std::string& text);  ///< appends, within the bound on a document
  bool next_json(DocumentText& d);
  bool next_yaml(DocumentText& d);

  std::streambuf* in_;
  std::string source_;
  std::size_t max_;
  Mode mode_ = Mode::unknown;
  TextPlace pos_;                  ///< the place of the next byte get() reads
  TextPlace ypos_;                 ///< the place of the next byte yaml_byte() gives
  std::string carry_;              ///< bytes read and not yet taken (a `---` line: the next document's first)
  std::size_t carry_next_ = 0;
  int peeked_ = -1;                ///< JSON: a byte read ahead (-1: none)
  TextPlace peeked_at_;
  bool done_ = false;
  // UTF-8 read so far: a sequence under way, and the first byte that is not UTF-8
  int need_ = 0, len_ = 0;
  std::uint32_t cp_ = 0;
  unsigned char lead_ = 0, bad_byte_ = 0;
  TextPlace lead_at_, bad_at_;
  bool bad_ = false;
};

}  // namespace detail

/// The objects of a manifest read from a stream a document at a time (List items and JSON
/// arrays expanded, null documents skipped), each document judged as parse_objects() judges
/// a whole text. A document over the bound on one object (limits::max_document_bytes) ends
/// the objects: the rest of the stream is read to name every such document, then parse_error
/// says them all (`jobs.yaml: document 2 (line 16): 3.5 MiB is more than ...`).
class ManifestReader {
 public:
  explicit ManifestReader(std::istream& in, std::string source = "input");

  /// The next object; nullopt at the end. Throws parse_error for what cannot be read.
  std::optional<nlohmann::json> next();

  /// Whether another object follows the one next() gave last (reads ahead one document).
  bool more();

  /// How many objects next() has given.
  std::size_t count() const { return given_; }

  const std::string& source() const { return source_; }

 private:
  bool fill();  ///< reads documents until an object is pending or the stream ends

  detail::DocumentSplitter split_;
  std::string source_;
  std::deque<nlohmann::json> pending_;
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
