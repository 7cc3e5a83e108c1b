#include "scenario_search.hpp"

namespace tpsim {
namespace {

constexpr long MAX_SEQS = 1'000'000;  // as the scheduler's max_num_seqs

std::vector<int> read_seqs(const YamlMap& m) {
  std::vector<int> v;
  if (!m.has("max_num_seqs")) return v;
  const YAML::Node n = m.node("max_num_seqs");
  if (!n.IsSequence() || n.size() == 0) m.fail(n, "'max_num_seqs' must be a list of values to try, e.g. [64, 256]");
  for (const auto& x : n) {
    const long seqs = integer_of(m.file(), x, "max_num_seqs");
    if (seqs < 1 || seqs > MAX_SEQS) m.fail(x, "a max_num_seqs value must be between 1 and 1000000");
    v.push_back(int(seqs));
  }
  return v;
}

std::vector<bool> read_chunked(const YamlMap& m) {
  std::vector<bool> v;
  if (!m.has("chunked_prefill")) return v;
  const YAML::Node n = m.node("chunked_prefill");
  if (!n.IsSequence() || n.size() == 0) m.fail(n, "'chunked_prefill' must be a list of values to try, e.g. [false, true]");
  for (const auto& x : n) {
    const std::string b = scalar_of(m.file(), x, "chunked_prefill");
    if (b != "true" && b != "false") m.fail(x, "a chunked_prefill value must be true or false, not '" + b + "'");
    v.push_back(b == "true");
  }
  return v;
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
