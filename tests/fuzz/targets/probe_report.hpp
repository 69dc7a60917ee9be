#pragma once
/// \file Fuzz target: the GPU probe's report as read back from a node's container log
/// (`gpu::parse_probe_report`), then judged by the verdict rules as `gpu-check` does.
#include "common.hpp"

#include <tfjob/gpu/probe_report.hpp>
#include <tfjob/gpu/verdict.hpp>

namespace tfjob::fuzz {

inline int probe_report(const std::uint8_t* data, std::size_t size) {
  expect_sdk_errors_only([&] {
    gpu::ProbeReport r = gpu::parse_probe_report(text_of(data, size));
    gpu::evaluate(r);
    gpu::ProbeReport v100 = r;
    gpu::evaluate(v100, {"v100"});
    (void)nlohmann::json(v100).dump();
  });
  return 0;
}

}  // namespace tfjob::fuzz
