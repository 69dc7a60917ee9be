#pragma once
/// \file The best classes of a prediction with their ImageNet names: kept apart from
/// serving/status.hpp so that only code that prints labels includes the 1001-entry table (and
/// with TFJOB_SDK_COMPILED, not even that: only src/ reads it).

#include <tfjob/detail/compiled.hpp>

#include <algorithm>  // partial_sort
#include <numeric>    // iota
#include <string>
#include <utility>
#include <vector>

namespace tfjob::serving {

/// One scored class.
struct ClassScore {
  int index = 0;
  double score = 0;
  std::string label;  ///< ImageNet name when the output has 1001 (or 1000) classes
};

/// The `k` best classes, best first (ties: lower index first). Labels: 1001 outputs are
/// ImageNet with 0 = background (index = label index); 1000 outputs are ImageNet without
/// background (label index + 1); anything else is unnamed.
std::vector<ClassScore> top_k(const std::vector<double>& scores, int k);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
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
#endif  // TFJOB_SDK_DEFINE_SERVING
