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
#include <tfjob/serving/impl/top_k_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
