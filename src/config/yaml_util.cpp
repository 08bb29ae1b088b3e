#include "src/config/yaml_util.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

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
  if (m.is_null() || m.line < 0) m = fallback;
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
  const YAML::Node v = cn[key];
  return v.IsDefined() && !v.IsNull();
}

std::string Cursor::scalar() const {
  if (!node.IsScalar()) fail(node.IsNull() ? "a value is required" : "expected a single value, not a list or map");
  return node.Scalar();
}

long long Cursor::integer(long long lo, long long hi) const {
  const std::string s = scalar();
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 0);
  if (s.empty() || *end != '\0' || errno) fail("'" + s + "' is not a whole number");
  if (v < lo || v > hi) fail(s + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
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
  return *v;
}

double Cursor::freq_mhz() const {
  std::string why;
  auto v = parse_freq_mhz(scalar(), why);
  if (!v) fail(why);
  if (*v <= 0) fail("a frequency must be positive");
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

namespace {
// Every map key must be a plain scalar name: code reads keys as strings.
void check_keys(const YAML::Node& n, const std::string& where, int depth = 0) {
  if (depth > 200) throw InputError(where + ": nesting deeper than 200 levels");
  if (n.IsMap()) {
    for (auto it = n.begin(); it != n.end(); ++it) {
      if (!it->first.IsScalar()) {
        const YAML::Mark m = it->first.Mark();
        throw InputError(where + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) +
                         ": a key must be a plain name, not a list or map");
      }
      check_keys(it->second, where, depth + 1);
    }
  } else if (n.IsSequence()) {
    for (const auto& x : n) check_keys(x, where, depth + 1);
  }
}
}  // namespace

YAML::Node load_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    throw InputError(path + ": not a regular file");
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open file");
  try {
    YAML::Node n = YAML::Load(in);
    check_keys(n, path);
    return n;
  } catch (const YAML::ParserException& e) {
    throw InputError(path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                     ": YAML syntax error: " + e.msg);
  }
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
  YAML::Node val;
  try {
    val = YAML::Load(value);
  } catch (const YAML::ParserException& e) {
    throw InputError(origin + ": value '" + value + "' is not valid YAML: " + e.msg);
  }
  check_keys(val, origin);
  std::vector<YAML::Node> chain{root};
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node cur = chain.back();
    YAML::Node next;
    if (cur.IsSequence()) {
      char* end = nullptr;
      const long idx = std::strtol(parts[i].c_str(), &end, 10);
      if (*end || idx < 0 || static_cast<std::size_t>(idx) >= cur.size())
        throw InputError(origin + ": '" + path + "': no list item '" + parts[i] + "'");
      next = cur[static_cast<std::size_t>(idx)];
    } else if (cur.IsMap()) {
      // A missing section is created; the strict loader still rejects keys
      // that do not exist, naming the override.
      next = cur[parts[i]];
    } else if (cur.IsNull()) {
      cur = YAML::Node(YAML::NodeType::Map);
      next = cur[parts[i]];
    } else {
      throw InputError(origin + ": '" + path + "': '" + parts[i - (i ? 1 : 0)] + "' is a value, not a section");
    }
    if (!next.IsDefined() || next.IsNull()) {
      cur[parts[i]] = YAML::Node(YAML::NodeType::Map);
      next = cur[parts[i]];
    }
    chain.push_back(next);
  }
  YAML::Node last = chain.back();
  if (last.IsSequence()) {
    char* end = nullptr;
    const long idx = std::strtol(parts.back().c_str(), &end, 10);
    if (*end || idx < 0 || static_cast<std::size_t>(idx) >= last.size())
      throw InputError(origin + ": '" + path + "': no list item '" + parts.back() + "'");
    last[static_cast<std::size_t>(idx)] = val;
  } else {
    last[parts.back()] = val;
  }
  if (record) record_all(*record, val, origin);
}

}  // namespace hx::cfg
