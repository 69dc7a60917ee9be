// kube-bench-server: the test API server (tests/support) seeded for the kube benchmarks.
//   kube-bench-server --log-bytes N --pods N --kubeconfig-out-logs FILE --kubeconfig-out-list FILE
// Two servers in one process: one with controllers, whose pod "bench-log" in namespace
// "default" prints N bytes of log (200-byte lines) and exits; one without controllers
// holding N realistic pods in namespace "bench-list". Prints both URLs, then serves until
// SIGINT/SIGTERM.
#include "support/fake_apiserver.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace {
volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

nlohmann::json bench_pod(int i) {
  std::string name = "bench-pod-" + std::to_string(i);
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", name},
        {"namespace", "bench-list"},
        {"labels",
         {{"training.kubeflow.org/job-name", "job-" + std::to_string(i / 8)},
          {"training.kubeflow.org/replica-type", "worker"},
          {"training.kubeflow.org/replica-index", std::to_string(i % 8)},
          {"training.kubeflow.org/operator-name", "tfjob-controller"}}},
        {"annotations", {{"kubectl.kubernetes.io/default-container", "tensorflow"}}}}},
      {"spec",
       {{"nodeName", "fake-node-0"},
        {"restartPolicy", "Never"},
        {"containers",
         {{{"name", "tensorflow"},
           {"image", "ghcr.io/kubectl-tfjob/mnist:v0.1.0"},
           {"command", {"python", "/opt/mnist/mnist.py"}},
           {"args", {"--data-dir=/train/data", "--model-dir=/train/checkpoints", "--epochs=5"}},
           {"env", {{{"name", "TF_CONFIG"},
                     {"value", "{\"cluster\":{\"worker\":[\"job-w-0.default.svc:2222\",\"job-w-1.default.svc:2222\"]},"
                               "\"task\":{\"type\":\"worker\",\"index\":" + std::to_string(i % 8) + "},\"environment\":\"cloud\"}"}}}},
           {"ports", {{{"containerPort", 2222}, {"name", "tfjob-port"}, {"protocol", "TCP"}}}},
           {"resources", {{"limits", {{"nvidia.com/gpu", "1"}, {"memory", "8Gi"}}}, {"requests", {{"cpu", "2"}}}}},
           {"volumeMounts", {{{"mountPath", "/train"}, {"name", "train"}}}}}}},
        {"volumes", {{{"name", "train"}, {"persistentVolumeClaim", {{"claimName", "tfjob-mnist"}}}}}}}},
      {"status",
       {{"phase", "Running"},
        {"hostIP", "10.128.0.2"},
        {"podIP", "10.244.0." + std::to_string(i % 250)},
        {"startTime", "2026-01-01T00:00:00Z"},
        {"conditions",
         {{{"type", "Initialized"}, {"status", "True"}, {"lastTransitionTime", "2026-01-01T00:00:00Z"}},
          {{"type", "Ready"}, {"status", "True"}, {"lastTransitionTime", "2026-01-01T00:00:05Z"}},
          {{"type", "ContainersReady"}, {"status", "True"}, {"lastTransitionTime", "2026-01-01T00:00:05Z"}},
          {{"type", "PodScheduled"}, {"status", "True"}, {"lastTransitionTime", "2026-01-01T00:00:00Z"}}}},
        {"containerStatuses",
         {{{"name", "tensorflow"},
           {"ready", true},
           {"restartCount", 0},
           {"image", "ghcr.io/kubectl-tfjob/mnist:v0.1.0"},
           {"imageID", "ghcr.io/kubectl-tfjob/mnist@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
           {"containerID", "containerd://" + std::string(64, 'a')},
           {"state", {{"running", {{"startedAt", "2026-01-01T00:00:04Z"}}}}}}}}}}};
}
}  // namespace

int main(int argc, char** argv) {
  unsigned long long log_bytes = 1ull << 30;
  int pods = 5000;
  std::string kc_logs, kc_list;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--log-bytes") log_bytes = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--pods") pods = std::atoi(argv[i + 1]);
    else if (a == "--kubeconfig-out-logs") kc_logs = argv[i + 1];
    else if (a == "--kubeconfig-out-list") kc_list = argv[i + 1];
    else {
      std::fprintf(stderr, "kube-bench-server: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  tfjob::test::FakeApiServerOptions lo;
  lo.pod_start_delay = std::chrono::milliseconds(10);
  tfjob::test::FakeApiServer logs(lo);
  tfjob::test::ContainerScript sc;
  sc.generated_line_bytes = 199;  // + '\n' = 200 bytes a line
  sc.generated_lines = (log_bytes + 199) / 200;
  sc.exit_code = 0;
  logs.kubelet().script("bench-log", sc);
  logs.put_object({{"apiVersion", "v1"},
                   {"kind", "Pod"},
                   {"metadata", {{"name", "bench-log"}, {"namespace", "default"}}},
                   {"spec", {{"restartPolicy", "Never"}, {"containers", {{{"name", "main"}, {"image", "busybox"}}}}}}});
  logs.wait_for([&] {
    auto p = logs.get_object("pods", "default", "bench-log");
    if (!p) return false;
    std::string phase = p->value("/status/phase"_json_pointer, std::string());
    return !phase.empty() && phase != "Pending";
  });
  if (!kc_logs.empty()) logs.write_kubeconfig(kc_logs);

  tfjob::test::FakeApiServerOptions so;
  so.controllers = false;
  tfjob::test::FakeApiServer list(so);
  for (int i = 0; i < pods; ++i) list.put_object(bench_pod(i));
  if (!kc_list.empty()) list.write_kubeconfig(kc_list);

  std::printf("%s\n%s\n", logs.url().c_str(), list.url().c_str());
  std::fflush(stdout);
  while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return 0;
}
