// Built-in sample `hello`: the C++ hello-tfjob trainer (samples/hello-tfjob), the same job
// as samples/hello-tfjob/tfjob.yaml: a Chief and two Workers (--workers N) on CPUs, the
// tfjob-hello claim at /train. `submit hello --local` runs it on this machine: the command
// `hello-tfjob` is found next to the plugin (the release archives carry it there), in the
// build tree or on PATH (local_run.cpp's trainer_search_path), and the trainer falls back to
// Debian's Fashion-MNIST when /train/data holds no MNIST files, then to a generated set.
#include "samples.hpp"

#include <tfjob/api/types.hpp>

namespace tfjob::cli {
namespace {

/// Keep in step with samples/hello-tfjob/tfjob.yaml.
TFJobBuilder make_hello() {
  TFJobBuilder b("hello");  // named as the sample, as `submit mnist` names its job mnist
  b.label("app.kubernetes.io/name", "hello-tfjob")
      .label("app.kubernetes.io/part-of", "kubectl-tfjob")
      .image("ghcr.io/kubectl-tfjob/hello-tfjob:v0.1.0")
      .command({"hello-tfjob"})
      .args({"--data-dir=/train/data", "--output-dir=/train/hello", "--epochs=5", "--connect-timeout=600"})
      .pvc("tfjob-hello", "/train", false, "train")
      .chief()
      .workers(2)
      .restart_policy(restart_policy::OnFailure)
      .backoff_limit(3);
  return b;
}

}  // namespace
TFJOB_REGISTER_SAMPLE("hello", "C++ softmax regression on MNIST-format data (ring all-reduce): 1 Chief + 2 Workers, CPU, PVC tfjob-hello at /train; try it with --local",
                      make_hello);
}  // namespace tfjob::cli
