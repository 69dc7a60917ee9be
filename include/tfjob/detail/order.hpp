#pragma once
/// \file Ordering lists of large value types (pods, events) by a key that costs to compute.

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace tfjob::detail {

/// Orders `items` stably by `key(item)` (ascending; equal keys keep their order): each key is
/// computed once and each item moved once, where a std::stable_sort of the items would compute
/// two keys per comparison (a pod's replica and index, an event's time: strings) and move the
/// objects O(n log n) times. The sort itself runs over (key, position) pairs, so the items'
/// type needs no sort code of its own.
template <class T, class KeyFn>
void stable_order_by(std::vector<T>& items, KeyFn key) {
  using K = decltype(key(items.front()));
  std::vector<std::pair<K, std::size_t>> keyed;
  keyed.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) keyed.emplace_back(key(items[i]), i);
  std::sort(keyed.begin(), keyed.end());  // (key, position): equal keys keep their order
  std::vector<T> out;
  out.reserve(items.size());
  for (auto& k : keyed) out.push_back(std::move(items[k.second]));
  items = std::move(out);
}

}  // namespace tfjob::detail
