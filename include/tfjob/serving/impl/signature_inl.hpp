#pragma once
/// \file The bodies of <tfjob/serving/signature.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/signature.hpp>, never this file.

namespace tfjob::serving {

TFJOB_INLINE const TensorSpec* Signature::input(const std::string& k) const {
  for (const auto& t : inputs)
    if (t.key == k) return &t;
  return nullptr;
}

TFJOB_INLINE const Signature* ModelMetadata::find(const std::string& key) const {
  for (const auto& s : signatures)
    if (s.key == key) return &s;
  return nullptr;
}

TFJOB_INLINE std::string ModelMetadata::keys() const {
  std::string s;
  for (const auto& g : signatures) s += (s.empty() ? "" : ", ") + g.key;
  return s.empty() ? "none" : s;
}

TFJOB_INLINE std::string shape_text(const TensorSpec& t) {
  if (!t.shape) return "unknown rank";
  std::string s = "(";
  for (std::size_t i = 0; i < t.shape->size(); ++i) s += (i ? ", " : "") + std::to_string((*t.shape)[i]);
  return s + ")";
}

TFJOB_INLINE std::string describe_input(const Signature& sig, const TensorSpec& t) {
  return "input \"" + t.key + "\" (" + t.dtype + ", shape " + shape_text(t) + ") of signature \"" + sig.key + "\"";
}

namespace detail {

/// The first of `keys` present in `obj` (TF Serving writes snake_case; proto3's JSON
/// mapping, which OpenVINO's TF Serving-compatible server uses, writes lowerCamelCase).
TFJOB_INLINE const nlohmann::json* member(const nlohmann::json& obj, std::initializer_list<const char*> keys) {
  if (!obj.is_object()) return nullptr;
  for (const char* k : keys)
    if (auto it = obj.find(k); it != obj.end() && !it->is_null()) return &*it;
  return nullptr;
}

/// An int64 written as a JSON string ("-1", proto3's JSON mapping) or as a number.
TFJOB_INLINE long long int64_of(const nlohmann::json& v, const std::string& what) {
  if (v.is_number_integer()) return v.get<long long>();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    std::size_t used = 0;
    long long n = 0;
    try {
      n = std::stoll(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == s.size() && !s.empty()) return n;
  }
  throw tfjob::error(what + " is " + v.dump() + ", expected an integer");
}

TFJOB_INLINE std::vector<TensorSpec> tensors_of(const nlohmann::json& sig, const char* snake, const std::string& what) {
  std::vector<TensorSpec> out;
  const nlohmann::json* m = member(sig, {snake});
  if (!m) return out;
  if (!m->is_object()) throw tfjob::error(what + ": " + snake + " is not an object");
  for (const auto& [key, t] : m->items()) {
    const std::string tw = what + " " + std::string(snake).substr(0, std::string(snake).size() - 1) + " \"" + key + "\"";
    if (!t.is_object()) throw tfjob::error(tw + " is not an object");
    TensorSpec s;
    s.key = key;
    if (auto* d = member(t, {"dtype"})) s.dtype = d->is_string() ? d->get<std::string>() : d->dump();
    if (auto* n = member(t, {"name"}); n && n->is_string()) s.tensor_name = n->get<std::string>();
    const nlohmann::json* shape = member(t, {"tensor_shape", "tensorShape"});
    const nlohmann::json* unknown = shape ? member(*shape, {"unknown_rank", "unknownRank"}) : nullptr;
    if (shape && !(unknown && unknown->is_boolean() && unknown->get<bool>())) {
      std::vector<long long> dims;
      if (auto* dim = member(*shape, {"dim"})) {
        if (!dim->is_array()) throw tfjob::error(tw + ": tensor_shape.dim is not a list");
        for (const auto& d : *dim) {
          const nlohmann::json* size = member(d, {"size"});
          dims.push_back(size ? int64_of(*size, tw + ": a dim's size") : 0);  // proto3 omits 0
        }
      }
      s.shape = dims;  // no dim at all: a scalar (rank 0)
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace detail

TFJOB_INLINE ModelMetadata parse_model_metadata(const std::string& body) {
  const std::string what = "TF Serving's model metadata";
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw tfjob::error(what + " is not a JSON object: " + body.substr(0, 200));
  ModelMetadata m;
  if (auto* spec = detail::member(j, {"model_spec", "modelSpec"})) {
    if (auto* n = detail::member(*spec, {"name"}); n && n->is_string()) m.model = n->get<std::string>();
    if (auto* v = detail::member(*spec, {"version"})) m.version = v->is_string() ? v->get<std::string>() : v->dump();
  }
  const nlohmann::json* md = detail::member(j, {"metadata"});
  const nlohmann::json* outer = md ? detail::member(*md, {"signature_def"}) : nullptr;
  const nlohmann::json* defs = outer ? detail::member(*outer, {"signature_def", "signatureDef"}) : nullptr;
  if (!defs || !defs->is_object())
    throw tfjob::error(what + " has no metadata.signature_def.signature_def map: " + body.substr(0, 200));
  for (const auto& [key, s] : defs->items()) {
    const std::string sw = what + ": signature \"" + key + "\"";
    if (!s.is_object()) throw tfjob::error(sw + " is not an object");
    Signature g;
    g.key = key;
    if (auto* mn = detail::member(s, {"method_name", "methodName"}); mn && mn->is_string()) g.method = mn->get<std::string>();
    g.inputs = detail::tensors_of(s, "inputs", sw);
    g.outputs = detail::tensors_of(s, "outputs", sw);
    m.signatures.push_back(std::move(g));
  }
  return m;
}

TFJOB_INLINE const Signature& pick_signature(const ModelMetadata& m, const std::string& key) {
  const std::string k = key.empty() ? default_signature : key;
  if (const Signature* s = m.find(k)) return *s;
  throw tfjob::error("model \"" + m.model + "\"" + (m.version.empty() ? "" : " version " + m.version) +
                     " has no signature \"" + k + "\"; its signatures: " + m.keys());
}

namespace detail {

/// What a JSON value holds, for an error message.
TFJOB_INLINE std::string value_kind(const nlohmann::json& v) {
  if (v.is_object()) return v.contains("b64") ? "a {\"b64\": ...} binary" : "an object";
  if (v.is_array()) return "a list";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  return "null";
}

/// Whether a scalar suits a dtype as TF Serving's JSON decoder takes it (json_tensor.cc:
/// strings and {"b64"} for DT_STRING, numbers for floating types, integers for integer
/// types, true/false for DT_BOOL).
TFJOB_INLINE bool scalar_fits(const std::string& dtype, const nlohmann::json& v) {
  if (dtype == "DT_STRING") return v.is_string() || (v.is_object() && v.size() == 1 && v.contains("b64") && v["b64"].is_string());
  if (dtype == "DT_BOOL") return v.is_boolean();
  if (dtype == "DT_FLOAT" || dtype == "DT_DOUBLE" || dtype == "DT_HALF" || dtype == "DT_BFLOAT16") return v.is_number();
  if (dtype.rfind("DT_INT", 0) == 0 || dtype.rfind("DT_UINT", 0) == 0) return v.is_number_integer();
  return true;  // a dtype this check does not know: TF Serving judges it
}

/// The rank of a JSON value as TF Serving's decoder sees it: nested lists, following the
/// first element ({"b64": ...} and other non-lists are scalars).
TFJOB_INLINE std::size_t rank_of(const nlohmann::json& v) {
  std::size_t r = 0;
  for (const nlohmann::json* cur = &v; cur->is_array(); cur = &(*cur)[0]) {
    ++r;
    if (cur->empty()) break;
  }
  return r;
}

TFJOB_INLINE std::string plural(std::size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

/// Checks one value against `dims` (the dims it must have, outermost first): its rank first,
/// then each fixed size and each scalar's dtype. Returns "" or what is wrong; `where` says
/// which value ("instance 0").
TFJOB_INLINE std::string check_value(const nlohmann::json& v, const std::string& dtype, const std::vector<long long>& dims,
                                     const std::string& where) {
  if (std::size_t r = rank_of(v); r != dims.size()) {
    if (r == 0)  // a scalar where a tensor is expected: say what it holds (an image's {"b64"} for a float input)
      return where + " is " + value_kind(v) + " where " + plural(dims.size(), "dimension") + " of " + dtype + " are expected";
    return where + " has " + plural(r, "dimension") + " where " + std::to_string(dims.size()) + " are expected";
  }
  // depth-first over the (possibly ragged) nesting
  struct Walk {
    const std::string& dtype;
    const std::vector<long long>& dims;
    const std::string& where;
    std::string operator()(const nlohmann::json& x, std::size_t depth) const {
      if (depth == dims.size()) {
        if (x.is_array()) return where + " is ragged: it nests deeper than " + plural(dims.size(), "dimension");
        if (!scalar_fits(dtype, x)) return where + " holds " + value_kind(x) + " where " + dtype + " is expected";
        return {};
      }
      if (!x.is_array()) return where + " is ragged: a value stops at dimension " + std::to_string(depth) + " of " + std::to_string(dims.size());
      if (dims[depth] >= 0 && x.size() != static_cast<std::size_t>(dims[depth]))
        return where + " has " + plural(x.size(), "element") + " in dimension " + std::to_string(depth) + " where " +
               std::to_string(dims[depth]) + " are expected";
      for (const auto& e : x)
        if (auto err = (*this)(e, depth + 1); !err.empty()) return err;
      return {};
    }
  };
  return Walk{dtype, dims, where}(v, 0);
}

}  // namespace detail

TFJOB_INLINE void check_request(const Signature& sig, const nlohmann::json& body) {
  auto fail = [&](const TensorSpec* t, const std::string& what) {
    std::string expect = "signature \"" + sig.key + "\" takes ";
    for (std::size_t i = 0; i < sig.inputs.size(); ++i)
      expect += (i ? ", " : "") + ("\"" + sig.inputs[i].key + "\" (" + sig.inputs[i].dtype + ", shape " + shape_text(sig.inputs[i]) + ")");
    throw tfjob::error("the request does not fit the model: " + what + (t ? " (" + describe_input(sig, *t) + ")" : "") +
                       "; " + expect);
  };
  if (sig.inputs.empty()) return;  // nothing to check against
  const bool rows = body.contains("instances");
  const nlohmann::json& data = rows ? body["instances"] : body.contains("inputs") ? body["inputs"] : nlohmann::json();
  if (data.is_null()) fail(nullptr, "it has neither \"instances\" nor \"inputs\"");
  // The dims each value must have: the row format drops the batch dimension.
  auto dims_of = [&](const TensorSpec& t) -> std::optional<std::vector<long long>> {
    if (!t.shape) return std::nullopt;
    std::vector<long long> d = *t.shape;
    if (rows) {
      if (d.empty()) return d;  // a scalar input in row format: TF Serving batches scalars as is
      d.erase(d.begin());
    }
    return d;
  };
  auto check_named = [&](const nlohmann::json& obj, const std::string& where) {
    for (const auto& t : sig.inputs) {
      if (!obj.contains(t.key)) fail(&t, where + " has no input \"" + t.key + "\"");
      if (auto d = dims_of(t))
        if (auto err = detail::check_value(obj[t.key], t.dtype, *d, where + "'s \"" + t.key + "\""); !err.empty()) fail(&t, err);
    }
    for (const auto& [k, v] : obj.items())
      if (!sig.input(k)) fail(nullptr, where + " names input \"" + k + "\", which the signature does not have");
  };
  // One input may be given bare; several must be named (json_tensor.cc).
  const bool single = sig.inputs.size() == 1;
  auto is_named = [&](const nlohmann::json& v) { return v.is_object() && !(v.size() == 1 && v.contains("b64")); };
  if (rows) {
    if (!data.is_array()) fail(nullptr, "\"instances\" is " + detail::value_kind(data) + ", expected a list");
    if (data.empty()) fail(nullptr, "\"instances\" is empty");
    for (std::size_t i = 0; i < data.size(); ++i) {
      const std::string where = "instance " + std::to_string(i);
      if (is_named(data[i])) check_named(data[i], where);
      else if (!single) fail(nullptr, where + " is " + detail::value_kind(data[i]) + ", expected an object naming each input");
      else if (auto d = dims_of(sig.inputs[0]))
        if (auto err = detail::check_value(data[i], sig.inputs[0].dtype, *d, where); !err.empty()) fail(&sig.inputs[0], err);
    }
  } else {
    if (is_named(data)) check_named(data, "\"inputs\"");
    else if (!single) fail(nullptr, "\"inputs\" is " + detail::value_kind(data) + ", expected an object naming each input");
    else if (auto d = dims_of(sig.inputs[0]))
      if (auto err = detail::check_value(data, sig.inputs[0].dtype, *d, "\"inputs\""); !err.empty()) fail(&sig.inputs[0], err);
  }
}

TFJOB_INLINE std::string model_rest_path(const std::string& model, const std::string& version, const std::string& label) {
  if (!version.empty() && !label.empty()) throw tfjob::error("give a model version or a version label, not both");
  return "/v1/models/" + model + (!version.empty() ? "/versions/" + version : !label.empty() ? "/labels/" + label : "");
}

TFJOB_INLINE void validate_version(const std::string& v) {
  if (v.empty()) return;
  if (v.find_first_not_of("0123456789") != std::string::npos || v.size() > 18)
    throw tfjob::error("version \"" + v + "\" is not a number: TF Serving's model versions are the numeric directory names (1, 2, ...)");
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const TensorSpec& t) {
  j = {{"name", t.key}, {"dtype", t.dtype}, {"shape", t.shape ? nlohmann::json(*t.shape) : nlohmann::json()},
       {"tensorName", t.tensor_name}};
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Signature& s) {
  j = {{"name", s.key}, {"method", s.method}, {"inputs", s.inputs}, {"outputs", s.outputs}};
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ModelMetadata& m) {
  j = {{"model", m.model}, {"version", m.version}, {"signatures", m.signatures}};
}

}  // namespace tfjob::serving
