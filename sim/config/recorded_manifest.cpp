#include "recorded_manifest.hpp"

#include <filesystem>

#include "yaml_source.hpp"

namespace tpsim {

std::optional<RecordedMachine> find_recorded_machine(const std::string& log_path) {
  namespace fs = std::filesystem;
  const fs::path log(log_path), manifest = log.parent_path() / "manifest.yaml";
  std::error_code ec;
  if (!fs::is_regular_file(manifest, ec)) return std::nullopt;
  const YAML::Node root = load_yaml_file(manifest.string());
  const YAML::Node logs = root.IsMap() ? root["logs"] : YAML::Node();
  if (!logs || !logs.IsSequence()) return std::nullopt;
  for (const auto& n : logs) {
    YamlMap e(manifest.string(), n, "a manifest entry");
    if (!e.has("log") || e.str("log") != log.filename().string() || !e.has("platform")) continue;
    RecordedMachine m{manifest.string(), e.str("platform"), {}};
    if (e.has("gpus"))
      for (const auto& g : e.node("gpus")) m.gpus.push_back(int(integer_of(manifest.string(), g, "a GPU index")));
    if (!fs::exists(m.platform, ec)) m.platform = (manifest.parent_path() / ".." / ".." / m.platform).lexically_normal().string();
    if (!fs::exists(m.platform, ec)) return std::nullopt;
    return m;
  }
  return std::nullopt;
}

}  // namespace tpsim
