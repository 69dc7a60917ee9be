// read_tf_config: what a training process does first — read the TF_CONFIG the Kubeflow
// training operator injected into its container and work out its role in the cluster.
//
//   TF_CONFIG='{"cluster":{"chief":["demo-chief-0.default.svc:2222"],"worker":["demo-worker-0.default.svc:2222"]},
//               "task":{"type":"worker","index":0},"environment":"cloud"}' ./read_tf_config
//
// Exit codes: 0 ok (also when TF_CONFIG is unset: a single-replica job trains alone),
// 1 TF_CONFIG is set but is not a valid TF_CONFIG (the message says where and why).
#include <tfjob/api/tf_config.hpp>   // pure: no I/O, no cluster needed
#include <tfjob/error.hpp>

#include <iostream>
#include <optional>

int main() {
  std::optional<tfjob::TFConfig> tf;
  try {
    tf = tfjob::tf_config_from_env();  // std::nullopt when TF_CONFIG is unset or empty
  } catch (const tfjob::parse_error& e) {
    // Bad JSON comes with a line and column; a missing task.type etc. says what is missing.
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  if (!tf) {
    // The operator injects no TF_CONFIG into a job with one replica in total.
    std::cout << "no TF_CONFIG: single-replica job, training alone\n";
    return 0;
  }

  // Who am I? task_type is lower-case: chief, master, worker, ps or evaluator.
  std::cout << "role: " << tf->task_type << "\n"
            << "index: " << tf->task_index << "\n"
            // is_chief(): Chief/Master, or worker 0 when the job has neither. The chief
            // writes checkpoints and the exported model, and its exit decides success.
            << "is-chief: " << (tf->is_chief() ? "true" : "false") << "\n"
            << "address: " << tf->self_address() << "\n"
            << "listen-port: " << tf->self_port() << "\n";

  // Everyone in the cluster, by type (what MultiWorkerMirroredStrategy connects to).
  for (const auto& [type, addresses] : tf->cluster)
    for (std::size_t i = 0; i < addresses.size(); ++i)
      std::cout << "cluster: " << type << "[" << i << "] " << addresses[i] << "\n";
  // enableDynamicWorker's sparse form lists only some replicas, by index.
  for (const auto& [type, by_index] : tf->sparse_cluster)
    for (const auto& [i, address] : by_index)
      std::cout << "cluster: " << type << "[" << i << "] " << address << " (sparse)\n";
  std::cout << "replicas: " << tf->size() << "\n";
  return 0;
}
