// fake-apiserver: the test API server as a program. Serves until SIGINT/SIGTERM.
//   fake-apiserver [--port N] [--kubeconfig-out FILE] [--nodes N] [--gpu-nodes M]
//                  [--gpus-per-node K] [--no-controllers] [--crd FILE] [--log-requests]
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "support/fake_apiserver.hpp"

namespace {
volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

[[noreturn]] void usage(int code) {
  std::fprintf(code ? stderr : stdout,
               "usage: fake-apiserver [options]\n"
               "  --port N              listen on 127.0.0.1:N (default 0: a free port)\n"
               "  --kubeconfig-out FILE write a kubeconfig for this server (contexts fake-cert,\n"
               "                        fake-token, fake-limited)\n"
               "  --nodes N             seed N CPU nodes (default 1)\n"
               "  --gpu-nodes M         seed M GPU nodes (nvidia.com/gpu, default 0)\n"
               "  --gpus-per-node K     GPUs on each GPU node (default 1)\n"
               "  --no-controllers      no operator/kubelet/deployment controllers\n"
               "  --job-pod-runtime MS  how long unscripted TFJob pods run (default 1500)\n"
               "  --log-lines N         unscripted TFJob pods print N synthetic lines (for\n"
               "                        throughput runs), then exit 0\n"
               "  --log-line-bytes B    length of each synthetic line (default 100)\n"
               "  --crd FILE            TFJob CRD used for validation\n"
               "  --log-requests        print each request on stderr\n"
               "Prints its URL on stdout, serves until SIGINT or SIGTERM.\n");
  std::exit(code);
}

int to_int(const char* flag, const char* v) {
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  if (!*v || *end || n < 0 || n > 1000000) {
    std::fprintf(stderr, "fake-apiserver: %s needs a non-negative number, got '%s'\n", flag, v);
    std::exit(2);
  }
  return static_cast<int>(n);
}
}  // namespace

int main(int argc, char** argv) {
  tfjob::test::FakeApiServerOptions opts;
  std::string kubeconfig;
  long long log_lines = -1;
  int log_line_bytes = 100;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "fake-apiserver: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--help" || a == "-h") usage(0);
    else if (a == "--port") opts.port = to_int("--port", value());
    else if (a == "--kubeconfig-out") kubeconfig = value();
    else if (a == "--nodes") opts.nodes = to_int("--nodes", value());
    else if (a == "--gpu-nodes") opts.gpu_nodes = to_int("--gpu-nodes", value());
    else if (a == "--gpus-per-node") opts.gpus_per_node = to_int("--gpus-per-node", value());
    else if (a == "--job-pod-runtime") opts.default_job_pod_runtime = std::chrono::milliseconds(to_int("--job-pod-runtime", value()));
    else if (a == "--log-lines") log_lines = std::atoll(value());
    else if (a == "--log-line-bytes") log_line_bytes = to_int("--log-line-bytes", value());
    else if (a == "--no-controllers") opts.controllers = false;
    else if (a == "--crd") opts.crd_file = value();
    else if (a == "--log-requests") opts.log_requests = true;
    else {
      std::fprintf(stderr, "fake-apiserver: unknown option '%s' (see --help)\n", a.c_str());
      return 2;
    }
  }
  struct sigaction sa{};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  try {
    tfjob::test::FakeApiServer server(opts);
    if (!kubeconfig.empty()) server.write_kubeconfig(kubeconfig);
    if (log_lines >= 0) {
      tfjob::test::ContainerScript script;
      script.lines = {"fake-kubelet: " + std::to_string(log_lines) + " synthetic lines follow"};
      script.generated_lines = static_cast<std::uint64_t>(log_lines);
      script.generated_line_bytes = static_cast<std::size_t>(log_line_bytes);
      script.exit_code = 0;
      script.run_for = opts.default_job_pod_runtime;
      server.kubelet().set_default_job_script(script);
    }
    std::printf("%s\n", server.url().c_str());
    std::fflush(stdout);
    if (!kubeconfig.empty()) std::fprintf(stderr, "fake-apiserver: kubeconfig written to %s\n", kubeconfig.c_str());
    while (!g_stop) pause();
    std::fprintf(stderr, "fake-apiserver: stopping\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fake-apiserver: %s\n", e.what());
    return 1;
  }
  return 0;
}
