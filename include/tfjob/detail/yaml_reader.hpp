#pragma once
/// \file YAML text -> JSON values, built straight from yaml-cpp's parser events (no node
/// tree), with the bounds kubectl's reader (sigs.k8s.io/yaml on go-yaml v2) has: alias
/// expansion limited by go-yaml's ratio rule ("document contains excessive aliasing"),
/// nesting depth bounded, invalid UTF-8 and unterminated quoted scalars refused, and YAML
/// merge keys (`<<: *base`) applied as go-yaml does. Scalars are resolved as go-yaml v2
/// (YAML 1.1) resolves them: `yes`/`on` are booleans, `~` is null, `0x1F` an integer.
/// A document can also be read from a stream (read_yaml_stream), a List's items given one at
/// a time as each is complete, so that a List is never held whole.
/// Internal to the SDK: parse_manifests(), ManifestReader and the kubeconfig loader use it.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/input.hpp>
#include <tfjob/error.hpp>

#include <nlohmann/json.hpp>
#include <yaml-cpp/depthguard.h>     // YAML::DeepRecursion: yaml-cpp's own nesting guard
#include <yaml-cpp/eventhandler.h>  // the event API: values are built without a node tree
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <istream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tfjob::detail {

bool yaml_is_null(const std::string& s);

int yaml_bool(const std::string& s);  // 1 true, 0 false, -1 not a bool (YAML 1.1)

/// YAML 1.1 integer (decimal, 0x hex, 0 octal, 0b binary, `_` separators) -> json.
bool yaml_int(const std::string& s, nlohmann::json& out);

/// YAML 1.1 float (`1.5`, `-2e3`) -> json. Infinities, NaN and numbers beyond a double's
/// range stay strings: JSON has no such numbers (go-yaml's float would not survive JSON).
bool yaml_float(const std::string& s, nlohmann::json& out);

/// A plain (unquoted) YAML scalar resolved as go-yaml v2 resolves it.
nlohmann::json resolve_plain(const std::string& s);

/// The bounds of one YAML read.
struct YamlLimits {
  std::size_t max_bytes = limits::max_manifest_bytes;
  /// yaml-cpp's parser recurses per level and guards itself at 500 levels; JSON values
  /// built here are bounded by limits::max_depth as well.
  int max_depth = limits::max_depth;
};

/// The part of a document's text a reader still holds: its bytes [offset, offset + size).
struct TextWindow {
  std::string_view text;
  std::size_t offset = 0;
};

/// Where a document read as a stream puts what it reads (read_yaml_stream, and the JSON reader
/// of manifest_stream.hpp): a List's items (the sequence under a top-level `items` key, or a
/// top-level sequence) one at a time as each is complete, else the document as one value.
struct ObjectSink {
  std::function<void()> items_begin;  ///< the document is a List: its items follow
  /// an item begins at `byte` of the document (modulo 2^32: yaml-cpp's marks wrap), on `line` of the source
  std::function<void(std::size_t byte, int line)> item_begins;
  std::function<void(nlohmann::json&& value, bool item)> take;  ///< an item, or a document that is no List
  std::function<void()> items_end;  ///< the List's items are over
};

namespace yaml_impl {

/// go-yaml v2 decode.go allowedAliasRatio: up to 99% of the decoded nodes may come from
/// alias expansion in small documents, scaling down to 10% at 4,000,000 nodes.
double allowed_alias_ratio(double decode_count);

struct Value {
  nlohmann::json json;
  bool scalar = false;  ///< a scalar (possibly null): may be a mapping key
  bool plain = false;   ///< unquoted scalar
  std::string raw;      ///< the scalar's text
  std::size_t nodes = 1;
};

class Builder : public YAML::EventHandler {
 public:
  /// `text`: what is held of the text (check_quote_closed reads it); `first_line`: the line of
  /// the text's first byte in its source (a document of a stream). With `sink`, documents and
  /// List items go there as they complete (`docs` stays empty).
  Builder(const TextWindow& text, const std::string& source, const YamlLimits& lim, int first_line = 1,
          ObjectSink* sink = nullptr)
      : text_(text), source_(source), lim_(lim), first_line_(first_line), sink_(sink) {}

  std::vector<nlohmann::json> docs;
  /// [begin, end) bytes of each of `docs` in the text (end: where the next document begins).
  std::vector<std::pair<std::size_t, std::size_t>> spans;

  TFJOB_INLINE void OnDocumentStart(const YAML::Mark& m) override;
  TFJOB_INLINE void OnDocumentEnd() override;
  TFJOB_INLINE void OnNull(const YAML::Mark& m, YAML::anchor_t a) override;
  TFJOB_INLINE void OnAlias(const YAML::Mark& m, YAML::anchor_t a) override;
  TFJOB_INLINE void OnScalar(const YAML::Mark& m, const std::string& tag, YAML::anchor_t a, const std::string& value) override;
  TFJOB_INLINE void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t a, YAML::EmitterStyle::value) override;
  TFJOB_INLINE void OnSequenceEnd() override;
  TFJOB_INLINE void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t a, YAML::EmitterStyle::value) override;
  TFJOB_INLINE void OnMapEnd() override;

  [[noreturn]] void fail(const YAML::Mark& m, const std::string& why) const;

 private:
  struct Frame {
    bool map = false;
    YAML::anchor_t anchor = 0;
    YAML::Mark mark;
    Value value;
    bool have_key = false;
    std::string key;
    YAML::Mark key_mark;
    bool merge_next = false;              ///< the pending key is `<<`
    std::vector<nlohmann::json> merges;   ///< maps merged in, in order of precedence
    std::vector<std::string> explicit_keys;
    bool items = false;  ///< a List's items, each given to sink_ when complete (never held together)
  };

  void count(const YAML::Mark& m, std::size_t nodes, bool alias);

  void check_utf8(const YAML::Mark& m, const std::string& s) const;

  /// yaml-cpp ends an unterminated quoted scalar at the end of the text without a word
  /// (go-yaml: "found unexpected end of stream"): look for the closing quote ourselves.
  void check_quote_closed(const YAML::Mark& m) const;

  void open(const YAML::Mark& m, bool map, YAML::anchor_t a);

  /// With a sink, a node that begins inside a List's items is an item: say where.
  void node_begins(const YAML::Mark& m);

  void close();

  /// A complete value: remember its anchor, and place it in its parent.
  void finish(const YAML::Mark& m, Value v, YAML::anchor_t a);

  const TextWindow& text_;
  const std::string& source_;
  YamlLimits lim_;
  int first_line_ = 1;
  ObjectSink* sink_ = nullptr;
  bool doc_is_list_ = false;      ///< with a sink: this document's items were given one at a time
  double anchored_bytes_ = 0;     ///< with a sink: what anchors keep (a List's items are otherwise let go)
  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, Value> anchors_;
  Value doc_;
  bool have_doc_ = false;
  bool started_any_ = false;
  int last_doc_pos_ = -1;
  double decode_count_ = 0, alias_count_ = 0;
};

}  // namespace yaml_impl

