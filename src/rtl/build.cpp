#include "src/rtl/build.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>

#include "models/core/stable_hash.h"
#include "models/rtl/rtl_model.h"

namespace hx::rtlbuild {

namespace {

// The glue's own version: a change to the text below must change it, so
// that libraries built with the old glue are not reused.
constexpr const char* kGlueVersion = "glue-1";
constexpr const char* kVerilatorInclude = "/usr/share/verilator/include";

std::string slurp(const std::string& path, bool& ok) {
  std::ifstream in(path, std::ios::binary);
  ok = static_cast<bool>(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool exists(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0;
}

void make_dirs(const std::string& path) {
  std::string cur;
  std::stringstream ss(path);
  std::string part;
  if (!path.empty() && path[0] == '/') cur = "/";
  while (std::getline(ss, part, '/')) {
    if (part.empty()) continue;
    cur += part + "/";
    if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
      throw BuildError{"cannot make the RTL cache directory " + cur + ": " + std::strerror(errno)};
  }
}

void remove_tree(const std::string& path) {
  if (DIR* d = ::opendir(path.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n == "." || n == "..") continue;
      const std::string p = path + "/" + n;
      struct stat st{};
      if (::lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) remove_tree(p);
      else ::unlink(p.c_str());
    }
    ::closedir(d);
  }
  ::rmdir(path.c_str());
}

// How long one tool may run: $HXSIM_RTL_BUILD_TIMEOUT seconds, else 30
// minutes (a large design takes minutes to verilate and compile; a tool
// that hangs must not hang the run).
double tool_timeout_s() {
  const char* e = std::getenv("HXSIM_RTL_BUILD_TIMEOUT");
  if (!e || !*e) return 1800;
  char* end = nullptr;
  const double v = std::strtod(e, &end);
  if (*end || !(v > 0)) throw BuildError{std::string("HXSIM_RTL_BUILD_TIMEOUT is '") + e + "', not a number of seconds above 0"};
  return v;
}

// Runs argv in `dir`, its output into `log`; the exit status (-1: could not
// run). A tool still running after tool_timeout_s() is killed with all it
// started (its own process group), and that is a BuildError naming it.
int run(const std::vector<std::string>& argv, const std::string& dir, const std::string& log) {
  const double limit = tool_timeout_s();
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    ::setpgid(0, 0);
    // The tool's output goes to the log, never to hxsim's terminal.
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) ::_exit(126);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::close(fd);
    if (::chdir(dir.c_str()) != 0) ::_exit(127);
    std::vector<char*> a;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    ::execvp(a[0], a.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here: the child may not have run yet
  const auto t0 = std::chrono::steady_clock::now();
  int st = 0;
  for (auto pause = std::chrono::microseconds(200);; pause = std::min(pause * 2, std::chrono::microseconds(50'000))) {
    const pid_t r = ::waitpid(pid, &st, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return -1;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > limit) {
      ::kill(-pid, SIGKILL);
      while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
      }
      std::ostringstream m;
      m << argv[0] << " did not finish within " << limit << " s (HXSIM_RTL_BUILD_TIMEOUT) and was stopped; its output: " << log;
      throw BuildError{m.str()};
    }
    std::this_thread::sleep_for(pause);
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// The first lines of a build log, for an error message.
std::string log_head(const std::string& log, std::size_t lines = 30) {
  bool ok = false;
  const std::string s = slurp(log, ok);
  std::stringstream in(s);
  std::string out, line;
  std::size_t n = 0;
  while (std::getline(in, line) && n < lines) {
    out += "\n  " + line;
    ++n;
  }
  if (std::getline(in, line)) out += "\n  ... (the whole log: " + log + ")";
  return out;
}

// A tool's version line (for the hash): what `argv` prints.
std::string tool_version(const std::vector<std::string>& argv) {
  const std::string log = cache_dir() + "/.version." + std::to_string(::getpid()) + "." +
                          std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  int rc = -1;
  try {
    rc = run(argv, "/", log);
  } catch (const BuildError& e) {
    ::unlink(log.c_str());
    throw BuildError{e.what.substr(0, e.what.find("; its output:"))};
  }
  bool ok = false;
  std::string s = slurp(log, ok);
  ::unlink(log.c_str());
  if (rc != 0) throw BuildError{argv[0] + " is not installed or does not run (needed to build RTL designs)"};
  return s;
}

// Every regular file directly in `dir`, by name.
std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string p = dir + "/" + e->d_name;
      struct stat st{};
      if (::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode)) out.push_back(p);
    }
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The ports Verilator declared in the model's header:
// VL_IN8(&clk,0,0); VL_OUTW(&data,255,0,8); ...
std::vector<Port> header_ports(const std::string& header) {
  bool ok = false;
  const std::string s = slurp(header, ok);
  if (!ok) throw BuildError{"Verilator wrote no " + header};
  static const std::regex re(R"(VL_(IN|OUT|INOUT)(8|16|64|W)?\(&(\w+),(\d+),(\d+)(,\d+)?\);)");
  std::vector<Port> ports;
  for (std::sregex_iterator it(s.begin(), s.end(), re), end; it != end; ++it) {
    Port p;
    p.dir = (*it)[1] == "IN" ? 0 : (*it)[1] == "OUT" ? 1 : 2;
    p.name = (*it)[3];
    p.bits = std::stoi((*it)[4]) - std::stoi((*it)[5]) + 1;
    ports.push_back(p);
  }
  return ports;
}

std::string glue(const std::string& top, const std::vector<Port>& ports) {
  const std::string cls = "V" + top;
  std::ostringstream g;
  g << "// Generated by hxsim (" << kGlueVersion << "): the C interface of " << cls << " (models/rtl/rtl_model.h).\n"
    << "#include <cstdint>\n#include <memory>\n#include \"" << cls << ".h\"\n#include \"verilated.h\"\n"
    << "#include \"verilated_vcd_c.h\"\n"
    << "#define HX_API extern \"C\" __attribute__((visibility(\"default\")))\n"
    << "namespace {\nstruct Model {\n  VerilatedContext ctx;\n  std::unique_ptr<" << cls << "> top;\n"
    << "  std::unique_ptr<VerilatedVcdC> vcd;\n};\n"
    << "struct P { const char* name; int bits, dir; };\nconst P kPorts[] = {\n";
  for (const auto& p : ports) g << "  {\"" << p.name << "\", " << p.bits << ", " << p.dir << "},\n";
  g << "  {nullptr, 0, 0}};\n"
    << "void* addr(" << cls << "& t, int i) {\n  switch (i) {\n";
  for (std::size_t i = 0; i < ports.size(); ++i) g << "    case " << i << ": return &t." << ports[i].name << ";\n";
  g << "  }\n  return nullptr;\n}\n}  // namespace\n"
    << "HX_API int hx_rtl_abi() { return " << rtl::kRtlAbi << "; }\n"
    << "HX_API void* hx_rtl_new(int trace) {\n  auto* m = new Model;\n  if (trace) m->ctx.traceEverOn(true);\n"
    << "  m->top = std::make_unique<" << cls << ">(&m->ctx, \"" << top << "\");\n  return m;\n}\n"
    << "HX_API void hx_rtl_delete(void* p) { delete static_cast<Model*>(p); }\n"
    << "HX_API void hx_rtl_eval(void* p) { static_cast<Model*>(p)->top->eval(); }\n"
    << "HX_API int hx_rtl_port_count(void*) { return " << ports.size() << "; }\n"
    << "HX_API int hx_rtl_port(void* p, int i, const char** name, void** ptr, int* bits, int* dir) {\n"
    << "  if (i < 0 || i >= " << ports.size() << ") return 0;\n"
    << "  *name = kPorts[i].name;\n  *ptr = addr(*static_cast<Model*>(p)->top, i);\n"
    << "  *bits = kPorts[i].bits;\n  *dir = kPorts[i].dir;\n  return 1;\n}\n"
    << "HX_API void hx_rtl_trace_open(void* p, const char* file) {\n  auto* m = static_cast<Model*>(p);\n"
    << "  m->vcd = std::make_unique<VerilatedVcdC>();\n  m->top->trace(m->vcd.get(), 99);\n  m->vcd->open(file);\n}\n"
    << "HX_API void hx_rtl_trace_dump(void* p, std::uint64_t t) {\n  auto* m = static_cast<Model*>(p);\n"
    << "  if (m->vcd) m->vcd->dump(t);\n}\n"
    << "HX_API void hx_rtl_final(void* p) {\n  auto* m = static_cast<Model*>(p);\n  m->top->final();\n"
    << "  if (m->vcd) m->vcd->close();\n}\n";
  return g.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw BuildError{"cannot write " + path};
}

std::string ports_text(const std::vector<Port>& ports) {
  std::ostringstream o;
  for (const auto& p : ports) o << p.name << ' ' << p.bits << ' ' << p.dir << '\n';
  return o.str();
}

std::vector<Port> read_ports(const std::string& path) {
  bool ok = false;
  std::stringstream in(slurp(path, ok));
  std::vector<Port> out;
  Port p;
  while (in >> p.name >> p.bits >> p.dir) out.push_back(p);
  return out;
}

const std::vector<std::string> kCompile = {"g++", "-std=c++17", "-O2", "-fPIC", "-fvisibility=hidden",
                                           "-fvisibility-inlines-hidden", "-DVM_TRACE=1", "-DVM_TRACE_VCD=1", "-w"};

// Where `name` runs from: the first executable of that name on $PATH, its
// links resolved ("" if there is none).
std::string on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string d;
  while (std::getline(dirs, d, ':')) {
    const std::string p = (d.empty() ? "." : d) + "/" + name;
    if (::access(p.c_str(), X_OK) != 0) continue;
    std::error_code ec;
    const auto real = std::filesystem::canonical(p, ec);
    return ec ? p : real.string();
  }
  return "";
}

// The tools' versions, as the design's hash takes them. Asking Verilator
// and g++ takes ~60 ms, which every point of a study pays (a point is a
// process of its own), so the answer is kept in the cache beside what
// identifies the tools' files: path, inode, size and modification time of
// verilator, verilator_bin and g++, and $VERILATOR_ROOT. An upgrade changes
// them, and the versions are asked again.
std::string tool_versions() {
  std::string id;
  bool all = true;
  for (const char* tool : {"verilator", "verilator_bin", "g++"}) {
    const std::string p = on_path(tool);
    struct stat st{};
    if (p.empty() || ::stat(p.c_str(), &st) != 0) {
      all = false;
      continue;
    }
    id += p + ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) +
          "." + std::to_string(st.st_mtim.tv_nsec) + "\n";
  }
  const char* root = std::getenv("VERILATOR_ROOT");
  id += std::string("VERILATOR_ROOT=") + (root ? root : "");
  const auto ask = [] { return tool_version({"verilator", "--version"}) + tool_version({"g++", "-dumpfullversion"}); };
  if (!all) return ask();  // a tool is missing: asking it says so
  const std::string file = cache_dir() + "/versions-" + StableHash().field(id).hex().substr(0, 20);
  bool ok = false;
  const std::string kept = slurp(file, ok);
  if (ok && !kept.empty()) return kept;
  const std::string v = ask();
  // Kept if it can be (a cache that takes no file is asked again next time).
  const std::string tmp = file + ".tmp." + std::to_string(::getpid());
  try {
    write_file(tmp, v);
    if (::rename(tmp.c_str(), file.c_str()) == 0) return v;
  } catch (const BuildError&) {
  }
  ::unlink(tmp.c_str());
  return v;
}

// The Verilator runtime, compiled once per Verilator and compiler version
// (every design links the same objects): the object files.
std::vector<std::string> runtime(const std::string& versions) {
  const std::string dir = cache_dir() + "/runtime-" + StableHash().field(versions).field(kGlueVersion).hex().substr(0, 16);
  const std::vector<std::string> units = {"verilated", "verilated_vcd_c", "verilated_threads"};
  std::vector<std::string> objs;
  for (const auto& u : units) objs.push_back(dir + "/" + u + ".o");
  if (exists(dir + "/done")) return objs;
  const std::string tmp = dir + ".tmp." + std::to_string(::getpid());
  make_dirs(tmp);
  const std::string log = tmp + "/build.log";
  for (const auto& u : units) {
    std::vector<std::string> a = kCompile;
    for (const std::string& i : {std::string(kVerilatorInclude), std::string(kVerilatorInclude) + "/vltstd"}) a.push_back("-I" + i);
    a.insert(a.end(), {"-c", std::string(kVerilatorInclude) + "/" + u + ".cpp", "-o", tmp + "/" + u + ".o"});
    if (run(a, tmp, log) != 0) {
      const std::string why = log_head(log);
      remove_tree(tmp);
      throw BuildError{"compiling the Verilator runtime failed:" + why};
    }
  }
  write_file(tmp + "/done", "");
  if (::rename(tmp.c_str(), dir.c_str()) != 0) remove_tree(tmp);  // another process made it first
  return objs;
}

// One build per distinct design in this process (checking threads and
// repeated topologies ask again).
std::mutex g_mu;
std::map<std::string, Built> g_done;

}  // namespace

std::string inputs_digest(const std::vector<std::string>& sources, const std::vector<std::string>& include_dirs) {
  StableHash h;
  for (const auto& f : sources) {
    bool ok = false;
    const std::string text = slurp(f, ok);
    h.field(f).field(ok ? text : std::string("(unreadable)"));
  }
  for (const auto& d : include_dirs) {
    h.field(d);
    for (const auto& f : files_in(d)) {
      bool ok = false;
      h.field(f).field(slurp(f, ok));
    }
  }
  return h.hex();
}

std::string cache_dir() {
  std::string d;
  if (const char* c = std::getenv("HXSIM_RTL_CACHE"); c && *c) d = c;
  else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) d = std::string(x) + "/hxsim/rtl";
  else if (const char* h = std::getenv("HOME"); h && *h) d = std::string(h) + "/.cache/hxsim/rtl";
  else d = "/tmp/hxsim-rtl-" + std::to_string(::getuid());
  // Absolute: the tools run in directories of their own.
  std::error_code ec;
  const auto abs = std::filesystem::absolute(d, ec);
  if (!ec) d = abs.lexically_normal().string();
  make_dirs(d);
  return d;
}

