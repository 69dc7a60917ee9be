#pragma once
/// \file `gpu-check` as an SDK workflow: the GPU inventory of a cluster's nodes, one probe
/// pod per GPU node (pinned to it, requesting its GPUs, tolerating nvidia.com/gpu taints,
/// bounded by activeDeadlineSeconds, labelled for cleanup), pods that stay Pending
/// explained from their events, the probe JSON read back from the pod logs and judged by
/// the verdict rules (verdict.hpp), and the pods deleted at the end or on cancel.
/// The inventory and the pod are pure functions; `run_gpu_check` does the I/O.
///
/// One header per concern, each included here:
/// - check/inventory.hpp  the GPU nodes and what their plugin pods and workloads say (pure)
/// - check/probe_pod.hpp  the probe pod for one node, and the check's options (pure)
/// - check/result.hpp     each node's result, the run's outcome, Pending and output judged
/// - check/follow.hpp     the probe pods followed by one watch, read back, cleaned up
/// - check/run.hpp        the run against a server (read_inventory, run_gpu_check)

#include <tfjob/api/cluster_words.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>
#include <tfjob/gpu/probe_report.hpp>
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

#include <tfjob/gpu/check/follow.hpp>
#include <tfjob/gpu/check/inventory.hpp>
#include <tfjob/gpu/check/probe_pod.hpp>
#include <tfjob/gpu/check/result.hpp>
#include <tfjob/gpu/check/run.hpp>
