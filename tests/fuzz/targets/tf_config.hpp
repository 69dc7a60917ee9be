#pragma once
/// \file Fuzz target: a trainer reading its `TF_CONFIG` (`parse_tf_config`) and asking it
/// the questions a trainer asks.
#include "common.hpp"

#include <tfjob/api/tf_config.hpp>

namespace tfjob::fuzz {

inline int tf_config(const std::uint8_t* data, std::size_t size) {
  expect_sdk_errors_only([&] {
    TFConfig c = parse_tf_config(text_of(data, size));
    (void)c.is_chief();
    (void)c.self_address();
    (void)c.self_port();
    (void)c.size();
    for (const auto& [type, list] : c.cluster) (void)c.count(type), (void)c.address(type, int(list.size()) - 1);
    for (const auto& [type, m] : c.sparse_cluster)
      for (const auto& [i, a] : m) (void)c.address(type, i);
  });
  return 0;
}

}  // namespace tfjob::fuzz
