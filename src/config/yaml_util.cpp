#include "src/config/yaml_util.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <cstdio>
#include <iterator>
#include <limits>
#include <sstream>
#include <thread>
#include <unordered_map>

#include <yaml-cpp/anchor.h>
#include <yaml-cpp/eventhandler.h>

#include "src/config/units.h"

namespace hx::cfg {

const std::string* Cursor::origin_of(const YAML::Node& n) const {
  if (!src || src->origins.empty() || !n.IsDefined()) return nullptr;
  // The latest override of a node is the one it holds.
  for (auto it = src->origins.rbegin(); it != src->origins.rend(); ++it)
    if (it->node.IsDefined() && n.is(it->node)) return &it->where;
  return nullptr;
}

std::string Cursor::where() const {
  if (const std::string* o = origin_of(node)) return *o + ": " + path;
  const std::string* file = src ? &src->file : nullptr;
  std::ostringstream os;
  YAML::Mark m = node.IsDefined() ? node.Mark() : YAML::Mark::null_mark();
  if (m.is_null() || m.line < 0 || at_fallback) m = fallback;
  if (m.is_null() || m.line < 0) {
    // Nothing in the document carries a position (an empty or scalar
    // document, a node built by a merge): point at its start.
    os << (file ? *file : std::string("<input>")) << ":1:1: " << path;
  } else {
    os << (file ? *file : std::string("<input>")) << ":" << m.line + 1 << ":" << m.column + 1 << ": " << path;
  }
  return os.str();
}

void Cursor::fail(const std::string& msg) const { throw InputError(where() + ": " + msg); }

Cursor Cursor::child(const std::string& key) const {
  Cursor c;
  const YAML::Node& cn = node;
  if (cn.IsMap()) {
    const YAML::Node v = cn[key];
    c.node = v.IsDefined() ? v : YAML::Node();
  }
  // A missing key reports the location of its parent.
  const YAML::Mark pm = node.IsDefined() ? node.Mark() : YAML::Mark::null_mark();
  c.fallback = (pm.is_null() || pm.line < 0) ? fallback : pm;
  if (c.node.IsDefined() && c.node.IsNull() && cn.IsMap()) {
    // yaml-cpp places an empty value at the token after it: use its key's place.
    for (auto it = cn.begin(); it != cn.end(); ++it)
      if (it->first.IsScalar() && it->first.Scalar() == key && !it->first.Mark().is_null()) {
        c.fallback = it->first.Mark();
        c.at_fallback = true;
        break;
      }
  }
  c.path = path.empty() ? key : path + "." + key;
  c.src = src;
  return c;
}

Cursor Cursor::item(std::size_t i) const {
  Cursor c;
  const YAML::Node& cn = node;
  c.node = cn[i];
  c.fallback = node.Mark();
  c.path = path + "." + std::to_string(i);
  c.src = src;
  return c;
}

bool Cursor::has(const std::string& key) const {
  const YAML::Node& cn = node;
  if (!cn.IsMap()) return false;
  // A key given with no value (`bytes:`, `--set x.bytes=`) is there: reading
  // it fails with "a value is required" rather than taking the default.
  return cn[key].IsDefined();
}

void Cursor::expect_scalar() const {
  if (!node.IsScalar()) fail(node.IsNull() ? "a value is required" : "expected a single value, not a list or map");
}

std::string Cursor::scalar() const {
  expect_scalar();
  return node.Scalar();
}

long long Cursor::integer(long long lo, long long hi) const {
  const std::string s = scalar();
  // Decimal, as YAML 1.2 reads it: a leading zero is not octal (`reps: 010`
  // is ten). Hexadecimal takes its 0x.
  const std::size_t digits = s.find_first_not_of("+-");
  const bool hex = digits != std::string::npos && s.compare(digits, 2, "0x") == 0;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, hex ? 16 : 10);
  if (s.empty() || *end != '\0' || errno || std::isspace(static_cast<unsigned char>(s[0])))
    fail("'" + s + "' is not a whole number");
  if (v < lo || v > hi) fail(s + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

long long Cursor::integer() const {
  return integer(std::numeric_limits<long long>::min(), std::numeric_limits<long long>::max());
}

double Cursor::number(double lo, double hi) const {
  const std::string s = scalar();
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !std::isfinite(v)) fail("'" + s + "' is not a number");
  if (v < lo || v > hi) {
    std::ostringstream os;
    os << s << " is out of range [" << lo << ", " << hi << "]";
    fail(os.str());
  }
  return v;
}

bool Cursor::boolean() const {
  const std::string s = scalar();
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  fail("'" + s + "' is not a boolean (true, false)");
}

Tick Cursor::time() const {
  std::string why;
  auto v = parse_time(scalar(), why);
  if (!v) fail(why);
  return *v;
}

std::uint64_t Cursor::size() const {
  std::string why;
  auto v = parse_size(scalar(), why);
  if (!v) fail(why);
  return *v;
}

double Cursor::bandwidth() const {
  std::string why;
  auto v = parse_bandwidth(scalar(), why);
  if (!v) fail(why);
  // Zero means "no limit" where a parameter allows it; anything slower than
  // 1 KB/s (a 64 B line in 64 ms) or faster than 1 PB/s is a typo, and the
  // times it gives would not fit the simulated clock.
  if (*v != 0 && (*v < 1e3 || *v > 1e15)) fail("'" + scalar() + "' is outside 1KB/s to 1000000GB/s");
  return *v;
}

double Cursor::rate_gts() const {
  std::string why;
  auto v = parse_rate_gts(scalar(), why);
  if (!v) fail(why);
  // Zero means "the generation's"; serial links run from 1 GT/s (below
  // PCIe Gen1's 2.5) to 128 GT/s (twice Gen6).
  if (*v != 0 && (*v < 1 || *v > 128)) fail("'" + scalar() + "' is outside 1GT/s to 128GT/s");
  return *v;
}

double Cursor::freq_mhz() const {
  std::string why;
  auto v = parse_freq_mhz(scalar(), why);
  if (!v) fail(why);
  if (*v <= 0) fail("a frequency must be positive");
  // A clock's period is a whole number of picoseconds: above 100 GHz it
  // would round to a handful (or zero) of them, below 1 kHz it is a typo.
  if (*v < 1e-3 || *v > 1e5) fail("'" + scalar() + "' is outside 1kHz to 100GHz");
  return *v;
}

std::string Cursor::choice(const std::vector<std::string>& options) const {
  const std::string s = scalar();
  for (const auto& o : options)
    if (s == o) return s;
  std::string all;
  for (const auto& o : options) all += (all.empty() ? "" : ", ") + o;
  fail("'" + s + "' is not one of: " + all);
}

std::vector<std::string> Cursor::keys(const std::set<std::string>& allowed) const {
  std::vector<std::string> out;
  if (node.IsNull() || !node.IsDefined()) return out;
  if (!node.IsMap()) fail("expected a map of settings");
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string k = it->first.as<std::string>();
    if (!allowed.count(k)) {
      Cursor c;
      c.node = it->first;
      c.path = path.empty() ? k : path + "." + k;
      c.src = src;
      // A key of a merged map (topology defaults) has no position: use the map's.
      const YAML::Mark here = node.Mark();
      c.fallback = (here.is_null() || here.line < 0) ? fallback : here;
      std::string all;
      for (const auto& a : allowed) all += (all.empty() ? "" : ", ") + a;
      const std::string msg = "unknown key '" + k + "'; allowed: " + all;
      // A key added by an override: its value knows where it was given.
      if (const std::string* o = origin_of(it->second)) throw InputError(*o + ": " + c.path + ": " + msg);
      c.fail(msg);
    }
    out.push_back(k);
  }
  return out;
}

