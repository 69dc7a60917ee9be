#pragma once
/// \file Whether a pod could land on a node, by the kube-scheduler's filters that depend on
/// the pod's spec and the node alone: NodeUnschedulable, NodeAffinity (nodeSelector and the
/// required node affinity) and TaintToleration; and whether the node's allocatable covers
/// one pod's requests (NodeResourcesFit, ignoring what other pods use). Pure functions over
/// `k8s::PodSpec` and `k8s::Node` (api/k8s/): lint, the GPU preflight and `explain` share
/// them; each has a twin for a caller that still holds the objects as JSON, which decodes
/// them once and asks the typed one.

#include <tfjob/api/k8s/affinity.hpp>
#include <tfjob/api/k8s/node.hpp>
#include <tfjob/api/k8s/pod.hpp>
#include <tfjob/api/quantity.hpp>
#include <tfjob/detail/compiled.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::scheduling {

/// Why a node does or does not take a pod.
struct NodeFit {
  std::string node;
  bool schedulable = true;                      ///< not cordoned (or the pod tolerates it)
  std::vector<std::string> selector_misses;     ///< `key=value` of nodeSelector/affinity the node lacks
  std::vector<std::string> untolerated_taints;  ///< `key=value:Effect` the pod does not tolerate
  bool ok() const;
  /// How far from fitting: the number of reasons it does not.
  std::size_t misses() const;
};

namespace detail {
/// One NodeSelectorRequirement against the node's labels (k8s.io/component-helpers
/// scheduling/corev1/nodeaffinity: In, NotIn, Exists, DoesNotExist, Gt, Lt).
bool requirement_matches(const k8s::NodeSelectorRequirement& req, const std::map<std::string, std::string>& labels);
std::string requirement_text(const k8s::NodeSelectorRequirement& req);
/// A pod spec as a server sends it, decoded leniently (a field of the wrong type is kept, not
/// read); a value that is not an object decodes as an empty one. It is decoded with only what
/// the rules here read (nodeSelector, affinity, tolerations, each container's and init
/// container's resources): a container's env or command, which can be most of a manifest, is
/// neither copied nor decoded. (A node: `tfjob::detail::decoded<k8s::Node>`.)
k8s::PodSpec served_pod_spec(const nlohmann::json& pod_spec);
}  // namespace detail

/// Whether `toleration` tolerates `taint` (k8s.io/api core/v1 `Toleration.ToleratesTaint`):
/// an empty effect matches every effect, an empty key with `Exists` every key, `Exists`
/// ignores the value, `Equal` (the default operator) needs the same value.
bool tolerates(const k8s::Toleration& toleration, const k8s::Taint& taint);

/// How `node` stands for a pod with `pod_spec`. Taints with effect NoSchedule or NoExecute
/// filter (PreferNoSchedule only scores); a cordoned node (`spec.unschedulable`) is out
/// unless the pod tolerates `node.kubernetes.io/unschedulable:NoSchedule`, as the
/// NodeUnschedulable plugin rules. nodeSelector and required node affinity terms (ORed,
/// expressions ANDed) must match the node's labels.
NodeFit node_fit(const k8s::PodSpec& pod_spec, const k8s::Node& node);

/// What one pod requests, per resource, in base units (NodeResourcesFit's `computePodResourceRequest`:
/// the sum over containers, or the largest init container when larger; a container with
/// limits but no requests requests its limits, as the API server defaults it).
std::map<std::string, double> pod_requests(const k8s::PodSpec& pod_spec);
std::map<std::string, double> pod_requests(const nlohmann::json& pod_spec);

/// A node's allocatable, per resource, in base units.
std::map<std::string, double> allocatable(const k8s::Node& node);

/// Resources of `requests` that exceed `alloc` (a resource the node lacks counts as 0).
std::vector<std::string> exceeds(const std::map<std::string, double>& requests,
                                 const std::map<std::string, double>& alloc);

}  // namespace tfjob::scheduling

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/impl/scheduling_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
