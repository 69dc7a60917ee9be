// libFuzzer entry point for the serving target (the target itself: targets/serving.hpp).
#include "targets/serving.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tfjob::fuzz::serving(data, size);
}
