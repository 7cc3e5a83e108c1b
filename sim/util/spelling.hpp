// "Did you mean" for unknown keys and names (after ninja's SpellcheckString).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpsim {

// Levenshtein distance between two strings.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word`: first the shortest candidate of which `word` is one or more
// whole '_'-separated parts (an abbreviation: "rate" for "rate_per_s"), else the nearest by edit
// distance if it is close enough to be a likely typo (at most max(2, |word|/3)). Ties go to the
// earlier candidate.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);

// "; did you mean 'x'?" or "" when nothing is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace tpsim
