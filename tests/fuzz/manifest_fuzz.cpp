// libFuzzer entry point for the manifest target (the target itself: targets/manifest.hpp).
#include "targets/manifest.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tfjob::fuzz::manifest(data, size);
}
