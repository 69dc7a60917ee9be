// libFuzzer entry point for the kubeconfig target (the target itself: targets/kubeconfig.hpp).
#include "targets/kubeconfig.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tfjob::fuzz::kubeconfig(data, size);
}
