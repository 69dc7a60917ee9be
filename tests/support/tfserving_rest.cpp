// TF Serving's REST answers as pure functions (see tfserving_rest.hpp). GetModelStatus
// answers {"model_version_status":[{"version","state","status":{"error_code","error_message"}}]},
// errors are {"error": "..."}, Predict takes {"instances": [...]} with {"b64": ...} binaries
// and answers {"predictions": [...]} (tensorflow_serving/model_servers/http_rest_api_handler.cc).
#include "support/tfserving_rest.hpp"

#include <tfjob/kube/detail/util.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>

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

std::optional<std::pair<std::string, std::string>> parse_model_path(const std::string& path) {
  const std::string prefix = "/v1/models/";
  if (path.rfind(prefix, 0) != 0) return std::nullopt;
  std::string rest = path.substr(prefix.size());
  std::string verb;
  if (auto colon = rest.find(':'); colon != std::string::npos) {
    verb = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
  }
  if (auto v = rest.find("/versions/"); v != std::string::npos) rest = rest.substr(0, v);
  if (rest.empty() || rest.find('/') != std::string::npos) return std::nullopt;
  return std::make_pair(rest, verb);
}

RestReply model_rest(const std::string& method, const std::string& model, const std::string& verb,
                     const std::string& body_text, const ServedModel& m) {
  const bool loading = m.state == ServedModel::State::loading;
  const bool failed = m.state == ServedModel::State::failed;
  if (verb.empty() && method == "GET") {
    json vs;
    if (loading) vs = version_status(m.version, "LOADING");
    else if (failed) vs = version_status(m.version, "END", "UNKNOWN", m.fail_message);
    else vs = version_status(m.version, "AVAILABLE");
    return {200, json{{"model_version_status", json::array({vs})}}.dump()};
  }
  if (verb == "predict" && method == "POST") {
    if (loading || failed) return servable_not_found(model);
    auto body = json::parse(body_text, nullptr, false);
    if (body.is_discarded()) return rest_error(400, "JSON Parse error: Invalid value. at offset: 0");
    if (!body.is_object() || !body.contains("instances") || !body["instances"].is_array())
      return rest_error(400, "Missing 'inputs' or 'instances' key");
    json preds = json::array();
    for (const auto& inst : body["instances"]) {
      if (inst.is_object() && inst.contains("b64")) {
        auto bytes = tfjob::kube::detail::base64_decode(inst["b64"].get<std::string>());
        if (!bytes) return rest_error(400, "Unable to base64 decode");
        if (bytes->size() < 3 || static_cast<unsigned char>((*bytes)[0]) != 0xFF || static_cast<unsigned char>((*bytes)[1]) != 0xD8)
          return rest_error(400, "Invalid JPEG data or crop window, data size " + std::to_string(bytes->size()) +
                                     "\n\t [[{{node map/while/DecodeJpeg}}]]");
        json probs = softmax_1001(*bytes, m.top);
        int best = 0;
        for (int i = 1; i < 1001; ++i)
          if (probs[i].get<double>() > probs[best].get<double>()) best = i;
        preds.push_back({{"classes", best}, {"probabilities", probs}});
      } else if (inst.is_array() || (inst.is_object() && inst.contains("images"))) {  // a numeric tensor (MNIST)
        json probs = json::array();
        std::uint32_t h = fnv(inst.dump());
        for (int i = 0; i < 10; ++i) probs.push_back(i == static_cast<int>(h % 10) ? 0.91 : 0.01);
        preds.push_back({{"classes", static_cast<int>(h % 10)}, {"probabilities", probs}});
      } else {
        return rest_error(400, "Failed to process element: 0 of 'instances' list. Error: Invalid argument: "
                               "JSON object: does not have named input: image_bytes");
      }
    }
    return {200, json{{"predictions", preds}}.dump()};
  }
  return rest_error(404, "Malformed request: " + method + " /v1/models/" + model + (verb.empty() ? "" : ":" + verb));
}

}  // namespace tfjob::test
