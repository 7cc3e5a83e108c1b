#include "tpsim-calibrate/calib_model.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "tpsim-calibrate/calib_error.hpp"

namespace tpsim::calib {
namespace {

const char* const REQUIRED[] = {"hidden_size", "intermediate_size", "num_attention_heads",
                                "num_hidden_layers", "vocab_size"};
const char* const OPTIONAL[] = {"num_key_value_heads", "head_dim"};

bool is_wanted(const std::string& key) {
  for (const char* k : REQUIRED) if (key == k) return true;
  for (const char* k : OPTIONAL) if (key == k) return true;
  return key == "model" || key == "_name_or_path";
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string unquote(std::string v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) return v.substr(1, v.size() - 2);
  return v;
}

struct Field {
  std::string value;
  int line = 0;
};

// Top-level `key: value` lines of a YAML card (no indentation), comments stripped.
void scan_yaml(const std::string& text, const std::string& file, std::map<std::string, Field>& fields) {
  std::istringstream in(text);
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    if (line.empty() || std::isspace(static_cast<unsigned char>(line[0])) || line[0] == '#') continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = unquote(trim(line.substr(0, colon)));
    if (!is_wanted(key)) continue;
    std::string value = line.substr(colon + 1);
    for (size_t i = 0; i < value.size(); ++i)  // a comment starts at " #"
      if (value[i] == '#' && (i == 0 || std::isspace(static_cast<unsigned char>(value[i - 1])))) { value.resize(i); break; }
    if (fields.count(key))
      throw UsageError(file + ":" + std::to_string(no) + ": " + key + " given twice (first on line " +
                       std::to_string(fields[key].line) + ")");
    fields[key] = {unquote(trim(value)), no};
  }
}

// Keys of the outermost object of a config.json, with their scalar values.
void scan_json(const std::string& text, const std::string& file, std::map<std::string, Field>& fields) {
  int depth = 0, line = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (c == '{' || c == '[') ++depth;
    else if (c == '}' || c == ']') --depth;
    if (c != '"') continue;
    size_t j = i + 1;  // read a string token
    while (j < text.size() && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
    const std::string token = text.substr(i + 1, j - i - 1);
    i = j;
    if (depth != 1) continue;
    size_t k = j + 1;
    while (k < text.size() && std::isspace(static_cast<unsigned char>(text[k]))) ++k;
    if (k >= text.size() || text[k] != ':' || !is_wanted(token)) continue;
    size_t end = k + 1;
    while (end < text.size() && text[end] != ',' && text[end] != '}' && text[end] != '\n') ++end;
    if (fields.count(token))
      throw UsageError(file + ":" + std::to_string(line) + ": " + token + " given twice (first on line " +
                       std::to_string(fields[token].line) + ")");
    fields[token] = {unquote(trim(text.substr(k + 1, end - k - 1))), line};
  }
}

// A positive integer field, or 0 when absent or null.
int64_t int_field(const std::map<std::string, Field>& fields, const std::string& key, const std::string& file) {
  const auto it = fields.find(key);
  if (it == fields.end() || it->second.value == "null" || it->second.value == "~") return 0;
  const std::string& v = it->second.value;
  const bool digits = !v.empty() && v.size() <= 12 &&
                      std::all_of(v.begin(), v.end(), [](unsigned char ch) { return std::isdigit(ch); });
  if (!digits || std::stoll(v) <= 0)
    throw UsageError(file + ":" + std::to_string(it->second.line) + ": " + key +
                     ": expected a positive integer, got \"" + v + "\"");
  return std::stoll(v);
}

}  // namespace

ModelShape llama31_8b() {
  ModelShape m;
  m.name = "Llama-3.1-8B (built in)";
  m.hidden_size = 4096;
  m.intermediate_size = 14336;
  m.num_attention_heads = 32;
  m.num_key_value_heads = 8;
  m.head_dim = 128;
  m.vocab_size = 128256;
  m.num_hidden_layers = 32;
  return m;
}