Built build(const Spec& s) {
  std::lock_guard<std::mutex> lock(g_mu);
  // Everything that goes into the library, by content.
  // The tools' versions, once per process (each point re-reads its topology).
  static const std::string versions = tool_versions();
  for (const auto& f : s.sources)
    if (!exists(f)) throw BuildError{"cannot read " + f};
  StableHash h;
  h.field(kGlueVersion).field(versions).field(s.top).field(inputs_digest(s.sources, s.include_dirs));
  for (const auto& [k, v] : s.parameters) h.field(k).field(v);
  for (const auto& a : s.verilator_args) h.field(a);
  const std::string key = h.hex();
  if (auto it = g_done.find(key); it != g_done.end()) return it->second;

  const std::string root = cache_dir();
  const std::string dir = root + "/" + s.top + "-" + key.substr(0, 20);
  Built b;
  b.library = dir + "/libdesign.so";
  // Another process may be building the same design: wait for it.
  const std::string lockfile = dir + ".lock";
  const int lfd = ::open(lockfile.c_str(), O_WRONLY | O_CREAT, 0644);
  if (lfd < 0) throw BuildError{"cannot open " + lockfile + ": " + std::strerror(errno)};
  ::flock(lfd, LOCK_EX);
  struct Unlock {
    int fd;
    ~Unlock() {
      ::flock(fd, LOCK_UN);
      ::close(fd);
    }
  } unlock{lfd};
  if (exists(dir + "/done")) {
    b.ports = read_ports(dir + "/ports");
    b.cached = true;
    g_done[key] = b;
    return b;
  }
  const auto objs = runtime(versions);
  const std::string tmp = dir + ".tmp";
  remove_tree(tmp);
  make_dirs(tmp + "/obj");
  const std::string log = tmp + "/build.log";
  std::vector<std::string> v = {"verilator", "--cc", "--trace", "-Wno-fatal", "--top-module", s.top, "-Mdir", tmp + "/obj",
                                "-CFLAGS", "-fPIC -fvisibility=hidden -fvisibility-inlines-hidden"};
  for (const auto& [k, val] : s.parameters) v.push_back("-G" + k + "=" + val);
  for (const auto& d : s.include_dirs) v.push_back("-I" + d);
  v.insert(v.end(), s.verilator_args.begin(), s.verilator_args.end());
  v.insert(v.end(), s.sources.begin(), s.sources.end());
  if (run(v, tmp, log) != 0) throw BuildError{"Verilator rejected the design:" + log_head(log)};
  const std::string cls = "V" + s.top;
  b.ports = header_ports(tmp + "/obj/" + cls + ".h");
  if (b.ports.empty()) throw BuildError{"the top module " + s.top + " has no ports"};
  write_file(tmp + "/obj/hx_glue.cpp", glue(s.top, b.ports));
  const unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  if (run({"make", "-s", "-C", tmp + "/obj", "-f", cls + ".mk", "-j" + std::to_string(jobs), cls + "__ALL.a",
           "OPT_FAST=-O2", "OPT_SLOW=-O1", "OPT_GLOBAL=-O2"},
          tmp, log) != 0)
    throw BuildError{"compiling the Verilated design failed:" + log_head(log)};
  std::vector<std::string> g = kCompile;
  g.insert(g.end(), {"-I" + tmp + "/obj", std::string("-I") + kVerilatorInclude, std::string("-I") + kVerilatorInclude + "/vltstd",
                     "-c", tmp + "/obj/hx_glue.cpp", "-o", tmp + "/obj/hx_glue.o"});
  if (run(g, tmp, log) != 0) throw BuildError{"compiling the design's glue failed:" + log_head(log)};
  std::vector<std::string> l = {"g++", "-shared", "-o", tmp + "/libdesign.so", tmp + "/obj/hx_glue.o", tmp + "/obj/" + cls + "__ALL.a"};
  l.insert(l.end(), objs.begin(), objs.end());
  l.insert(l.end(), {"-Wl,--no-undefined", "-Wl,--exclude-libs,ALL", "-Wl,-Bsymbolic", "-pthread", "-latomic"});
  if (run(l, tmp, log) != 0) throw BuildError{"linking the design failed:" + log_head(log)};
  write_file(tmp + "/ports", ports_text(b.ports));
  write_file(tmp + "/done", "");
  remove_tree(dir);
  if (::rename(tmp.c_str(), dir.c_str()) != 0) throw BuildError{"cannot move the build into " + dir + ": " + std::strerror(errno)};
  g_done[key] = b;
  return b;
}

}  // namespace hx::rtlbuild
