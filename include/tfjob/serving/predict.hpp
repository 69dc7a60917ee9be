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
namespace tfjob::serving {

namespace detail {

TFJOB_INLINE void throw_for_answer(kube::Client& c, const std::string& ns, const std::string& service,
                                   const std::string& model, const ProxyAnswer& a, const std::string& what) {
  if (a.from_apiserver())
    throw tfjob::error("cannot reach TF Serving behind service \"" + service + "\" (" + std::to_string(a.status) + ": " +
                       a.apiserver_message() + "): its pods are not ready yet; wait for its rollout (" + setting::wait_rollout + " " + service +
                       ") or check `kubectl get pods -l " + keys::instance + "=" + service + "`");
  // Not loaded yet, or a model error: the model status tells which.
  std::string tf_err = tf_serving_error(a.body);
  ModelProbe p;
  try {
    p = probe_model(c, ns, service, model);
  } catch (const std::exception&) {
    p.kind = ModelProbe::Kind::unreachable;
  }
  if (p.kind == ModelProbe::Kind::loading || p.kind == ModelProbe::Kind::no_version)
    throw tfjob::error("model \"" + model + "\" is not loaded yet (" + p.message + "); wait until it is AVAILABLE (" + setting::wait_rollout + " " +
                       service + "), then retry");
  if (p.kind == ModelProbe::Kind::failed) throw tfjob::error(p.message);
  throw tfjob::error("TF Serving rejected " + what + " (HTTP " + std::to_string(a.status) + "): " +
                     (tf_err.empty() ? a.body.substr(0, 500) : tf_err));
}

}  // namespace detail

TFJOB_INLINE ModelMetadata get_model_metadata(kube::Client& c, const std::string& ns, const std::string& service,
                                              const std::string& model, const ModelRef& ref) {
  validate_version(ref.version);
  auto a = proxy_call(c, ns, service, "GET", model_rest_path(model, ref.version, ref.label) + "/metadata");
  if (a.status != 200) detail::throw_for_answer(c, ns, service, model, a, "the metadata request");
  ModelMetadata m = parse_model_metadata(a.body);
  if (m.model.empty()) m.model = model;
  return m;
}

TFJOB_INLINE PredictResult predict(kube::Client& c, const std::string& ns, const std::string& service, nlohmann::json body,
                                   const PredictTarget& t) {
  const std::string model = t.model.empty() ? served_model(c, ns, service) : t.model;
  validate_version(t.ref.version);
  PredictResult r;
  if (t.check) {
    const ModelMetadata meta = get_model_metadata(c, ns, service, model, t.ref);
    const Signature& sig = pick_signature(meta, t.signature);
    check_request(sig, body);
    r.signature = sig.key;
  }
  if (!t.signature.empty() && body.is_object()) body["signature_name"] = t.signature;  // api_rest.md: the request's signature_name
  auto a = proxy_call(c, ns, service, "POST", model_rest_path(model, t.ref.version, t.ref.label) + ":predict", body.dump());
  if (a.status >= 200 && a.status < 300) {
    auto j = nlohmann::json::parse(a.body, nullptr, false);
    if (j.is_discarded()) throw tfjob::error("TF Serving's answer is not JSON: " + a.body.substr(0, 200));
    r.response = std::move(j);
    return r;
  }
  detail::throw_for_answer(c, ns, service, model, a, "the prediction");
}

}  // namespace tfjob::serving
#endif  // TFJOB_SDK_DEFINE_SERVING
