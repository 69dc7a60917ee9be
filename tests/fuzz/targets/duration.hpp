#pragma once
/// \file Fuzz target: durations as `--request-timeout`, `--timeout` and `--since` take them
/// (`kube::detail::parse_duration`, the one parser both the SDK and the plugin use).
#include "common.hpp"

#include <tfjob/kube/detail/util.hpp>

namespace tfjob::fuzz {

inline int duration(const std::uint8_t* data, std::size_t size) {
  std::string text(text_of(data, size));
  expect_sdk_errors_only([&] {
    auto d = kube::detail::parse_duration(text, "--request-timeout");
    if (d.count() < 0) __builtin_trap();  // no sign is accepted: never negative
  });
  return 0;
}

}  // namespace tfjob::fuzz
