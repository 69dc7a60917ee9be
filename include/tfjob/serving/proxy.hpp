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
#include <tfjob/serving/impl/proxy_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
