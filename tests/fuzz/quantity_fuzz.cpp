// libFuzzer entry point for the quantity target (the target itself: targets/quantity.hpp).
#include "targets/quantity.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tfjob::fuzz::quantity(data, size);
}
