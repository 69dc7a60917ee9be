#pragma once
/// \file Where the objects `serve` creates live, and how they reach the server: each kind's
/// resource (the typed ones from their resource_traits), the PDB/HPA version the server serves
/// (discovery), and the server-side apply of what serve built.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/api.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/discovery.hpp>
#include <tfjob/kube/request.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tfjob::serving {

/// The kinds serve reads and writes: the typed ones from their one description
/// (resource_traits), the rest (no typed object) declared here once.
namespace resources {
kube::ResourceInfo deployments();
kube::ResourceInfo services();
kube::ResourceInfo pods();
kube::ResourceInfo events();
kube::ResourceInfo config_maps();
kube::ResourceInfo pod_disruption_budgets();
kube::ResourceInfo horizontal_pod_autoscalers();
/// Everything serve creates for a server, all named like it (build_objects' kinds).
std::vector<kube::ResourceInfo> server_kinds();
/// The resource of one of build_objects' kinds; throws for any other kind.
kube::ResourceInfo for_kind(const std::string& kind);
}  // namespace resources

/// The versions of the PodDisruptionBudget and HorizontalPodAutoscaler kinds, newest first:
/// policy/v1 and autoscaling/v2 are GA from Kubernetes 1.21 and 1.23; older servers serve only
/// policy/v1beta1 and autoscaling/v2beta2 (removed in 1.25 and 1.26), with the same fields serve uses.
std::vector<std::string> kind_versions(const std::string& kind);

/// Rewrites each PDB/HPA to the newest version the server serves (discovery); throws
/// tfjob::error naming the kind when it serves none.
void use_served_versions(kube::Client& c, std::vector<nlohmann::json>& objs);

/// Server-side apply of every object (the client's field manager); returns what the server
/// stored. `dry_run` = the server's dry run (nothing persisted).
std::vector<nlohmann::json> apply_objects(kube::Client& c, const std::string& ns, const std::vector<nlohmann::json>& objs,
                                          bool force = false, bool dry_run = false);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
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
#endif  // TFJOB_SDK_DEFINE_SERVING
