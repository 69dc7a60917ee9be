#pragma once
/// \file The bodies of <tfjob/serving/proxy.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/proxy.hpp>, never this file.

namespace tfjob::serving {

TFJOB_INLINE std::string proxy_path(const std::string& ns, const std::string& service, const std::string& rest_path) {
  const std::string target = service.find(':') == std::string::npos ? service + ":" + std::to_string(rest_port) : service;
  kube::detail::check_path_segment(target, "resource name");  // NAME:PORT, sent as it is
  return "/api/v1/namespaces/" + kube::detail::path_segment(ns, "namespace") + "/services/" + target + "/proxy" + rest_path;
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
