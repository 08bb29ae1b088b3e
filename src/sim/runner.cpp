#include "src/sim/runner.h"

#include <systemc>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "models/coherence/transport.h"
#include "models/core/error.h"
#include "models/core/pool.h"
#include "models/core/rng.h"
#include "models/core/scheduler.h"
#include "models/pcie/tlp.h"
#include "src/config/units.h"
#include "src/sim/platform.h"
#include "src/sim/version.h"
#include "src/sim/workloads.h"

namespace hx::sim {

std::uint64_t point_seed(std::uint64_t study_seed, std::size_t index) {
  std::uint64_t x = study_seed * 0x100000001b3ull + index;
  return splitmix64(x);
}

namespace {
// Writes all of `text` to `fd`; false with errno set on failure.
bool write_fd(int fd, const std::string& text) {
  const char* p = text.data();
  std::size_t n = text.size();
  while (n) {
    const ssize_t k = ::write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      if (k == 0) errno = EIO;
      return false;
    }
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}
// What a link direction is: its two nodes, generation and width.
std::string link_what(const topo::Topology& t, const std::string& port, const std::string& peer) {
  const std::string a = port.substr(0, port.find('.')), b = peer.substr(0, peer.find('.'));
  for (const auto& l : t.links)
    if ((l.up == a && l.down == b) || (l.up == b && l.down == a))
      return "link " + a + " -> " + b + " (Gen" + std::to_string(l.cfg.gen) + " x" + std::to_string(l.cfg.width) + ")";
  return "link " + a + " -> " + b;
}

// Every resource's utilisation over the run (`end`): link directions, then
// what models registered (pipelines, channels, trackers, walkers); and the
// busiest of them.
nlohmann::json resources_json(const topo::Topology& t, Tick end, Platform& plat) {
  nlohmann::json list = nlohmann::json::object();
  std::string busiest;
  double top = -1;
  const auto add = [&](const std::string& name, Tick busy, int servers, const std::string& what) {
    const double u = end ? static_cast<double>(busy) / (static_cast<double>(end) * std::max(1, servers)) : 0.0;
    list[name] = {{"busy_ps", busy}, {"servers", servers}, {"utilisation", u}, {"what", what}};
    if (u > top) {
      top = u;
      busiest = name;
    }
  };
  for (auto* p : plat.ports())
    if (p->connected()) add(p->name(), p->busy_ps.value, 1, link_what(t, p->name(), p->peer()->name()));
  for (const auto& [name, r] : StatsRegistry::instance().resources()) add(name, r.busy(), r.servers, r.what);
  return {{"list", list}, {"busiest", busiest}};
}

}  // namespace

AtomicFile::AtomicFile(const std::string& path) : m_path(path) {
  namespace fs = std::filesystem;
  // A symbolic link is written through, not replaced: the file it names
  // is the one written (a chain of links is followed to its end).
  std::error_code ec;
  fs::path target = path;
  for (int hops = 0; fs::is_symlink(fs::symlink_status(target, ec)); ++hops) {
    if (hops == 40) fail("too many levels of symbolic links", 0);
    const fs::path to = fs::read_symlink(target, ec);
    if (ec) fail("cannot read the link", ec.value());
    target = to.is_absolute() ? to : target.parent_path() / to;
  }
  m_target = target.string();
  const fs::file_status st = fs::status(target, ec);
  if (fs::exists(st) && !fs::is_regular_file(st)) {
    // A device or a pipe (/dev/stdout, a FIFO) takes the text as it is;
    // renaming a file over it would replace the node itself.
    if (!fs::is_character_file(st) && !fs::is_fifo(st)) fail("exists and is not a regular file, device or pipe", 0);
    m_fd = ::open(m_target.c_str(), O_WRONLY | O_CLOEXEC);
    if (m_fd < 0) fail("cannot open", errno);
    return;
  }
  // A regular file (or none yet): the text goes to a temporary file beside
  // it, which then replaces it whole, so no reader ever sees half of it and
  // nothing half-written is left behind.
  m_tmp = m_target + ".tmp." + std::to_string(::getpid());
  m_fd = ::open(m_tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (m_fd < 0) {
    m_tmp.clear();
    fail("cannot write", errno);
  }
}

AtomicFile::~AtomicFile() {
  if (m_fd >= 0) ::close(m_fd);
  if (!m_tmp.empty()) ::unlink(m_tmp.c_str());  // not committed
}

void AtomicFile::fail(const std::string& why, int err) {
  if (m_fd >= 0) ::close(m_fd);
  m_fd = -1;
  if (!m_tmp.empty()) ::unlink(m_tmp.c_str());
  m_tmp.clear();
  throw InputError(m_path + ": " + why + (err ? std::string(": ") + std::strerror(err) : std::string()));
}

void AtomicFile::flush() {
  if (m_fd < 0) throw InputError(m_path + ": written after it was committed");
  if (!write_fd(m_fd, m_buf)) fail("write failed", errno);
  m_buf.clear();
}

void AtomicFile::write(std::string_view text) {
  m_buf.append(text);
  if (m_buf.size() >= (std::size_t{1} << 20)) flush();
}

void AtomicFile::commit() {
  flush();
  const int fd = m_fd;
  m_fd = -1;
  if (::close(fd) != 0) {
    const int err = errno;
    if (!m_tmp.empty()) ::unlink(m_tmp.c_str());
    m_tmp.clear();
    throw InputError(m_path + ": write failed: " + std::strerror(err));
  }
  if (m_tmp.empty()) return;  // a device or a pipe
  if (::rename(m_tmp.c_str(), m_target.c_str()) != 0) {
    const int err = errno;
    ::unlink(m_tmp.c_str());
    m_tmp.clear();
    throw InputError(m_path + ": cannot write: " + std::strerror(err));
  }
  m_tmp.clear();
}

void write_atomic(const std::string& path, const std::string& text) {
  AtomicFile f(path);
  f.write(text);
  f.commit();
}

nlohmann::json run_point(const StudyFiles& base, const SweepPoint& point, std::uint64_t seed) {
  StudyFiles f = clone(base);
  return run_point_in_place(f, point, seed);
}

nlohmann::json run_point_in_place(StudyFiles& f, const SweepPoint& point, std::uint64_t seed, const ProgressSink& progress,
                                  const std::string& wave_tag) {
  const auto wall_load = std::chrono::steady_clock::now();
  apply_point(f, point);
  Study s = parse_study(f);
  if (!wave_tag.empty())
    for (auto& n : s.topo.nodes) n.tag_waves(wave_tag);
  set_global_seed(seed);
  pcie::TlpPool::instance().reset();
  LedgerPool::instance().reset();
  StatsRegistry::instance().clear();

  const auto wall0 = std::chrono::steady_clock::now();
  auto workloads = make_workloads(s.workloads, s.topo);
  Platform plat(s.topo);
  for (auto& w : workloads) w->start(plat);
  const auto wall_elab = std::chrono::steady_clock::now();

  // The heartbeat reads the clock and the workloads' counts; it never
  // touches the model, so the results are the same with it or without.
  struct BeatOff {
    ~BeatOff() { Scheduler::set_heartbeat(nullptr); }
  } beat_off;
  if (progress) {
    // The heartbeat keeps when it last told (its own copy, not a local of this block).
    Scheduler::set_heartbeat([&progress, &workloads, last = wall_elab, wall0]() mutable {
      const auto now = std::chrono::steady_clock::now();
      if (now - last < std::chrono::seconds(1)) return;
      last = now;
      double done = 0;
      for (const auto& w : workloads) done += std::clamp(w->progress(), 0.0, 1.0);
      progress({to_ns(now_tick()), done / static_cast<double>(workloads.size()),
                std::chrono::duration<double>(now - wall0).count()});
    });
  }
  try {
    Scheduler::set_horizon(s.deadline);
    sc_core::sc_start(sc_core::sc_time::from_value(s.deadline), sc_core::SC_EXIT_ON_STARVATION);
  } catch (const sc_core::sc_report& e) {
    // An exception thrown inside a process reaches here wrapped by the kernel
    // (E549); give back the model's own message.
    std::string m = e.what();
    const std::string tag = "uncaught exception: ";
    const auto a = m.find(tag);
    if (a != std::string::npos) {
      m = m.substr(a + tag.size());
      const auto b = m.find("\nIn file:");
      if (b != std::string::npos) m = m.substr(0, b);
    }
    throw SimError(m);
  }
  const Tick end = now_tick();
  const auto wall1 = std::chrono::steady_clock::now();

  std::string unfinished;
  for (const auto& w : workloads)
    if (!w->done()) unfinished += "\n  workload " + w->name() + ": " + w->status();
  if (!unfinished.empty()) {
    if (sc_core::sc_pending_activity())
      throw SimError("simulation did not finish by its deadline of " + std::to_string(to_ns(s.deadline) / 1e6) +
                     " ms simulated time (raise the study's `deadline:`, e.g. --set deadline=" +
                     cfg::format_time(s.deadline * 10) + "):" + unfinished + plat.diagnose());
    // What starved comes first (the links, their VC, class and credit type,
    // and who holds the credits), what waited on it after.
    const std::string cause = plat.diagnose();
    throw SimError("deadlock at " + std::to_string(to_ns(end)) + " ns: no event left with work outstanding:" +
                   (cause.empty() ? std::string("\n  (no link is out of credits)") : cause) + "\n waiting:" + unfinished);
  }
  // Conservation: every TLP made was consumed, every buffer drained.
  if (pcie::TlpPool::instance().live() != 0)
    throw SimError("conservation: " + std::to_string(pcie::TlpPool::instance().live()) +
                   " TLPs were never consumed" + plat.diagnose());
  if (LedgerPool::instance().live() != 0)
    throw SimError("conservation: " + std::to_string(LedgerPool::instance().live()) + " latency ledgers were never given back");
  if (Pool<coherence::Packet>::instance().live() != 0)
    throw SimError("conservation: " + std::to_string(Pool<coherence::Packet>::instance().live()) +
                   " coherence messages were never consumed" + plat.diagnose());
  if (!plat.fabric_idle()) throw SimError("conservation: buffers not empty, or CCIX credits not all back, at the end" + plat.diagnose());

  Results res;
  for (const auto& w : workloads) {
    Results own;
    w->report(own);
    check_metrics(*w, own);
    res.metrics.update(own.metrics);
    res.units.update(own.units);
    res.histograms.update(own.histograms);
    res.breakdowns.update(own.breakdowns);
  }
  nlohmann::json links = nlohmann::json::object();
  std::uint64_t hops = 0;
  for (auto* p : plat.ports()) {
    if (!p->connected()) continue;
    hops += p->tx_units.value;
    links[p->name()] = {{"peer", p->peer()->name()},
                        {"tx_tlps", p->tx_units.value},
                        {"tx_bytes", p->tx_bytes.value},
                        {"tx_payload_B", p->tx_payload.value},
                        {"tx_dllps", p->tx_ctrl.value},
                        {"utilisation", end ? static_cast<double>(p->busy_ps.value) / static_cast<double>(end) : 0.0}};
  }
  nlohmann::json stats = nlohmann::json::object();
  for (const auto& [name, e] : StatsRegistry::instance().entries()) {
    if (e.counter) stats[name] = {{"value", e.counter->value}, {"unit", e.unit}};
  }
  const double wall = std::chrono::duration<double>(wall1 - wall0).count();
  nlohmann::json out;
  out["study"] = s.name;
  out["point"] = point.point;
  out["metrics"] = res.metrics;
  out["units"] = res.units;
  out["histograms"] = res.histograms;
  out["breakdowns"] = res.breakdowns;
  out["links"] = links;
  out["resources"] = resources_json(s.topo, end, plat);
  out["stats"] = stats;
  out["meta"] = {{"hxsim_version", HXSIM_VERSION},
                 {"git_revision", git_revision()},
                 {"seed", seed},
                 {"platform", s.topo.platform},
                 {"simulated_time_ns", to_ns(end)},
                 {"events", Scheduler::actions_dispatched()},
                 {"tlp_hops", hops}};
  // Wall-clock figures vary run to run; they travel apart from the results,
  // which are bit-identical for the same inputs and seed.
  out["timing"] = {{"wall_s", wall},
                   {"load_s", std::chrono::duration<double>(wall0 - wall_load).count()},
                   {"elaboration_s", std::chrono::duration<double>(wall_elab - wall0).count()},
                   {"tlp_hops_per_s", wall > 0 ? static_cast<double>(hops) / wall : 0.0}};
  return out;
}

}  // namespace hx::sim
