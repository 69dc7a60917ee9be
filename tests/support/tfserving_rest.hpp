#pragma once
/// \file TensorFlow Serving's REST API as pure functions: the answers of GetModelStatus and
/// Predict for a model in a given state. Shared by the fake API server's service proxy
/// (fake_tfserving.cpp) and the TF Serving stand-in image of the real-node tier
/// (tests/realnode/tfserving_standin.cpp), so both speak exactly the same API.
/// Shapes follow tensorflow_serving/model_servers/http_rest_api_handler.cc.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tfjob::test {

/// One HTTP answer: status code and JSON body.
struct RestReply {
  int status = 200;
  std::string body;
};

/// A model as the REST API sees it at the moment of a request.
struct ServedModel {
  int version = 1;
  enum class State { loading, available, failed } state = State::available;
  std::string fail_message;                     ///< state failed: the load error
  std::vector<std::pair<int, double>> top;      ///< scripted top classes; empty = hashed from the image
  /// The SavedModel's signature_def map as TF Serving's metadata answer writes it
  /// ({"serving_default": {"inputs": ..., "outputs": ..., "method_name": ...}}); empty =
  /// resnet_signatures(). Predictions follow its serving_default input: DT_STRING takes
  /// {"b64": JPEG}, anything else takes numbers.
  std::string signature_def;
  std::map<std::string, int> labels;            ///< version labels (TF Serving's model config)
  /// Every version served at once (a model config's version policy); empty = {version}.
  /// The latest request goes to the highest.
  std::vector<int> versions;
  /// Per version: its signature_def map when it differs from `signature_def` (a new export).
  std::map<int, std::string> version_signatures;
};

/// One TensorInfo of a signature: {"dtype", "tensor_shape": {"dim": [{"size": "-1", "name": ""}],
/// "unknown_rank": false}, "name"} (sizes are int64, so strings in proto3 JSON).
std::string tensor_info_json(const std::string& dtype, const std::vector<long long>& dims, const std::string& tensor_name);

/// The ResNet-50 SavedModel's signatures (TF's official resnet_v2 export taking JPEG bytes):
/// serving_default takes image_bytes DT_STRING (-1) and gives classes DT_INT64 (-1) and
/// probabilities DT_FLOAT (-1, 1001).
std::string resnet_signatures();

/// The MNIST sample's (samples/mnist/mnist.py export()): images DT_FLOAT (-1, 28, 28) →
/// probabilities DT_FLOAT (-1, 10), classes DT_INT64 (-1).
std::string mnist_signatures();

/// A REST path: `/v1/models/M[/versions/V|/labels/L][/metadata|:VERB]`.
struct ModelPath {
  std::string model;
  std::string verb;   ///< "" (status), "metadata", "predict", "classify", "regress"
  std::string version, label;
};

/// FNV-1a of S: what predictions without scripted classes are derived from.
std::uint32_t tfserving_hash(const std::string& s);

/// Parses a REST path as TF Serving's handler regexes do; nullopt for any other path.
std::optional<ModelPath> parse_model_path(const std::string& path);

/// TF Serving's `{"error": MESSAGE}` answer.
RestReply rest_error(int status, const std::string& message);

/// The "Servable not found for request: Latest(NAME)" answer (404).
RestReply servable_not_found(const std::string& model);

/// One model as TF Serving serves it from its model config file (--model_config_file).
struct ConfiguredModel {
  std::string name, base_path;
  std::vector<int> versions;           ///< on disk and chosen by its version policy, ascending
  std::map<std::string, int> labels;   ///< version labels in force
};

/// What a (re)read of a model config file gives: the models with the versions their policy
/// picks from `on_disk(base_path)`, and the labels. TF Serving refuses a label that names a
/// version not AVAILABLE (server_core.cc UpdateModelVersionLabelMap, unless
/// --allow_version_labels_for_unavailable_models): then the label map of the reload is not
/// taken, `previous` labels stay, and `error` says why. A config that does not parse leaves
/// `models` empty and says so in `error`.
struct ModelConfigLoad {
  std::vector<ConfiguredModel> models;
  std::string error;
};
ModelConfigLoad load_model_config(const std::string& config_text, const std::function<std::vector<int>(const std::string&)>& on_disk,
                                  const std::map<std::string, std::map<std::string, int>>& previous, bool allow_unavailable_labels);

/// The answer to METHOD on PATH (its model is the served one); BODY is the request body.
RestReply model_rest(const std::string& method, const ModelPath& path, const std::string& body, const ServedModel& m);

/// TF Serving's request metrics as its Prometheus endpoint exports them
/// (tensorflow_serving/servables/tensorflow/util.cc: /tensorflow/serving/request_count
/// {model_name, status} and the request_latency sampler {model_name, API, entrypoint} in
/// microseconds, buckets Exponential(10, 1.8, 33); TF's Prometheus exporter writes '/' as
/// ':'). Counts the requests really answered: record() each one.
class RestMetrics {
 public:
  /// A classify/regress/predict answer with HTTP status HTTP_STATUS that took LATENCY_US.
  void record(const ModelPath& path, int http_status, long long latency_us);
  /// The text exposition format (version 0.0.4) of everything recorded.
  std::string prometheus_text() const;
  long long total() const;

 private:
  struct Hist {
    std::vector<long long> buckets;  ///< cumulative counts per upper bound (bounds())
    long long count = 0;
    double sum = 0;
  };
  std::map<std::pair<std::string, std::string>, long long> counts_;            ///< (model, status)
  std::map<std::pair<std::string, std::string>, Hist> latency_;                ///< (model, API)
};

/// Is PATH TF Serving's Prometheus path (monitoring_config.proto's default)?
bool is_prometheus_path(const std::string& path);

}  // namespace tfjob::test
