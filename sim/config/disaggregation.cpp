#include "disaggregation.hpp"

#include <fmt/format.h>
#include <set>

namespace tpsim {
namespace {

// GPU indices beyond any platform (as scenario.cpp's layout check).
constexpr long MAX_GPU_INDEX = 1'000'000;

std::string gpu_count(std::size_t n) { return fmt::format("{} GPU{}", n, n == 1 ? "" : "s"); }

std::vector<int> read_instance(const YamlMap& m, const YAML::Node& n, const std::string& pool) {
  if (!n.IsSequence() || n.size() == 0) m.fail(n, "each instance of the " + pool + " pool must be a non-empty list of GPU indices");
  std::vector<int> gpus;
  for (const auto& x : n) {
    const long v = integer_of(m.file(), x, "GPU index");
    if (v < 0) m.fail(x, "GPU index must be >= 0");
    if (v > MAX_GPU_INDEX) m.fail(x, fmt::format("GPU index {} is not in any platform (at most {})", v, MAX_GPU_INDEX));
    gpus.push_back(static_cast<int>(v));
  }
  return gpus;
}

// One pool's instances; `tp` (the configuration's, 0 when absent) fixes their size.
PoolSpec read_pool(const YamlMap& m, const std::string& pool, int tp) {
  if (!m.has(pool)) m.fail(m.raw(), "'disaggregation' needs a '" + pool + "' pool: a list of instances, each a list of GPUs");
  const YAML::Node list = m.node(pool);
  if (!list.IsSequence() || list.size() == 0)
    m.fail(list, "the " + pool + " pool has no GPUs: '" + pool + "' must list its instances, each a list of GPUs");
  PoolSpec p;
  std::set<int> seen;
  for (const auto& inst : list) {
    std::vector<int> gpus = read_instance(m, inst, pool);
    const int want = tp > 0 ? tp : p.instances.empty() ? int(gpus.size()) : p.tp;
    if (int(gpus.size()) != want)
      m.fail(inst, tp > 0 ? fmt::format("this {} instance has {} but tp is {}", pool, gpu_count(gpus.size()), tp)
                          : fmt::format("this {} instance has {} but the pool's first has {} (the instances of a pool share one TP)",
                                        pool, gpu_count(gpus.size()), want));
    for (int g : gpus)
      if (!seen.insert(g).second) m.fail(inst, fmt::format("GPU {} is used twice in the {} pool", g, pool));
    p.tp = want;
    p.instances.push_back(std::move(gpus));
    p.instance_where.push_back(location_of(m.file(), inst));
  }
  return p;
}

ConfigSpec config_of(DisaggregationSpec d, std::string name) {
  ConfigSpec c;
  c.tp = d.decode.tp;
  c.layout = d.prefill.instances;
  c.layout.insert(c.layout.end(), d.decode.instances.begin(), d.decode.instances.end());
  c.where = d.where;
  c.name = name.empty() ? xpyd_name(d) : std::move(name);
  c.disaggregation = std::move(d);
  return c;
}

}  // namespace

std::string xpyd_name(const DisaggregationSpec& d) {
  const int p = d.prefill.tp, q = d.decode.tp;
  const std::string tp = p == q ? (p == 1 ? "" : fmt::format(" TP={}", p)) : fmt::format(" TP={}/{}", p, q);
  return fmt::format("{}P{}D{}", d.prefill.instances.size(), d.decode.instances.size(), tp);
}

ConfigSpec read_disaggregated_config(const YamlMap& m) {
  for (const char* key : {"layout", "replicas"})
    if (m.has(key))
      m.fail(m.node(key), fmt::format("'{}' and 'disaggregation' exclude each other: a disaggregated configuration lists its GPUs in its pools", key));
  if (m.has("pp")) m.fail(m.node("pp"), "'pp' is not modelled with 'disaggregation': each instance is one tensor-parallel group");
  long tp = 0;
  if (m.has("tp")) {
    tp = m.integer("tp");
    if (tp < 1) m.fail(m.node("tp"), "'tp' must be at least 1");
    if (tp > MAX_GPU_INDEX) m.fail(m.node("tp"), fmt::format("'tp' is {}; tpsim refuses more than {} GPUs per instance", tp, MAX_GPU_INDEX));
  }
  const YamlMap d = m.map("disaggregation");
  d.check_keys({"prefill", "decode"});
  DisaggregationSpec spec;
  spec.where = location_of(m.file(), m.node("disaggregation"));
  spec.prefill = read_pool(d, "prefill", int(tp));
  spec.decode = read_pool(d, "decode", int(tp));
  const std::set<int> prefill_gpus = [&] {
    std::set<int> s;
    for (const auto& inst : spec.prefill.instances) s.insert(inst.begin(), inst.end());
    return s;
  }();
  for (std::size_t i = 0; i < spec.decode.instances.size(); ++i)
    for (int g : spec.decode.instances[i])
      if (prefill_gpus.count(g)) d.fail(d.node("decode")[i], fmt::format("GPU {} is in both the prefill and the decode pool", g));
  return config_of(std::move(spec), m.str_or("name", ""));
}

ConfigSpec xpyd_config(const std::vector<int>& gpus, int prefill_instances, int prefill_tp, int decode_instances, int decode_tp) {
  if (prefill_instances < 1 || decode_instances < 1 || prefill_tp < 1 || decode_tp < 1)
    throw ValueError("an xPyD configuration needs at least one instance of at least one GPU in each pool");
  const std::size_t need = std::size_t(prefill_instances) * prefill_tp + std::size_t(decode_instances) * decode_tp;
  if (gpus.size() < need)
    throw ValueError(fmt::format("{} prefill x TP={} + {} decode x TP={} needs {} GPUs; {} given", prefill_instances, prefill_tp,
                                 decode_instances, decode_tp, need, gpus.size()));
  if (std::set<int>(gpus.begin(), gpus.end()).size() != gpus.size()) throw ValueError("an xPyD configuration's GPU list repeats a GPU");
  DisaggregationSpec d;
  auto take = [&, next = std::size_t(0)](PoolSpec& pool, int instances, int tp) mutable {
    pool.tp = tp;
    for (int i = 0; i < instances; ++i, next += std::size_t(tp)) {
      pool.instances.emplace_back(gpus.begin() + long(next), gpus.begin() + long(next + std::size_t(tp)));
      pool.instance_where.push_back({});
    }
  };
  take(d.prefill, prefill_instances, prefill_tp);
  take(d.decode, decode_instances, decode_tp);
  return config_of(std::move(d), "");
}

void check_pools_on_platform(const DisaggregationSpec& d, const PlatformDesc& platform, const std::string& platform_path) {
  for (const auto& [pool, name] : {std::pair{&d.prefill, "prefill"}, std::pair{&d.decode, "decode"}})
    for (std::size_t i = 0; i < pool->instances.size(); ++i)
      for (int g : pool->instances[i])
        if (!platform.gpu(g))
          throw InputError(pool->instance_where[i].file.empty() ? d.where : pool->instance_where[i],
                           fmt::format("GPU {} of the {} pool is not in platform {} (it has GPUs {}..{})", g, name, platform_path,
                                       platform.gpus.front().index, platform.gpus.back().index));
}

}  // namespace tpsim
