#include "requests.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "util/error.hpp"
#include "util/units.hpp"

namespace tpsim {
namespace {

long draw_length(const LengthSpec& l, std::mt19937_64& rng) {
  switch (l.dist) {
    case LengthDist::fixed: return std::lround(l.value);
    case LengthDist::uniform: return std::uniform_int_distribution<long>(std::lround(l.value), std::lround(l.high))(rng);
    case LengthDist::lognormal: {
      // mean of the lognormal is l.value: mu = ln(mean) - sigma^2/2
      std::lognormal_distribution<double> d(std::log(l.value) - l.sigma * l.sigma / 2, l.sigma);
      return std::max(1L, std::lround(d(rng)));
    }
  }
  return 1;
}

std::vector<std::string> split_fields(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string f;
  while (std::getline(ss, f, sep)) {
    while (!f.empty() && (f.back() == '\r' || f.back() == ' ')) f.pop_back();
    while (!f.empty() && f.front() == ' ') f.erase(f.begin());
    out.push_back(f);
  }
  return out;
}

// Timestamps: seconds as a number, or "YYYY-MM-DD HH:MM:SS[.ffffff]" (Azure traces).
double parse_timestamp(const std::string& s) {
  int Y, M, D, h, m;
  double sec;
  if (std::sscanf(s.c_str(), "%d-%d-%d %d:%d:%lf", &Y, &M, &D, &h, &m, &sec) == 6) {
    if (Y < 1 || Y > 9999 || M < 1 || M > 12 || D < 1 || D > 31 || h < 0 || h > 23 || m < 0 || m > 59 || !(sec >= 0 && sec < 61))
      throw ValueError("'" + s + "' is not a date and time (YYYY-MM-DD HH:MM:SS)");
    // days from civil (Howard Hinnant's algorithm)
    Y -= M <= 2;
    const int era = (Y >= 0 ? Y : Y - 399) / 400;
    const unsigned yoe = unsigned(Y - era * 400);
    const unsigned doy = (153 * (M + (M > 2 ? -3 : 9)) + 2) / 5 + D - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    const double days = era * 146097.0 + doe - 719468;
    return days * 86400 + h * 3600 + m * 60 + sec;
  }
  return parse_number(s);
}

}  // namespace

std::vector<Request> generate_requests(const WorkloadSpec& w, std::uint64_t seed, int replicas) {
  if (w.arrivals == ArrivalKind::trace) return read_trace(w.trace_path);
  std::mt19937_64 rng(seed);
  std::vector<Request> out;
  if (w.arrivals == ArrivalKind::closed) {
    for (long i = 0; i < long(w.batch) * replicas; ++i) out.push_back({i, 0.0, draw_length(w.prompt, rng), draw_length(w.output, rng)});
    return out;
  }
  double t = 0;
  std::exponential_distribution<double> exp(w.rate_per_s);
  // Gamma inter-arrivals with mean 1/rate and CV^2 = burstiness: shape k = 1/burstiness.
  std::gamma_distribution<double> gamma(1.0 / w.burstiness, w.burstiness / w.rate_per_s);
  for (long i = 0;; ++i) {
    if (w.requests > 0 && i >= w.requests) break;
    double gap = w.arrivals == ArrivalKind::poisson ? exp(rng) : w.arrivals == ArrivalKind::gamma ? gamma(rng) : 1.0 / w.rate_per_s;
    t += gap;
    if (w.requests == 0 && t > w.duration_s) break;
    out.push_back({i, t, draw_length(w.prompt, rng), draw_length(w.output, rng)});
  }
  return out;
}

std::vector<Request> read_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError({path}, "cannot open trace file");
  std::vector<Request> out;
  std::string line;
  int lineno = 0;
  const bool jsonl = path.size() > 6 && path.substr(path.size() - 6) == ".jsonl";
  int t_col = -1, p_col = -1, o_col = -1;
  double t0 = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    if (jsonl) {
      // {"timestamp": 0.5, "prompt_tokens": 100, "output_tokens": 20}: a flat object of numbers.
      auto field = [&](const char* key) -> std::string {
        auto k = line.find(std::string("\"") + key + "\"");
        if (k == std::string::npos) throw InputError({path, lineno, 1}, std::string("missing \"") + key + "\"");
        auto colon = line.find_first_not_of(' ', k + std::strlen(key) + 2);  // the ':' right after the key, not another key's
        if (colon != std::string::npos && line[colon] != ':') colon = std::string::npos;
        auto end = colon == std::string::npos ? colon : line.find_first_of(",}", colon);
        auto value = colon == std::string::npos ? std::vector<std::string>{} : split_fields(line.substr(colon + 1, end - colon - 1), ',');
        if (value.empty() || value[0].empty())
          throw InputError({path, lineno, int(k) + 1}, std::string("\"") + key + "\" has no value");
        return value[0];
      };
      f = {field("timestamp"), field("prompt_tokens"), field("output_tokens")};
      t_col = 0, p_col = 1, o_col = 2;
    } else {
      f = split_fields(line, ',');
      if (t_col < 0) {
        for (int i = 0; i < int(f.size()); ++i) {
          if (f[i] == "TIMESTAMP" || f[i] == "timestamp") t_col = i;
          if (f[i] == "ContextTokens" || f[i] == "prompt_tokens") p_col = i;
          if (f[i] == "GeneratedTokens" || f[i] == "output_tokens") o_col = i;
        }
        if (t_col < 0 || p_col < 0 || o_col < 0)
          throw InputError({path, lineno, 1}, "trace header must name TIMESTAMP,ContextTokens,GeneratedTokens (or timestamp,prompt_tokens,output_tokens)");
        continue;
      }
    }
    const int need = std::max({t_col, p_col, o_col}) + 1;
    if (int(f.size()) < need) throw InputError({path, lineno, 1}, "row has " + std::to_string(f.size()) + " fields, expected " + std::to_string(need));
    Request r;
    try {
      r.arrival_s = parse_timestamp(f[t_col]);
      // Beyond any model's context (and the scenario's limit): refused, never rounded into a long it overflows.
      auto tokens = [](const std::string& text) {
        const double v = parse_number(text);
        if (v > 10'000'000) throw ValueError("'" + text + "' tokens: tpsim refuses more than 10000000 tokens per request");
        return v < 0 ? 0L : std::lround(v);  // below 1: refused below
      };
      r.prompt_tokens = tokens(f[p_col]);
      r.output_tokens = tokens(f[o_col]);
    } catch (const ValueError& e) {
      throw InputError({path, lineno, 1}, e.what());
    }
    if (out.empty()) t0 = r.arrival_s;
    r.arrival_s -= t0;
    if (!std::isfinite(r.arrival_s)) throw InputError({path, lineno, 1}, "timestamp is too far from the first one");
    if (r.prompt_tokens < 1 || r.output_tokens < 1) throw InputError({path, lineno, 1}, "token counts must be at least 1");
    if (!out.empty() && r.arrival_s < out.back().arrival_s) throw InputError({path, lineno, 1}, "timestamps must not decrease");
    r.id = long(out.size());
    r.line = lineno;
    out.push_back(r);
  }
  if (out.empty()) throw InputError({path}, "trace has no requests");
  return out;
}

}  // namespace tpsim
