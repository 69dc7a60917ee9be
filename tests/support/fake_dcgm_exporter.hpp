#pragma once
/// \file NVIDIA's DCGM exporter, played behind the fake API server: one exporter pod per GPU
/// node (namespace gpu-operator, label app=nvidia-dcgm-exporter, as the GPU Operator
/// deploys it, running on that node) whose metrics page — Prometheus text in
/// dcgm-exporter's format and metric names (DCGM_FI_DEV_GPU_UTIL, DCGM_FI_DEV_FB_USED,
/// DCGM_FI_DEV_FB_FREE with gpu, UUID, modelName, Hostname and, when a pod uses the GPU,
/// namespace/pod/container labels) — is served through the API server's pod proxy
/// (`/api/v1/namespaces/gpu-operator/pods/NAME:9400/proxy/metrics`). The figures are the
/// test's, not measured.
#include "support/fake_apiserver.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace tfjob::test {

/// One GPU as the exporter reports it.
struct FakeGpuMetrics {
  double util_percent = 0;
  double fb_used_mib = 0, fb_free_mib = 16160;
  std::string model = "Tesla V100-SXM2-16GB";
  std::string pod, pod_namespace, container;  ///< the pod using it ("" = none)
};

class FakeDcgmExporter {
 public:
  /// Creates the exporter pods on `nodes` and registers the pod proxy handler.
  FakeDcgmExporter(FakeApiServer& server, const std::vector<std::string>& nodes);
  /// Sets GPU `gpu` of `node` (the page lists every GPU set for the node).
  void set_gpu(const std::string& node, int gpu, FakeGpuMetrics m);
  /// Requests for metrics pages so far.
  int scrapes() const;
  /// The metrics page of `node` as served.
  std::string page(const std::string& node) const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace tfjob::test
