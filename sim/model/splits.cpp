#include "splits.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "config/disaggregation.hpp"

namespace tpsim {
namespace {

std::string shape_name(const ReplicaShape& s, int count) {
  return fmt::format("{}TP={}{}", count > 1 ? std::to_string(count) + "x" : "", s.tp, s.pp > 1 ? fmt::format("xPP={}", s.pp) : "");
}

// Multisets of `parts` (largest first, non-increasing) summing to `left`, appended to `out`.
void partitions(int left, std::size_t from, const std::vector<int>& parts, std::vector<int>& current,
                std::vector<std::vector<int>>& out) {
  if (left == 0) {
    out.push_back(current);
    return;
  }
  for (std::size_t i = from; i < parts.size(); ++i) {
    if (parts[i] > left) continue;
    current.push_back(parts[i]);
    partitions(left - parts[i], i, parts, current, out);
    current.pop_back();
  }
}

}  // namespace

int Split::gpus() const {
  int n = 0;
  for (const auto& r : replicas) n += r.gpus();
  return n;
}

std::string Split::name() const {
  std::string out;
  for (std::size_t i = 0; i < replicas.size();) {
    std::size_t j = i;
    while (j < replicas.size() && replicas[j] == replicas[i]) ++j;
    out += (out.empty() ? "" : " + ") + shape_name(replicas[i], int(j - i));
    i = j;
  }
  return out;
}

SplitList enumerate_splits(int gpus, bool all_gpus, const std::function<std::string(int)>& refuse_tp,
                           const std::function<std::string(int)>& refuse_pp) {
  SplitList list;
  std::vector<int> tps, pps;
  for (int t = gpus; t >= 1; --t) {
    if (const std::string why = refuse_tp(t); why.empty()) tps.push_back(t);
    else list.left_out.push_back(why);
  }
  for (int p = 1; p <= gpus; ++p) {
    if (const std::string why = refuse_pp(p); why.empty()) pps.push_back(p);
    else list.left_out.push_back(why);
  }
  const int low = all_gpus ? gpus : 1;
  // Uniform: k replicas of one TP x PP shape.
  for (int t : tps)
    for (int p : pps)
      for (int k = gpus / (t * p); k >= 1 && k * t * p >= low; --k) list.splits.push_back({std::vector<ReplicaShape>(k, {t, p})});
  // Mixed: tensor-parallel replicas of at least two degrees.
  for (int n = gpus; n >= low; --n) {
    std::vector<std::vector<int>> mixes;
    std::vector<int> current;
    partitions(n, 0, tps, current, mixes);
    for (const auto& m : mixes) {
      if (m.front() == m.back()) continue;  // uniform: listed above
      Split s;
      for (int t : m) s.replicas.push_back({t, 1});
      list.splits.push_back(s);
    }
  }
  return list;
}

std::vector<ConfigSpec> search_configs(const SearchSpec& search, const std::vector<Split>& splits) {
  std::vector<std::optional<int>> seqs(search.max_num_seqs.begin(), search.max_num_seqs.end());
  std::vector<std::optional<bool>> chunked(search.chunked_prefill.begin(), search.chunked_prefill.end());
  if (seqs.empty()) seqs.push_back(std::nullopt);
  if (chunked.empty()) chunked.push_back(std::nullopt);
  std::vector<ConfigSpec> out;
  for (const Split& split : splits)
    for (const auto& n : seqs)
      for (const auto& c : chunked) {
        ConfigSpec spec;
        spec.name = split.name() + (n ? fmt::format(" seqs={}", *n) : "") + (c ? (*c ? " chunked" : " unchunked") : "");
        spec.tp = split.replicas.front().tp;
        spec.pp = split.replicas.front().pp;
        spec.auto_replicas = int(split.replicas.size());
        for (const auto& r : split.replicas) spec.replica_tp.push_back(r.tp);
        spec.max_num_seqs = n;
        spec.chunked_prefill = c;
        spec.where = search.where;
        out.push_back(spec);
      }
  return out;
}

std::vector<ConfigSpec> xpyd_splits(const std::vector<int>& gpus, bool all_gpus, const std::function<std::string(int)>& refuse_tp) {
  const int n = int(gpus.size());
  std::vector<int> tps;
  for (int t = 1; t < n; ++t)
    if (refuse_tp(t).empty()) tps.push_back(t);
  std::vector<ConfigSpec> out;
  for (int p : tps)
    for (int d : tps)
      for (int x = 1; x * p + d <= n; ++x)
        for (int y = 1; x * p + y * d <= n; ++y)
          if (!all_gpus || x * p + y * d == n) out.push_back(xpyd_config(gpus, x, p, y, d));
  return out;
}

}  // namespace tpsim
