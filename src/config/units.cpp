#include "src/config/units.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <utility>
#include <vector>

namespace hx::cfg {

namespace {

// Split "12.5GB/s" into 12.5 and "GB/s". The number is required.
bool split(const std::string& s, double& num, std::string& unit, std::string& why) {
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  const std::size_t start = i;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  bool digits = false;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) {
    digits = digits || std::isdigit(static_cast<unsigned char>(s[i]));
    ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E') && i + 1 < s.size() &&
      (std::isdigit(static_cast<unsigned char>(s[i + 1])) || s[i + 1] == '-' || s[i + 1] == '+')) {
    ++i;
    if (s[i] == '-' || s[i] == '+') ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  }
  if (!digits) {
    why = "'" + s + "' does not start with a number";
    return false;
  }
  char* end = nullptr;
  const std::string numtxt = s.substr(start, i - start);
  num = std::strtod(numtxt.c_str(), &end);
  if (!end || *end != '\0' || !std::isfinite(num)) {
    why = "'" + s + "' has a malformed number";
    return false;
  }
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  unit = s.substr(i);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back()))) unit.pop_back();
  if (num < 0) {
    why = "'" + s + "' is negative";
    return false;
  }
  return true;
}

template <class T>
std::optional<double> scaled(const std::string& s, std::string& why, const std::vector<std::pair<const char*, double>>& units,
                             const char* what) {
  double n;
  std::string u;
  if (!split(s, n, u, why)) return std::nullopt;
  for (const auto& [name, f] : units)
    if (u == name) return n * f;
  std::ostringstream os;
  os << "'" << s << "' is not a " << what << (u.empty() ? " (a unit is required)" : "") << "; units:";
  for (const auto& [name, f] : units) os << " " << name;
  why = os.str();
  return std::nullopt;
}

}  // namespace

std::optional<Tick> parse_time(const std::string& s, std::string& why) {
  auto v = scaled<Tick>(s, why, {{"ps", 1}, {"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}}, "time");
  if (!v) return std::nullopt;
  if (*v > 1e18) {
    why = "'" + s + "' is too long a time";
    return std::nullopt;
  }
  return static_cast<Tick>(std::llround(*v));
}

std::optional<std::uint64_t> parse_size(const std::string& s, std::string& why) {
  auto v = scaled<std::uint64_t>(s, why,
                                 {{"B", 1},
                                  {"KB", 1e3},
                                  {"MB", 1e6},
                                  {"GB", 1e9},
                                  {"KiB", 1024.0},
                                  {"MiB", 1048576.0},
                                  {"GiB", 1073741824.0},
                                  {"TiB", 1099511627776.0}},
                                 "size");
  if (!v) return std::nullopt;
  if (*v > 1.8e19 || std::floor(*v) != *v) {
    why = "'" + s + "' is not a whole number of bytes";
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(*v);
}

std::optional<double> parse_bandwidth(const std::string& s, std::string& why) {
  return scaled<double>(s, why,
                        {{"B/s", 1},
                         {"KB/s", 1e3},
                         {"MB/s", 1e6},
                         {"GB/s", 1e9},
                         {"KiB/s", 1024.0},
                         {"MiB/s", 1048576.0},
                         {"GiB/s", 1073741824.0},
                         {"b/s", 0.125},
                         {"Kb/s", 125.0},
                         {"Mb/s", 125e3},
                         {"Gb/s", 125e6}},
                        "bandwidth");
}

std::optional<double> parse_rate_gts(const std::string& s, std::string& why) {
  return scaled<double>(s, why, {{"GT/s", 1}, {"MT/s", 1e-3}}, "transfer rate");
}

std::optional<double> parse_freq_mhz(const std::string& s, std::string& why) {
  return scaled<double>(s, why, {{"Hz", 1e-6}, {"kHz", 1e-3}, {"MHz", 1}, {"GHz", 1e3}}, "frequency");
}

std::string format_time(Tick t) {
  std::ostringstream os;
  if (t % kMs == 0 && t) os << t / kMs << "ms";
  else if (t % kUs == 0 && t) os << t / kUs << "us";
  else if (t % kNs == 0) os << t / kNs << "ns";
  else os << t << "ps";
  return os.str();
}

std::string format_size(std::uint64_t b) {
  std::ostringstream os;
  if (b && b % (1ull << 30) == 0) os << (b >> 30) << "GiB";
  else if (b && b % (1ull << 20) == 0) os << (b >> 20) << "MiB";
  else if (b && b % 1024 == 0) os << (b >> 10) << "KiB";
  else os << b << "B";
  return os.str();
}

}  // namespace hx::cfg
