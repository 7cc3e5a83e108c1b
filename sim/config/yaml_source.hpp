// Reading YAML with located errors: the only place (with the other config files) that
// includes yaml-cpp. A YamlSource remembers the file name; every value read through it that
// is wrong yields `file:line:col: error: ...` with yaml-cpp's 0-based marks made 1-based.
// Unknown keys are errors naming the nearest allowed key.
#pragma once
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

#include "util/error.hpp"
#include "util/units.hpp"

namespace tpsim {

// Reads and parses a YAML (or JSON) file. Missing, unreadable, empty or malformed files are
// InputErrors located at the file (and line:col of the syntax error).
YAML::Node load_yaml_file(const std::string& path);

Location location_of(const std::string& file, const YAML::Node& node);

// A mapping node plus the file it came from, with typed, located accessors.
class YamlMap {
public:
  YamlMap(std::string file, YAML::Node node, const std::string& what);

  // Every key must be in `allowed`, else an error with a did-you-mean.
  void check_keys(const std::vector<std::string>& allowed) const;
  bool has(const std::string& key) const;
  YAML::Node node(const std::string& key) const;  // required
  YAML::Node raw() const { return node_; }
  const std::string& file() const { return file_; }

  std::string str(const std::string& key) const;
  std::string str_or(const std::string& key, const std::string& fallback) const;
  // m[key] when it is one of `names` (`fallback` when absent); "'key' must be one of a, b, c; did
  // you mean ...?" at the value otherwise.
  std::string one_of(const std::string& key, const std::vector<std::string>& names) const;
  std::string one_of_or(const std::string& key, const std::vector<std::string>& names, const std::string& fallback) const;
  double number(const std::string& key) const;
  double number_or(const std::string& key, double fallback) const;
  long integer(const std::string& key) const;
  long integer_or(const std::string& key, long fallback) const;
  bool boolean_or(const std::string& key, bool fallback) const;
  double quantity(const std::string& key, Quantity q) const;
  double quantity_or(const std::string& key, Quantity q, double fallback) const;
  YamlMap map(const std::string& key) const;

  [[noreturn]] void fail(const YAML::Node& at, const std::string& message) const;

private:
  std::string file_;
  YAML::Node node_;
};

// Typed conversions of a scalar node, with located errors.
std::string scalar_of(const std::string& file, const YAML::Node& n, const std::string& what);
double number_of(const std::string& file, const YAML::Node& n, const std::string& what);
long integer_of(const std::string& file, const YAML::Node& n, const std::string& what);
double quantity_of(const std::string& file, const YAML::Node& n, Quantity q, const std::string& what);

}  // namespace tpsim
