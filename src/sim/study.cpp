#include "src/sim/study.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <sstream>

namespace hx::sim {

namespace fs = std::filesystem;

StudyFiles load_study_files(const std::string& path, const cfg::TextSpan& without) {
  StudyFiles f;
  f.from_files = true;
  f.study_file = path;
  f.study = cfg::load_file(path, without);
  const cfg::Cursor root = cfg::root_cursor(f.study, path);
  if (!f.study.IsMap()) root.fail("a study is a map with study, topology, workloads");
  const cfg::Cursor t = root.child("topology");
  if (t.node.IsScalar()) {
    fs::path p = fs::path(path).parent_path() / t.scalar();
    f.topo_file = p.lexically_normal().string();
    std::error_code ec;
    if (!fs::exists(f.topo_file, ec)) t.fail("topology file '" + f.topo_file + "' does not exist");
    if (!fs::is_regular_file(f.topo_file, ec)) t.fail("topology '" + f.topo_file + "' is not a file");
    f.topo = cfg::load_file(f.topo_file);
  } else if (t.node.IsMap()) {
    f.topo_file = path;
    f.topo = t.node;
  } else {
    t.fail("topology: a path to a topology file, or the topology itself");
  }
  // The study's own parameter settings (`set: {path: value}`), applied as
  // --set would be, before any command-line override.
  if (root.has("set")) {
    const cfg::Cursor sets = root.child("set");
    if (!sets.is_map()) sets.fail("set: a map of parameter path -> value");
    std::vector<std::pair<std::string, YAML::Node>> items;
    for (auto it = sets.node.begin(); it != sets.node.end(); ++it) items.emplace_back(it->first.as<std::string>(), it->second);
    for (const auto& [p, v] : items) apply_set(f, p, v, sets.child(p).where());
  }
  return f;
}

StudyFiles clone(const StudyFiles& f) {
  if (f.from_files) {
    StudyFiles c = load_study_files(f.study_file);
    for (const auto& [p, v] : f.sets) {
      apply_set(c, p, v, "--set " + p);
      c.sets.emplace_back(p, v);
    }
    return c;
  }
  return copy_without_positions(f);  // built in memory (tests): no positions to keep
}

StudyFiles copy_without_positions(const StudyFiles& f) {
  StudyFiles c = f;
  // reset(), not `=`: c's handles still name f's root nodes, and yaml-cpp's
  // assignment would turn those very nodes into aliases of the clones
  // (changing f, and joining the clones' node pools to f's for as long as
  // f lives: a sweep's check kept every point's copy).
  c.study.reset(YAML::Clone(f.study));
  c.topo.reset(YAML::Clone(f.topo));
  c.study_origins.clear();  // they name nodes of the originals
  c.topo_origins.clear();
  return c;
}

StudyFiles copy_without_sweep(const StudyFiles& f) {
  StudyFiles c = f;
  YAML::Node study(YAML::NodeType::Map);
  for (auto it = f.study.begin(); it != f.study.end(); ++it)
    if (it->first.Scalar() != "sweep") study[YAML::Clone(it->first)] = YAML::Clone(it->second);
  c.study.reset(study);  // reset(), not `=`: see copy_without_positions
  c.topo.reset(YAML::Clone(f.topo));
  c.study_origins.clear();
  c.topo_origins.clear();
  return c;
}

StudyFiles copy_study_only(const StudyFiles& f) {
  StudyFiles c = f;
  c.study.reset(YAML::Clone(f.study));  // reset(), not `=`: see copy_without_positions
  c.study_origins.clear();
  return c;
}

void apply_set(StudyFiles& f, const std::string& path, const YAML::Node& value, const std::string& origin) {
  apply_set(f, path, emit(value), origin);
}

namespace {
// The topology file a `topology` value names, relative to the study.
fs::path topology_path(const StudyFiles& f, const std::string& value, const std::string& origin, std::string* name) {
  const YAML::Node v = cfg::load_value(value, origin + ": '" + value + "'");
  if (!v.IsScalar()) throw InputError(origin + ": topology takes a file name");
  const fs::path p = (fs::path(f.study_file).parent_path() / v.Scalar()).lexically_normal();
  std::error_code ec;
  if (!fs::exists(p, ec) || !fs::is_regular_file(p, ec))
    throw InputError(origin + ": topology file '" + p.string() + "' does not exist");
  if (name) *name = v.Scalar();
  return p;
}
}  // namespace

void apply_set(StudyFiles& f, const std::string& path, const std::string& value, const std::string& origin) {
  const std::string prefix = "topology.";
  if (path == "topology") {
    // A sweep across platforms: the value names another topology file.
    std::string name;
    const fs::path p = topology_path(f, value, origin, &name);
    f.topo_file = p.string();
    f.topo.reset(cfg::load_file(f.topo_file));  // not `=`: another copy of f may share the old root
    f.study["topology"] = name;
    // The topology's own overrides (set:, --set, this point's) apply to
    // whichever topology the point runs: replayed onto the new tree.
    f.topo_origins.clear();
    for (const auto& o : f.topo_sets) cfg::apply_override(f.topo, o.path, o.value, o.origin, &f.topo_origins);
    return;
  }
  if (path.rfind(prefix, 0) == 0) {
    cfg::apply_override(f.topo, path.substr(prefix.size()), value, origin, &f.topo_origins);
    f.topo_sets.push_back({path.substr(prefix.size()), value, origin});
  } else {
    cfg::apply_override(f.study, path, value, origin, &f.study_origins);
  }
}

std::string emit(const YAML::Node& n) {
  YAML::Emitter e;
  e.SetMapFormat(YAML::Flow);
  e.SetSeqFormat(YAML::Flow);
  e << n;
  return e.c_str();
}

nlohmann::json yaml_to_json(const YAML::Node& n) {
  if (n.IsScalar()) {
    const std::string s = n.Scalar();
    char* end = nullptr;
    const double d = std::strtod(s.c_str(), &end);
    if (!s.empty() && *end == '\0') return d;
    if (s == "true") return true;
    if (s == "false") return false;
    return s;
  }
  if (n.IsSequence()) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& x : n) a.push_back(yaml_to_json(x));
    return a;
  }
  if (n.IsMap()) {
    nlohmann::json o = nlohmann::json::object();
    for (auto it = n.begin(); it != n.end(); ++it) o[it->first.as<std::string>()] = yaml_to_json(it->second);
    return o;
  }
  return nullptr;
}

