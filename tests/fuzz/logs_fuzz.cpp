// libFuzzer entry point for the logs target (the target itself: targets/logs.hpp).
#include "targets/logs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tfjob::fuzz::logs(data, size);
}
