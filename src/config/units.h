// Values with dimensions are strings with units: 150ns, 16GT/s, 4KiB,
// 12.5GB/s, 250MHz. MB and MiB are different and both are accepted.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "models/core/tick.h"

namespace hx::cfg {

// Each returns nullopt and sets `why` on a malformed or out-of-range value.
std::optional<Tick> parse_time(const std::string& s, std::string& why);
std::optional<std::uint64_t> parse_size(const std::string& s, std::string& why);      // bytes
std::optional<double> parse_bandwidth(const std::string& s, std::string& why);        // bytes per second
std::optional<double> parse_rate_gts(const std::string& s, std::string& why);         // GT/s
std::optional<double> parse_freq_mhz(const std::string& s, std::string& why);         // MHz

std::string format_time(Tick t);
std::string format_size(std::uint64_t b);

}  // namespace hx::cfg
