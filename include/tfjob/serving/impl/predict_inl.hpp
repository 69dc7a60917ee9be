#pragma once
/// \file The bodies of <tfjob/serving/predict.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/predict.hpp>, never this file.

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
