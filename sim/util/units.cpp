#include "units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <utility>

#include "error.hpp"

namespace tpsim {
namespace {

struct Unit {
  std::string_view suffix;
  Quantity quantity;
  double factor;
};

constexpr double Ki = 1024.0, Mi = Ki * Ki, Gi = Mi * Ki, Ti = Gi * Ki;

// Longest suffixes first is not needed: the suffix must match the whole tail exactly.
constexpr std::array UNITS{
    Unit{"s", Quantity::time, 1},           Unit{"ms", Quantity::time, 1e-3},
    Unit{"us", Quantity::time, 1e-6},       Unit{"ns", Quantity::time, 1e-9},
    Unit{"ps", Quantity::time, 1e-12},      Unit{"min", Quantity::time, 60},
    Unit{"h", Quantity::time, 3600},

    Unit{"Bps", Quantity::bandwidth, 1},    Unit{"kBps", Quantity::bandwidth, 1e3},
    Unit{"KBps", Quantity::bandwidth, 1e3}, Unit{"MBps", Quantity::bandwidth, 1e6},
    Unit{"GBps", Quantity::bandwidth, 1e9}, Unit{"TBps", Quantity::bandwidth, 1e12},
    Unit{"KiBps", Quantity::bandwidth, Ki}, Unit{"MiBps", Quantity::bandwidth, Mi},
    Unit{"GiBps", Quantity::bandwidth, Gi}, Unit{"TiBps", Quantity::bandwidth, Ti},
    Unit{"bps", Quantity::bandwidth, 1.0 / 8}, Unit{"kbps", Quantity::bandwidth, 1e3 / 8},
    Unit{"Mbps", Quantity::bandwidth, 1e6 / 8}, Unit{"Gbps", Quantity::bandwidth, 1e9 / 8},
    Unit{"Tbps", Quantity::bandwidth, 1e12 / 8},

    Unit{"B", Quantity::size, 1},           Unit{"kB", Quantity::size, 1e3},
    Unit{"KB", Quantity::size, 1e3},        Unit{"MB", Quantity::size, 1e6},
    Unit{"GB", Quantity::size, 1e9},        Unit{"TB", Quantity::size, 1e12},
    Unit{"KiB", Quantity::size, Ki},        Unit{"MiB", Quantity::size, Mi},
    Unit{"GiB", Quantity::size, Gi},        Unit{"TiB", Quantity::size, Ti},

    Unit{"f", Quantity::flop_rate, 1},      Unit{"kf", Quantity::flop_rate, 1e3},
    Unit{"Mf", Quantity::flop_rate, 1e6},   Unit{"Gf", Quantity::flop_rate, 1e9},
    Unit{"Tf", Quantity::flop_rate, 1e12},  Unit{"Pf", Quantity::flop_rate, 1e15},
    Unit{"GFLOPS", Quantity::flop_rate, 1e9}, Unit{"TFLOPS", Quantity::flop_rate, 1e12},
    Unit{"PFLOPS", Quantity::flop_rate, 1e15},
};

const char* example_of(Quantity q) {
  switch (q) {
    case Quantity::time: return "'5us', '1.2ms'";
    case Quantity::bandwidth: return "'250GBps', '400Gbps'";
    case Quantity::size: return "'80GiB', '16.06GB'";
    case Quantity::flop_rate: return "'989Tf', '312TFLOPS'";
  }
  return "";
}

std::pair<double, std::string_view> split_number(std::string_view text) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return {NAN, text};
  std::string_view rest(end, text.data() + text.size() - end);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  return {value, rest};
}

}  // namespace

const char* quantity_name(Quantity q) {
  switch (q) {
    case Quantity::time: return "a time";
    case Quantity::bandwidth: return "a bandwidth";
    case Quantity::size: return "a size";
    case Quantity::flop_rate: return "a flop rate";
  }
  return "a quantity";
}

double parse_number(std::string_view text) {
  auto [value, rest] = split_number(text);
  if (std::isnan(value) || !rest.empty() || !std::isfinite(value))
    throw ValueError(fmt::format("'{}' is not a number", text));
  return value;
}

double parse_quantity(std::string_view text, Quantity q) {
  auto [value, suffix] = split_number(text);
  if (std::isnan(value) || !std::isfinite(value))
    throw ValueError(fmt::format("'{}' is not {} (write e.g. {})", text, quantity_name(q), example_of(q)));
  if (suffix.empty())
    throw ValueError(fmt::format("'{}' has no unit; {} needs one (e.g. {})", text, quantity_name(q), example_of(q)));
  for (const Unit& u : UNITS) {
    if (u.suffix != suffix) continue;
    if (u.quantity != q) {
      std::string hint = (q == Quantity::bandwidth && u.quantity == Quantity::size)
                             ? fmt::format("; did you mean '{}ps'?", text)
                             : "";
      throw ValueError(fmt::format("'{}' is {}, not {}{}", text, quantity_name(u.quantity), quantity_name(q), hint));
    }
    if (value < 0) throw ValueError(fmt::format("'{}' is negative; {} must be >= 0", text, quantity_name(q)));
    if (!std::isfinite(value * u.factor)) throw ValueError(fmt::format("'{}' is too large for {}", text, quantity_name(q)));
    return value * u.factor;
  }
  if (q == Quantity::bandwidth && (suffix == "Gb" || suffix == "Mb" || suffix == "Tb" || suffix == "GB/s" || suffix == "Gb/s"))
    throw ValueError(fmt::format("'{}': write '{:g}{}bps' for bits per second or '{:g}{}Bps' for bytes per second", text, value,
                                 suffix.substr(0, 1), value, suffix.substr(0, 1)));
  throw ValueError(fmt::format("'{}': unknown unit '{}' for {} (write e.g. {})", text, suffix, quantity_name(q), example_of(q)));
}

std::string format_time(double s) {
  double a = std::fabs(s);
  if (a >= 1) return fmt::format("{:.3g} s", s);
  if (a >= 1e-3) return fmt::format("{:.3g} ms", s * 1e3);
  if (a >= 1e-6 || a == 0) return fmt::format("{:.3g} us", s * 1e6);
  return fmt::format("{:.3g} ns", s * 1e9);
}

std::string format_bandwidth(double bps) { return fmt::format("{:.4g} GB/s", bps / 1e9); }

std::string format_size(double b) {
  if (b >= 1e9) return fmt::format("{:.4g} GB", b / 1e9);
  if (b >= 1e6) return fmt::format("{:.4g} MB", b / 1e6);
  if (b >= 1e3) return fmt::format("{:.4g} kB", b / 1e3);
  return fmt::format("{:.0f} B", b);
}

}  // namespace tpsim