ModelShape parse_model_card(const std::string& text, const std::string& file) {
  std::map<std::string, Field> fields;
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') scan_json(text, file, fields);
  else scan_yaml(text, file, fields);

  std::string missing;
  for (const char* key : REQUIRED)
    if (int_field(fields, key, file) == 0) missing += std::string(missing.empty() ? "" : ", ") + key;
  if (!missing.empty())
    throw UsageError(file + ": missing " + missing +
                     " (a model card needs hidden_size, intermediate_size, num_attention_heads, "
                     "num_hidden_layers, vocab_size)");
  ModelShape m;
  m.hidden_size = int_field(fields, "hidden_size", file);
  m.intermediate_size = int_field(fields, "intermediate_size", file);
  m.num_attention_heads = int_field(fields, "num_attention_heads", file);
  m.num_hidden_layers = int_field(fields, "num_hidden_layers", file);
  m.vocab_size = int_field(fields, "vocab_size", file);
  m.num_key_value_heads = int_field(fields, "num_key_value_heads", file);
  if (m.num_key_value_heads == 0) m.num_key_value_heads = m.num_attention_heads;
  m.head_dim = int_field(fields, "head_dim", file);
  if (m.head_dim == 0) {
    if (m.hidden_size % m.num_attention_heads != 0)
      throw UsageError(file + ": no head_dim, and hidden_size " + std::to_string(m.hidden_size) +
                       " does not divide by num_attention_heads " + std::to_string(m.num_attention_heads));
    m.head_dim = m.hidden_size / m.num_attention_heads;
  }
  if (m.num_attention_heads % m.num_key_value_heads != 0)
    throw UsageError(file + ": num_attention_heads " + std::to_string(m.num_attention_heads) +
                     " is not a multiple of num_key_value_heads " + std::to_string(m.num_key_value_heads));
  if (fields.count("model")) m.name = fields["model"].value;
  else if (fields.count("_name_or_path")) m.name = fields["_name_or_path"].value;
  else m.name = std::filesystem::path(file).stem().string();
  return m;
}

ModelShape load_model_card(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(path + ": cannot read the model card");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_model_card(text.str(), path);
}

GemmPlan plan_gemm_shapes(const ModelShape& model, const std::vector<int>& tps, const std::vector<int64_t>& ms) {
  GemmPlan plan;
  const int64_t h = model.hidden_size, heads = model.num_attention_heads, kv = model.num_key_value_heads;
  const int64_t d = model.head_dim, inter = model.intermediate_size;
  for (const int tp : tps) {
    const std::string at = " at TP=" + std::to_string(tp) + ": ";
    struct Op { const char* name; int64_t n, k; std::string why_not; };
    std::vector<Op> ops;
    std::string attn_skip;
    int64_t kv_rank = 0;
    if (heads % tp != 0) attn_skip = std::to_string(heads) + " attention heads do not divide by " + std::to_string(tp);
    else if (kv % tp == 0) kv_rank = kv / tp;
    else if (tp % kv == 0) kv_rank = 1;
    else attn_skip = std::to_string(kv) + " KV heads neither divide by nor divide " + std::to_string(tp);
    const std::string mlp_skip =
        inter % tp ? "intermediate_size " + std::to_string(inter) + " does not divide by " + std::to_string(tp) : "";
    ops.push_back({"qkv", (heads / tp + 2 * kv_rank) * d, h, attn_skip});
    ops.push_back({"o_proj", h, heads / tp * d, attn_skip});
    ops.push_back({"gate_up", 2 * inter / tp, h, mlp_skip});
    ops.push_back({"down", h, inter / tp, mlp_skip});
    ops.push_back({"lm_head", (model.vocab_size + tp - 1) / tp, h, ""});
    for (const Op& op : ops) {
      if (!op.why_not.empty()) {
        plan.skipped.push_back(std::string(op.name) + at + op.why_not);
        continue;
      }
      for (const int64_t m : ms) plan.shapes.push_back({op.name, tp, m, op.n, op.k});
    }
  }
  return plan;
}

std::vector<StepCase> step_cases() {
  return {{"decode", 1, 1024, 1}, {"decode", 8, 1024, 8}, {"decode", 32, 1024, 32}, {"prefill", 1, 0, 512}, {"prefill", 1, 0, 2048}};
}

int64_t kv_cache_bytes(const ModelShape& model, int64_t batch, int64_t context) {
  return batch * context * model.num_key_value_heads * model.head_dim * 2 * 2;
}

int64_t weight_bytes(const ModelShape& model) {
  int64_t total = 0;
  for (const GemmShape& s : plan_gemm_shapes(model, {1}, {1}).shapes)
    total += s.n * s.k * 2 * (s.op == "lm_head" ? 1 : model.num_hidden_layers);
  return total;
}

std::vector<int64_t> gemm_token_counts(bool quick) {
  if (quick) return {1, 4, 16, 64, 256, 1024, 4096, 16384};
  std::vector<int64_t> ms;
  for (int64_t m = 1; m <= 16384; m *= 2) ms.push_back(m);
  return ms;
}

}  // namespace tpsim::calib
