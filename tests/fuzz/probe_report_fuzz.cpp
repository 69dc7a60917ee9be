// libFuzzer entry point for the probe_report target (the target itself: targets/probe_report.hpp).
#include "targets/probe_report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tfjob::fuzz::probe_report(data, size);
}
