#pragma once
/// \file TF Serving behind the API server's service proxy (no port-forward needed): the
/// proxy's path, one call to TF Serving's REST API through it, and the Service that names
/// the model it serves.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/api.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/serving/manifests.hpp>
#include <tfjob/serving/resources.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace tfjob::serving {

/// The REST path of TF Serving behind the API server's service proxy. `service` is NAME (its
/// REST port, 8501) or NAME:PORT, the proxy's own syntax (a KServe predictor's Service: 80).
std::string proxy_path(const std::string& ns, const std::string& service, const std::string& rest_path);

/// A raw answer from TF Serving (or from the proxy in front of it).
struct ProxyAnswer {
  int status = 0;
  std::string body;
  /// The API server's own Status (no endpoints, no such service) rather than TF Serving's.
  bool from_apiserver() const;
  std::string apiserver_message() const;
};

/// One call to TF Serving's REST API through the API server's service proxy. None of its calls
/// has an effect, so a broken connection or a 5xx is retried like any read.
ProxyAnswer proxy_call(kube::Client& c, const std::string& ns, const std::string& service, const std::string& method,
                       const std::string& rest_path, const std::string& body = {});

/// The Service, or nullopt.
std::optional<k8s::Service> get_service(kube::Client& c, const std::string& ns, const std::string& name);

/// The model name TF Serving serves behind a server's object (its annotation, else its name).
std::string model_name_of(const ObjectMeta& meta);

/// The model TF Serving serves behind `service`; throws tfjob::error saying how to start one
/// when the service does not exist.
std::string served_model(kube::Client& c, const std::string& ns, const std::string& service);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
namespace tfjob::serving {

TFJOB_INLINE std::string proxy_path(const std::string& ns, const std::string& service, const std::string& rest_path) {
  const std::string target = service.find(':') == std::string::npos ? service + ":" + std::to_string(rest_port) : service;
  return "/api/v1/namespaces/" + ns + "/services/" + target + "/proxy" + rest_path;
}

namespace detail {
/// The string `key` of a JSON object body, or nullptr (a metav1.Status's kind and message).
TFJOB_INLINE const std::string* body_string(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
}
}  // namespace detail

TFJOB_INLINE bool ProxyAnswer::from_apiserver() const {
  auto j = nlohmann::json::parse(body, nullptr, false);
  const std::string* kind = detail::body_string(j, "kind");
  return kind && *kind == "Status";
}

TFJOB_INLINE std::string ProxyAnswer::apiserver_message() const {
  auto j = nlohmann::json::parse(body, nullptr, false);
  const std::string* m = detail::body_string(j, "message");
  return m ? *m : body;
}

TFJOB_INLINE ProxyAnswer proxy_call(kube::Client& c, const std::string& ns, const std::string& service, const std::string& method,
                                    const std::string& rest_path, const std::string& body) {
  kube::Request r;
  r.method = method;
  r.path = proxy_path(ns, service, rest_path);
  r.what = method + " " + rest_path + " on service " + ns + "/" + service;
  // TF Serving's REST API has no call with an effect (api_rest.md: status, metadata and the
  // :predict/:classify/:regress inferences), so an answer cut short (kube-apiserver's proxy
  // losing its connection to the pod mid-body, seen on the real node) is asked again
  r.idempotent = true;
  if (!body.empty()) {
    r.body = body;
    r.content_type = "application/json";
  }
  auto resp = c.send(r);
  if (resp.status == 401 || resp.status == 403) c.throw_for(r, resp.status, resp.reason, resp.body);
  return {resp.status, resp.body};
}

TFJOB_INLINE std::optional<k8s::Service> get_service(kube::Client& c, const std::string& ns, const std::string& name) {
  return kube::Api<k8s::Service>(c, ns).get_opt(name);
}

TFJOB_INLINE std::string model_name_of(const ObjectMeta& meta) {
  const std::string n = meta.annotation(keys::model_name);
  return n.empty() ? meta.name : n;
}

TFJOB_INLINE std::string served_model(kube::Client& c, const std::string& ns, const std::string& service) {
  auto svc = get_service(c, ns, service);
  if (!svc)
    throw tfjob::error(reasons::service_not_found, "service \"" + service + "\" not found in namespace \"" + ns + "\"",
                       ": start the model server (" + setting::serve + "), or name the namespace it runs in", service);
  return model_name_of(svc->metadata);
}

}  // namespace tfjob::serving
#endif  // TFJOB_SDK_DEFINE_SERVING
