#include "src/sim/study.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

namespace hx::sim {

namespace fs = std::filesystem;

StudyFiles load_study_files(const std::string& path) {
  StudyFiles f;
  f.from_files = true;
  f.study_file = path;
  f.study = cfg::load_file(path);
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

void apply_set(StudyFiles& f, const std::string& path, const YAML::Node& value, const std::string& origin) {
  apply_set(f, path, emit(value), origin);
}

namespace {
// The topology file a `topology` value names, relative to the study.
fs::path topology_path(const StudyFiles& f, const std::string& value, const std::string& origin, std::string* name) {
  YAML::Node v;
  try {
    v = YAML::Load(value);
  } catch (const YAML::ParserException&) {
    throw InputError(origin + ": '" + value + "' is not a topology file name");
  }
  if (!v.IsScalar()) throw InputError(origin + ": topology takes a file name");
  const fs::path p = (fs::path(f.study_file).parent_path() / v.Scalar()).lexically_normal();
  std::error_code ec;
  if (!fs::exists(p, ec) || !fs::is_regular_file(p, ec))
    throw InputError(origin + ": topology file '" + p.string() + "' does not exist");
  if (name) *name = v.Scalar();
  return p;
}
}  // namespace

std::vector<std::string> swept_topologies(const StudyFiles& f, const std::vector<SweepPoint>& points) {
  std::vector<std::string> out;
  for (const SweepPoint& pt : points)
    for (const auto& set : pt.sets) {
      if (set.path != "topology") continue;
      const std::string p = topology_path(f, emit(set.value), set.where, nullptr).string();
      if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    }
  return out;
}

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

std::vector<SweepPoint> expand_sweep(const StudyFiles& f) {
  const cfg::Cursor root = f.study_root();
  std::vector<SweepPoint> points(1);
  if (!root.has("sweep")) return points;
  const cfg::Cursor sw = root.child("sweep");
  if (!sw.node.IsSequence()) sw.fail("sweep is a list of axes: {path, values} or {zip: [{path, values}, ...]}");
  for (std::size_t i = 0; i < sw.node.size(); ++i) {
    const cfg::Cursor axis = sw.item(i);
    // An axis is one (path, values) or a zipped group of them.
    std::vector<std::pair<std::string, cfg::Cursor>> parts;
    const auto keys = axis.keys({"path", "values", "range", "zip"});
    auto read_one = [&](const cfg::Cursor& a) {
      a.keys({"path", "values", "range"});
      const std::string path = a.child("path").str();
      if (path == "sweep" || path.rfind("sweep.", 0) == 0) a.child("path").fail("a sweep axis cannot change the sweep");
      if (a.has("values") == a.has("range")) a.fail("an axis has either values or range");
      cfg::Cursor vals = a.child(a.has("values") ? "values" : "range");
      if (a.has("range")) {
        // range: {from, to, step} of plain numbers
        vals.keys({"from", "to", "step"});
        const double from = vals.child("from").number(-1e18, 1e18), to = vals.child("to").number(-1e18, 1e18);
        const double step = vals.child("step").number(1e-12, 1e18);
        YAML::Node seq(YAML::NodeType::Sequence);
        for (double x = from; x <= to + step * 1e-9; x += step) seq.push_back(x);
        cfg::Cursor c = vals;
        c.node = seq;
        vals = c;
      }
      if (!vals.node.IsSequence() || vals.node.size() == 0) vals.fail("values must be a non-empty list");
      // A path that names no parameter is an error at the axis, not at a point.
      StudyFiles probe = clone(f);
      apply_set(probe, path, vals.node[0], a.child("path").where());
      parts.emplace_back(path, vals);
    };
    if (std::find(keys.begin(), keys.end(), "zip") != keys.end()) {
      const cfg::Cursor z = axis.child("zip");
      if (!z.node.IsSequence() || z.node.size() == 0) z.fail("zip is a list of {path, values}");
      for (std::size_t k = 0; k < z.node.size(); ++k) read_one(z.item(k));
      const std::size_t n = parts[0].second.node.size();
      for (const auto& p : parts)
        if (p.second.node.size() != n) p.second.fail("zipped axes need equally many values (" + std::to_string(n) + ")");
    } else {
      read_one(axis);
    }
    const std::size_t n = parts[0].second.node.size();
    std::vector<SweepPoint> next;
    for (const auto& base : points) {
      for (std::size_t v = 0; v < n; ++v) {
        SweepPoint p = base;
        for (const auto& [path, vals] : parts) {
          // The value's own position; a range's values have none but the range's.
          const cfg::Cursor at = vals.item(v);
          const YAML::Mark m = at.node.Mark();
          p.sets.push_back({path, vals.node[v], m.is_null() || m.line < 0 ? vals.where() : at.where()});
          p.point[path] = yaml_to_json(vals.node[v]);
        }
        next.push_back(std::move(p));
      }
    }
    points.swap(next);
  }
  return points;
}

void apply_point(StudyFiles& f, const SweepPoint& point) {
  for (const auto& set : point.sets) apply_set(f, set.path, set.value, set.where);
}

Study parse_study(const StudyFiles& f) {
  Study s;
  s.study_root = f.study;
  const cfg::Cursor root = f.study_root();
  root.keys({"study", "description", "topology", "seed", "deadline", "set", "workloads", "sweep", "metrics", "outputs"});
  s.name = root.child("study").str();
  if (root.has("description")) s.description = root.child("description").str();
  if (root.has("seed")) s.seed = static_cast<std::uint64_t>(root.child("seed").integer(0, (1ll << 62)));
  if (root.has("deadline")) s.deadline = root.child("deadline").time();
  s.topo = topo::load_topology(f.topo_root(), f.topo_file);
  s.workloads = root.child("workloads");
  if (!s.workloads.node.IsSequence() || s.workloads.node.size() == 0) s.workloads.fail("a study needs a list of workloads");
  return s;
}

}  // namespace hx::sim
