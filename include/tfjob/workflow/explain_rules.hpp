#pragma once
/// \file The rules `explain` applies (workflow/explain.hpp): the facts of one job
/// (workflow/explain_facts.hpp) turned into findings by the training operator v1.9's own rules
/// (tfjob/api/operator_rules.hpp), one rule per step: what decides success and who it still
/// waits for, each restart and failure (exit code, whether the restart policy retries it,
/// backoffLimit used, activeDeadlineSeconds left), why each Pending pod waits (scheduler,
/// claim, image, quota, gang scheduler, Kueue), and for a Failed job which replica failed
/// first with its termination message and last log lines.
///
/// Everything here is the `detail::Explainer` that `explain()` runs; nothing is public API.

#include <tfjob/api/cluster_words.hpp>
#include <tfjob/api/findings.hpp>
#include <tfjob/api/labels.hpp>
#include <tfjob/api/lint.hpp>
#include <tfjob/api/operator_rules.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/workflow/explain_facts.hpp>
#include <tfjob/workflow/pods.hpp>
#include <tfjob/workflow/progress.hpp>
#include <tfjob/workflow/queues.hpp>
#include <tfjob/workflow/status.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/impl/explain_rules_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
