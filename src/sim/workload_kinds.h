// The workload types of the sources, one file each (workload_*.cpp), and
// what their YAML bindings share: devices, cores, buffers and rates.
// make_workloads (workloads.cpp) chooses among them by `type:`.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "src/config/yaml_util.h"
#include "src/sim/platform.h"
#include "src/sim/workloads.h"
#include "src/topology/topology.h"

namespace hx::sim {

using cfg::Cursor;

inline constexpr double kMiB = 1048576.0;

// Binary megabytes per second of `bytes` in `dur`; decimal megabytes.
double mib_per_s(std::uint64_t bytes, Tick dur);
double mb_per_s(double bytes, Tick dur);
// Endpoints with a `kind` engine: devices of that kind, or of a kind that
// carries one beside it (a CCIX request agent's DMA engine: its `uses`).
std::vector<std::string> endpoints_with(const topo::Topology& t, const std::string& kind);
int host_cores(const topo::Topology& t);
// The endpoint `c` names, which must have a `kind` engine.
std::string need_device(const Cursor& c, const topo::Topology& t, const std::string& kind);
// The workload's `device` key if it has one; otherwise the topology's only
// endpoint with a `kind` engine (so one study runs on every platform of a
// source whose boards have different names).
std::string device_or_only(const Cursor& c, const topo::Topology& t, const std::string& kind);
// A size in [lo, hi] bytes.
std::uint32_t size32(const Cursor& c, std::uint64_t lo, std::uint64_t hi);
// The host core named by optional key `key` (default `def`), checked against the host.
int core_of(const Cursor& c, const topo::Topology& p, const char* key, int def);
// Whether optional key `key` (near, far) names the far socket (socket 1;
// near is socket 0, the host's cores'); far needs a root complex on
// socket 1.
bool far_node(const Cursor& c, const topo::Topology& p, const char* key, bool def);
// Socket `k`, as `v` gave it, checked against the host's coherent
// `sockets` (sockets.count).
int host_socket(const Cursor& v, long long k, int sockets);
// A buffer's backing from the optional `page_size` and `node` keys.
Backing backing_of(const Cursor& c, const topo::Topology& p);

// S001, Rosta (workload_rosta.cpp).
std::unique_ptr<Workload> make_rosta_dma(const Cursor& c, const topo::Topology& p);
std::unique_ptr<Workload> make_rosta_peer(const Cursor& c, const topo::Topology& p);
std::unique_ptr<Workload> make_rosta_echo(const Cursor& c, const topo::Topology& p);
// S004, Calypte (workload_calypte.cpp).
std::unique_ptr<Workload> make_calypte_burst(const Cursor& c, const topo::Topology& p);
std::unique_ptr<Workload> make_calypte_loopback(const Cursor& c, const topo::Topology& p);
// S011, pcie-bench (workload_bench.cpp): bench_lat when `latency`, else bench_bw.
std::unique_ptr<Workload> make_bench_dma(const Cursor& c, const topo::Topology& p, bool latency);
// S002, MMIO reads (workload_mmio.cpp).
std::unique_ptr<Workload> make_mmio_lat(const Cursor& c, const topo::Topology& p);
// S000, CCIX (workload_ccix.cpp).
std::unique_ptr<Workload> make_ccix_lat(const Cursor& c, const topo::Topology& p);
std::unique_ptr<Workload> make_ccix_share(const Cursor& c, const topo::Topology& p);
std::unique_ptr<Workload> make_ccix_locks(const Cursor& c, const topo::Topology& p);
// S003, Coyote (workload_coyote.cpp).
std::unique_ptr<Workload> make_coyote_perf(const Cursor& c, const topo::Topology& p);

}  // namespace hx::sim