std::set<std::string> key_names(const KeyTable& t, const std::set<std::string>& more) {
  std::set<std::string> out = more;
  for (const KeyDoc& k : t) out.insert(k.key);
  return out;
}

std::string keys_reference(const std::string& title, const std::string& where, const KeyTable& t) {
  std::string s = "\n## " + title + "\n\n" + where + "\n\n| key | what |\n|---|---|\n";
  for (const KeyDoc& k : t) s += std::string("| `") + k.key + "` | " + k.what + " |\n";
  return s;
}

namespace {

// A location in a text being read: "file:line:col" or, for a value given on
// the command line or in a sweep, where it was given.
struct TextPlace {
  const std::string& name;
  bool is_file;
  std::string at(const YAML::Mark& m) const {
    if (!is_file) return name;
    return name + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
  }
  [[noreturn]] void fail(const YAML::Mark& m, const std::string& msg) const { throw InputError(at(m) + ": " + msg); }
};

// The offset of the first byte that does not belong to a well-formed UTF-8
// sequence (overlong forms, surrogates and values above U+10FFFF included),
// or npos.
std::size_t bad_utf8(const std::string& s) {
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned c = b[i];
    std::size_t len;
    unsigned lo = 0x80, hi = 0xbf;  // the allowed range of the second byte
    if (c < 0x80) { ++i; continue; }
    if (c >= 0xc2 && c <= 0xdf) len = 2;
    else if (c >= 0xe0 && c <= 0xef) { len = 3; if (c == 0xe0) lo = 0xa0; if (c == 0xed) hi = 0x9f; }
    else if (c >= 0xf0 && c <= 0xf4) { len = 4; if (c == 0xf0) lo = 0x90; if (c == 0xf4) hi = 0x8f; }
    else return i;
    if (i + len > n) return i;
    if (b[i + 1] < lo || b[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k)
      if (b[i + k] < 0x80 || b[i + k] > 0xbf) return i;
    i += len;
  }
  return std::string::npos;
}

YAML::Mark mark_at(const std::string& s, std::size_t off) {
  YAML::Mark m;
  m.pos = static_cast<int>(off);
  m.line = 0;
  m.column = 0;
  for (std::size_t i = 0; i < off; ++i) {
    if (s[i] == '\n') { ++m.line; m.column = 0; }
    else ++m.column;
  }
  return m;
}

// One pass over the parser's events before the tree is built: what
// yaml-cpp's tree would hide or take exponential time over is refused here,
// each with its place (docs/design-notes.md, "strict YAML").
//   - a second document (yaml-cpp's Load reads the first and drops the rest);
//   - a key given twice in one map (Load keeps the first, silently);
//   - merge keys (`<<`), which yaml-cpp reads as an ordinary key;
//   - a key that is not a plain name (a list, a map, an alias, null);
//   - more than kMaxNodes nodes once aliases are expanded (an "alias bomb"
//     of a few hundred bytes expands to billions), nesting deeper than
//     kMaxDepth.
class StrictEvents final : public YAML::EventHandler {
 public:
  static constexpr std::uint64_t kMaxNodes = 4'000'000;
  static constexpr std::size_t kMaxDepth = 200;

