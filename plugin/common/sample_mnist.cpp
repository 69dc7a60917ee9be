// Built-in sample `mnist`: the same job as samples/mnist/tfjob.yaml (image, command, args,
// the tfjob-mnist claim at /train, the trainer's ConfigMap at /opt/mnist): one Chief and two
// Workers, one GPU each unless --gpus. It runs TensorFlow's official GPU image with
// samples/mnist/mnist.py mounted from the ConfigMap `<job>-trainer` that submit creates
// (owned by the TFJob), so nothing has to be built or pushed; `--image` runs an image that
// has the trainer baked in instead (samples/mnist/Dockerfile, for air-gapped clusters).
#include "samples.hpp"
#include "sample_files.hpp"  // generated from samples/mnist/mnist.py (plugin/CMakeLists.txt)

#include <tfjob/api/types.hpp>

namespace tfjob::cli {
namespace {

/// Keep in step with samples/mnist/tfjob.yaml (a test compares the two).
TFJobBuilder make_mnist() {
  TFJobBuilder b("mnist");
  b.label("app.kubernetes.io/name", "mnist")
      .label("app.kubernetes.io/part-of", "kubectl-tfjob")
      // the guide's TensorFlow release (serving::default_serving_version serves what it exports),
      // which samples/mnist/Dockerfile builds on (CUDA 12.5, sm_70 kernels)
      .image("tensorflow/tensorflow:2.20.0-gpu")
      .command({"python", "/opt/mnist/mnist.py"})
      .args({"--data-dir=/train/data", "--model-dir=/train/checkpoints", "--log-dir=/train/logs",
             "--export-dir=/train/export/mnist", "--epochs=5"})
      .env("PYTHONUNBUFFERED", "1")
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
TFJOB_REGISTER_SAMPLE("mnist", "MNIST on TF2 MultiWorkerMirroredStrategy: 1 Chief + 2 Workers, 1 GPU each, PVC tfjob-mnist at /train, trainer in ConfigMap <job>-trainer",
                      make_mnist, SampleFiles{"/opt/mnist", {{"mnist.py", sample_files::mnist_py}}});
}  // namespace tfjob::cli
