#include "src/config/params/declare.h"

#include <algorithm>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "src/config/units.h"

namespace hx::cfg {

namespace {

// "a, b or c".
std::string listed(const std::vector<std::string>& items) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) s += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
  return s;
}

}  // namespace

std::string shown(const std::string& type, long long v) {
  if (type == "int") return std::to_string(v);
  if (v < 0) throw std::logic_error("a " + type + " default below 0");
  if (type == "time") return format_time(static_cast<Tick>(v));
  if (type == "size") return format_size(static_cast<std::uint64_t>(v));
  throw std::logic_error("a whole-number default of type " + type);
}

std::string shown(const std::string& type, double v) {
  std::ostringstream os;
  if (type == "frequency")
    os << v << "MHz";
  else if (type == "rate")
    os << v << "GT/s";
  else if (type == "bandwidth")
    os << v / 1e9 << "GB/s";
  else
    throw std::logic_error("a fractional default of type " + type);
  return os.str();
}

std::string shown(const std::string& type, bool v) {
  if (type != "bool") throw std::logic_error("a true/false default of type " + type);
  return v ? "true" : "false";
}

std::string type_range(const std::string& type) {
  if (type == "time") return "0 or more";
  if (type == "size") return "0B or more";
  if (type == "bool") return "true or false";
  if (type == "frequency") return "1kHz to 100GHz";
  if (type == "bandwidth") return "0, or 1KB/s to 1000000GB/s";
  if (type == "rate") return "0, or 1GT/s to 128GT/s";
  if (type == "string") return "any";
  // An int, a choice or a list says what it takes (a unit test holds every
  // parameter to a range).
  return "";
}

Range ints(long long lo, long long hi) {
  return {std::to_string(lo) + " to " + std::to_string(hi), [lo, hi](const Cursor& v) { v.integer(lo, hi); }};
}

Range int_set(const std::vector<long long>& values, const char* what) {
  std::vector<std::string> words;
  for (long long x : values) words.push_back(std::to_string(x));
  std::string text = listed(words);
  return {text, [values, text, what = std::string(what)](const Cursor& v) {
            if (std::find(values.begin(), values.end(), v.integer()) == values.end())
              v.fail(v.scalar() + " is not " + what + " (" + text + ")");
          }};
}

Range pow2_bytes(std::uint64_t lo, std::uint64_t hi, bool zero) {
  const std::string span = format_size(lo) + " to " + format_size(hi);
  return {std::string("a power of two, ") + span + (zero ? ", or 0B" : ""), [lo, hi, zero, span](const Cursor& v) {
            const std::uint64_t b = v.size();
            if (zero && b == 0) return;
            if (b < lo || b > hi || (b & (b - 1)))
              v.fail(v.scalar() + " must be a power of two from " + span + (zero ? ", or 0B" : ""));
          }};
}

Range byte_set(const std::vector<std::uint64_t>& values) {
  std::vector<std::string> words;
  for (std::uint64_t x : values) words.push_back(format_size(x));
  std::string text = listed(words);
  return {text, [values, text](const Cursor& v) {
            if (std::find(values.begin(), values.end(), v.size()) == values.end())
              v.fail("'" + v.scalar() + "' is not " + text);
          }};
}

Range bytes(std::uint64_t lo, std::uint64_t hi, std::uint64_t multiple) {
  std::string text = hi ? format_size(lo) + " to " + format_size(hi) : format_size(lo) + " or more";
  if (multiple > 1) text += ", a multiple of " + format_size(multiple);
  return {text, [lo, hi, multiple, text](const Cursor& v) {
            const std::uint64_t b = v.size();
            if (b < lo || (hi && b > hi) || b % multiple) v.fail("'" + v.scalar() + "' is not " + text);
          }};
}

Range line_bytes() { return bytes(0, std::uint64_t{1} << 30, 64); }

Range options(const std::vector<std::string>& words) {
  return {listed(words), [words](const Cursor& v) { v.choice(words); }};
}

Range replacement() { return options({"lru", "plru", "random"}); }

Range bandwidth_from(double min_Bps, const char* min_text) {
  return {std::string(min_text) + " to 1000000GB/s", [min_Bps, min = std::string(min_text)](const Cursor& v) {
            if (v.bandwidth() < min_Bps) v.fail("'" + v.scalar() + "' is below " + min);
          }};
}

Range described(const char* text) { return {text, {}}; }

int cache_lines(const Cursor& v) { return static_cast<int>(v.size() / 64); }

cache::Policy replacement_policy(const Cursor& v) {
  cache::Policy p = cache::Policy::Lru;
  cache::parse_policy(v.scalar(), &p);
  return p;
}

std::vector<Cursor> list_items(const Cursor& v, const char* what, const char* example) {
  Cursor list = v;
  if (!v.node.IsSequence()) {
    // reset() rebinds the copy; assigning would write the parsed list into
    // the node it shares with `v` (a parameter's default, read by the point
    // checks' threads at once).
    try {
      list.node.reset(YAML::Load(v.scalar()));
    } catch (const YAML::Exception&) {
      v.fail(std::string("expected a list of ") + what);
    }
    if (!list.node.IsSequence()) v.fail(std::string("expected a list of ") + what + ", e.g. " + example);
  }
  std::vector<Cursor> items;
  for (std::size_t i = 0; i < list.node.size(); ++i) {
    Cursor it = list.item(i);
    if (!v.node.IsSequence()) it.src = v.src, it.fallback = v.node.Mark();
    items.push_back(it);
  }
  return items;
}

}  // namespace hx::cfg