  explicit StrictEvents(const TextPlace& place) : m_place(place) {}

  void OnDocumentStart(const YAML::Mark& m) override {
    if (++m_documents > 1)
      m_place.fail(m, "a second YAML document ('---') is not supported: a file holds one study or one topology");
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t anchor) override {
    add(m, 1, anchor);
    complete(m, nullptr, false);
  }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t anchor) override {
    const auto it = m_sizes.find(anchor);
    add(m, it == m_sizes.end() ? 1 : it->second, 0);
    complete(m, nullptr, false);
  }
  void OnScalar(const YAML::Mark& m, const std::string& tag, YAML::anchor_t anchor, const std::string& value) override {
    add(m, 1, anchor);
    complete(m, &value, tag == "?");
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(m, false, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(m, true, anchor);
  }
  void OnMapEnd() override {
    close();
  }

 private:
  struct Frame {
    bool map;
    bool want_key = true;
    YAML::anchor_t anchor;
    std::uint64_t nodes_before;
    YAML::Mark mark;
    std::unordered_map<std::string, YAML::Mark> keys;
  };
  void add(const YAML::Mark& m, std::uint64_t n, YAML::anchor_t anchor) {
    m_nodes += n;
    if (m_nodes > kMaxNodes)
      m_place.fail(m, "the document holds more than " + std::to_string(kMaxNodes) +
                          " values once its aliases are expanded (the limit of an input)");
    if (anchor) m_sizes[anchor] = n;
  }
  void open(const YAML::Mark& m, bool map, YAML::anchor_t anchor) {
    // A list or map in the place of a key.
    if (!m_stack.empty() && m_stack.back().map && m_stack.back().want_key)
      m_place.fail(m, "a key must be a plain name, not a list or map");
    if (m_stack.size() >= kMaxDepth) m_place.fail(m, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    add(m, 1, 0);
    m_stack.push_back(Frame{map, true, anchor, m_nodes - 1, m, {}});
  }
  void close() {
    Frame f = std::move(m_stack.back());
    m_stack.pop_back();
    if (f.anchor) m_sizes[f.anchor] = m_nodes - f.nodes_before;
    complete(f.mark, nullptr, false, true);
  }
  // A whole node has been read; in a map, it is a key or a value.
  void complete(const YAML::Mark& m, const std::string* scalar, bool plain, bool collection = false) {
    if (m_stack.empty() || !m_stack.back().map) return;
    Frame& f = m_stack.back();
    if (!f.want_key) {
      f.want_key = true;
      return;
    }
    if (collection) return;  // refused in open()
    if (!scalar) m_place.fail(m, "a key must be a plain name, not null or an alias");
    if (plain && *scalar == "<<")
      m_place.fail(m, "YAML merge keys ('<<') are not supported: write the keys out");
    const auto [it, fresh] = f.keys.emplace(*scalar, m);
    if (!fresh)
      m_place.fail(m, "key '" + *scalar + "' is given twice in this map" +
                          (m_place.is_file ? " (first at line " + std::to_string(it->second.line + 1) + ", column " +
                                                 std::to_string(it->second.column + 1) + ")"
                                           : std::string()));
    f.want_key = false;
  }

  const TextPlace& m_place;
  int m_documents = 0;
  std::uint64_t m_nodes = 0;
  std::vector<Frame> m_stack;
  std::unordered_map<YAML::anchor_t, std::uint64_t> m_sizes;
};

YAML::Node load_text(const std::string& text, const TextPlace& place) {
  if (const std::size_t bad = bad_utf8(text); bad != std::string::npos) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(text[bad]));
    place.fail(mark_at(text, bad), std::string("invalid UTF-8 (byte ") + hex + "): the input must be UTF-8 text");
  }
  // Two parses of the text: the strict pass over its events, and the
  // tree. A large text (a sweep listing a million values) has them run
  // side by side, each in a parser of its own; either way the strict
  // pass's error comes first.
  auto strict = [&] {
    std::istringstream in(text);
    YAML::Parser parser(in);
    StrictEvents events(place);
    while (parser.HandleNextDocument(events)) {
    }
  };
  try {
    if (text.size() < (std::size_t{1} << 20)) {
      strict();
      return YAML::Load(text);
    }
    std::exception_ptr strict_error;
    std::thread side([&] {
      try {
        strict();
      } catch (...) {
        strict_error = std::current_exception();
      }
    });
    YAML::Node tree;
    std::exception_ptr tree_error;
    try {
      tree = YAML::Load(text);
    } catch (...) {
      tree_error = std::current_exception();
    }
    side.join();
    if (strict_error) std::rethrow_exception(strict_error);
    if (tree_error) std::rethrow_exception(tree_error);
    return tree;
  } catch (const YAML::ParserException& e) {
    if (!place.is_file) throw InputError(place.name + " is not valid YAML: " + e.msg);
    place.fail(e.mark, "YAML syntax error: " + e.msg);
  }
}

}  // namespace