namespace {
// More points than a driver holds the results of (about 22 KB a point of
// the shipped studies, kept until the end): a sweep beyond it is taken for
// a mistake (a range's step typed wrong, say).
constexpr std::size_t kMaxPoints = 1'000'000;

// One (path, values) part of a sweep axis. A range's values are not
// listed: value v is worked out when asked for, so that a point process
// of a long range does not build the whole list.
struct Part {
  std::string path;
  cfg::Cursor vals;  // the values' list, or the range
  std::size_t n = 0;
  bool range = false;
  double from = 0, step = 0;
  std::vector<double> walked;  // a range's values, once all are needed (walk())
  // from + step + step ..., summed as the range is walked (not from + v * step).
  void walk() {
    double x = from;
    for (std::size_t i = 0; i < n; ++i, x += step) walked.push_back(x);
  }
  YAML::Node value(std::size_t v) const {
    if (!range) return vals.node[v];
    if (!walked.empty()) return YAML::Node(walked[v]);
    double x = from;
    for (std::size_t i = 0; i < v; ++i) x += step;
    return YAML::Node(x);
  }
  // The value's own position; a range's values have none but the range's.
  std::string where(std::size_t v) const {
    if (range) return vals.where();
    const cfg::Cursor at = vals.item(v);
    const YAML::Mark m = at.node.Mark();
    return m.is_null() || m.line < 0 ? vals.where() : at.where();
  }
};

// One axis of a sweep: its parts, zipped, each with as many values as the axis.
struct Axis {
  std::vector<Part> parts;
  std::size_t size() const { return parts[0].n; }
};

// The study's sweep axes, each checked (its path names a parameter; zipped
// parts agree in length).
std::vector<Axis> sweep_axes(const StudyFiles& f) {
  const cfg::Cursor root = f.study_root();
  std::vector<Axis> axes;
  if (!root.has("sweep")) return axes;
  const cfg::Cursor sw = root.child("sweep");
  if (!sw.node.IsSequence()) sw.fail("sweep is a list of axes: {path, values} or {zip: [{path, values}, ...]}");
  for (std::size_t i = 0; i < sw.node.size(); ++i) {
    const cfg::Cursor axis = sw.item(i);
    // An axis is one (path, values) or a zipped group of them.
    Axis ax;
    auto& parts = ax.parts;
    const auto keys = axis.keys(cfg::key_names(sweep_axis_keys()));
    auto read_one = [&](const cfg::Cursor& a) {
      a.keys({"path", "values", "range"});
      Part part;
      part.path = a.child("path").str();
      if (part.path == "sweep" || part.path.rfind("sweep.", 0) == 0) a.child("path").fail("a sweep axis cannot change the sweep");
      if (a.has("values") == a.has("range")) a.fail("an axis has either values or range");
      part.range = a.has("range");
      part.vals = a.child(part.range ? "range" : "values");
      if (part.range) {
        // range: {from, to, step} of plain numbers
        const cfg::Cursor& r = part.vals;
        r.keys({"from", "to", "step"});
        part.from = r.child("from").number(-1e18, 1e18);
        const double to = r.child("to").number(-1e18, 1e18);
        part.step = r.child("step").number(1e-12, 1e18);
        if ((to - part.from) / part.step > static_cast<double>(kMaxPoints))
          r.fail("a range of more than " + std::to_string(kMaxPoints) + " values");
        for (double x = part.from; x <= to + part.step * 1e-9; x += part.step) ++part.n;
        if (part.n == 0) r.fail("the range holds no value (from is above to)");
      } else {
        if (!part.vals.node.IsSequence() || part.vals.node.size() == 0) part.vals.fail("values must be a non-empty list");
        part.n = part.vals.node.size();
      }
      // A path that names no parameter is an error at the axis, not at a
      // point. Its errors name the axis, so the probe needs no positions:
      // a copy in memory, not the files read again (a million-value list
      // took a third of a sweep's start to read once more).
      StudyFiles probe = copy_without_sweep(f);
      apply_set(probe, part.path, part.value(0), a.child("path").where());
      parts.push_back(std::move(part));
    };
    if (std::find(keys.begin(), keys.end(), "zip") != keys.end()) {
      const cfg::Cursor z = axis.child("zip");
      if (!z.node.IsSequence() || z.node.size() == 0) z.fail("zip is a list of {path, values}");
      for (std::size_t k = 0; k < z.node.size(); ++k) read_one(z.item(k));
      const std::size_t n = parts[0].n;
      for (const auto& p : parts)
        if (p.n != n) p.vals.fail("zipped axes need equally many values (" + std::to_string(n) + ")");
    } else {
      read_one(axis);
    }
    axes.push_back(std::move(ax));
  }
  double count = 1;
  for (const Axis& a : axes) count *= static_cast<double>(a.size());
  if (count > static_cast<double>(kMaxPoints)) {
    char n[32];
    std::snprintf(n, sizeof n, "%.4g", count);
    sw.fail(std::string("a sweep of ") + n + " points, more than " + std::to_string(kMaxPoints));
  }
  return axes;
}

// How many points the axes make (sweep_axes keeps it within kMaxPoints).
std::size_t point_count(const std::vector<Axis>& axes) {
  std::size_t count = 1;
  for (const Axis& a : axes) count *= a.size();
  return count;
}

// The point with value v[i] on axis i.
SweepPoint point_of(const std::vector<Axis>& axes, const std::vector<std::size_t>& v) {
  SweepPoint p;
  for (std::size_t i = 0; i < axes.size(); ++i)
    for (const Part& part : axes[i].parts) {
      const YAML::Node value = part.value(v[i]);
      p.sets.push_back({part.path, value, part.where(v[i])});
      p.point[part.path] = yaml_to_json(value);
    }
  return p;
}

// The value indices of point `index` on each axis, the last axis varying fastest.
std::vector<std::size_t> indices_of(const std::vector<Axis>& axes, std::size_t index) {
  std::vector<std::size_t> v(axes.size(), 0);
  for (std::size_t i = axes.size(), rest = index; i-- > 0;) {
    v[i] = rest % axes[i].size();
    rest /= axes[i].size();
  }
  return v;
}
}  // namespace

