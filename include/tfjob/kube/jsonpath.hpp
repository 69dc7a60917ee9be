#pragma once
/// \file kubectl's JSONPath templates (client-go `util/jsonpath`, as `kubectl get -o
/// jsonpath=...`, `custom-columns` and `--sort-by` use them), pure: no I/O.
///
/// Supported: text outside `{}`; `{.a.b}`, `{.a['b.c']}`, `{.a.b\.c}` (escaped dot, as in
/// `nvidia\.com/gpu`), `{$}` / `{@}`; `[n]`, `[-n]`, `[a:b]` slices, `[*]`, `.*`; `..name`
/// (recursive descent); filters `[?(@.x)]`, `[?(@.x=="v")]`, `!=`, `<`, `>`, `<=`, `>=`
/// with string or number literals; `{range EXPR}...{end}`; string literals `{"\n"}`.
/// Several results of one expression print separated by a space, as kubectl's do; a
/// missing field is an error naming it (kubectl: "... is not found"), unless
/// `allow_missing` (custom-columns prints `<none>`).

#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>
#include <vector>

namespace tfjob::kube {

namespace jsonpath_detail {

/// One step of a path: a field, an index/slice, a wildcard, recursive descent or a filter.
struct Step {
  enum class Kind { field, index, slice, wildcard, recursive, filter } kind = Kind::field;
  std::string name;  ///< field (recursive: the field searched for, "" = every node)
  long long a = 0, b = 0;
  bool has_a = false, has_b = false;
  // filter: @.path OP literal (op "" = the path exists)
  std::vector<Step> lhs;
  std::string op;
  nlohmann::json literal;
};

/// A value as kubectl prints it: strings bare, everything else as compact JSON.
std::string text_of(const nlohmann::json& v);

struct Node {
  enum class Kind { text, expr, range } kind = Kind::text;
  std::string text;          ///< text, or a string literal
  std::vector<Step> path;    ///< expr / range
  std::vector<Node> body;    ///< range
};

}  // namespace jsonpath_detail

/// A parsed kubectl JSONPath template (`{.metadata.name}{"\n"}`, `{range .items[*]}...{end}`).
class JsonPath {
 public:
  /// Throws `tfjob::error` ("error parsing jsonpath ...") for a malformed template.
  explicit JsonPath(std::string tmpl, bool allow_missing = false);
  /// The template executed against `data`; throws `tfjob::error` for a missing field
  /// unless constructed with `allow_missing`.
  std::string execute(const nlohmann::json& data) const;
  /// The values the template's expressions select (for --sort-by and custom-columns).
  std::vector<nlohmann::json> values(const nlohmann::json& data) const;

 private:
  std::string tmpl_;
  bool allow_missing_;
  std::vector<jsonpath_detail::Node> nodes_;
};

/// kubectl's relaxed form for custom-columns and --sort-by: `.a.b` or `{.a.b}` (client-go
/// `RelaxedJSONPathExpression`): braces added when missing, a leading dot optional; a brace
/// inside (`{{.a}`, `{.a`) is refused with kubectl's words, as one path is all it takes.
std::string relaxed_jsonpath(std::string e);

}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
#include <tfjob/kube/impl/jsonpath_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
