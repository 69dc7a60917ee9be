#pragma once
/// \file Reading outside input with bounds (manifests, kubeconfigs, server answers, watch
/// events, exec-plugin output, TF_CONFIG): the limits in one place, a JSON reader that
/// refuses nesting deeper than the bound before building it (nlohmann's parser callback gets
/// the depth of every value, so no recursion can overrun the stack), and a UTF-8 check.
/// Errors say what was wrong and where, never with the JSON library's own wording.

#include <tfjob/detail/compiled.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tfjob {

/// The resource bounds on outside input. Each refusal names its bound.
namespace limits {
/// Nesting of arrays and objects (Go's encoding/json scanner maxNestingDepth, which
/// kubectl's decoders inherit: "exceeded max depth"; go-yaml v3 uses the same 10000).
inline constexpr int max_depth = 10000;
/// A manifest (all documents of one file or stdin together).
inline constexpr std::size_t max_manifest_bytes = std::size_t(128) << 20;
/// One object of a manifest (a document, or an item of a List document): kube-apiserver
/// refuses a request body over 3 MiB (apiserver ServerRunOptions.MaxRequestBodyBytes), so a
/// bigger object could never be created; each is judged alone, whatever its file holds.
inline constexpr std::size_t max_document_bytes = std::size_t(3) << 20;
/// Objects in one manifest, after `kind: List` items are expanded.
inline constexpr std::size_t max_manifest_objects = 100000;
/// One buffered server answer (a list of 5,000 pods is about 100 MiB on a real cluster).
inline constexpr std::size_t max_response_bytes = std::size_t(512) << 20;
/// One watch event line: kube-apiserver refuses request bodies over 3 MiB
/// (apiserver options MaxRequestBodyBytes) and etcd objects over 1.5 MiB, so an event
/// 8 times that is no object a real server sends.
inline constexpr std::size_t max_watch_line_bytes = std::size_t(24) << 20;
/// Objects one relist may gather across its pages (a hostile server can page forever).
inline constexpr std::size_t max_list_objects = 1000000;
/// What an exec credential plugin may print (a token, or a certificate chain and a key).
inline constexpr std::size_t max_exec_output_bytes = std::size_t(4) << 20;
/// A kubeconfig file.
inline constexpr std::size_t max_kubeconfig_bytes = std::size_t(16) << 20;
/// Response headers together (Go's net/http Transport default MaxResponseHeaderBytes is 10 MiB;
/// the API server sends well under 64 KiB).
inline constexpr std::size_t max_header_bytes = std::size_t(1) << 20;
}  // namespace limits

namespace detail {

/// "1.5 MiB", "3 MiB", "512 B": sizes in messages.
std::string human_bytes(std::size_t n);

/// Index of the first byte that is not part of valid UTF-8, or npos (RFC 3629: no
/// overlong forms, no surrogates, nothing above U+10FFFF).
std::size_t invalid_utf8_at(std::string_view s);

/// 1-based line and column of a byte offset.
std::pair<int, int> line_col_at(std::string_view text, std::size_t byte);

/// "a string (\"x\")", "a number (5)", "a list", "an object", "null": a JSON value's kind
/// for messages about answers of the wrong shape.
std::string describe_json_type(const nlohmann::json& v);

/// The outcome of read_json(): a value, or what was wrong and at which byte.
struct JsonRead {
  nlohmann::json value;
  std::string error;       ///< "" when the text was read; else e.g. "exceeded max depth of 10000"
  std::size_t byte = 0;    ///< 0-based offset of the fault
  bool trailing = false;   ///< the only fault is text after one complete value (a stream of values)
  bool ok() const { return error.empty(); }
};

/// The message nlohmann's parse_error carries, without its "[json.exception...]" prefix
/// and position (the caller names the place in its own words).
std::string json_syntax_reason(const nlohmann::json::parse_error& e);

/// Parts of a JSON value that read_json leaves out: never built, so an answer costs the
/// memory of what its reader keeps (a list page of whole jobs read for their table rows).
/// Each path is a list of keys from the top; "*" stands for any key or any element of a list.
struct JsonOmit {
  std::vector<std::vector<std::string>> paths;
  /// Adds `fields` (keys joined by dots: "spec", "metadata.managedFields") under `prefix`
  /// (e.g. {"items", "*"}: each item of a list).
  void add(const std::vector<std::string>& prefix, const std::vector<std::string>& fields);
  bool empty() const { return paths.empty(); }
};

/// Whether a JSON object may give a key twice. nlohmann keeps the last value; a manifest
/// refuses it, as kube-apiserver's strict field validation does ("duplicate field") and as the
/// YAML reader does, so a job is never made from the value the reader happened to keep.
enum class JsonKeys { last_wins, unique };

/// Fed a JSON parser's events, the keys of each object being read (innermost last): says when
/// an object gives a key twice.
class UniqueKeys {
 public:
  /// False when `ev` is a key (`parsed`) that its object already has.
  bool step(nlohmann::json::parse_event_t ev, const nlohmann::json& parsed);

 private:
  std::vector<std::set<std::string>> open_;
};

/// The byte where the JSON string whose closing quote is at byte `close` of `text` begins
/// (`close` when no opening quote is held).
std::size_t string_start(std::string_view text, std::size_t close);

/// "duplicate key \"x\": give each key once", the YAML reader's words too.
std::string duplicate_key_reason(const std::string& key);

/// Parse one JSON value with nesting bounded by `max_depth` (the parser stops at the first
/// value deeper than that; nothing deeper is ever built), leaving out what `omit` names.
JsonRead read_json(std::string_view text, int max_depth = limits::max_depth, const JsonOmit* omit = nullptr,
                   JsonKeys keys = JsonKeys::last_wins);

/// `what` + where a JSON fault is, for messages: "at line 3, column 7".
std::string json_fault_place(std::string_view text, const JsonRead& r);

}  // namespace detail
}  // namespace tfjob

#if TFJOB_SDK_DEFINE_CORE
#include <tfjob/detail/impl/input_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_CORE
