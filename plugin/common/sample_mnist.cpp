// Built-in sample `mnist`: the same job as samples/mnist/tfjob.yaml (image, command, args,
// the tfjob-mnist claim at /train): one Chief and two Workers, one GPU each unless --gpus.
#include "samples.hpp"

#include <tfjob/api/types.hpp>

namespace tfjob::cli {
namespace {

/// Keep in step with samples/mnist/tfjob.yaml (a test compares the two).
TFJobBuilder make_mnist() {
  TFJobBuilder b("mnist");
  b.label("app.kubernetes.io/name", "mnist")
      .label("app.kubernetes.io/part-of", "kubectl-tfjob")
      .image("ghcr.io/kubectl-tfjob/mnist:v0.1.0")
      .command({"python", "/opt/mnist/mnist.py"})
      .args({"--data-dir=/train/data", "--model-dir=/train/checkpoints", "--log-dir=/train/logs",
             "--export-dir=/train/export/mnist", "--epochs=5"})
      .pvc("tfjob-mnist", "/train", false, "train")
      .chief()
      .workers(2)
      .gpus(1)
      .restart_policy(restart_policy::ExitCode)
      .clean_pod_policy(clean_pod_policy::None)
      .backoff_limit(3);
  return b;
}

}  // namespace
TFJOB_REGISTER_SAMPLE("mnist", "MNIST on TF2 MultiWorkerMirroredStrategy: 1 Chief + 2 Workers, 1 GPU each, PVC tfjob-mnist at /train",
                      make_mnist);
}  // namespace tfjob::cli
