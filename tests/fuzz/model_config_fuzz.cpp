// libFuzzer entry point for the model_config target (the target itself: targets/model_config.hpp).
#include "targets/model_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tfjob::fuzz::model_config(data, size);
}
