#pragma once
/// \file The bodies of <tfjob/serving/kserve.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/kserve.hpp>, never this file.

namespace tfjob::serving::kserve {

TFJOB_INLINE kube::ResourceInfo inference_services() { return kube::resource_info<k8s::InferenceService>(); }

TFJOB_INLINE std::string runtime_version(const ServeSpec& s) {
  const std::string image = s.effective_image();
  const auto slash = image.rfind('/');
  const auto colon = image.rfind(':');
  if (colon == std::string::npos || (slash != std::string::npos && colon < slash))
    throw tfjob::error("image \"" + image + "\" has no tag: KServe's TensorFlow runtime takes the tag as its runtimeVersion");
  const std::string repo = image.substr(0, colon);
  if (repo != "tensorflow/serving" && repo != "docker.io/tensorflow/serving")
    throw tfjob::error("image \"" + image + "\": KServe's TensorFlow runtime runs tensorflow/serving:<runtimeVersion>, so only "
                       "the tag can be chosen; give the release instead (e.g. 2.20.0, or 2.20.0-gpu)");
  return image.substr(colon + 1);
}

TFJOB_INLINE std::string storage_uri(const ServeSpec& s) {
  return "pvc://" + s.source.claim + "/" + (s.source.path.empty() ? "" : s.source.path + "/") + s.effective_model_name();
}

TFJOB_INLINE void validate_for_kserve(const ServeSpec& s) {
  validate(s);
  if (s.source.kind != ModelSource::Kind::pvc)
    throw tfjob::error("an InferenceService here reads its model from a claim: give the claim (CLAIM[:PATH] holding "
                       "MODEL/<version>/saved_model.pb), not a download");
  if (s.effective_model_name() != s.name)
    throw tfjob::error("KServe names the model after the InferenceService (TF Serving runs with --model_name=" + s.name +
                       "), so model name \"" + s.effective_model_name() + "\" cannot be served under \"" + s.name +
                       "\": leave the model name out, or name the InferenceService \"" + s.effective_model_name() + "\"");
  if (s.replicas < 1) throw tfjob::error("an InferenceService needs at least 1 replica (minReplicas)");
  if (s.ops.batching) throw tfjob::error("request batching is not carried into an InferenceService (KServe's TensorFlow runtime sets its own flags)");
  if (s.ops.monitoring) throw tfjob::error("TF Serving's monitoring config is not carried into an InferenceService");
  if (!s.extra_args.empty()) throw tfjob::error("extra tensorflow_model_server flags are not carried into an InferenceService");
  (void)runtime_version(s);
}

TFJOB_INLINE k8s::InferenceService build_inference_service(const ServeSpec& s) {
  validate_for_kserve(s);
  k8s::InferenceService isvc;
  isvc.api_version = std::string(group) + "/" + version;
  isvc.kind = "InferenceService";
  auto& meta = isvc.metadata;
  meta.name = s.name;
  meta.namespace_ = s.namespace_;
  // Not serve's app.kubernetes.io/name=tensorflow-serving: KServe copies these labels onto its
  // predictor Deployment, which list_servers would then list as one of serve's own.
  meta.labels = {{keys::managed_by, "kubectl-tfjob"}, {keys::instance, s.name}};
  meta.annotations = {{deployment_mode_key, "RawDeployment"},
                      {keys::model, describe_source(s.source)},
                      {keys::model_name, s.effective_model_name()}};
  k8s::PredictorModel model;
  model.model_format.name = "tensorflow";
  model.protocol_version = "v1";  // TF Serving's REST API (/v1/models/NAME:predict)
  model.runtime_version = runtime_version(s);
  model.storage_uri = storage_uri(s);
  if (!s.cpu.empty()) model.resources.requests["cpu"] = model.resources.limits["cpu"] = s.cpu;
  if (!s.memory.empty()) model.resources.requests["memory"] = model.resources.limits["memory"] = s.memory;
  if (s.gpus > 0) model.resources.limits["nvidia.com/gpu"] = std::to_string(s.gpus);
  auto& predictor = isvc.spec.predictor;
  predictor.model = std::move(model);
  if (s.ops.autoscale) {
    predictor.min_replicas = s.ops.autoscale->min;
    predictor.max_replicas = s.ops.autoscale->max;
    predictor.scale_metric = "cpu";  // KServe's HPA in RawDeployment: a CPU utilisation percentage
    predictor.scale_target = s.ops.autoscale->cpu_percent;
  } else {
    predictor.min_replicas = s.replicas;
    predictor.max_replicas = s.replicas;
  }
  predictor.node_selector = s.node_selector;
  for (const auto& t : s.tolerations) {  // as --toleration parsed them (objects): modeled, the rest kept
    tfjob::detail::decoder d;
    k8s::Toleration x;
    d.decode(t, "toleration", x);
    predictor.tolerations.push_back(std::move(x));
  }
  return isvc;
}

TFJOB_INLINE bool served(kube::Client& c) { return kube::serves(c, group, version, plural); }

TFJOB_INLINE bool served_or_hidden(kube::Client& c) {
  try {
    return served(c);
  } catch (const api_error& e) {
    if (e.is_forbidden()) return false;
    throw;
  }
}

TFJOB_INLINE void require_served(kube::Client& c) {
  if (served(c)) return;
  throw tfjob::error(std::string("this cluster does not serve ") + plural + "." + group + "/" + version +
                     " (KServe's InferenceService): install KServe (its CRDs and controller), or serve without KServe as a "
                     "Deployment and Service");
}

TFJOB_INLINE std::string State::summary() const {
  if (ready) return "InferenceService is Ready" + (url.empty() ? std::string() : " at " + url);
  if (!failure.empty()) return "the model failed to load: " + failure;
  for (const auto& c : conditions)
    if (c.status == "False" && c.type != "Ready")
      return c.type + " is False" + (c.reason.empty() ? "" : " (" + c.reason + ")") + (c.message.empty() ? "" : ": " + c.message);
  for (const auto& c : conditions)
    if (c.type == "Ready" && !c.reason.empty()) return "not Ready (" + c.reason + ")" + (c.message.empty() ? "" : ": " + c.message);
  return conditions.empty() ? "waiting for the KServe controller to report a status" : "not Ready yet";
}

namespace detail {

/// An answer of any shape as an InferenceService: decoded leniently when it is an object.
TFJOB_INLINE std::optional<k8s::InferenceService> lenient(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  k8s::InferenceService isvc;
  tfjob::detail::decode_lenient(j, "InferenceService", isvc);
  return isvc;
}

}  // namespace detail

TFJOB_INLINE State read_state(const k8s::InferenceService& isvc) {
  State st;
  st.found = true;
  const auto& status = isvc.status;
  st.url = status.url;
  st.address_url = status.address ? status.address->url : "";
  std::string fr, fm, transition;
  if (const auto& ms = status.model_status) {
    if (ms->states) st.model_state = ms->states->active_model_state;
    if (ms->last_failure_info) fr = ms->last_failure_info->reason, fm = ms->last_failure_info->message;
    transition = ms->transition_status;
  }
  if (st.model_state == "FailedToLoad" || (!fr.empty() && transition == "BlockedByFailedLoad"))
    st.failure = fr + (fm.empty() ? "" : ": " + fm);
  for (const auto& c : status.conditions) {
    if (st.conditions.size() >= 64) break;
    Condition k{c.type, c.status, c.reason, c.message};
    if (k.type == "Ready") st.ready = k.status == "True";
    if (k.type == "PredictorReady") st.predictor_ready = k.status == "True";
    st.conditions.push_back(std::move(k));
  }
  return st;
}

TFJOB_INLINE State read_state(const nlohmann::json& isvc) {
  auto found = detail::lenient(isvc);
  return found ? read_state(*found) : State{};
}

TFJOB_INLINE std::optional<k8s::InferenceService> get(kube::Client& c, const std::string& ns, const std::string& name) {
  return kube::Api<k8s::InferenceService>(c, ns).get_opt(name);
}

TFJOB_INLINE nlohmann::json apply(kube::Client& c, const std::string& ns, k8s::InferenceService isvc, bool force, bool dry_run) {
  isvc.metadata.namespace_ = ns;
  kube::ApplyParams ap;
  ap.force = force;
  ap.dry_run = dry_run;
  return c.request_json(kube::RequestBuilder(inference_services(), ns).apply(isvc.metadata.name, nlohmann::json(isvc), ap));
}

TFJOB_INLINE std::string predictor_pod_selector(const std::string& name) { return std::string(pod_label_key) + "=" + name; }

TFJOB_INLINE WaitReport wait_ready(kube::Client& c, const std::string& ns, const std::string& name, const WaitOptions& o) {
  ObjectWaitWords words;
  words.what = "inferenceservice \"" + name + "\"";
  words.failing = words.what + " will not become Ready: its predictor pods are failing";
  words.no_pods = "no predictor pod exists yet (label " + predictor_pod_selector(name) +
                  "): the KServe controller has not made its Deployment; its logs say why\n";
  return wait_object_and_pods(c, ns, inference_services(), name, predictor_pod_selector(name), o,
                              [](const nlohmann::json& isvc) {
                                const State st = read_state(isvc);
                                return ObjectVerdict{st.ready ? ObjectVerdict::Kind::ready
                                                     : !st.failure.empty() ? ObjectVerdict::Kind::failed
                                                                           : ObjectVerdict::Kind::waiting,
                                                     st.summary()};
                              },
                              words);
}

TFJOB_INLINE std::string predictor_endpoint(kube::Client& c, const std::string& ns, const std::string& name) {
  for (const std::string& svc : {name + "-predictor", name + "-predictor-default"}) {  // KServe >= 0.9, older
    auto s = get_service(c, ns, svc);
    if (!s) continue;
    const auto& spec = s->spec;
    if (spec.type == "ExternalName")
      throw tfjob::error("service \"" + svc + "\" of inferenceservice \"" + name + "\" is an ExternalName (KServe's Serverless mode, "
                         "behind Knative's gateway), which the API server's service proxy cannot reach: serve it with the "
                         "annotation " + deployment_mode_key + ": RawDeployment, or send to its status.url from inside the cluster");
    if (!spec.ports.empty() && spec.ports[0].port > 0 && spec.ports[0].port < 65536)
      return svc + ":" + std::to_string(spec.ports[0].port);
    throw tfjob::error("service \"" + svc + "\" of inferenceservice \"" + name + "\" has no port");
  }
  throw tfjob::error("inferenceservice \"" + name + "\" has no predictor service yet (" + name + "-predictor): wait until it is "
                     "Ready (`kubectl get inferenceservice " + name + "`)");
}

TFJOB_INLINE k8s::Deployment preflight_view(const k8s::InferenceService& isvc) {
  const auto& p = isvc.spec.predictor;
  k8s::Container container;
  container.name = "kserve-container";
  if (p.model) container.resources = p.model->resources;
  k8s::Deployment d;
  d.api_version = "apps/v1";
  d.kind = "Deployment";
  d.metadata.name = isvc.metadata.name;
  d.metadata.namespace_ = isvc.metadata.namespace_;
  auto& pod = d.spec.template_.spec;
  pod.containers = {container};
  pod.node_selector = p.node_selector;
  pod.tolerations = p.tolerations;
  pod.affinity = p.affinity;
  const std::int32_t min = p.min_replicas.value_or(1);
  d.spec.replicas = min >= 0 && min <= 100000 ? min : 1;
  return d;
}

TFJOB_INLINE k8s::Deployment preflight_view(const nlohmann::json& isvc) {
  return preflight_view(detail::lenient(isvc).value_or(k8s::InferenceService{}));
}

TFJOB_INLINE std::vector<std::pair<std::string, ServerInfo>> list(kube::Client& c, const std::string& ns) {
  kube::ListParams lp;
  lp.label_selector = std::string(keys::managed_by) + "=kubectl-tfjob";
  std::vector<std::pair<std::string, ServerInfo>> out;
  kube::Api<k8s::InferenceService>(c, ns).list_pages(lp, [&](kube::ObjectList<k8s::InferenceService>& page) {
    for (const auto& o : page.items) {
      if (out.size() >= 10000) return false;
      const auto& meta = o.metadata;
      const auto& pred = o.spec.predictor;
      ServerInfo s;
      s.kserve = true;
      s.name = meta.name;
      s.model = meta.annotation(keys::model);
      s.model_name = s.name;  // KServe's TF runtime: --model_name={{.Name}}
      s.age_timestamp = meta.creation_timestamp;
      const std::int32_t min = pred.min_replicas.value_or(1);
      s.desired = min >= 0 && min < 100000 ? min : 1;
      const State st = read_state(o);
      s.ready = st.ready ? s.desired : 0;
      s.address = st.address_url.empty() ? st.url : st.address_url;
      s.gpus = "0";
      if (pred.model)
        if (auto g = pred.model->resources.limits.find("nvidia.com/gpu"); g != pred.model->resources.limits.end()) s.gpus = g->second;
      out.emplace_back(meta.namespace_, std::move(s));
    }
    return true;
  });
  return out;
}

TFJOB_INLINE bool remove(kube::Client& c, const std::string& ns, const std::string& name) {
  kube::DeleteParams dp;
  dp.propagation_policy = "Background";
  try {
    c.request_json(kube::RequestBuilder(inference_services(), ns).remove(name, dp));
    return true;
  } catch (const api_error& e) {
    if (e.is_not_found()) return false;
    throw;
  }
}

}  // namespace tfjob::serving::kserve

namespace tfjob::serving {

TFJOB_INLINE Endpoint endpoint(kube::Client& c, const std::string& ns, const std::string& name) {
  auto svc = get_service(c, ns, name);
  if (svc && svc->metadata.label(keys::managed_by) == "kubectl-tfjob") return {name, "", false};
  // (KServe's Serverless mode also makes an ExternalName Service NAME: the InferenceService decides)
  if (kserve::served_or_hidden(c) && kserve::get(c, ns, name)) return {kserve::predictor_endpoint(c, ns, name), name, true};
  if (!svc) (void)served_model(c, ns, name);  // throws its "not found, start it with serve" error
  return {name, "", false};
}

}  // namespace tfjob::serving
