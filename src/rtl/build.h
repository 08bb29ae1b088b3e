// Building a user's design for co-simulation (`device: rtl`): Verilator
// turns its sources into C++, a generated glue file gives the model a small
// C interface (models/rtl/rtl_model.h), and the lot is linked into a shared
// library with its own Verilator runtime, which a point process loads.
// Built once per distinct input: the library is cached under a hash of
// everything that goes into it (sources and include files by content,
// top, parameters, arguments, the Verilator and compiler versions, the
// glue's version; the versions themselves are kept in the cache beside the
// tools' file identities, not asked again by every process), so a second run, every point of a sweep and every point
// server load the same file. The cache is $HXSIM_RTL_CACHE, else
// $XDG_CACHE_HOME/hxsim/rtl, else ~/.cache/hxsim/rtl. Builds of one design by
// several processes at once are serialised by a lock file; a build is
// made in a scratch directory and renamed into place, so a half-built
// library is never seen.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace hx::rtlbuild {

struct Spec {
  std::vector<std::string> sources;       // absolute paths, in order
  std::string top;                        // the top module
  std::vector<std::pair<std::string, std::string>> parameters;  // -G name=value
  std::vector<std::string> include_dirs;  // absolute paths
  std::vector<std::string> verilator_args;
};

struct Port {
  std::string name;
  int bits = 0;
  int dir = 0;  // 0 input, 1 output, 2 inout
};

struct Built {
  std::string library;      // the shared library
  std::vector<Port> ports;  // the top module's ports
  bool cached = false;      // found, not built
};

// Thrown when the design does not build: the message carries the tool's
// own diagnostics (file:line:col in the user's sources).
struct BuildError {
  std::string what;
};

// The contents of a design's files (sources, and every file directly in
// its include directories) as one digest: what a result of the design
// depends on beyond the text of its configuration.
std::string inputs_digest(const std::vector<std::string>& sources, const std::vector<std::string>& include_dirs);

// The cache directory (made if missing).
std::string cache_dir();
// The library for `s`, built if the cache lacks it. Throws BuildError.
Built build(const Spec& s);

}  // namespace hx::rtlbuild
