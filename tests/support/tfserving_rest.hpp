#pragma once
/// \file TensorFlow Serving's REST API as pure functions: the answers of GetModelStatus and
/// Predict for a model in a given state. Shared by the fake API server's service proxy
/// (fake_tfserving.cpp) and the TF Serving stand-in image of the real-node tier
/// (tests/realnode/tfserving_standin.cpp), so both speak exactly the same API.
/// Shapes follow tensorflow_serving/model_servers/http_rest_api_handler.cc.
#include <cstdint>
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
};

/// FNV-1a of S: what predictions without scripted classes are derived from.
std::uint32_t tfserving_hash(const std::string& s);

/// `/v1/models/NAME[/versions/N][:VERB]` → {NAME, VERB}; nullopt for any other path.
std::optional<std::pair<std::string, std::string>> parse_model_path(const std::string& path);

/// TF Serving's `{"error": MESSAGE}` answer.
RestReply rest_error(int status, const std::string& message);

/// The "Servable not found for request: Latest(NAME)" answer (404).
RestReply servable_not_found(const std::string& model);

/// The answer to METHOD on model MODEL with VERB ("" = status, "predict"); BODY is the request body.
RestReply model_rest(const std::string& method, const std::string& model, const std::string& verb,
                     const std::string& body, const ServedModel& m);

}  // namespace tfjob::test
