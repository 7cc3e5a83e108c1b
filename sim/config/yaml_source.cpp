#include "yaml_source.hpp"

#include <algorithm>
#include <cmath>

#include "util/spelling.hpp"
#include "util/text_file.hpp"

namespace tpsim {

namespace {

// yaml-cpp reports an unclosed [ or { where it gave up (often the next line); point at the
// bracket that was never closed instead, where the mistake is.
Location unclosed_flow(const std::string& path, const std::string& text, int error_line) {
  std::vector<Location> open;
  int line = 1, col = 0;
  bool comment = false;
  char quote = 0;
  for (char ch : text) {
    if (ch == '\n') {
      ++line, col = 0, comment = false;
      if (line > error_line) break;
      continue;
    }
    ++col;
    if (comment) continue;
    if (quote) {
      if (ch == quote) quote = 0;
    } else if (ch == '#') {
      comment = true;
    } else if (ch == '"' || ch == '\'') {
      quote = ch;
    } else if (ch == '[' || ch == '{') {
      open.push_back({path, line, col});
    } else if ((ch == ']' || ch == '}') && !open.empty()) {
      open.pop_back();
    }
  }
  return open.empty() ? Location{path, error_line, 1} : open.front();
}

}  // namespace

YAML::Node load_yaml_file(const std::string& path) {
  const std::string text = read_input_file(path);
  if (text.find('\0') != std::string::npos) throw InputError({path}, "not a text file (it contains NUL bytes)");
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    if (e.msg.find("flow not found") != std::string::npos)
      throw InputError(unclosed_flow(path, text, e.mark.line + 1), e.msg + " (this bracket is never closed)");
    throw InputError({path, e.mark.line + 1, e.mark.column + 1}, e.msg);
  }
  if (!root || root.IsNull()) throw InputError({path}, "file is empty");
  return root;
}

Location location_of(const std::string& file, const YAML::Node& node) {
  auto m = node.Mark();
  if (m.is_null()) return {file};
  return {file, m.line + 1, m.column + 1};
}

YamlMap::YamlMap(std::string file, YAML::Node node, const std::string& what)
    : file_(std::move(file)), node_(std::move(node)) {
  if (!node_.IsMap()) throw InputError(location_of(file_, node_), what + " must be a mapping of keys to values");
}

void YamlMap::check_keys(const std::vector<std::string>& allowed) const {
  for (const auto& kv : node_) {
    const std::string key = kv.first.Scalar();
    bool known = false;
    for (const auto& a : allowed) known = known || a == key;
    if (!known) fail(kv.first, "unknown key '" + key + "'" + did_you_mean(key, allowed));
  }
}

bool YamlMap::has(const std::string& key) const { return static_cast<bool>(node_[key]); }

YAML::Node YamlMap::node(const std::string& key) const {
  YAML::Node n = node_[key];
  if (!n) fail(node_, "missing required key '" + key + "'");
  return n;
}

void YamlMap::fail(const YAML::Node& at, const std::string& message) const {
  throw InputError(location_of(file_, at), message);
}

std::string scalar_of(const std::string& file, const YAML::Node& n, const std::string& what) {
  if (!n.IsScalar()) throw InputError(location_of(file, n), "'" + what + "' must be a single value");
  return n.Scalar();
}

double number_of(const std::string& file, const YAML::Node& n, const std::string& what) {
  const std::string s = scalar_of(file, n, what);
  try {
    return parse_number(s);
  } catch (const ValueError& e) {
    throw InputError(location_of(file, n), "'" + what + "': " + e.what());
  }
}

long integer_of(const std::string& file, const YAML::Node& n, const std::string& what) {
  double v = number_of(file, n, what);
  if (v != std::floor(v) || std::fabs(v) > 9e15)
    throw InputError(location_of(file, n), "'" + what + "' must be a whole number, not " + n.Scalar());
  return static_cast<long>(v);
}

double quantity_of(const std::string& file, const YAML::Node& n, Quantity q, const std::string& what) {
  const std::string s = scalar_of(file, n, what);
  try {
    return parse_quantity(s, q);
  } catch (const ValueError& e) {
    throw InputError(location_of(file, n), "'" + what + "': " + e.what());
  }
}

std::string YamlMap::str(const std::string& key) const { return scalar_of(file_, node(key), key); }
std::string YamlMap::str_or(const std::string& key, const std::string& fallback) const {
  return has(key) ? str(key) : fallback;
}
std::string YamlMap::one_of(const std::string& key, const std::vector<std::string>& names) const {
  const std::string s = str(key);
  if (std::find(names.begin(), names.end(), s) != names.end()) return s;
  std::string list;
  for (std::size_t i = 0; i < names.size(); ++i) list += (i ? ", " : "") + names[i];
  fail(node(key), "'" + key + "' must be one of " + list + did_you_mean(s, names));
}
std::string YamlMap::one_of_or(const std::string& key, const std::vector<std::string>& names, const std::string& fallback) const {
  return has(key) ? one_of(key, names) : fallback;
}
double YamlMap::number(const std::string& key) const { return number_of(file_, node(key), key); }
double YamlMap::number_or(const std::string& key, double fallback) const {
  return has(key) ? number(key) : fallback;
}
long YamlMap::integer(const std::string& key) const { return integer_of(file_, node(key), key); }
long YamlMap::integer_or(const std::string& key, long fallback) const {
  return has(key) ? integer(key) : fallback;
}
bool YamlMap::boolean_or(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  const std::string s = str(key);
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  fail(node(key), "'" + key + "' must be true or false, not '" + s + "'");
}
double YamlMap::quantity(const std::string& key, Quantity q) const { return quantity_of(file_, node(key), q, key); }
double YamlMap::quantity_or(const std::string& key, Quantity q, double fallback) const {
  return has(key) ? quantity(key, q) : fallback;
}
YamlMap YamlMap::map(const std::string& key) const { return YamlMap(file_, node(key), "'" + key + "'"); }

}  // namespace tpsim
