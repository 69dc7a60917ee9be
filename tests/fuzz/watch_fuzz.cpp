// libFuzzer entry point for the watch target (the target itself: targets/watch.hpp).
#include "targets/watch.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tfjob::fuzz::watch(data, size);
}
