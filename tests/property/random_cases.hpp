// Generators for the property tests: models within the ranges real ones span, platforms built
// in code the way platforms/README.md describes boxes (a PCIe lane per GPU, PCIe switches of two
// GPUs, a host bridge per socket, UPI between sockets, NVLink on some GPU pairs), TP groups
// valid for both, and the SimGrid XML of such a platform for the engine tests. Everything comes
// from a seeded std::mt19937_64: the same seed gives the same cases on every machine.
#pragma once
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "config/model_card.hpp"
#include "config/platform_file.hpp"
#include "util/error.hpp"
#include "workloads/step_ops.hpp"

namespace tpsim::prop {

using Rng = std::mt19937_64;

inline int uniform_int(Rng& r, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(r); }
inline double uniform(Rng& r, double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(r); }
inline double log_uniform(Rng& r, double lo, double hi) { return std::exp(uniform(r, std::log(lo), std::log(hi))); }
inline bool coin(Rng& r, double p = 0.5) { return uniform(r, 0, 1) < p; }
template <class T>
const T& pick(Rng& r, const std::vector<T>& v) { return v[std::size_t(uniform_int(r, 0, int(v.size()) - 1))]; }

// hidden 1024..16384 (a multiple of 128), heads = hidden / head_dim (head_dim 64, 128 or 256),
// KV heads a divisor of the heads, 8..128 layers, vocab 32k..256k, MLP 2.5..4 x hidden; one in
// five a mixture of experts; bf16 or fp8 weights.
inline ModelCard random_model(Rng& r) {
  ModelCard m;
  m.name = "random";
  m.hidden_size = 128 * uniform_int(r, 8, 128);
  std::vector<int> head_dims{64, 128};
  if (m.hidden_size % 256 == 0) head_dims.push_back(256);
  m.head_dim = pick(r, head_dims);
  m.num_heads = m.hidden_size / m.head_dim;
  std::vector<int> divisors;
  for (int d = 1; d <= m.num_heads; ++d)
    if (m.num_heads % d == 0) divisors.push_back(d);
  m.num_kv_heads = pick(r, divisors);
  m.num_layers = uniform_int(r, 8, 128);
  m.intermediate_size = 256 * std::max(1, int(std::lround(m.hidden_size * uniform(r, 2.5, 4.0) / 256)));
  m.vocab_size = uniform_int(r, 32000, 256000);
  m.tie_word_embeddings = coin(r, 0.2);
  if (coin(r, 0.2)) {
    m.num_experts = pick(r, std::vector<int>{8, 16, 64});
    m.experts_per_token = pick(r, std::vector<int>{1, 2, 8});
    m.intermediate_size = 256 * std::max(1, int(std::lround(m.intermediate_size / 4.0 / 256)));
  }
  const bool fp8 = coin(r, 0.3);
  m.dtype = fp8 ? "fp8" : "bf16";
  m.weight_bytes_per_param = fp8 ? 1 : 2;
  return m;
}

// TP degrees (1, 2, 4, 8) that the model accepts and `gpus` GPUs can hold.
inline std::vector<int> valid_tps(const ModelCard& m, int gpus) {
  std::vector<int> out;
  for (int tp : {1, 2, 4, 8}) {
    if (tp > gpus) continue;
    try {
      check_tp(m, tp);
      out.push_back(tp);
    } catch (const ValueError&) {
    }
  }
  return out;
}

// The model card as YAML (for scenarios, which name a file).
inline std::string model_yaml(const ModelCard& m) {
  std::string y = fmt::format(
      "model: {}\nhidden_size: {}\nnum_hidden_layers: {}\nnum_attention_heads: {}\nnum_key_value_heads: {}\nhead_dim: {}\n"
      "intermediate_size: {}\nvocab_size: {}\ntie_word_embeddings: {}\ntorch_dtype: {}\n",
      m.name, m.hidden_size, m.num_layers, m.num_heads, m.num_kv_heads, m.head_dim, m.intermediate_size, m.vocab_size,
      m.tie_word_embeddings, m.dtype);
  if (m.num_experts > 0) y += fmt::format("num_local_experts: {}\nnum_experts_per_tok: {}\n", m.num_experts, m.experts_per_token);
  return y;
}

// A box of `gpus` GPUs. GPU g sits in socket g * sockets / gpus; consecutive GPUs of a socket
// share a PCIe switch two by two; NVLink joins some pairs (2k, 2k+1), or every GPU has a port
// into an NVSwitch fabric. Routes as the README says: NVLink pairs over their NVLink, NVSwitch
// boxes over the two GPUs' ports; else pcie, switch(es), host bridge(s), UPI as the sockets
// require; every GPU to every CPU socket; socket to socket over UPI.
struct BoxShape {
  int gpus = 4;
  int sockets = 1;
  std::string gpu_model = "H100-SXM5-80GB";
  std::vector<bool> nvlink_pair;  // per pair (2k, 2k+1)
  bool nvswitch = false;          // every GPU pair through the NVSwitch fabric (then no NVLink pairs)
  bool p2p = true;
  std::string p2p_level = "PXB";
};

inline BoxShape random_shape(Rng& r, int min_gpus = 2, int max_gpus = 8) {
  BoxShape s;
  s.gpus = uniform_int(r, min_gpus, max_gpus);
  s.sockets = s.gpus >= 4 && coin(r) ? 2 : 1;
  s.gpu_model = pick(r, gpu_names());
  for (int k = 0; k < s.gpus / 2; ++k) s.nvlink_pair.push_back(coin(r, 0.6));
  s.nvswitch = coin(r, 0.25);
  s.p2p = coin(r, 0.8);
  s.p2p_level = pick(r, std::vector<std::string>{"PIX", "PXB", "PHB", "SYS"});
  return s;
}

class BoxBuilder {
public:
  BoxBuilder(const BoxShape& shape, Rng& r) : s_(shape) {
    p_.file = "random-box";
    p_.p2p_level = s_.p2p_level;
    for (int c = 0; c < s_.sockets; ++c) p_.cpus.push_back("cpu" + std::to_string(c));
    for (int c = 0; c < s_.sockets; ++c)
      hb_.push_back(link("hb" + std::to_string(c), LinkKind::host_bridge, log_uniform(r, 16e9, 128e9), log_uniform(r, 0.2e-6, 2e-6), false));
    if (s_.sockets > 1) upi_ = link("upi", LinkKind::upi, log_uniform(r, 10e9, 200e9), log_uniform(r, 0.5e-6, 3e-6), false);
    for (int g = 0; g < s_.gpus; ++g) {
      GpuDesc d;
      d.index = g;
      d.host = "gpu" + std::to_string(g);
      d.model = s_.gpu_model;
      d.spec = find_gpu(s_.gpu_model);
      d.p2p = s_.p2p;
      d.cpu = "cpu" + std::to_string(socket(g));
      p_.gpus.push_back(d);
      pcie_.push_back(link("pcie" + std::to_string(g), LinkKind::pcie, log_uniform(r, 8e9, 64e9), log_uniform(r, 0.2e-6, 2e-6), true));
      const std::string sw = switch_name(g);
      if (!switch_.count(sw)) switch_[sw] = link(sw, LinkKind::pcie_switch, log_uniform(r, 16e9, 128e9), log_uniform(r, 0.1e-6, 1e-6), false);
    }
    if (s_.nvswitch)
      for (int g = 0; g < s_.gpus; ++g)
        nvswitch_.push_back(link("nvswitch" + std::to_string(g), LinkKind::nvswitch, log_uniform(r, 100e9, 900e9),
                                 log_uniform(r, 0.1e-6, 1e-6), true));
    for (int k = 0; k < int(s_.nvlink_pair.size()); ++k)
      if (s_.nvlink_pair[k] && !s_.nvswitch)
        nvlink_[k] = link(fmt::format("nvlink{}_{}", 2 * k, 2 * k + 1), LinkKind::nvlink, log_uniform(r, 50e9, 900e9),
                          log_uniform(r, 0.2e-6, 2e-6), true);
    for (int a = 0; a < s_.gpus; ++a)
      for (int b = a + 1; b < s_.gpus; ++b) route(host(a), host(b), gpu_route(a, b));
    for (int a = 0; a < s_.gpus; ++a)
      for (int c = 0; c < s_.sockets; ++c) {
        std::vector<RouteHop> hops{{pcie_[a], false}, {switch_[switch_name(a)], false}, {hb_[socket(a)], false}};
        if (c != socket(a)) hops.push_back({upi_, false});
        route(host(a), "cpu" + std::to_string(c), hops);
      }
    if (s_.sockets > 1) route("cpu0", "cpu1", {{upi_, false}});
  }

