#pragma once
/// \file Running gpu-check: the inventory read from a server, the probe pods created, followed
/// by one watch (Pending explained, running ones told), their logs read back and judged, and
/// the pods deleted at the end or on cancel. Part of <tfjob/gpu/check.hpp>.

#include <tfjob/api/cluster_words.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>
#include <tfjob/gpu/probe_report.hpp>
#include <tfjob/gpu/check/inventory.hpp>
#include <tfjob/gpu/check/probe_pod.hpp>
#include <tfjob/gpu/check/follow.hpp>
#include <tfjob/gpu/check/result.hpp>
#include <tfjob/gpu/verdict.hpp>
#include <tfjob/kube/api.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/logs.hpp>
#include <tfjob/kube/side_task.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <mutex>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace tfjob::gpu {

/// The inventory alone, no probe: the GPU nodes (one paged pass over the nodes), the GPUs
/// the pods bound to each hold (one paged pass over the pods that have not ended), what the
/// device plugin's and validator's pods say; `o.progress` hears each node, `o.nodes` must
/// exist. What run_gpu_check does before its probes.
CheckResult read_inventory(kube::Client client, const CheckOptions& o);

namespace detail {
/// Five random characters of [a-z0-9]: the run id when the caller gave none.
std::string random_run_id();

/// The pods in all namespaces that match `sel`; a list that fails is a cluster note, and no pods.
std::vector<k8s::Pod> pods_with(kube::Client& client, const std::string& sel, std::vector<std::string>& notes);

/// Cluster-wide, before any probe: what the device plugin's and validator's pods say per node.
void note_cluster_components(kube::Client& client, CheckResult& res);

/// The progress lines of the cluster notes and of each GPU node's inventory and notes.
void tell_inventory(const CheckResult& res, const CheckOptions& o);

/// Throws when a node the caller named is not in the cluster (`known`: every node's name).
void require_nodes(const std::set<std::string>& known, const std::vector<std::string>& wanted);

/// One result per inventory node the run covers: not-ready (a known problem) and skipped
/// (fewer GPUs than asked for) at once, the rest with a probe pod's name; returns the
/// indices of those to probe.
std::vector<std::size_t> choose_targets(CheckResult& res, const CheckOptions& o);

}  // namespace detail

/// Runs the check: inventory, probe pods, results, cleanup. Throws tfjob errors for
/// problems that stop the whole run (cannot list nodes, cannot create pods); per-node
/// problems end up in that node's result.
CheckResult run_gpu_check(kube::Client client, const CheckOptions& o);

}  // namespace tfjob::gpu

#if TFJOB_SDK_DEFINE_GPU
#include <tfjob/gpu/check/impl/run_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_GPU
