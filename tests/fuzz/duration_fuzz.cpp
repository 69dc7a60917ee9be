// libFuzzer entry point for the duration target (the target itself: targets/duration.hpp).
#include "targets/duration.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tfjob::fuzz::duration(data, size);
}
