// A study: a topology (path or inline), workloads bound to its nodes, sweep
// axes over any parameter path, a seed and a simulated-time deadline.
#pragma once
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/config/yaml_util.h"
#include "src/topology/topology.h"

namespace hx::sim {

struct StudyFiles {
  YAML::Node study;
  std::string study_file;
  YAML::Node topo;
  std::string topo_file;
  bool from_files = false;                                  // reloadable from study_file
  std::vector<std::pair<std::string, std::string>> sets;    // command-line overrides, replayed on reload
  cfg::Origins study_origins, topo_origins;                 // where the overriding values of each tree came from
  struct TopoSet {
    std::string path, value, origin;
  };
  std::vector<TopoSet> topo_sets;  // every topology.* override so far, replayed when the topology file changes
  cfg::Cursor study_root() const { return cfg::root_cursor(study, study_file, &study_origins); }
  cfg::Cursor topo_root() const { return cfg::root_cursor(topo, topo_file, &topo_origins); }
};

// `without`: bytes of the study file read as blank (see study_without_sweep).
StudyFiles load_study_files(const std::string& path, const cfg::TextSpan& without = {});
// A fresh copy to apply a sweep point to. Files are read again (keeping
// every value's file:line:col) and the command-line overrides replayed.
StudyFiles clone(const StudyFiles& f);
// A fresh copy in memory, many times faster than clone(), whose values have
// no file:line:col (yaml-cpp's Clone drops them): errors found in it name
// no position.
StudyFiles copy_without_positions(const StudyFiles& f);
// The same for the study alone: the copy shares f's topology tree, for a
// caller that will not change it.
StudyFiles copy_study_only(const StudyFiles& f);
// copy_without_positions without the study's `sweep:` (never copied: a
// list of a million values is most of the study, and a yaml-cpp tree gives
// no memory back for what is removed from it).
StudyFiles copy_without_sweep(const StudyFiles& f);
// path=value overrides; `topology.` paths go to the topology tree.
void apply_set(StudyFiles& f, const std::string& path, const YAML::Node& value, const std::string& origin);
void apply_set(StudyFiles& f, const std::string& path, const std::string& value, const std::string& origin);

struct SweepPoint {
  struct Set {
    std::string path;
    YAML::Node value;
    std::string where;  // the value's place in the study, for errors
  };
  std::vector<Set> sets;
  nlohmann::json point = nlohmann::json::object();  // path -> value, for results
};
// The points of the study's sweep (one point with no sets if none).
std::vector<SweepPoint> expand_sweep(const StudyFiles& f);

// The same points, made one at a time when asked for: a driver of a large
// sweep holds its axes, not a million points. It reads the values from f's
// study, which must outlive it.
class Sweep {
 public:
  explicit Sweep(const StudyFiles& f);
  std::size_t size() const { return m_count; }
  SweepPoint at(std::size_t k) const;
  // Whether some point sets the topology or something in it.
  bool changes_topology() const;
  // The topology files the points switch to (`path: topology`), each once,
  // in the order the points first name them.
  std::vector<std::string> topologies(const StudyFiles& f) const;
  // Every value the points give a path that contains `part` (e.g. ".rtl."),
  // each with its path and place.
  std::vector<SweepPoint::Set> values_under(const std::string& part) const;

 private:
  struct Impl;
  std::shared_ptr<const Impl> m_impl;
  std::size_t m_count = 1;
};
// Point `index` of that list alone, without building the others (a point
// process of a large sweep), and how many points there are; a point past
// the end comes back empty.
std::pair<SweepPoint, std::size_t> sweep_point(const StudyFiles& f, std::size_t index);
// Apply a sweep point's values to f.
void apply_point(StudyFiles& f, const SweepPoint& point);
// A point as text, and back (the values as apply_point applies them, each
// with its place): how a point server is sent its points.
std::string point_text(const SweepPoint& point);
SweepPoint point_from_text(const std::string& text);

// Whether a parameter path is the sweep or inside it.
bool sets_sweep(const std::string& path);
// The study without its sweep, loaded from its file with the bytes of the
// `sweep:` entry read as blank, so every other value keeps its file:line:col
// (yaml-cpp gives no memory back for part of a tree: a list of a million
// values is most of the study). The command-line overrides are replayed,
// but those of the sweep. None when the study is not a block map of a
// file of its own, or when the file read so is not exactly the study
// without its sweep (an alias into the sweep, say).
struct StudyWithoutSweep {
  cfg::TextSpan sweep;  // the bytes left out
  StudyFiles files;
};
std::optional<StudyWithoutSweep> study_without_sweep(const StudyFiles& f);


struct Study {
  std::string name;
  std::uint64_t seed = 1;
  Tick deadline = 1000 * kMs;
  topo::Topology topo;
  cfg::Cursor workloads;
  // `metrics:`: the metrics results.csv keeps, as patterns of their names
  // (`*` any text), each with its place in the study; empty: all of them.
  std::vector<std::pair<std::string, cfg::Cursor>> metrics;
  YAML::Node study_root;  // keeps the cursors' nodes alive
};

// The keys of a study file and of a sweep axis.
const cfg::KeyTable& study_keys();
const cfg::KeyTable& sweep_axis_keys();
// Every structural key of study and topology files, as Markdown.
std::string files_reference();

Study parse_study(const StudyFiles& f);
// The study's own keys only: `topo` is left empty, for a caller that
// already holds the topology the study runs on.
Study parse_study_keys(const StudyFiles& f);


// YAML emitted back as text (the resolved config written beside results).
std::string emit(const YAML::Node& n);
nlohmann::json yaml_to_json(const YAML::Node& n);

}  // namespace hx::sim