/// Every document of `text` as JSON (null documents skipped). Throws parse_error naming
/// `source`, the line and column, and the bound that was exceeded.
/// `spans`, when given, gets each document's [begin, end) bytes in `text`. `first_line`: the
/// line `text` begins at in `source` (one document of a stream), for the lines errors name.
std::vector<nlohmann::json> read_yaml_documents(std::string_view text, const std::string& source,
                                                const YamlLimits& lim = {},
                                                std::vector<std::pair<std::size_t, std::size_t>>* spans = nullptr,
                                                int first_line = 1);

/// The documents of `in` (one document of a manifest stream, beginning on `first_line` of
/// `source`) given to `sink` as they are read: a List's items (the sequence under a top-level
/// `items` key, as kubectl's decoder reads any object with `items` as a list, or a top-level
/// sequence) one at a time, each when complete, else the document whole. `text`: the part of
/// the text the caller still holds (kept up to date as `in` is read). What anchors name stays
/// until the document ends, bounded by `lim.max_bytes`. Throws parse_error as read_yaml_documents.
void read_yaml_stream(std::istream& in, const std::string& source, ObjectSink& sink, const TextWindow& text,
                      const YamlLimits& lim = {}, int first_line = 1);

}  // namespace tfjob::detail

#if TFJOB_SDK_DEFINE_CORE
#include <tfjob/detail/impl/yaml_reader_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_CORE
