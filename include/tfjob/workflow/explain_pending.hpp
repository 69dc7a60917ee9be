#pragma once
/// \file The rules of `explain` (workflow/explain.hpp) for a Pending pod: what holds it back,
/// in the words of whoever holds it (the scheduler in each minor's words, 1.20-1.36; the
/// kubelet pulling an image or mounting a volume; a gang scheduler; a claim not bound), and
/// for too few GPUs or no matching node, the nodes that come closest. Bodies of
/// `detail::Explainer`'s pending-pod steps (workflow/explain_rules.hpp).

#include <tfjob/api/cluster_words.hpp>
#include <tfjob/api/scheduling.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/explain_rules.hpp>
#include <tfjob/workflow/progress.hpp>
#include <tfjob/workflow/status.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/impl/explain_pending_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