struct Sweep::Impl {
  std::vector<Axis> axes;
};

Sweep::Sweep(const StudyFiles& f) {
  auto impl = std::make_shared<Impl>();
  impl->axes = sweep_axes(f);
  // A range's values summed once (as the list is walked), not per point.
  for (Axis& a : impl->axes)
    for (Part& p : a.parts)
      if (p.range) p.walk();
  m_count = point_count(impl->axes);
  m_impl = std::move(impl);
}

SweepPoint Sweep::at(std::size_t k) const { return point_of(m_impl->axes, indices_of(m_impl->axes, k)); }

bool Sweep::changes_topology() const {
  for (const Axis& a : m_impl->axes)
    for (const Part& p : a.parts)
      if (p.path == "topology" || p.path.rfind("topology.", 0) == 0) return true;
  return false;
}

std::vector<std::string> Sweep::topologies(const StudyFiles& f) const {
  std::vector<std::string> out;
  for (const Axis& a : m_impl->axes)
    for (const Part& part : a.parts) {
      if (part.path != "topology") continue;
      for (std::size_t v = 0; v < part.n; ++v) {
        const std::string p = topology_path(f, emit(part.value(v)), part.where(v), nullptr).string();
        if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
      }
    }
  return out;
}

std::vector<SweepPoint::Set> Sweep::values_under(const std::string& part) const {
  std::vector<SweepPoint::Set> out;
  for (const Axis& a : m_impl->axes)
    for (const Part& p : a.parts) {
      if (p.path.find(part) == std::string::npos) continue;
      for (std::size_t v = 0; v < p.n; ++v) out.push_back({p.path, p.value(v), p.where(v)});
    }
  return out;
}

