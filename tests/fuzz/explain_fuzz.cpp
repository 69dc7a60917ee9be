// libFuzzer entry point for the explain target (the target itself: targets/explain.hpp).
#include "targets/explain.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tfjob::fuzz::explain(data, size);
}
