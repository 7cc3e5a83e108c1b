#include "tpsim-calibrate/calib_topo.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

#include "tpsim-calibrate/calib_error.hpp"

namespace tpsim::calib {
namespace {

std::string strip_escapes(const std::string& text) {  // ESC [ ... letter
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      i += 2;
      while (i < text.size() && !std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
      continue;
    }
    out += text[i];
  }
  return out;
}

std::vector<std::string> split_ws(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

bool is_gpu_name(const std::string& w) {
  return w.size() > 3 && w.compare(0, 3, "GPU") == 0 &&
         std::all_of(w.begin() + 3, w.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

}  // namespace

const std::string* TopoMatrix::cell(int i, int j) const {
  if (i < 0 || j < 0 || i >= static_cast<int>(cells.size()) || cells[i].empty()) return nullptr;
  if (j >= static_cast<int>(cells[i].size())) return nullptr;
  return &cells[i][j];
}

TopoMatrix parse_topo_matrix(const std::string& text) {
  TopoMatrix m;
  std::istringstream in(strip_escapes(text));
  std::string line;
  bool header = false;
  while (std::getline(in, line)) {
    const std::vector<std::string> words = split_ws(line);
    if (words.empty()) continue;
    if (!header) {
      if (!is_gpu_name(words[0])) continue;
      for (const std::string& w : words) {
        if (!is_gpu_name(w)) break;
        m.gpu_names.push_back(w);
      }
      m.cells.resize(m.gpu_names.size());
      header = true;
      continue;
    }
    if (!is_gpu_name(words[0])) {
      if (words[0] == "Legend:") break;
      continue;  // NIC rows
    }
    const auto row = std::find(m.gpu_names.begin(), m.gpu_names.end(), words[0]);
    if (row == m.gpu_names.end() || words.size() < m.gpu_names.size() + 1) continue;
    m.cells[row - m.gpu_names.begin()].assign(words.begin() + 1, words.begin() + 1 + static_cast<long>(m.gpu_names.size()));
  }
  if (!header) throw RunError("nvidia-smi topo -m: no GPU header line in its output");
  return m;
}

std::string normalize_bus_id(const std::string& bus_id) {
  const std::string id = lower(trim(bus_id));
  const size_t colon = id.find(':');
  if (colon == std::string::npos || id.find(':', colon + 1) == std::string::npos) return id;  // no domain
  unsigned long domain = 0;
  try {
    domain = std::stoul(id.substr(0, colon), nullptr, 16);
  } catch (const std::exception&) {
    return id;
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04lx", domain);
  return buf + id.substr(colon);
}

std::map<int, std::string> parse_bus_id_query(const std::string& text) {
  std::map<int, std::string> ids;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t comma = line.find(',');
    if (comma == std::string::npos) continue;
    const std::string index = trim(line.substr(0, comma));
    if (index.empty() || !std::all_of(index.begin(), index.end(), [](unsigned char c) { return std::isdigit(c); }))
      continue;
    ids[std::stoi(index)] = normalize_bus_id(line.substr(comma + 1));
  }
  return ids;
}

std::vector<PairChoice> representative_pairs(const std::vector<int>& gpus,
                                             const std::function<std::string(int, int)>& pair_class) {
  std::vector<PairChoice> choices;
  for (size_t i = 0; i < gpus.size(); ++i)
    for (size_t j = i + 1; j < gpus.size(); ++j) {
      const std::string cls = pair_class(gpus[i], gpus[j]);
      const auto it = std::find_if(choices.begin(), choices.end(), [&](const PairChoice& c) { return c.pair_class == cls; });
      if (it != choices.end()) ++it->pairs;
      else choices.push_back({cls, gpus[i], gpus[j], 1});
    }
  return choices;
}

std::string nvidia_smi_q_essentials(const std::string& text) {
  // Paths are section titles and the key, joined by '/', relative to the GPU block.
  static const std::vector<std::string> KEEP = {
      "Driver Version", "CUDA Version", "Attached GPUs", "Product Name", "Product Architecture",
      "Persistence Mode", "Addressing Mode", "VBIOS Version", "MIG Mode/Current", "PCI/Bus Id",
      "PCI/GPU Link Info/PCIe Generation/Max", "PCI/GPU Link Info/PCIe Generation/Current",
      "PCI/GPU Link Info/Link Width/Max", "PCI/GPU Link Info/Link Width/Current", "FB Memory Usage/Total",
      "Compute Mode", "ECC Mode/Current", "GPU Power Readings/Current Power Limit",
      "GPU Power Readings/Max Power Limit", "Power Readings/Power Limit", "Power Readings/Enforced Power Limit",
      "Max Clocks/Graphics", "Max Clocks/SM", "Max Clocks/Memory", "Applications Clocks/Graphics",
      "Applications Clocks/Memory"};
  std::istringstream in(text);
  std::string line, out;
  std::vector<std::string> sections;
  bool in_gpu = false;
  while (std::getline(in, line)) {
    const std::string t = trim(line);
    if (t.empty()) continue;
    const size_t indent = line.find_first_not_of(' ');
    if (indent == 0 && t.compare(0, 4, "GPU ") == 0) {  // "GPU 00000000:07:00.0" opens a GPU block
      out += t + "\n";
      in_gpu = true;
      sections.clear();
      continue;
    }
    const size_t depth = indent / 4 >= (in_gpu ? 1u : 0u) ? indent / 4 - (in_gpu ? 1 : 0) : 0;
    sections.resize(std::min(depth, sections.size()));
    const size_t colon = t.find(':');
    const std::string key = trim(t.substr(0, colon));
    const std::string value = colon == std::string::npos ? "" : trim(t.substr(colon + 1));
    std::string path;
    for (const std::string& s : sections) path += s + "/";
    path += key;
    if (value.empty()) {  // a section title: keep it when something kept lies below it
      sections.push_back(key);
      if (std::any_of(KEEP.begin(), KEEP.end(), [&](const std::string& k) { return k.compare(0, path.size() + 1, path + "/") == 0; }))
        out += line + "\n";
    } else if (std::find(KEEP.begin(), KEEP.end(), path) != KEEP.end()) {
      out += line + "\n";
    }
  }
  return out;
}

}  // namespace tpsim::calib
