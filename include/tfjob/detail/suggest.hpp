#pragma once
/// \file "Did you mean": the nearest of several known names to a word typed, as cobra's
/// SuggestionsFor does for commands (Levenshtein distance, at most 2, or a case-insensitive
/// match). One measure for the whole tool: unknown fields of a manifest (api/schema.hpp),
/// unknown samples and commands (the plugin).

#include <tfjob/detail/compiled.hpp>

#include <string>
#include <vector>

namespace tfjob::detail {

/// Levenshtein distance between `a` and `b` (insertions, deletions, substitutions).
std::size_t edit_distance(const std::string& a, const std::string& b);

/// The candidate closest to `word`: one equal to it but for case first, else the nearest
/// within `max_distance` edits (the first of equals); "" when none is that close.
std::string closest(const std::string& word, const std::vector<std::string>& candidates,
                    std::size_t max_distance = 2);

}  // namespace tfjob::detail

#if TFJOB_SDK_DEFINE_CORE
#include <tfjob/detail/impl/suggest_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_CORE
