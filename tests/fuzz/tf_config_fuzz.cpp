// libFuzzer entry point for the tf_config target (the target itself: targets/tf_config.hpp).
#include "targets/tf_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tfjob::fuzz::tf_config(data, size);
}
