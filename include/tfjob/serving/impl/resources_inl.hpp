#pragma once
/// \file The bodies of <tfjob/serving/resources.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/resources.hpp>, never this file.

namespace tfjob::serving {

namespace resources {

TFJOB_INLINE kube::ResourceInfo deployments() { return kube::resource_info<k8s::Deployment>(); }

TFJOB_INLINE kube::ResourceInfo services() { return kube::resource_info<k8s::Service>(); }

TFJOB_INLINE kube::ResourceInfo pods() { return kube::resource_info<k8s::Pod>(); }

TFJOB_INLINE kube::ResourceInfo events() { return kube::resource_info<k8s::Event>(); }

TFJOB_INLINE kube::ResourceInfo config_maps() { return kube::resource_info<k8s::ConfigMap>(); }

TFJOB_INLINE kube::ResourceInfo pod_disruption_budgets() { return {"policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true}; }

TFJOB_INLINE kube::ResourceInfo horizontal_pod_autoscalers() {
  return {"autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true};
}

TFJOB_INLINE std::vector<kube::ResourceInfo> server_kinds() {
  return {config_maps(), deployments(), services(), pod_disruption_budgets(), horizontal_pod_autoscalers()};
}

TFJOB_INLINE kube::ResourceInfo for_kind(const std::string& kind) {
  for (const auto& r : server_kinds())
    if (r.kind == kind) return r;
  throw tfjob::error("serve does not apply objects of kind \"" + kind + "\"");
}

}  // namespace resources

TFJOB_INLINE std::vector<std::string> kind_versions(const std::string& kind) {
  if (kind == "PodDisruptionBudget") return {"v1", "v1beta1"};
  if (kind == "HorizontalPodAutoscaler") return {"v2", "v2beta2"};
  return {};
}

TFJOB_INLINE void use_served_versions(kube::Client& c, std::vector<nlohmann::json>& objs) {
  for (auto& o : objs) {
    const std::string kind = kube::Object(o).kind();  // built by serve: its kind is known only at run time
    auto versions = kind_versions(kind);
    if (versions.empty()) continue;
    const auto res = resources::for_kind(kind);
    std::string chosen;
    for (const auto& v : versions)
      if (kube::serves(c, res.group, v, res.plural)) {
        chosen = v;
        break;
      }
    if (chosen.empty())
      throw tfjob::error("this cluster serves no " + res.plural + "." + res.group + " (" + res.group + "/" + versions[0] + " or " +
                         res.group + "/" + versions[1] + "), so serve cannot create the " + kind);
    o["apiVersion"] = res.group + "/" + chosen;
  }
}

TFJOB_INLINE std::vector<nlohmann::json> apply_objects(kube::Client& c, const std::string& ns, const std::vector<nlohmann::json>& objs,
                                                       bool force, bool dry_run) {
  std::vector<nlohmann::json> out;
  for (const auto& o : objs) {
    kube::DynamicObject obj(o);  // serve's objects of several kinds, as built
    auto res = resources::for_kind(obj.kind());
    const std::string av = obj.api_version();
    if (auto slash = av.find('/'); slash != std::string::npos) res.version = av.substr(slash + 1);  // use_served_versions
    obj.set_namespace(ns);
    kube::ApplyParams ap;
    ap.force = force;
    ap.dry_run = dry_run;
    out.push_back(c.request_json(kube::RequestBuilder(res, ns).apply(obj.name(), obj.json, ap)));
  }
  return out;
}

}  // namespace tfjob::serving
