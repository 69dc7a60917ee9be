#pragma once
/// \file TensorFlow Serving's REST API, simulated behind the fake API server's service proxy
/// (`/api/v1/namespaces/NS/services/NAME:8501/proxy/v1/models/...`): model status with
/// versions LOADING then AVAILABLE (or END with an error for a model that fails to load),
/// the model's metadata (its signatures), and predictions with a deterministic 1001-way softmax for `{"b64": JPEG}` instances,
/// TF Serving's `{"error": ...}` answers for bad requests. The served version and the load
/// clock follow the Deployment named like the service: a new pod template (an update)
/// loads again, and a downloaded model's version is its init container's MODEL_VERSION.
/// A Deployment reading --model_config_file serves the models of the ConfigMap mounted
/// there, read on every request (TF Serving's poll, without its delay), with their version
/// policies and labels (load_model_config's rules): a changed ConfigMap changes no pod.
#include "support/fake_apiserver.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace tfjob::test {

/// How one simulated model behaves.
struct FakeModel {
  std::chrono::milliseconds load_time{400};  ///< LOADING this long after each (re)load
  std::string fail_message;                  ///< non-empty: the load ends in END with this error
  int version = 1;                           ///< when the Deployment does not say (e.g. --pvc)
  /// Scripted top classes (index, probability) of every image prediction; empty = derived
  /// from a hash of the image bytes. The other classes share what is left.
  std::vector<std::pair<int, double>> top;
  /// The signature_def map the metadata answer gives (tfserving_rest.hpp: resnet_signatures(),
  /// mnist_signatures()); empty = ResNet's.
  std::string signature_def;
  std::map<std::string, int> labels;  ///< version labels ("stable" → 1)
  /// Under a model config (serve --model NAME=SOURCE): the versions on "disk" its version
  /// policy picks from (empty = {version}); the labels then come from the config's ConfigMap.
  std::vector<int> disk_versions;
  std::map<int, std::string> version_signatures;  ///< per version, when it differs from signature_def
};

class FakeTfServing {
 public:
  /// Registers the proxy handler for services matching `service_glob`.
  explicit FakeTfServing(FakeApiServer& server, const std::string& service_glob = "*");
  /// Behaviour of `model` (default FakeModel for models not set); restarts its load clock.
  void set_model(const std::string& model, FakeModel m);
  /// Answers so far.
  int status_requests() const;
  int loading_answers() const;  ///< status answers that said LOADING
  int predict_requests() const;
  /// The last error reading a served model config (TF Serving's log line), "" when none.
  std::string config_error() const;

  struct State;

 private:
  std::shared_ptr<State> s_;
};

}  // namespace tfjob::test