YAML::Node load_file(const std::string& path) { return load_file(path, TextSpan{}); }

YAML::Node load_file(const std::string& path, const TextSpan& blank) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    throw InputError(path + ": not a regular file");
  const auto bytes = std::filesystem::file_size(path, ec);
  if (!ec && bytes > kMaxInputBytes)
    throw InputError(path + ": " + std::to_string(bytes) + " bytes; an input file may hold at most " +
                     std::to_string(kMaxInputBytes >> 20) + " MiB");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open file");
  std::string text;
  text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(path + ": cannot read file");
  // The span is in the parser's positions (YAML::Mark::pos), which count
  // from after a byte-order mark.
  const std::size_t bom = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  if (blank.to > blank.from)
    for (std::size_t i = blank.from + bom; i < std::min(blank.to, text.size() - bom) + bom; ++i)
      if (text[i] != '\n') text[i] = ' ';
  return load_text(text, TextPlace{path, true});
}

YAML::Node load_value(const std::string& value, const std::string& origin) {
  if (value.size() > kMaxInputBytes)
    throw InputError(origin + ": a value of more than " + std::to_string(kMaxInputBytes >> 20) + " MiB");
  return load_text(value, TextPlace{origin, false});
}

Cursor root_cursor(const YAML::Node& n, const std::string& file, const Origins* origins) {
  Cursor c;
  c.node = n;
  c.src = std::make_shared<const Source>(Source{file, origins ? *origins : Origins{}});
  return c;
}

