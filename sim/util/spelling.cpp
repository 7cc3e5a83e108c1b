#include "spelling.hpp"

#include <algorithm>
#include <numeric>

namespace tpsim {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

namespace {

// `word` is one or more whole '_'-separated parts of `name`: "rate" in "rate_per_s", "tokens" in
// "prompt_tokens". Short words (under 3 letters) are not matched this way.
bool names_a_part(std::string_view word, std::string_view name) {
  if (word.size() < 3 || word.size() >= name.size()) return false;
  for (std::size_t at = name.find(word); at != std::string_view::npos; at = name.find(word, at + 1)) {
    const std::size_t end = at + word.size();
    if ((at == 0 || name[at - 1] == '_') && (end == name.size() || name[end] == '_')) return true;
  }
  return false;
}

}  // namespace

std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  // A key the word abbreviates beats any typo: `rate` means rate_per_s, not trace.
  std::optional<std::string> best;
  for (const auto& c : candidates)
    if (names_a_part(word, c) && (!best || c.size() < best->size())) best = c;
  if (best) return best;
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::size_t best_distance = limit + 1;
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  auto best = closest_match(word, candidates);
  return best ? "; did you mean '" + *best + "'?" : "";
}

}  // namespace tpsim
