// Uses the installed SDK the way a C++ app would: build a job, print a worker's TF_CONFIG.
#include <tfjob/tfjob.hpp>

#include <iostream>

int main() {
  auto job = tfjob::TFJobBuilder("consumer").namespace_("default").image("tensorflow/tensorflow:2.15.0")
                 .chief().workers(1).build();
  auto cfg = tfjob::gen_tf_config(job, "worker", 0);
  if (!cfg) return 1;
  std::cout << *cfg << "\n";
  return tfjob::parse_tf_config(*cfg).is_chief() ? 1 : 0;  // the chief exists: worker 0 is not it
}