// Points in order of the cartesian product, the last axis varying fastest.
std::vector<SweepPoint> expand_sweep(const StudyFiles& f) {
  const Sweep sweep(f);
  std::vector<SweepPoint> points;
  points.reserve(sweep.size());
  for (std::size_t k = 0; k < sweep.size(); ++k) points.push_back(sweep.at(k));
  return points;
}

std::pair<SweepPoint, std::size_t> sweep_point(const StudyFiles& f, std::size_t index) {
  const std::vector<Axis> axes = sweep_axes(f);
  const std::size_t count = point_count(axes);
  if (index >= count) return {SweepPoint{}, count};
  return {point_of(axes, indices_of(axes, index)), count};
}

void apply_point(StudyFiles& f, const SweepPoint& point) {
  for (const auto& set : point.sets) apply_set(f, set.path, set.value, set.where);
}

namespace {
void put_text(std::string& out, const std::string& s) {
  const auto n = static_cast<std::uint32_t>(s.size());
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  out += s;
}
std::string take_text(const std::string& in, std::size_t& at) {
  std::uint32_t n = 0;
  if (at + sizeof n > in.size()) throw SimError("a point's text ends early");
  std::memcpy(&n, in.data() + at, sizeof n);
  at += sizeof n;
  if (n > in.size() - at) throw SimError("a point's text ends early");
  at += n;
  return in.substr(at - n, n);
}
}  // namespace

