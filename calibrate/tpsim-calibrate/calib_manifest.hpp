// manifest.yaml: every file a run wrote (path relative to --out, and what it holds), every
// part it skipped with the reason, and notes (caps applied to sizes, environment).
// The P2P-disabled NCCL sweep runs in a child process; it appends to a fragment file
// (one tab-separated record per line) that the parent merges into its manifest.
#pragma once
#include <string>
#include <vector>

namespace tpsim::calib {

struct ManifestEntry {
  std::string kind;  // written, skipped, note
  std::string key;   // written: path; skipped: part; note: empty
  std::string text;  // written: what; skipped: reason; note: the note
};

class Manifest {
public:
  void written(const std::string& path, const std::string& what) { add({"written", path, what}); }
  void skipped(const std::string& part, const std::string& reason) { add({"skipped", part, reason}); }
  void note(const std::string& text) { add({"note", "", text}); }
  // From now on, every entry added is also appended to this fragment file at once (the
  // child process uses it, so that a crash still leaves the record of what was written).
  void mirror_to(const std::string& fragment_path) { mirror_path_ = fragment_path; }
  const std::vector<ManifestEntry>& entries() const { return entries_; }
  bool has_skipped() const;

  // The YAML document; `header` holds top-level scalar fields (name, value) in order.
  std::string to_yaml(const std::vector<std::pair<std::string, std::string>>& header) const;

  static std::string to_fragment_line(const ManifestEntry& e);
  // Appends the records of a fragment; malformed lines become notes saying so.
  void merge_fragment(const std::string& fragment_text);

private:
  void add(ManifestEntry e);
  std::vector<ManifestEntry> entries_;
  std::string mirror_path_;
};

// A YAML double-quoted scalar: "..." with \\, \" and control characters escaped.
std::string yaml_quote(const std::string& s);

}  // namespace tpsim::calib
