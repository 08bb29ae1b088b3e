// How a domain's parameter table is written (src/config/params/<domain>.cpp):
// each parameter once, with the range of values it takes. A range is one
// declaration that gives both the check every value goes through before its
// setter and the text `hxsim params` prints, so the two cannot disagree.
//
// A parameter's default is written once, as the model struct's member
// initialiser (a model test's hand-made config and a YAML run start from
// the same value; design note 40). The declaration names where the value
// lives — `&C::member`, or a function of the struct for a nested member or
// one stored in another unit — and its default text is that value of a
// default-constructed struct, written in the parameter's type.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
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

// A value in a parameter's type, as `hxsim params` prints it and YAML takes
// it: int, time (a Tick), size (bytes); frequency (MHz), rate (GT/s),
// bandwidth (bytes a second); bool; a choice, string or list as its text.
std::string shown(const std::string& type, long long v);
std::string shown(const std::string& type, double v);
std::string shown(const std::string& type, bool v);
inline std::string shown(const std::string&, std::string v) { return v; }

// A default-constructed model struct: where every default is read from.
template <class C>
const C& struct_defaults() {
  static const C c{};
  return c;
}

template <class C, class Get>
Param<C> P(const char* name, const char* type, Get get, Range range, const char* desc,
           std::function<void(C&, const Cursor&)> set) {
  static_assert(std::is_invocable_v<const Get&, const C&>,
                "a parameter's default is the model struct's: give &C::member or a function of the struct");
  using V = std::decay_t<std::invoke_result_t<const Get&, const C&>>;
  const V& value = std::invoke(get, struct_defaults<C>());
  std::string def;
  if constexpr (std::is_same_v<V, bool>)
    def = shown(type, value);
  else if constexpr (std::is_integral_v<V>)
    def = shown(type, static_cast<long long>(value));
  else if constexpr (std::is_floating_point_v<V>)
    def = shown(type, static_cast<double>(value));
  else
    def = shown(type, std::string(value));
  std::string text = range.text.empty() ? type_range(type) : std::move(range.text);
  if (range.check)
    set = [check = std::move(range.check), write = std::move(set)](C& c, const Cursor& v) {
      check(v);
      write(c, v);
    };
  return Param<C>{ParamDecl{name, type, std::move(def), std::move(text), desc}, std::move(set)};
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

// A cache's capacity in 64 B lines, from a value in line_bytes(); and back.
int cache_lines(const Cursor& v);
inline long long cache_bytes(long long lines) { return lines * 64; }
// A replacement policy, from a value in replacement(); and its word.
cache::Policy replacement_policy(const Cursor& v);
inline std::string replacement_word(cache::Policy p) { return cache::policy_name(p); }
// A list as YAML writes it on one line, [a, b, c], each item by `text`.
template <class Seq, class Text>
std::string flow_list(const Seq& xs, Text text) {
  std::string s = "[";
  for (const auto& x : xs) s += (s.size() > 1 ? ", " : "") + text(x);
  return s + "]";
}
// A list of whole numbers: [1, 2, 3].
template <class Seq>
std::string int_list(const Seq& xs) {
  return flow_list(xs, [](const auto& x) { return std::to_string(x); });
}

// The items of a list value; `example` shows its form in errors. A default
// or a --set value comes as a flow list in one scalar: it is parsed here,
// and its items are located at the value.
std::vector<Cursor> list_items(const Cursor& v, const char* what, const char* example);

}  // namespace hx::cfg
