// Registered statistics (STYLE.md rule 7): each has a hierarchical name, a
// unit and a description, attached once at registration. On the hot path a
// model only increments a plain counter or adds a sample.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/core/tick.h"

namespace hx {

struct Counter {
  std::uint64_t value = 0;
  void operator+=(std::uint64_t v) { value += v; }
  void operator++() { ++value; }
};

// Keeps every sample (bounded by `cap`, after which samples are decimated
// deterministically), so percentiles are exact for the experiment sizes used
// here (16384 repetitions in S004, up to 10^6).
class Histogram {
 public:
  explicit Histogram(std::size_t cap = 2'000'000) : m_cap(cap) {}
  void add(double v);
  std::size_t count() const { return m_count; }
  double percentile(double p) const;  // nearest-rank, p in [0,100]
  double min() const { return m_min; }
  double max() const { return m_max; }
  double mean() const { return m_count ? m_sum / static_cast<double>(m_count) : 0.0; }
  double last() const { return m_last; }

 private:
  std::size_t m_cap;
  std::size_t m_count = 0;
  std::size_t m_stride = 1;
  double m_sum = 0, m_min = 0, m_max = 0, m_last = 0;
  mutable std::vector<double> m_samples;
  mutable bool m_sorted = true;
};

// The busy server-time of a resource with several servers (trackers,
// contexts): the time-integral of how many are taken.
class Occupancy {
 public:
  // `d` servers are taken (or, negative, given back) at `now`.
  void add(int d, Tick now) {
    m_busy += static_cast<Tick>(m_n) * (now - m_since);
    m_since = now;
    m_n += d;
  }
  int count() const { return m_n; }
  Tick busy(Tick now) const { return m_busy + static_cast<Tick>(m_n) * (now - m_since); }

 private:
  int m_n = 0;
  Tick m_busy = 0, m_since = 0;
};

class StatsRegistry {
 public:
  struct Entry {
    std::string unit;
    std::string desc;
    const Counter* counter = nullptr;
    const Histogram* hist = nullptr;
    double scalar = 0;
    bool is_scalar = false;
  };
  static StatsRegistry& instance();
  void add_counter(const std::string& name, const Counter* c, const std::string& unit, const std::string& desc);
  void add_histogram(const std::string& name, const Histogram* h, const std::string& unit, const std::string& desc);
  void set_scalar(const std::string& name, double v, const std::string& unit, const std::string& desc);
  const std::map<std::string, Entry>& entries() const { return m_entries; }
  // A resource whose utilisation a run reports: the time its `servers`
  // were busy, summed (read at the end of the run), and what it is.
  struct Resource {
    std::function<Tick()> busy;
    int servers = 1;
    std::string what;
  };
  void add_resource(const std::string& name, std::function<Tick()> busy, int servers, const std::string& what);
  const std::map<std::string, Resource>& resources() const { return m_resources; }
  void clear() {
    m_entries.clear();
    m_resources.clear();
  }

 private:
  std::map<std::string, Entry> m_entries;
  std::map<std::string, Resource> m_resources;
};

}  // namespace hx