// Each set as three strings (path, value, place), each after its length.
std::string point_text(const SweepPoint& point) {
  std::string out;
  for (const auto& set : point.sets) {
    put_text(out, set.path);
    put_text(out, emit(set.value));
    put_text(out, set.where);
  }
  return out;
}

// The value is read back as apply_set reads it (it emits the node and
// loads that text): the point runs exactly as it would from the study.
SweepPoint point_from_text(const std::string& text) {
  SweepPoint p;
  for (std::size_t at = 0; at < text.size();) {
    SweepPoint::Set set;
    set.path = take_text(text, at);
    set.value = YAML::Load(take_text(text, at));
    set.where = take_text(text, at);
    p.point[set.path] = yaml_to_json(set.value);
    p.sets.push_back(std::move(set));
  }
  return p;
}

namespace {
// Two trees alike, node for node (emitting both to compare them cost a
// second per 5 MB of text).
bool same_tree(const YAML::Node& a, const YAML::Node& b) {
  if (a.Type() != b.Type()) return false;
  if (a.IsScalar()) return a.Scalar() == b.Scalar();
  if (a.size() != b.size()) return false;
  if (a.IsSequence()) {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same_tree(a[i], b[i])) return false;
    return true;
  }
  if (!a.IsMap()) return true;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
    if (!same_tree(i->first, j->first) || !same_tree(i->second, j->second)) return false;
  return true;
}
}  // namespace

bool sets_sweep(const std::string& path) { return path == "sweep" || path.rfind("sweep.", 0) == 0; }

std::optional<StudyWithoutSweep> study_without_sweep(const StudyFiles& f) {
  if (!f.from_files || !f.study.IsMap() || f.study.Style() == YAML::EmitterStyle::Flow) return std::nullopt;
  // The `sweep` key of the block map runs to the next key written after it.
  long from = -1;
  for (auto it = f.study.begin(); it != f.study.end(); ++it) {
    const YAML::Mark m = it->first.Mark();
    if (it->first.IsScalar() && it->first.Scalar() == "sweep" && !m.is_null() && m.pos >= 0) from = m.pos;
  }
  if (from < 0) return std::nullopt;
  cfg::TextSpan span{static_cast<std::size_t>(from), std::numeric_limits<std::size_t>::max()};
  for (auto it = f.study.begin(); it != f.study.end(); ++it) {
    const YAML::Mark m = it->first.Mark();
    if (!m.is_null() && m.pos > from && static_cast<std::size_t>(m.pos) < span.to) span.to = static_cast<std::size_t>(m.pos);
  }
  try {
    StudyWithoutSweep w{span, load_study_files(f.study_file, span)};
    for (const auto& [p, v] : f.sets) {
      if (sets_sweep(p)) continue;
      apply_set(w.files, p, v, "--set " + p);
      w.files.sets.emplace_back(p, v);
    }
    if (same_tree(w.files.study, copy_without_sweep(f).study) && same_tree(w.files.topo, f.topo)) return w;
  } catch (const InputError&) {
    // The text without the sweep is not a study: the sweep is read with it.
  }
  return std::nullopt;
}

