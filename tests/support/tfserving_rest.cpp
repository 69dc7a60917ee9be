// TF Serving's REST answers as pure functions (see tfserving_rest.hpp). GetModelStatus
// answers {"model_version_status":[{"version","state","status":{"error_code","error_message"}}]},
// errors are {"error": "..."}, Predict takes {"instances": [...]} with {"b64": ...} binaries
// and answers {"predictions": [...]}; GetModelMetadata answers {"model_spec", "metadata":
// {"signature_def": {"signature_def": {KEY: SignatureDef}}}} (tensorflow_serving/model_servers/
// http_rest_api_handler.cc, get_model_metadata.proto).
#include "support/tfserving_rest.hpp"

#include <tfjob/kube/detail/util.hpp>
#include <tfjob/serving/model_config.hpp>
#include <tfjob/serving/model_config_text.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <regex>

namespace tfjob::test {

using nlohmann::json;

namespace {

std::uint32_t fnv(const std::string& s) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

/// A model status entry.
json version_status(int version, const std::string& state, const std::string& code = "OK", const std::string& msg = "") {
  return {{"version", std::to_string(version)}, {"state", state}, {"status", {{"error_code", code}, {"error_message", msg}}}};
}

/// 1001 probabilities: the scripted (or hashed) top classes, the rest share the remainder.
json softmax_1001(const std::string& bytes, const std::vector<std::pair<int, double>>& scripted) {
  std::vector<std::pair<int, double>> top = scripted;
  if (top.empty()) {
    std::uint32_t h = fnv(bytes);
    top = {{1 + static_cast<int>(h % 1000), 0.55}, {1 + static_cast<int>((h / 1000) % 1000), 0.2}};
    if (top[1].first == top[0].first) top.pop_back();
  }
  std::vector<double> p(1001, 0.0);
  double used = 0;
  for (const auto& [i, v] : top) {
    p[i] = v;
    used += v;
  }
  double rest = std::max(0.0, 1.0 - used) / static_cast<double>(1001 - top.size());
  std::uint32_t h = fnv(bytes);
  for (int i = 0; i < 1001; ++i) {
    bool is_top = false;
    for (const auto& t : top) is_top |= t.first == i;
    if (!is_top) p[i] = rest * (0.5 + ((h ^ static_cast<std::uint32_t>(i * 2654435761u)) % 1000) / 1000.0);
  }
  return p;
}

}  // namespace

std::uint32_t tfserving_hash(const std::string& s) { return fnv(s); }

RestReply rest_error(int status, const std::string& message) { return {status, json{{"error", message}}.dump()}; }

RestReply servable_not_found(const std::string& model) {
  return rest_error(404, "Servable not found for request: Latest(" + model + ")");
}

std::string tensor_info_json(const std::string& dtype, const std::vector<long long>& dims, const std::string& tensor_name) {
  json d = json::array();
  for (long long n : dims) d.push_back({{"size", std::to_string(n)}, {"name", ""}});
  return json{{"dtype", dtype}, {"tensor_shape", {{"dim", d}, {"unknown_rank", false}}}, {"name", tensor_name}}.dump();
}

std::string resnet_signatures() {
  json sig = {{"inputs", {{"image_bytes", json::parse(tensor_info_json("DT_STRING", {-1}, "input_tensor:0"))}}},
              {"outputs",
               {{"classes", json::parse(tensor_info_json("DT_INT64", {-1}, "ArgMax:0"))},
                {"probabilities", json::parse(tensor_info_json("DT_FLOAT", {-1, 1001}, "softmax_tensor:0"))}}},
              {"method_name", "tensorflow/serving/predict"}};
  return json{{"serving_default", sig}, {"predict", sig}}.dump();
}

std::string mnist_signatures() {
  json sig = {{"inputs", {{"images", json::parse(tensor_info_json("DT_FLOAT", {-1, 28, 28}, "serving_default_images:0"))}}},
              {"outputs",
               {{"classes", json::parse(tensor_info_json("DT_INT64", {-1}, "StatefulPartitionedCall:0"))},
                {"probabilities", json::parse(tensor_info_json("DT_FLOAT", {-1, 10}, "StatefulPartitionedCall:1"))}}},
              {"method_name", "tensorflow/serving/predict"}};
  return json{{"serving_default", sig}}.dump();
}

// http_rest_api_handler.cc: prediction_api_regex_
// "/v1/models/([^/:]+)(?:(?:/versions/(\d+))|(?:/labels/([^/:]+)))?:(classify|regress|predict)" and
// modelstatus_api_regex_ "/v1/models/([^/:]+)(?:(?:/versions/(\d+))|(?:/labels/([^/:]+)))?(?:/(metadata))?".
std::optional<ModelPath> parse_model_path(const std::string& path) {
  static const std::regex re(R"(/v1/models/([^/:]+)(?:(?:/versions/(\d+))|(?:/labels/([^/:]+)))?(?:(?::(classify|regress|predict))|(?:/(metadata)))?)",
                             std::regex::icase);
  std::smatch m;
  if (!std::regex_match(path, m, re)) return std::nullopt;
  ModelPath p;
  p.model = m[1];
  p.version = m[2];
  p.label = m[3];
  p.verb = m[4].matched ? std::string(m[4]) : m[5].matched ? std::string(m[5]) : std::string();
  for (auto& ch : p.verb) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return p;
}

ModelConfigLoad load_model_config(const std::string& config_text, const std::function<std::vector<int>(const std::string&)>& on_disk,
                                  const std::map<std::string, std::map<std::string, int>>& previous, bool allow_unavailable_labels) {
  ModelConfigLoad out;
  tfjob::serving::ModelServerConfig cfg;
  try {
    cfg = tfjob::serving::parse_model_config(config_text);
  } catch (const std::exception& e) {
    out.error = std::string("Invalid protobuf file: ") + e.what();
    return out;
  }
  bool labels_ok = true;
  for (const auto& m : cfg.models) {
    ConfiguredModel c;
    c.name = m.name;
    c.base_path = m.base_path;
    std::vector<std::int64_t> disk;
    for (int v : on_disk(m.base_path)) disk.push_back(v);
    for (auto v : m.policy.select(disk)) c.versions.push_back(static_cast<int>(v));
    for (const auto& [label, v] : m.labels) {
      const bool available = std::find(c.versions.begin(), c.versions.end(), v) != c.versions.end();
      if (!available && !allow_unavailable_labels) {
        labels_ok = false;
        out.error = "Request to assign label to version " + std::to_string(v) + " of model " + m.name +
                    ", which is not currently available for inference.";
      }
      if (v >= 0 && v <= 0x7fffffff) c.labels[label] = static_cast<int>(v);
    }
    out.models.push_back(std::move(c));
  }
  if (!labels_ok)
    for (auto& c : out.models) {
      auto it = previous.find(c.name);
      c.labels = it == previous.end() ? std::map<std::string, int>{} : it->second;
    }
  return out;
}

RestReply model_rest(const std::string& method, const ModelPath& path, const std::string& body_text, const ServedModel& m) {
  const std::string& model = path.model;
  const bool loading = m.state == ServedModel::State::loading;
  const bool failed = m.state == ServedModel::State::failed;
  // A label names a version through the model config (server_core.cc: "Unrecognized servable
  // version label"); a version that is not served is "not found".
  std::string version = path.version;
  if (!path.label.empty()) {
    auto it = m.labels.find(path.label);
    if (it == m.labels.end()) return rest_error(400, "Unrecognized servable version label: " + path.label);
    version = std::to_string(it->second);
  }
  std::vector<int> served = m.versions.empty() ? std::vector<int>{m.version} : m.versions;
  std::sort(served.begin(), served.end());
  int answering = served.back();  // the latest, or the version asked for
  bool other_version = false;
  if (!version.empty()) {
    other_version = true;
    for (int v : served)
      if (std::to_string(v) == version) other_version = false, answering = v;
  }
  auto sig_it = m.version_signatures.find(answering);
  const std::string& sig_text = sig_it != m.version_signatures.end() ? sig_it->second : m.signature_def;
  const json signatures = json::parse(sig_text.empty() ? resnet_signatures() : sig_text);
  if (path.verb.empty() && method == "GET") {
    if (other_version) return rest_error(404, "Could not find version " + version + " of model " + model);
    // get_model_status.proto: every version of the model, or the one asked for
    json all = json::array();
    for (int v : served) {
      if (!version.empty() && v != answering) continue;
      if (loading) all.push_back(version_status(v, "LOADING"));
      else if (failed) all.push_back(version_status(v, "END", "UNKNOWN", m.fail_message));
      else all.push_back(version_status(v, "AVAILABLE"));
    }
    return {200, json{{"model_version_status", all}}.dump()};
  }
  auto not_found = [&] {
    return version.empty() ? servable_not_found(model)
                           : rest_error(404, "Servable not found for request: Specific(" + model + ", " + version + ")");
  };
  if (path.verb == "metadata" && method == "GET") {
    if (loading || failed || other_version) return not_found();
    return {200, json{{"model_spec", {{"name", model}, {"signature_name", ""}, {"version", std::to_string(answering)}}},
                      {"metadata", {{"signature_def", {{"signature_def", signatures}}}}}}
                     .dump()};
  }
  if (path.verb == "predict" && method == "POST") {
    if (loading || failed || other_version) return not_found();
    auto body = json::parse(body_text, nullptr, false);
    if (body.is_discarded()) return rest_error(400, "JSON Parse error: Invalid value. at offset: 0");
    if (!body.is_object() || !body.contains("instances") || !body["instances"].is_array())
      return rest_error(400, "Missing 'inputs' or 'instances' key");
    // predict_util.cc: the request's signature_name, default serving_default.
    const std::string key = body.value("signature_name", std::string("serving_default"));
    if (!signatures.contains(key)) return rest_error(400, "Serving signature key \"" + key + "\" not found.");
    const json& sig = signatures[key];
    std::string input = "inputs", dtype = "DT_STRING";
    if (sig.contains("inputs") && !sig["inputs"].empty()) {
      input = sig["inputs"].begin().key();
      dtype = sig["inputs"].begin().value().value("dtype", "DT_STRING");
    }
    std::size_t classes = 1001;  // the probabilities output's last dim, when known
    if (sig.contains("outputs") && sig["outputs"].contains("probabilities")) {
      auto dims = sig["outputs"]["probabilities"]["tensor_shape"].value("dim", json::array());
      if (!dims.empty()) classes = std::stoul(dims.back().value("size", "1001"));
    }
    json preds = json::array();
    for (const auto& inst : body["instances"]) {
      json value = inst.is_object() && inst.contains(input) ? inst[input] : inst;
      const bool named_missing = inst.is_object() && !inst.contains(input) && !(dtype == "DT_STRING" && inst.contains("b64"));
      if (named_missing)
        return rest_error(400, "Failed to process element: 0 of 'instances' list. Error: Invalid argument: "
                               "JSON object: does not have named input: " + input);
      if (dtype == "DT_STRING") {
        if (!value.is_object() || !value.contains("b64") || !value["b64"].is_string())
          return rest_error(400, "Failed to process element: 0 of 'instances' list. Error: Invalid argument: "
                                 "JSON Value: " + value.dump().substr(0, 60) + " not formatted correctly for base64 data");
        auto bytes = tfjob::kube::detail::base64_decode(value["b64"].get<std::string>());
        if (!bytes) return rest_error(400, "Unable to base64 decode");
        if (bytes->size() < 3 || static_cast<unsigned char>((*bytes)[0]) != 0xFF || static_cast<unsigned char>((*bytes)[1]) != 0xD8)
          return rest_error(400, "Invalid JPEG data or crop window, data size " + std::to_string(bytes->size()) +
                                     "\n\t [[{{node map/while/DecodeJpeg}}]]");
        json probs = softmax_1001(*bytes, m.top);
        int best = 0;
        for (int i = 1; i < 1001; ++i)
          if (probs[i].get<double>() > probs[best].get<double>()) best = i;
        preds.push_back({{"classes", best}, {"probabilities", probs}});
      } else if (value.is_array()) {  // a numeric tensor (MNIST)
        json probs = json::array();
        std::uint32_t h = fnv(value.dump());
        const std::size_t best = h % classes;
        for (std::size_t i = 0; i < classes; ++i) probs.push_back(i == best ? 0.91 : 0.09 / double(classes - 1));
        preds.push_back({{"classes", best}, {"probabilities", probs}});
      } else {
        return rest_error(400, "Failed to process element: 0 of 'instances' list. Error: Invalid argument: "
                               "JSON Value: " + value.dump().substr(0, 60) + " Type: " + (value.is_string() ? "String" : "Object") +
                               " is not of expected type: float");
      }
    }
    return {200, json{{"predictions", preds}}.dump()};
  }
  return rest_error(404, "Malformed request: " + method + " /v1/models/" + model + (path.verb.empty() ? "" : ":" + path.verb));
}

namespace {

/// Exponential(10, 1.8, 33): the request_latency sampler's bucket bounds (util.cc).
const std::vector<double>& latency_bounds() {
  static const std::vector<double> b = [] {
    std::vector<double> v;
    double x = 10;
    for (int i = 0; i < 33; ++i, x *= 1.8) v.push_back(x);
    return v;
  }();
  return b;
}

/// tensorflow/core/protobuf/error_codes.proto names for the HTTP status TF Serving gave.
std::string code_name(int http_status) {
  switch (http_status) {
    case 200: return "OK";
    case 400: return "INVALID_ARGUMENT";
    case 404: return "NOT_FOUND";
    case 503: return "UNAVAILABLE";
    default: return "UNKNOWN";
  }
}

std::string api_name(const std::string& verb) {
  if (verb == "classify") return "Classify";
  if (verb == "regress") return "Regress";
  return "Predict";
}

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

void RestMetrics::record(const ModelPath& path, int http_status, long long latency_us) {
  if (path.verb != "predict" && path.verb != "classify" && path.verb != "regress") return;
  ++counts_[{path.model, code_name(http_status)}];
  auto& h = latency_[{path.model, api_name(path.verb)}];
  const auto& bounds = latency_bounds();
  if (h.buckets.empty()) h.buckets.assign(bounds.size(), 0);
  for (std::size_t i = 0; i < bounds.size(); ++i)
    if (static_cast<double>(latency_us) <= bounds[i]) ++h.buckets[i];
  ++h.count;
  h.sum += static_cast<double>(latency_us);
}

long long RestMetrics::total() const {
  long long n = 0;
  for (const auto& [k, v] : counts_) n += v;
  return n;
}

std::string RestMetrics::prometheus_text() const {
  std::string t;
  t += "# TYPE :tensorflow:serving:request_count counter\n";
  for (const auto& [k, v] : counts_)
    t += ":tensorflow:serving:request_count{model_name=\"" + k.first + "\",status=\"" + k.second + "\"} " + std::to_string(v) + "\n";
  t += "# TYPE :tensorflow:serving:request_latency histogram\n";
  const auto& bounds = latency_bounds();
  for (const auto& [k, h] : latency_) {
    const std::string labels = "model_name=\"" + k.first + "\",API=\"" + k.second + "\",entrypoint=\"REST\"";
    for (std::size_t i = 0; i < bounds.size(); ++i)
      t += ":tensorflow:serving:request_latency_bucket{" + labels + ",le=\"" + num(bounds[i]) + "\"} " + std::to_string(h.buckets[i]) + "\n";
    t += ":tensorflow:serving:request_latency_bucket{" + labels + ",le=\"+Inf\"} " + std::to_string(h.count) + "\n";
    t += ":tensorflow:serving:request_latency_sum{" + labels + "} " + num(h.sum) + "\n";
    t += ":tensorflow:serving:request_latency_count{" + labels + "} " + std::to_string(h.count) + "\n";
  }
  return t;
}

bool is_prometheus_path(const std::string& path) { return path == "/monitoring/prometheus/metrics"; }

}  // namespace tfjob::test
