// libFuzzer entry point for the export_check target (the target itself: targets/export_check.hpp).
#include "targets/export_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tfjob::fuzz::export_check(data, size);
}