const cfg::KeyTable& study_keys() {
  static const cfg::KeyTable t = {
      {"study", "the study's name: the results directory (`results/<study>`) and a key of every result"},
      {"description", "free text"},
      {"topology", "the platform: a topology file's path relative to the study, or the topology itself inline"},
      {"seed", "the study's seed (default 1); each point's seed derives from it and the point's index (see point_seeds)"},
      {"point_seeds", "how each point's seed is drawn: `index` (default: from the study's seed and the point's index, so every point has draws of its own) or `common` (every point the study's seed: common random numbers, so that points differ by their configuration alone and adding a sweep axis changes no point's draws); a point that sets `seed` takes that value either way"},
      {"deadline", "simulated time after which a point is a simulation error (default 1000ms)"},
      {"set", "parameter settings applied before any --set: a map of path -> value (`topology.nodes.X.Y` for the platform)"},
      {"workloads", "the list of workloads, each a map with a `type` (see Workload types)"},
      {"sweep", "a list of axes, each {path, values}, {path, range: {from, to, step}} or {zip: [{path, values}, ...]}; points are their cartesian product"},
      {"metrics", "the metrics results.csv keeps as columns, a list of names in which `*` stands for any text (e.g. `bw.gbit_per_s`, `*.rx_MiB_per_s`), in that order; each must match a metric the study's workloads write; results.json and the points' files keep every metric (default: all of them)"},
  };
  return t;
}

const cfg::KeyTable& sweep_axis_keys() {
  static const cfg::KeyTable t = {
      {"path", "the parameter path the axis sets (any key of the study or, as `topology.`..., of the platform; `topology` switches the file)"},
      {"values", "the list of values"},
      {"range", "{from, to, step}: plain numbers, `to` included"},
      {"zip", "a list of {path, values} walked together (equally long)"},
  };
  return t;
}

std::string files_reference() {
  return "# Study and topology files\n\nTheir structural keys; every other key is a model parameter (the parameter "
         "reference). An unknown key is an error.\n" +
         cfg::keys_reference("study", "The top level of a study file.", study_keys()) +
         cfg::keys_reference("sweep axis", "Every item of `sweep:` (and of a `zip:`).", sweep_axis_keys()) +
         topo::topology_reference();
}

Study parse_study(const StudyFiles& f) {
  Study s = parse_study_keys(f);
  s.topo = topo::load_topology(f.topo_root(), f.topo_file);
  return s;
}

Study parse_study_keys(const StudyFiles& f) {
  Study s;
  s.study_root = f.study;
  const cfg::Cursor root = f.study_root();
  root.keys(cfg::key_names(study_keys()));
  s.name = root.child("study").str();
  // The name is a directory's (results/<study>) and a key of every result:
  // one plain name, no way out of results/.
  if (s.name.empty() || s.name == "." || s.name == ".." || s.name.size() > 200 ||
      s.name.find_first_of("/\\") != std::string::npos ||
      std::any_of(s.name.begin(), s.name.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f; }))
    root.child("study").fail("not a study name (it names the results directory): one to 200 characters, no '/', "
                             "'\\' or control characters, not '.' or '..'");
  // Free text nothing reads: checked, not copied. Every point reads the
  // study: a 5 MB description made each point about 25 ms of CPU dearer
  // (docs/performance.md).
  if (root.has("description")) root.child("description").expect_scalar();
  if (root.has("seed")) s.seed = static_cast<std::uint64_t>(root.child("seed").integer(0, (1ll << 62)));
  // Checked here; each point reads it as it derives its seed (point.cpp).
  if (root.has("point_seeds")) root.child("point_seeds").choice({"index", "common"});
  if (root.has("deadline")) s.deadline = root.child("deadline").time();
  s.workloads = root.child("workloads");
  if (!s.workloads.node.IsSequence() || s.workloads.node.size() == 0) s.workloads.fail("a study needs a list of workloads");
  if (root.has("metrics")) {
    const cfg::Cursor m = root.child("metrics");
    if (!m.node.IsSequence() || m.node.size() == 0) m.fail("a list of metric names, `*` standing for any text");
    for (std::size_t i = 0; i < m.node.size(); ++i) {
      const cfg::Cursor one = m.item(i);
      const std::string glob = one.str();
      if (glob.empty()) one.fail("a metric name or pattern");
      s.metrics.emplace_back(glob, one);
    }
  }
  return s;
}

}  // namespace hx::sim
