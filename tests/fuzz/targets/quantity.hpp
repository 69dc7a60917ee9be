#pragma once
/// \file Fuzz target: Kubernetes quantities (`--gpus`, resources in a manifest, a node's
/// allocatable) through `Quantity::try_parse` / `parse` and every accessor.
#include "common.hpp"

#include <tfjob/api/quantity.hpp>

namespace tfjob::fuzz {

inline int quantity(const std::uint8_t* data, std::size_t size) {
  std::string_view text = text_of(data, size);
  auto q = Quantity::try_parse(text);
  if (q) {
    (void)q->value();
    (void)q->milli_value();
    (void)q->int_value();
    (void)q->str();
  }
  expect_sdk_errors_only([&] { (void)Quantity::parse(text).milli_value(); });
  if (is_quantity(text) != q.has_value()) __builtin_trap();  // two answers to one question
  return 0;
}

}  // namespace tfjob::fuzz
