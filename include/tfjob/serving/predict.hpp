#pragma once
/// \file Predictions through the service proxy: the model's signatures from its metadata,
/// the request checked against one of them before anything is sent, then TF Serving's
/// `:predict`, with its refusals worded (not ready, not loaded, failed, its own message).

#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/serving/proxy.hpp>
#include <tfjob/serving/signature.hpp>
#include <tfjob/serving/status.hpp>
#include <tfjob/serving/wait.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace tfjob::serving {

/// A prediction request's outcome.
struct PredictResult {
  nlohmann::json response;  ///< TF Serving's JSON
  std::string signature;    ///< the signature the request was checked against ("" when not checked)
};

/// Which version of a model a request is for: the latest (both empty), a version number or
/// a version label (TF Serving's /versions/N and /labels/L paths).
struct ModelRef {
  std::string version, label;
};

namespace detail {

/// Why a request to TF Serving (answer `a` to `what`) did not succeed, as a tfjob::error:
/// the proxy could not reach a pod, the model is still loading, it failed to load, or TF
/// Serving's own message.
[[noreturn]] void throw_for_answer(kube::Client& c, const std::string& ns, const std::string& service,
                                   const std::string& model, const ProxyAnswer& a, const std::string& what);

}  // namespace detail

/// GET /v1/models/MODEL[/versions/V|/labels/L]/metadata through the proxy: the signatures
/// of the version that answers (the latest AVAILABLE one when `ref` is empty).
ModelMetadata get_model_metadata(kube::Client& c, const std::string& ns, const std::string& service,
                                 const std::string& model, const ModelRef& ref = {});

/// How predict picks and checks its signature.
struct PredictTarget {
  std::string model;      ///< "" = the server's (first) model; a server with a model config serves several
  ModelRef ref;
  std::string signature;  ///< "" = serving_default
  bool check = true;      ///< check the body against the signature before sending
};

/// POST /v1/models/MODEL[/versions/V|/labels/L]:predict through the proxy, after checking
/// the body against the signature from the model's metadata (a missing input, a wrong rank,
/// size or dtype is an error naming what the signature takes, and nothing is sent).
/// Throws tfjob::error with a clear message: service not found, model not loaded yet, TF
/// Serving's own error message.
PredictResult predict(kube::Client& c, const std::string& ns, const std::string& service, nlohmann::json body,
                      const PredictTarget& t = {});

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
#include <tfjob/serving/impl/predict_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