namespace {
void record_all(Origins& record, const YAML::Node& n, const std::string& origin) {
  record.push_back(Origin{n, origin});
  if (n.IsMap()) {
    for (auto it = n.begin(); it != n.end(); ++it) record_all(record, it->second, origin);
  } else if (n.IsSequence()) {
    for (const auto& x : n) record_all(record, x, origin);
  }
}
}  // namespace

void apply_override(YAML::Node& root, const std::string& path, const std::string& value, const std::string& origin,
                    Origins* record) {
  if (path.empty()) throw InputError(origin + ": empty parameter path");
  std::vector<std::string> parts;
  std::stringstream ss(path);
  std::string p;
  while (std::getline(ss, p, '.')) {
    if (p.empty()) throw InputError(origin + ": malformed parameter path '" + path + "'");
    parts.push_back(p);
  }
  const YAML::Node val = load_value(value, origin + ": value '" + value + "'");
  auto index_of = [&](const YAML::Node& list, const std::string& part) {
    char* end = nullptr;
    errno = 0;
    const long idx = std::strtol(part.c_str(), &end, 10);
    if (part.empty() || *end || errno || idx < 0 || static_cast<std::size_t>(idx) >= list.size())
      throw InputError(origin + ": '" + path + "': no list item '" + part + "'");
    return static_cast<std::size_t>(idx);
  };
  YAML::Node cur = root;
  for (std::size_t i = 0;; ++i) {
    if (!cur.IsMap() && !cur.IsSequence() && !cur.IsNull())
      throw InputError(origin + ": '" + path + "': " + (i ? "'" + parts[i - 1] + "'" : std::string("the document")) +
                       " is a value, not a section");
    const bool list = cur.IsSequence();
    const std::size_t idx = list ? index_of(cur, parts[i]) : 0;
    if (i + 1 == parts.size()) {
      if (list) cur[idx] = val;
      else cur[parts[i]] = val;
      break;
    }
    YAML::Node next = list ? cur[idx] : cur[parts[i]];
    if (!next.IsDefined() || next.IsNull()) {
      // A missing section is created (a null one becomes a map); the strict
      // loader still rejects keys that do not exist, naming the override.
      if (list) cur[idx] = YAML::Node(YAML::NodeType::Map);
      else cur[parts[i]] = YAML::Node(YAML::NodeType::Map);
      next = list ? cur[idx] : cur[parts[i]];
      if (record) record->push_back(Origin{next, origin});
    }
    cur.reset(next);
  }
  if (record) record_all(*record, val, origin);
}

}  // namespace hx::cfg
