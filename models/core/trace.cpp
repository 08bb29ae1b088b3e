#include "models/core/trace.h"

#include <cstdio>
#include <fstream>

namespace hx {

Trace& Trace::instance() {
  static Trace t;
  return t;
}

void Trace::enable(Tick from, Tick to, std::size_t max_events) {
  m_enabled = true;
  m_from = from;
  m_to = to;
  m_max = max_events;
  m_events.reserve(std::min<std::size_t>(max_events, 1u << 20));
}

int Trace::track(const std::string& name) {
  m_tracks.push_back(name);
  return static_cast<int>(m_tracks.size() - 1);
}

void Trace::span(int track, const char* name, Tick start, Tick end, std::uint64_t id, std::uint32_t bytes) {
  m_events.push_back(Event{track, name, start, end, id, bytes});
}

namespace {
std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o + "\"";
}
}  // namespace

bool Trace::write(const std::string& path) const {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    if (!f) return false;
    f << "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"dropped_events\":" << m_dropped << "},\"traceEvents\":[\n";
    bool first = true;
    for (std::size_t i = 0; i < m_tracks.size(); ++i) {
      f << (first ? "" : ",\n") << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":" << i
        << ",\"args\":{\"name\":" << json_str(m_tracks[i]) << "}}";
      first = false;
    }
    char buf[256];
    for (const auto& e : m_events) {
      // Timestamps in microseconds with picosecond resolution.
      std::snprintf(buf, sizeof buf, "{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"name\":\"%s\",\"ts\":%.6f,\"dur\":%.6f,\"args\":{\"id\":%llu,\"bytes\":%u}}",
                    e.track, e.name, static_cast<double>(e.start) / 1e6, static_cast<double>(e.end - e.start) / 1e6,
                    static_cast<unsigned long long>(e.id), e.bytes);
      f << (first ? "" : ",\n") << buf;
      first = false;
    }
    f << "\n]}\n";
    if (!f) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

}  // namespace hx
