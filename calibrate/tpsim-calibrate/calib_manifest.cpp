#include "tpsim-calibrate/calib_manifest.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "tpsim-calibrate/calib_error.hpp"
#include "tpsim-calibrate/calib_files.hpp"

namespace tpsim::calib {
namespace {

std::string one_line(std::string s) {  // fragments are line- and tab-separated
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\t', ' ');
  return s;
}

}  // namespace

std::string yaml_quote(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += std::string("\\") + c;
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
      out += buf;
    } else out += c;
  }
  return out + "\"";
}

void Manifest::add(ManifestEntry e) {
  if (!mirror_path_.empty()) append_text_file(mirror_path_, to_fragment_line(e));
  entries_.push_back(std::move(e));
}

bool Manifest::has_skipped() const {
  return std::any_of(entries_.begin(), entries_.end(), [](const ManifestEntry& e) { return e.kind == "skipped"; });
}

std::string Manifest::to_yaml(const std::vector<std::pair<std::string, std::string>>& header) const {
  std::ostringstream out;
  out << "# " << TOOL_NAME << " " << TOOL_VERSION
      << " manifest: every file this run wrote, and every part it skipped with the reason.\n";
  for (const auto& [name, value] : header) out << name << ": " << yaml_quote(value) << "\n";
  for (const char* kind : {"written", "skipped", "note"}) {
    const std::string section = std::string(kind) == "note" ? "notes" : kind;
    const bool any = std::any_of(entries_.begin(), entries_.end(), [&](const ManifestEntry& e) { return e.kind == kind; });
    if (!any) {
      out << section << ": []\n";
      continue;
    }
    out << section << ":\n";
    for (const ManifestEntry& e : entries_) {
      if (e.kind != kind) continue;
      if (e.kind == "written") out << "  - path: " << yaml_quote(e.key) << "\n    what: " << yaml_quote(e.text) << "\n";
      else if (e.kind == "skipped") out << "  - part: " << yaml_quote(e.key) << "\n    reason: " << yaml_quote(e.text) << "\n";
      else out << "  - " << yaml_quote(e.text) << "\n";
    }
  }
  return out.str();
}

std::string Manifest::to_fragment_line(const ManifestEntry& e) {
  return e.kind + "\t" + one_line(e.key) + "\t" + one_line(e.text) + "\n";
}

void Manifest::merge_fragment(const std::string& fragment_text) {
  std::istringstream in(fragment_text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const size_t t1 = line.find('\t');
    const size_t t2 = t1 == std::string::npos ? t1 : line.find('\t', t1 + 1);
    const std::string kind = line.substr(0, t1);
    if (t2 == std::string::npos || (kind != "written" && kind != "skipped" && kind != "note")) {
      note("unreadable record from the P2P-disabled sweep: " + line);
      continue;
    }
    entries_.push_back({kind, line.substr(t1 + 1, t2 - t1 - 1), line.substr(t2 + 1)});
  }
}

}  // namespace tpsim::calib
