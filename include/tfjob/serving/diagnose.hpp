#pragma once
/// \file Why a server's pods do not come up, in words: each pod's problem with its events
/// and last log lines, the scheduler's reasons for Pending pods, and Warning events.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/api.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/detail/util.hpp>
#include <tfjob/kube/logs.hpp>
#include <tfjob/kube/pager.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/serving/resources.hpp>
#include <tfjob/serving/status.hpp>

#include <set>
#include <string>
#include <vector>

namespace tfjob::serving {

/// Diagnosis text for pods that will not come up: each problem, the pod's events and the
/// last lines of the failing container's previous (or current) log.
std::string diagnose(kube::Client& c, const std::string& ns, const std::vector<k8s::Pod>& pods,
                     const std::vector<PodProblem>& problems, int log_lines = 20);

/// Pending pods' scheduling reasons (e.g. "0/2 nodes are available: 2 Insufficient nvidia.com/gpu").
std::string scheduling_reasons(const std::vector<k8s::Pod>& pods);

/// The scheduler's and kubelet's Warning events about these pods, one line each ("" when
/// there are none or events cannot be read: they explain, they are not required).
std::string warning_events(kube::Client& c, const std::string& ns, const std::vector<k8s::Pod>& pods);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
#include <tfjob/serving/impl/diagnose_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
