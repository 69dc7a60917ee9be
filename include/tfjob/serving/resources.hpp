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
#include <tfjob/serving/impl/resources_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