  const PlatformDesc& platform() const { return p_; }

  // SimGrid XML of the box (platforms/README.md conventions), which load_platform_file reads back.
  std::string xml() const {
    std::string x = "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n";
    x += "  <zone id=\"box\" routing=\"Full\">\n";
    x += fmt::format("    <prop id=\"p2p_level\" value=\"{}\"/>\n", p_.p2p_level);
    for (const auto& c : p_.cpus) x += fmt::format("    <host id=\"{}\" speed=\"1Gf\"><prop id=\"role\" value=\"cpu\"/></host>\n", c);
    for (const auto& g : p_.gpus)
      x += fmt::format(
          "    <host id=\"{}\" speed=\"{:.17g}f\"><prop id=\"gpu_model\" value=\"{}\"/><prop id=\"index\" value=\"{}\"/>"
          "<prop id=\"cpu\" value=\"{}\"/><prop id=\"p2p\" value=\"{}\"/></host>\n",
          g.host, g.spec->bf16_peak_flops, g.model, g.index, g.cpu, g.p2p ? "yes" : "no");
    for (const auto& l : p_.links)
      x += fmt::format("    <link id=\"{}\" bandwidth=\"{:.17g}Bps\" latency=\"{:.17g}s\"{}><prop id=\"kind\" value=\"{}\"/></link>\n", l.id,
                       l.bandwidth_Bps, l.latency_s, l.split_duplex ? " sharing_policy=\"SPLITDUPLEX\"" : "", link_kind_name(l.kind));
    for (const auto& [ends, hops] : written_) {
      x += fmt::format("    <route src=\"{}\" dst=\"{}\">", ends.first, ends.second);
      for (const auto& h : hops) {
        const bool split = p_.links[h.link].split_duplex;
        x += fmt::format("<link_ctn id=\"{}\"{}/>", p_.links[h.link].id, split ? (h.reverse ? " direction=\"DOWN\"" : " direction=\"UP\"") : "");
      }
      x += "</route>\n";
    }
    x += "  </zone>\n</platform>\n";
    return x;
  }

private:
  int socket(int g) const { return g * s_.sockets / s_.gpus; }
  int first_of_socket(int c) const {
    int g = 0;
    while (socket(g) != c) ++g;
    return g;
  }
  std::string switch_name(int g) const { return fmt::format("sw{}_{}", socket(g), (g - first_of_socket(socket(g))) / 2); }
  static std::string host(int g) { return "gpu" + std::to_string(g); }
  int link(const std::string& id, LinkKind kind, double bw, double lat, bool split) {
    p_.links.push_back({id, kind, bw, lat, split});
    return int(p_.links.size()) - 1;
  }
  std::vector<RouteHop> gpu_route(int a, int b) {
    if (s_.nvswitch) return {{nvswitch_[a], false}, {nvswitch_[b], true}};
    if (b == a + 1 && a % 2 == 0 && nvlink_.count(a / 2)) return {{nvlink_[a / 2], false}};
    std::vector<RouteHop> hops{{pcie_[a], false}, {switch_[switch_name(a)], false}};
    if (switch_name(a) != switch_name(b)) {
      hops.push_back({hb_[socket(a)], false});
      if (socket(a) != socket(b)) hops.push_back({upi_, false}), hops.push_back({hb_[socket(b)], false});
      hops.push_back({switch_[switch_name(b)], false});
    }
    hops.push_back({pcie_[b], true});
    return hops;
  }
  // Stores both directions, as load_platform_file does for a symmetrical route.
  void route(const std::string& a, const std::string& b, const std::vector<RouteHop>& hops) {
    written_.emplace_back(std::pair{a, b}, hops);
    p_.routes[{a, b}] = hops;
    std::vector<RouteHop> back(hops.rbegin(), hops.rend());
    for (auto& h : back) h.reverse = !h.reverse;
    p_.routes[{b, a}] = back;
  }

  BoxShape s_;
  PlatformDesc p_;
  std::vector<int> hb_, pcie_, nvswitch_;
  int upi_ = -1;
  std::map<std::string, int> switch_;
  std::map<int, int> nvlink_;
  std::vector<std::pair<std::pair<std::string, std::string>, std::vector<RouteHop>>> written_;
};

// `n` distinct GPUs out of `gpus`, in random order.
inline std::vector<int> random_group(Rng& r, int gpus, int n) {
  std::vector<int> all(gpus);
  std::iota(all.begin(), all.end(), 0);
  std::shuffle(all.begin(), all.end(), r);
  all.resize(n);
  return all;
}

}  // namespace tpsim::prop
