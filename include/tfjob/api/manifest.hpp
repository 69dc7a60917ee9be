#pragma once
/// \file Manifests as text: YAML (multi-document) or JSON in, `nlohmann::json` out, with
/// the line and column of any syntax error; and YAML out the way kubectl prints it
/// (keys sorted, block style, sequences flush with their key, strings quoted only when a
/// YAML 1.1 reader would take them for something else, as go-yaml v2 does).
///
/// Scalars are resolved like sigs.k8s.io/yaml (go-yaml v2, YAML 1.1): `yes`/`on` are
/// booleans, `~` is null, `0x1F` an integer; quoted scalars are always strings.

#include <tfjob/api/schema.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/api/validation.hpp>  // manifest_name_errors
#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>

#include <tfjob/detail/input.hpp>
#include <tfjob/detail/yaml_reader.hpp>  // YAML -> JSON with go-yaml's bounds, merge keys

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tfjob {

namespace detail {

/// A stream of JSON values (`{..}{..}` or one `[..]`), as kubectl accepts, each value's
/// nesting bounded by limits::max_depth. `first_line`, `first_column`: where `text` begins in
/// `source` (one value of a stream), for the place errors name.
std::vector<nlohmann::json> parse_json_stream(std::string_view text, const std::string& source,
                                              std::vector<std::pair<std::size_t, std::size_t>>* spans = nullptr,
                                              int first_line = 1, int first_column = 1);

/// Where a piece of a manifest begins in its source: byte offset, 1-based line and column.
struct TextPlace {
  std::size_t byte = 0;
  int line = 1, column = 1;
  /// The place of `local` (a line and column within the piece) in the source.
  std::pair<int, int> of(std::pair<int, int> local) const {
    return {line + local.first - 1, local.first == 1 ? column + local.second - 1 : local.second};
  }
};

}  // namespace detail

/// Where an object of a manifest is: its document, and its item when the document is a List
/// (or a JSON array).
struct ObjectPlace {
  std::size_t document = 0;         ///< 0-based, among the documents that hold something
  int line = 1;                     ///< the line its document begins on
  std::optional<std::size_t> item;  ///< 0-based, when it is an item of a List
  int item_line = 0;                ///< the line the item begins on (0: not known)
};

/// "document 2 (line 16)", "document 1 (line 1), item 7 (line 1230)": an ObjectPlace for people.
std::string to_string(const ObjectPlace& at);

namespace detail {

/// The first byte of `text` that no manifest holds (a control byte, or the invalid UTF-8
/// before it), npos when none: a binary file (an image, an archive, a program: each has one
/// near its start); go-yaml refuses control characters.
std::size_t binary_byte_at(std::string_view text);

/// Refuses a manifest for its byte `c` at `at` (binary_byte_at's), saying where, never
/// printing its bytes.
[[noreturn]] void refuse_binary(unsigned char c, const TextPlace& at, const std::string& source);

/// The items of a document that holds several objects: an array, or an object with an
/// `items` array (kubectl's decoder reads any object with `items` as a list: apimachinery's
/// unstructuredJSONScheme); nullptr for one object.
nlohmann::json* list_items(nlohmann::json& doc);

/// Why the object at `at` is refused by the bound on one object (`max`): `bytes` its size, 0
/// when it was not read to its end.
std::string too_big_message(const std::string& source, const ObjectPlace& at, std::size_t bytes,
                            std::size_t max = limits::max_document_bytes);

/// One object of a manifest judged as parse_tfjobs() judges it (kind and apiVersion, the
/// schema as `validation` says, the decoder): the TFJob, or nullopt with what was wrong
/// appended to `errs` (each placed at `where`); schema findings kept under warn go to `warnings`.
/// Throws parse_error for a document that is no object.
std::optional<TFJob> judge_tfjob(const nlohmann::json& o, const std::string& where, FieldValidation validation,
                                 std::vector<field_error>* warnings, std::vector<field_error>& errs);

/// parse_manifests(), with each document's [begin, end) bytes in `text` in `spans` (when given).
std::vector<nlohmann::json> parse_manifest_documents(std::string_view text, const std::string& source,
                                                     std::vector<std::pair<std::size_t, std::size_t>>* spans);

}  // namespace detail

/// Parses YAML (one or more `---` documents) or JSON text into JSON values; empty
/// documents are skipped. `source` names the input in errors (a file name, "stdin").
/// Throws `parse_error` carrying the 1-based line and column of a syntax error, or naming
/// the bound an input exceeds (size, nesting depth, alias expansion; see tfjob::limits).
std::vector<nlohmann::json> parse_manifests(std::string_view text,
                                            const std::string& source = "input");

/// Like parse_manifests(), and expands `kind: List` (and `*List`) into its items.
std::vector<nlohmann::json> parse_objects(std::string_view text, const std::string& source = "input");

/// Decodes every TFJob in `text`, each judged first by the TFJob CRD's schema (schema.hpp)
/// as `validation` says, as kubectl's --validate does: `strict` (the default, as kubectl's)
/// refuses an unknown field, a wrong type or a value the schema does not allow; `warn`
/// appends each such issue to `warnings` (when given) and goes on; `ignore` skips the schema
/// (the API server drops unknown fields). Whatever `validation` says, a document that is not
/// a TFJob (its kind or apiVersion wrong, named with what would be right) or whose fields
/// cannot be decoded is refused. Throws validation_error listing every problem of every
/// document, each field_error's `where` naming the source, the document and the job
/// (`tfjob.yaml: TFJob mnist`); parse_error for text that is not YAML or JSON.
std::vector<TFJob> parse_tfjobs(std::string_view text, const std::string& source = "input",
                                FieldValidation validation = FieldValidation::strict,
                                std::vector<field_error>* warnings = nullptr);

/// Where a document of a manifest is, for people: `tfjob.yaml: TFJob mnist`, with
/// ` (document N)` after the source when the manifest has several documents and this one has no name.
std::string document_place(const std::string& source, std::size_t index, std::size_t count, const nlohmann::json& object);

/// A schema issue as a field_error (type "", its message the detail) placed at `where`.
field_error to_field_error(const schema::Issue& issue, const std::string& where);

// ---- YAML out ------------------------------------------------------------------------------

namespace detail {

/// Would a YAML 1.1 reader (go-yaml v2) resolve this plain scalar to a non-string?
bool resolves_to_non_string(const std::string& s);

/// Can `s` be written as a plain scalar in block context (libyaml's analyze_scalar)?
bool plain_allowed(const std::string& s);
std::string double_quoted(const std::string& s);
std::string single_quoted(const std::string& s);

/// A string scalar as go-yaml v2 writes it (without literal blocks, handled by the caller).
std::string yaml_string(const std::string& s);

/// Can a multi-line string be written as a literal block (`|`)?
bool literal_allowed(const std::string& s);
std::string yaml_number(const nlohmann::json& v);
bool is_scalar(const nlohmann::json& v);
void emit_scalar(std::string& out, const nlohmann::json& v, int indent);
void emit_node(std::string& out, const nlohmann::json& v, int indent);
void emit_map(std::string& out, const nlohmann::json& m, int indent, bool first_inline);

/// A block sequence; `first_inline`: the first "- " follows a "- " already written.
void emit_seq(std::string& out, const nlohmann::json& v, int indent, bool first_inline);

}  // namespace detail

/// YAML as kubectl prints it: keys sorted (apiVersion, kind, metadata, spec, status),
/// block style, list items flush with their key, two-space indent, strings quoted only
/// when needed. Ends with a newline. Reading it back gives a JSON-equal value.
std::string to_yaml(const nlohmann::json& j);

/// Several documents separated by `---`.
std::string to_yaml_documents(const std::vector<nlohmann::json>& docs);

}  // namespace tfjob

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/impl/manifest_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
