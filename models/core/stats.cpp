#include "models/core/stats.h"

#include <algorithm>
#include <cmath>

namespace hx {

void Histogram::add(double v) {
  m_last = v;
  if (m_count == 0) {
    m_min = m_max = v;
  } else {
    m_min = std::min(m_min, v);
    m_max = std::max(m_max, v);
  }
  m_sum += v;
  if (m_count % m_stride == 0) {
    m_samples.push_back(v);
    m_sorted = false;
    if (m_samples.size() >= m_cap) {
      // Keep every other sample; from now on keep one in 2*stride.
      std::vector<double> kept;
      kept.reserve(m_samples.size() / 2 + 1);
      for (std::size_t i = 0; i < m_samples.size(); i += 2) kept.push_back(m_samples[i]);
      m_samples.swap(kept);
      m_stride *= 2;
    }
  }
  ++m_count;
}

double Histogram::percentile(double p) const {
  if (m_samples.empty()) return 0.0;
  if (!m_sorted) {
    std::sort(m_samples.begin(), m_samples.end());
    m_sorted = true;
  }
  if (p <= 0) return m_min;
  if (p >= 100) return m_max;
  const double rank = std::ceil(p / 100.0 * static_cast<double>(m_samples.size()));
  std::size_t idx = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
  if (idx >= m_samples.size()) idx = m_samples.size() - 1;
  return m_samples[idx];
}

StatsRegistry& StatsRegistry::instance() {
  static StatsRegistry r;
  return r;
}

void StatsRegistry::add_counter(const std::string& name, const Counter* c, const std::string& unit,
                                const std::string& desc) {
  Entry e;
  e.unit = unit;
  e.desc = desc;
  e.counter = c;
  m_entries[name] = e;
}

void StatsRegistry::add_histogram(const std::string& name, const Histogram* h, const std::string& unit,
                                  const std::string& desc) {
  Entry e;
  e.unit = unit;
  e.desc = desc;
  e.hist = h;
  m_entries[name] = e;
}

void StatsRegistry::add_resource(const std::string& name, std::function<Tick()> busy, int servers, const std::string& what) {
  m_resources[name] = Resource{std::move(busy), servers, what};
}

void StatsRegistry::set_scalar(const std::string& name, double v, const std::string& unit,
                               const std::string& desc) {
  Entry e;
  e.unit = unit;
  e.desc = desc;
  e.scalar = v;
  e.is_scalar = true;
  m_entries[name] = e;
}

}  // namespace hx
