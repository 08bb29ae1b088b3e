// Strict YAML reading: every error names file:line:col, the YAML path, the
// bad value and what is allowed. Unknown keys are errors, never defaults.
#pragma once
#include <yaml-cpp/yaml.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "models/core/error.h"
#include "models/core/tick.h"

namespace hx::cfg {

// A value given apart from the file it lands in (--set, a study's `set:`,
// a sweep value): errors in it, or in anything below it, name where it was
// given rather than a position in that file, where it has none.
struct Origin {
  YAML::Node node;
  std::string where;                  // e.g. "--set topology.links.0.width", "study.yaml:9:40: sweep.0.values.2"
};
using Origins = std::vector<Origin>;

// What a tree of cursors was read from.
struct Source {
  std::string file;
  Origins origins;
};

struct Cursor {
  YAML::Node node;
  std::string path;                   // e.g. nodes.fpga0.endpoint.tx_latency
  std::shared_ptr<const Source> src;
  YAML::Mark fallback = YAML::Mark::null_mark();  // where the parent was, for missing keys
  bool at_fallback = false;           // an empty value: located at its key, not at the next token

  std::string where() const;          // "file:line:col: path", or "origin: path" for an override
  // Where `n` was given, if it came from an override; nullptr otherwise.
  const std::string* origin_of(const YAML::Node& n) const;
  [[noreturn]] void fail(const std::string& msg) const;
  Cursor child(const std::string& key) const;
  Cursor item(std::size_t i) const;
  bool has(const std::string& key) const;
  bool is_map() const { return node.IsMap(); }

  std::string scalar() const;         // fails unless a scalar
  void expect_scalar() const;         // fails as scalar() does, copying nothing
  std::string str() const { return scalar(); }
  long long integer(long long lo, long long hi) const;
  // Any whole number: for a parameter whose declared range was checked first.
  long long integer() const;
  double number(double lo, double hi) const;
  bool boolean() const;
  Tick time() const;
  std::uint64_t size() const;
  double bandwidth() const;
  double freq_mhz() const;
  double rate_gts() const;  // a lane's transfer rate, 0 or 1-128 GT/s
  std::string choice(const std::vector<std::string>& options) const;

  // Map keys; fails on a key outside `allowed`.
  std::vector<std::string> keys(const std::set<std::string>& allowed) const;
};

// A structural key of a file (not a model parameter, which params.h
// declares): its name and what it is. The tables of these are what the
// readers accept and what the reference lists.
struct KeyDoc {
  const char* key;
  const char* what;
};
using KeyTable = std::vector<KeyDoc>;
std::set<std::string> key_names(const KeyTable& t, const std::set<std::string>& more = {});
// A Markdown table of `t` under `title`.
std::string keys_reference(const std::string& title, const std::string& where, const KeyTable& t);

// The largest input file or value read (a study, a topology, a --set value).
constexpr std::uint64_t kMaxInputBytes = std::uint64_t{64} << 20;

// Load a YAML file strictly: parse errors, invalid UTF-8, a second
// document, duplicate keys, merge keys, keys that are not plain names and
// inputs that expand past the node limit become one InputError with
// file:line:col.
YAML::Node load_file(const std::string& path);
// Bytes [from, to) of a file's text, counted as YAML::Mark::pos counts
// them (from after a byte-order mark).
struct TextSpan {
  std::size_t from = 0, to = 0;
};
// load_file with the bytes of `blank` read as spaces: its line breaks are
// kept, so every value outside it keeps its line and column.
YAML::Node load_file(const std::string& path, const TextSpan& blank);
// The same for a value given apart from a file (--set, a sweep value);
// errors start with `origin`.
YAML::Node load_value(const std::string& value, const std::string& origin);
Cursor root_cursor(const YAML::Node& n, const std::string& file, const Origins* origins = nullptr);

// --set path=value: apply to a tree. Paths use dots; list items by index.
// The value and everything in it are added to `record` with `origin`.
void apply_override(YAML::Node& root, const std::string& path, const std::string& value,
                    const std::string& origin, Origins* record = nullptr);

}  // namespace hx::cfg
