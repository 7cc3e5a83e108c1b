#include "scenario_search.hpp"

#include <functional>

namespace tpsim {
namespace {

constexpr long MAX_SEQS = 1'000'000;  // as the scheduler's max_num_seqs

// The values of list `key` to try, each read by `value` (which fails on a bad one); empty without the key.
template <typename T>
std::vector<T> read_values(const YamlMap& m, const std::string& key, const std::string& example,
                           const std::function<T(const YAML::Node&)>& value) {
  std::vector<T> v;
  if (!m.has(key)) return v;
  const YAML::Node n = m.node(key);
  if (!n.IsSequence() || n.size() == 0) m.fail(n, "'" + key + "' must be a list of values to try, e.g. " + example);
  for (const auto& x : n) v.push_back(value(x));
  return v;
}

std::vector<int> read_seqs(const YamlMap& m) {
  return read_values<int>(m, "max_num_seqs", "[64, 256]", [&](const YAML::Node& x) {
    const long seqs = integer_of(m.file(), x, "max_num_seqs");
    if (seqs < 1 || seqs > MAX_SEQS) m.fail(x, "a max_num_seqs value must be between 1 and 1000000");
    return int(seqs);
  });
}

std::vector<bool> read_chunked(const YamlMap& m) {
  return read_values<bool>(m, "chunked_prefill", "[false, true]", [&](const YAML::Node& x) {
    const std::string b = scalar_of(m.file(), x, "chunked_prefill");
    if (b != "true" && b != "false") m.fail(x, "a chunked_prefill value must be true or false, not '" + b + "'");
    return b == "true";
  });
}

}  // namespace

std::optional<SearchSpec> read_configs_auto(const YamlMap& m) {
  const YAML::Node configs = m.node("configs");
  const bool automatic = configs.IsScalar() && configs.Scalar() == "auto";
  if (configs.IsSequence())
    for (const auto& c : configs)
      if (c.IsScalar() && c.Scalar() == "auto")
        m.fail(c, "'auto' searches every split of the GPUs and cannot be listed with fixed configurations; "
                  "write 'configs: auto' alone, or list every configuration");
  if (!automatic) {
    if (m.has("search")) m.fail(m.node("search"), "'search' goes with 'configs: auto'");
    return std::nullopt;
  }
  SearchSpec s;
  s.where = location_of(m.file(), configs);
  if (!m.has("search")) return s;
  const YamlMap search = m.map("search");
  search.check_keys({"max_num_seqs", "chunked_prefill", "fewest_gpus", "disaggregation"});
  s.max_num_seqs = read_seqs(search);
  s.chunked_prefill = read_chunked(search);
  s.fewest_gpus = search.boolean_or("fewest_gpus", false);
  s.disaggregation = search.boolean_or("disaggregation", false);
  if (s.fewest_gpus && !m.has("slo"))
    search.fail(search.node("fewest_gpus"), "'fewest_gpus' needs an 'slo' section: the SLOs a split must meet");
  return s;
}

}  // namespace tpsim
