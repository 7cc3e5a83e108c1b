#include "model_scale.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "util/error.hpp"

namespace tpsim {

int layers_for_weight_bytes(const ModelCard& m, double target_B, int min_layers) {
  const double layer = m.layer_bytes(1);
  if (m.num_layers < 1 || !(layer > 0)) throw ValueError("model " + m.name + " has no layers to scale");
  const double rest = m.weight_bytes() - m.num_layers * layer;
  const double layers = std::round((target_B - rest) / layer);
  return int(std::clamp(layers, double(std::max(1, min_layers)), 1e6));
}

ModelCard scaled_to_weight_bytes(const ModelCard& m, double target_B, int min_layers) {
  ModelCard s = m;
  s.num_layers = layers_for_weight_bytes(m, target_B, min_layers);
  const std::string base = m.name.substr(0, m.name.find(" scaled to "));
  if (s.num_layers != m.num_layers || base != m.name)
    s.name = fmt::format("{} scaled to {} layers ({:.1f} GB of weights)", base, s.num_layers, s.weight_bytes() / 1e9);
  return s;
}

}  // namespace tpsim
