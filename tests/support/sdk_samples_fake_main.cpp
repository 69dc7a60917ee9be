// sdk-samples-fake-apiserver: the fake API server (tests/support/fake_apiserver.hpp) with
// the chief of one job scripted to fail, for the ctest of samples/sdk/submit_and_follow's
// Failed path (the standalone fake-apiserver has no option to make a replica fail).
//   sdk-samples-fake-apiserver --kubeconfig-out FILE --failing-job NAME --exit-code N
// The chief of TFJob NAME prints a few lines and exits N; other TFJob pods run the default
// script (exit 0). Prints its URL, serves until SIGINT/SIGTERM.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

#include "support/fake_apiserver.hpp"

namespace {
volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }
}  // namespace

int main(int argc, char** argv) {
  std::string kubeconfig, job;
  int exit_code = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--kubeconfig-out") kubeconfig = v;
    else if (a == "--failing-job") job = v;
    else if (a == "--exit-code") exit_code = std::atoi(v.c_str());
    else {
      std::fprintf(stderr, "sdk-samples-fake-apiserver: unknown option '%s'\n", a.c_str());
      return 2;
    }
  }
  if (kubeconfig.empty() || job.empty() || exit_code == 0) {
    std::fprintf(stderr, "usage: sdk-samples-fake-apiserver --kubeconfig-out FILE --failing-job NAME --exit-code N (N != 0)\n");
    return 2;
  }
  struct sigaction sa{};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  try {
    tfjob::test::FakeApiServerOptions opts;
    opts.pod_start_delay = std::chrono::milliseconds(100);
    opts.default_job_pod_runtime = std::chrono::milliseconds(300);
    tfjob::test::FakeApiServer server(opts);
    tfjob::test::ContainerScript chief;
    chief.lines = {"epoch 1/5 loss=2.30", "epoch 2/5 loss=nan", "error: loss is NaN, giving up"};
    chief.line_interval = std::chrono::milliseconds(50);
    chief.exit_code = exit_code;
    server.kubelet().script(job + "-chief-*", chief);
    server.write_kubeconfig(kubeconfig);
    std::printf("%s\n", server.url().c_str());
    std::fflush(stdout);
    while (!g_stop) pause();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sdk-samples-fake-apiserver: %s\n", e.what());
    return 1;
  }
  return 0;
}
