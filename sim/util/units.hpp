// Units live in the data, SI in the code. Parses quantities as SimGrid writes them:
//   time       "1.2us", "5ms", "3s", "100ns"            -> seconds
//   bandwidth  "450GBps", "24GiBps", "400Gbps" (bits)    -> bytes per second
//   size       "80GiB", "16.06GB", "8KiB", "512B"        -> bytes
//   flop rate  "989Tf", "312TFLOPS"                      -> floating-point operations per second
// Decimal prefixes are powers of 1000 (GB = 1e9 B), binary ones powers of 1024 (GiB).
// A number without a unit, a unit of the wrong kind ("250GB" for a bandwidth), a negative,
// NaN or infinite value is a ValueError whose message says what was expected.
#pragma once
#include <string>
#include <string_view>

namespace tpsim {

enum class Quantity { time, bandwidth, size, flop_rate };

// Name of the quantity for messages ("a time", "a bandwidth", ...).
const char* quantity_name(Quantity q);

double parse_quantity(std::string_view text, Quantity q);

inline double parse_time(std::string_view t) { return parse_quantity(t, Quantity::time); }
inline double parse_bandwidth(std::string_view t) { return parse_quantity(t, Quantity::bandwidth); }
inline double parse_size(std::string_view t) { return parse_quantity(t, Quantity::size); }
inline double parse_flop_rate(std::string_view t) { return parse_quantity(t, Quantity::flop_rate); }

// Parses a plain decimal number (no unit) strictly: the whole text must be a finite number.
double parse_number(std::string_view text);

// Human-readable forms used in reports: "5.35 ms", "250 GB/s", "33.6 MB".
std::string format_time(double seconds);
std::string format_bandwidth(double bytes_per_second);
std::string format_size(double bytes);

}  // namespace tpsim
