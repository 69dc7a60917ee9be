#pragma once
/// \file A served model's contract, as pure functions: TF Serving's answer to
/// `GET /v1/models/M[/versions/V|/labels/L]/metadata` (a JSON GetModelMetadataResponse:
/// model_spec{name, signature_name, version} and metadata.signature_def.signature_def{KEY:
/// {inputs, outputs, method_name}}, each tensor {dtype "DT_FLOAT", tensor_shape{dim[{size
/// "-1"}], unknown_rank}, name}; tensorflow_serving/apis/get_model_metadata.proto, api_rest.md)
/// parsed into typed structs, and a predict request checked against a signature before it
/// is sent (tensorflow_serving/util/json_tensor.cc: the row format's "instances" drop the
/// batch dimension, the columnar "inputs" keep it; one input may be given bare, several by name).

#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <initializer_list>  // member()'s key list
#include <optional>
#include <stdexcept>  // std::stoll's errors
#include <string>
#include <vector>

namespace tfjob::serving {

/// One input or output of a signature.
struct TensorSpec {
  std::string key;          ///< the signature's name for it ("image_bytes")
  std::string dtype;        ///< "DT_FLOAT", "DT_STRING", ...
  std::optional<std::vector<long long>> shape;  ///< dims, -1 = unknown size; nullopt = unknown rank
  std::string tensor_name;  ///< the graph tensor ("serving_default_image_bytes:0")
};

/// One SignatureDef.
struct Signature {
  std::string key;     ///< "serving_default"
  std::string method;  ///< "tensorflow/serving/predict"
  std::vector<TensorSpec> inputs, outputs;
  const TensorSpec* input(const std::string& k) const;
};

/// TF Serving's default signature key (tensorflow/python/saved_model/signature_constants.py).
inline constexpr const char* default_signature = "serving_default";

/// The model's metadata: which version answered and its signatures (sorted by key, as the
/// proto map prints).
struct ModelMetadata {
  std::string model, version;
  std::vector<Signature> signatures;
  const Signature* find(const std::string& key) const;
  /// "predict, serving_default".
  std::string keys() const;
};

/// "(-1, 28, 28)" as saved_model_cli prints a shape; "unknown rank" when it is not known.
std::string shape_text(const TensorSpec& t);

/// "input \"x\" (DT_FLOAT, shape (-1, 28, 28)) of signature \"serving_default\"".
std::string describe_input(const Signature& sig, const TensorSpec& t);

/// Parses TF Serving's metadata answer; throws tfjob::error saying what is not as expected.
ModelMetadata parse_model_metadata(const std::string& body);

/// The signature a request uses: `key`, or serving_default when `key` is empty. Throws
/// tfjob::error naming the signatures the model has.
const Signature& pick_signature(const ModelMetadata& m, const std::string& key);

/// Checks a predict body ({"instances": [...]} or {"inputs": ...}) against `sig` before it
/// is sent. Throws tfjob::error naming the signature's expectation: a missing input, a
/// value of the wrong rank, size or dtype, an input the signature does not have.
void check_request(const Signature& sig, const nlohmann::json& body);

/// `/v1/models/M`, `/v1/models/M/versions/V` or `/v1/models/M/labels/L` (api_rest.md).
std::string model_rest_path(const std::string& model, const std::string& version = {}, const std::string& label = {});

/// Checks a version given by a user: TF Serving's versions are int64 ("Servable version" in
/// the REST path regex `/versions/(\d+)`, http_rest_api_handler.cc).
void validate_version(const std::string& v);

}  // namespace tfjob::serving

namespace tfjob::serving {

/// {"name", "dtype", "shape": [-1, 28, 28] | null (unknown rank), "tensorName"}.
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const TensorSpec& t);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Signature& s);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ModelMetadata& m);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
#include <tfjob/serving/impl/signature_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
