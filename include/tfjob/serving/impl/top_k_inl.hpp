#pragma once
/// \file The bodies of <tfjob/serving/top_k.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/top_k.hpp>, never this file.

#include <tfjob/serving/imagenet_labels.hpp>  // only the bodies read the table

namespace tfjob::serving {

TFJOB_INLINE std::vector<ClassScore> top_k(const std::vector<double>& scores, int k) {
  std::vector<int> idx(scores.size());
  std::iota(idx.begin(), idx.end(), 0);
  k = std::max(0, std::min<int>(k, static_cast<int>(scores.size())));
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&](int a, int b) {
    return scores[a] != scores[b] ? scores[a] > scores[b] : a < b;
  });
  std::vector<ClassScore> out;
  for (int i = 0; i < k; ++i) {
    ClassScore c;
    c.index = idx[i];
    c.score = scores[idx[i]];
    if (scores.size() == imagenet_labels.size()) c.label = std::string(imagenet_labels[c.index]);
    else if (scores.size() + 1 == imagenet_labels.size()) c.label = std::string(imagenet_labels[c.index + 1]);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace tfjob::serving
