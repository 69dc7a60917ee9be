// libFuzzer entry point for the queues target (the target itself: targets/queues.hpp).
#include "targets/queues.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tfjob::fuzz::queues(data, size);
}
