#pragma once
/// \file The servers `serve` made, as a whole: list them (with their Services' addresses and,
/// asked, TF Serving's versions), delete what serve created for one (and only that), and one
/// server's status (rollout, model, autoscaler, TF Serving's request metrics).

#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/api.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/serving/manifests.hpp>
#include <tfjob/serving/metrics.hpp>
#include <tfjob/serving/model_config.hpp>
#include <tfjob/serving/operations.hpp>
#include <tfjob/serving/proxy.hpp>
#include <tfjob/serving/resources.hpp>
#include <tfjob/serving/wait.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tfjob::serving {

/// One port of a server's Service.
struct ServerPort {
  std::string name;  ///< "http" (REST) or "grpc"
  int port = 0;
};

/// One row of `serve list`.
struct ServerInfo {
  std::string name, model, age_timestamp;
  int ready = 0, desired = 0;
  std::string gpus;  ///< nvidia.com/gpu per replica ("0" for CPU)
  std::string model_name;  ///< the name TF Serving serves it under
  /// The Service's in-cluster DNS name, NAME.NS.svc.CLUSTER-DOMAIN ("" when the Service is gone).
  std::string address;
  std::vector<ServerPort> ports;  ///< the Service's ports
  // with ListOptions::models: what TF Serving says (GET /v1/models/MODEL through the proxy)
  std::vector<std::string> available_versions;
  std::string model_state;  ///< probe_model's message ("" when not asked)
  bool kserve = false;      ///< a KServe InferenceService (kserve.hpp), not serve's Deployment
};

/// What `list_servers` looks at beyond the Deployments.
struct ListOptions {
  bool models = false;  ///< ask each server's TF Serving for its AVAILABLE versions (one proxy call each)
  std::string cluster_domain = "cluster.local";  ///< Kubernetes' default (kubelet --cluster-domain)
};

/// Deployments created by serve in `ns` ("" = all namespaces), with their Services' address
/// and ports.
std::vector<std::pair<std::string, ServerInfo>> list_servers(kube::Client& c, const std::string& ns,
                                                             const ListOptions& lo = {});

/// Deletes the Deployment, Service and what serve added (ConfigMap, PodDisruptionBudget,
/// HorizontalPodAutoscaler), background cascade, and the model config ConfigMap serve made
/// for them (only when its labels say so); returns which existed ("deployment.apps/NAME").
/// Does this object carry the labels `serve NAME` puts on what it creates
/// (app.kubernetes.io/managed-by=kubectl-tfjob, app.kubernetes.io/instance=NAME)? A server's
/// answer is read totally: labels of any other shape are "no".
bool created_by_serve(const ObjectMeta& meta, const std::string& name);

/// What `serve delete NAME` did.
struct DeleteReport {
  std::vector<std::string> deleted;  ///< "deployment.apps/NAME", "configmap/NAME-models", ...
  std::vector<std::string> kept;     ///< ConfigMaps of that name that serve did not create (no serve labels)
};

/// Deletes the server's Deployment (its pods follow), Service, PodDisruptionBudget and
/// HorizontalPodAutoscaler, and the ConfigMaps NAME (batching, monitoring) and NAME-models
/// (the model config) only when they carry serve's labels: a ConfigMap of the same name that
/// a user made is theirs, kept and reported in `kept`.
DeleteReport delete_server_report(kube::Client& c, const std::string& ns, const std::string& name);

/// delete_server_report's deleted names.
std::vector<std::string> delete_server(kube::Client& c, const std::string& ns, const std::string& name);

/// What `serve status NAME` reports: the rollout, the model's state and, with
/// `serve --monitoring`, TF Serving's request counts and latency.
struct ServerStatus {
  std::string name, model;
  int ready = 0, desired = 0;
  std::string model_state;  ///< probe_model's message
  bool monitoring = false;  ///< the server runs with --monitoring_config_file
  std::vector<ModelRequestMetrics> metrics;  ///< from the pod the service proxy reached
  std::optional<AutoscalerStatus> autoscaler;  ///< serve --autoscale: the HPA and what its controller reports
};

/// Does the Deployment's serving container run with TF Serving's monitoring config?
bool has_monitoring(const k8s::Deployment& deployment);

/// GET the Prometheus endpoint through the service proxy and sum TF Serving's request
/// metrics per model. The proxy reaches one ready pod per request (the Service picks), so
/// with several replicas these are that pod's counters. Throws tfjob::error saying what is
/// wrong: no such server, its pods unreachable, an answer that is not the text format.
ServerStatus server_status(kube::Client& c, const std::string& ns, const std::string& name);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
#include <tfjob/serving/impl/servers_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
