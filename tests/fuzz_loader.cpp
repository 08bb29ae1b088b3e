// Hostile input for the study/topology loader: a generator-driven fuzzer.
// Every study of configs/ with a small sweep, and its topology, is mutated
// at random (bytes, lines, numbers, units, keys, truncation, nesting) and
// loaded exactly as `hxsim run` checks a study before it writes anything.
// Properties: nothing crashes or hangs; every rejection is an InputError
// whose message starts with file:line:col; nothing else is thrown.
// Usage: fuzz_loader [inputs] [seed]   (exit 1 on a violated property)
#include <systemc>

#include <algorithm>
#include <cstdio>
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "models/core/error.h"
#include "src/sim/driver.h"
#include "src/sim/study.h"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char* const kTokens[] = {"-1", "0", "1e99", "abc", "4KiB", "3ns", "[]", "{}", ".nan", "99999999999999999999999",
                               "-0.5", "true", "null", "~", "\"\"", "250MHz", "8GB/s", "1.5MB", "0x10", "[1, [2]]",
                               "{a: b}", "&x 1", "*x", "!!binary AAAA", "'", "\"unterminated", "- ", ": :", "\t", "16"};
const char* const kUnits[] = {"ns", "us", "ps", "KiB", "MiB", "B", "GB/s", "MHz", "s", "GiB", "Gb/s", "kHz"};

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  for (std::string l; std::getline(ss, l);) v.push_back(l);
  return v;
}

std::string join(const std::vector<std::string>& v) {
  std::string o;
  for (const auto& l : v) o += l + "\n";
  return o;
}

std::string mutate(std::string s, std::mt19937_64& rng) {
  auto pick = [&](std::size_t n) { return n ? static_cast<std::size_t>(rng() % n) : 0; };
  const int ops = 1 + static_cast<int>(rng() % 3);
  for (int k = 0; k < ops && !s.empty(); ++k) {
    auto lines = lines_of(s);
    switch (rng() % 9) {
      case 0: s[pick(s.size())] = static_cast<char>(32 + rng() % 95); break;
      case 1: if (!lines.empty()) lines.erase(lines.begin() + static_cast<long>(pick(lines.size()))), s = join(lines); break;
      case 2: if (!lines.empty()) { auto i = pick(lines.size()); lines.insert(lines.begin() + static_cast<long>(i), lines[i]); s = join(lines); } break;
      case 3: {  // a number becomes something else
        std::smatch m;
        const std::regex num("[0-9]+(\\.[0-9]+)?");
        std::vector<std::pair<std::size_t, std::size_t>> at;
        for (auto it = std::sregex_iterator(s.begin(), s.end(), num); it != std::sregex_iterator(); ++it)
          at.emplace_back(static_cast<std::size_t>(it->position()), static_cast<std::size_t>(it->length()));
        if (!at.empty()) {
          const auto [p, n] = at[pick(at.size())];
          s.replace(p, n, kTokens[pick(std::size(kTokens))]);
        }
        break;
      }
      case 4: {  // a unit becomes another
        const std::string u = kUnits[pick(std::size(kUnits))];
        const auto p = s.find(kUnits[pick(std::size(kUnits))]);
        if (p != std::string::npos) s.replace(p, 2, u);
        break;
      }
      case 5: if (!lines.empty()) { auto i = pick(lines.size() + 1); lines.insert(lines.begin() + static_cast<long>(i), std::string(pick(6) * 2, ' ') + "zz" + std::to_string(pick(9)) + ": " + kTokens[pick(std::size(kTokens))]); s = join(lines); } break;
      case 6: s.resize(pick(s.size())); break;
      case 7: if (lines.size() > 1) { std::swap(lines[pick(lines.size())], lines[pick(lines.size())]); s = join(lines); } break;
      case 8: if (!lines.empty()) { auto i = pick(lines.size()); lines[i] = "  " + lines[i]; s = join(lines); } break;
    }
  }
  return s;
}

}  // namespace

int sc_main(int argc, char** argv) {
  const long long n = argc > 1 ? std::atoll(argv[1]) : 20000;
  std::mt19937_64 rng(argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1);
  const fs::path src(HXSIM_SOURCE_DIR);
  const fs::path work = fs::temp_directory_path() / ("hxsim-fuzz-" + std::to_string(::getpid()));
  fs::create_directories(work / "configs");
  fs::create_directories(work / "topologies");
  for (const auto& e : fs::directory_iterator(src / "topologies")) fs::copy_file(e.path(), work / "topologies" / e.path().filename());
  // The corpus: studies whose sweep is small enough to check thousands of times.
  struct Seed {
    std::string study, topo_name, topo;
  };
  std::vector<Seed> corpus;
  for (const auto& e : fs::directory_iterator(src / "configs")) {
    if (e.path().extension() != ".yaml") continue;
    try {
      const auto f = hx::sim::load_study_files(e.path().string());
      if (hx::sim::Sweep(f).size() > 16) continue;
      corpus.push_back({slurp(e.path()), fs::path(f.topo_file).filename().string(), slurp(f.topo_file)});
    } catch (const std::exception&) {
    }
  }
  std::sort(corpus.begin(), corpus.end(), [](const Seed& a, const Seed& b) { return a.study < b.study; });
  const std::regex located("^[^:\\n]+\\.yaml:[0-9]+:[0-9]+: ");
  long long accepted = 0, rejected = 0, bad = 0, i = 0;
  for (; i < n; ++i) {
    const Seed& sd = corpus[static_cast<std::size_t>(rng() % corpus.size())];
    const bool mutate_topo = rng() % 2;
    const std::string study = mutate_topo ? sd.study : mutate(sd.study, rng);
    const std::string topo = mutate_topo ? mutate(sd.topo, rng) : sd.topo;
    std::ofstream(work / "configs" / "s.yaml") << study;
    std::ofstream(work / "topologies" / sd.topo_name) << topo;
    try {
      const auto f = hx::sim::load_study_files((work / "configs" / "s.yaml").string());
      const hx::sim::Sweep pts(f);
      if (pts.size() <= 64) hx::sim::check_study(f, pts);
      ++accepted;
    } catch (const hx::InputError& e) {
      ++rejected;
      if (!std::regex_search(std::string(e.what()), located)) {
        ++bad;
        std::fprintf(stderr, "rejection without file:line:col: %s\n--- study\n%s--- topology mutated: %d\n", e.what(), study.c_str(), mutate_topo);
      }
    } catch (const std::exception& e) {
      ++bad;
      std::fprintf(stderr, "unexpected exception: %s\n--- study\n%s--- topology mutated: %d\n", e.what(), study.c_str(), mutate_topo);
    }
    if (bad > 20) break;
    std::ofstream(work / "topologies" / sd.topo_name) << sd.topo;
  }
  fs::remove_all(work);
  std::printf("fuzz_loader: %lld inputs from %zu seed studies: %lld accepted, %lld rejected (input errors), %lld violations\n",
              i, corpus.size(), accepted, rejected, bad);
  return bad ? 1 : 0;
}
