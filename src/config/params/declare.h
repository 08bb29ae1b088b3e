// How a domain's parameter table is written (src/config/params/<domain>.cpp):
// each parameter once, with the range of values it takes. A range is one
// declaration that gives both the check every value goes through before its
// setter and the text `hxsim params` prints, so the two cannot disagree.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/cache/replacement.h"
#include "src/config/params.h"

namespace hx::cfg {

struct Range {
  std::string text;                          // empty: what the type's own parse accepts
  std::function<void(const Cursor&)> check;  // empty: the type's parse (or, for lists, the setter) checks it
};

// What a value of `type` takes when its parameter declares no range.
std::string type_range(const std::string& type);

template <class C>
Param<C> P(const char* name, const char* type, const char* def, Range range, const char* desc,
           std::function<void(C&, const Cursor&)> set) {
  std::string text = range.text.empty() ? type_range(type) : std::move(range.text);
  if (range.check)
    set = [check = std::move(range.check), write = std::move(set)](C& c, const Cursor& v) {
      check(v);
      write(c, v);
    };
  return Param<C>{ParamDecl{name, type, def, std::move(text), desc}, std::move(set)};
}

// Whole numbers from lo to hi.
Range ints(long long lo, long long hi);
// One of these whole numbers; `what` names them in the error ("a PCIe link width").
Range int_set(const std::vector<long long>& values, const char* what);
// A power of two of bytes from lo to hi (or 0 with `zero`).
Range pow2_bytes(std::uint64_t lo, std::uint64_t hi, bool zero = false);
// One of these sizes.
Range byte_set(const std::vector<std::uint64_t>& values);
// A size from lo to hi bytes (hi 0: no upper bound), a multiple of `multiple`.
Range bytes(std::uint64_t lo, std::uint64_t hi, std::uint64_t multiple = 1);
// A cache's capacity: a multiple of 64 B, at most 1 GiB (0: unlimited).
Range line_bytes();
// One of these words.
Range options(const std::vector<std::string>& words);
// A set-associative structure's replacement policy (models/cache): lru, plru, random.
Range replacement();
// A bandwidth of at least `min_Bps` bytes a second (`min_text` says it with its unit).
Range bandwidth_from(double min_Bps, const char* min_text);
// A range told in words, checked by the setter item by item (the lists).
Range described(const char* text);

// A cache's capacity in 64 B lines, from a value in line_bytes().
int cache_lines(const Cursor& v);
// A replacement policy, from a value in replacement().
cache::Policy replacement_policy(const Cursor& v);
// The items of a list value; `example` shows its form in errors. A default
// or a --set value comes as a flow list in one scalar: it is parsed here,
// and its items are located at the value.
std::vector<Cursor> list_items(const Cursor& v, const char* what, const char* example);

}  // namespace hx::cfg
