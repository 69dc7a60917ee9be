// The DCGM exporter stand-in (see fake_dcgm_exporter.hpp).
#include "support/fake_dcgm_exporter.hpp"

#include <cstdio>
#include <sstream>

namespace tfjob::test {

struct FakeDcgmExporter::State {
  mutable std::mutex mu;
  std::map<std::string, std::map<int, FakeGpuMetrics>> gpus;  // node -> gpu -> figures
  std::map<std::string, std::string> pod_node;                 // exporter pod -> node
  int scrapes = 0;
  std::string page(const std::string& node) const {
    std::ostringstream out;
    auto it = gpus.find(node);
    struct Metric { const char* name; const char* help; double FakeGpuMetrics::*field; };
    const Metric metrics[] = {{"DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", &FakeGpuMetrics::util_percent},
                              {"DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).", &FakeGpuMetrics::fb_free_mib},
                              {"DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", &FakeGpuMetrics::fb_used_mib}};
    for (const auto& m : metrics) {
      out << "# HELP " << m.name << " " << m.help << "\n# TYPE " << m.name << " gauge\n";
      if (it == gpus.end()) continue;
      for (const auto& [i, g] : it->second) {
        char uuid[64];
        std::snprintf(uuid, sizeof uuid, "GPU-00000000-0000-0000-0000-%012x", unsigned(std::hash<std::string>{}(node) % 0xffffff) * 16 + unsigned(i));
        out << m.name << "{gpu=\"" << i << "\",UUID=\"" << uuid << "\",pci_bus_id=\"00000000:0" << i + 4
            << ":00.0\",device=\"nvidia" << i << "\",modelName=\"" << g.model << "\",Hostname=\"" << node
            << "\",DCGM_FI_DRIVER_VERSION=\"580.95.05\"";
        if (!g.pod.empty())
          out << ",container=\"" << g.container << "\",namespace=\"" << g.pod_namespace << "\",pod=\"" << g.pod << "\"";
        out << "} " << g.*(m.field) << "\n";
      }
    }
    return out.str();
  }
};

FakeDcgmExporter::FakeDcgmExporter(FakeApiServer& server, const std::vector<std::string>& nodes)
    : state_(std::make_shared<State>()) {
  ContainerScript forever;
  forever.lines = {"Starting dcgm-exporter", "Pipeline starting", "Starting webserver"};
  forever.exit_code = std::nullopt;
  server.kubelet().script("nvidia-dcgm-exporter-*", forever);
  server.put_object({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "gpu-operator"}}}});
  for (const auto& n : nodes) {
    std::string pod = "nvidia-dcgm-exporter-" + n;
    state_->pod_node[pod] = n;
    server.put_object(
        {{"apiVersion", "v1"},
         {"kind", "Pod"},
         {"metadata", {{"name", pod}, {"namespace", "gpu-operator"}, {"labels", {{"app", "nvidia-dcgm-exporter"}}}}},
         {"spec",
          {{"nodeName", n},
           {"containers", nlohmann::json::array({{{"name", "nvidia-dcgm-exporter"},
                                                  {"image", "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.3-ubuntu22.04"},
                                                  {"ports", nlohmann::json::array({{{"name", "metrics"}, {"containerPort", 9400}}})}}})}}},
         {"status", {{"phase", "Pending"}}}});
  }
  auto st = state_;
  server.set_proxy_handler("nvidia-dcgm-exporter-*", [st](const ProxyRequest& r) {
    ProxyResponse resp;
    std::lock_guard<std::mutex> lk(st->mu);
    auto it = st->pod_node.find(r.service);
    if (r.resource != "pods" || it == st->pod_node.end() || r.port != "9400" || r.path != "/metrics") {
      resp.status = 404;
      resp.content_type = "text/plain";
      resp.body = "404 page not found\n";
      return resp;
    }
    ++st->scrapes;
    resp.content_type = "text/plain; version=0.0.4; charset=utf-8";
    resp.body = st->page(it->second);
    return resp;
  });
}

void FakeDcgmExporter::set_gpu(const std::string& node, int gpu, FakeGpuMetrics m) {
  std::lock_guard<std::mutex> lk(state_->mu);
  state_->gpus[node][gpu] = std::move(m);
}

int FakeDcgmExporter::scrapes() const {
  std::lock_guard<std::mutex> lk(state_->mu);
  return state_->scrapes;
}

std::string FakeDcgmExporter::page(const std::string& node) const {
  std::lock_guard<std::mutex> lk(state_->mu);
  return state_->page(node);
}

}  // namespace tfjob::test
