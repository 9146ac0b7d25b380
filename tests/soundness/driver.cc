// lockstep_soundness: runs the differential soundness harness for a while.
//   lockstep_soundness --seconds N [--seed S] [--save DIR] [--max-transitions T] [--verbose 1]
//   lockstep_soundness --scenario FILE [--max-steps M] [--max-transitions T]
//   lockstep_soundness --print S
// The second form compares one scenario file (e.g. a regression) and prints
// what disagrees; the third prints the scenario seed S draws.
// Scenario i is drawn from seed S+i. Each disagreement is printed with its
// scenario, shrunk, and the shrunk scenario saved under DIR (if given and
// not there already). Exit code 0: no disagreement; 1: some; 2: bad usage.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "tests/soundness/harness.h"

namespace {

using lockstep::soundness::Comparison;
using lockstep::soundness::Disagreement;
using nlohmann::json;

int Usage() {
  std::cerr << "usage: lockstep_soundness --seconds N [--seed S] [--save DIR] [--max-transitions T]"
               " [--verbose 1]\n"
               "       lockstep_soundness --scenario FILE [--max-steps M] [--max-transitions T]\n"
               "       lockstep_soundness --print SEED\n";
  return 2;
}

// The regression files already in `dir`, without their names and
// descriptions, so that a scenario shrunk twice is saved once.
std::set<std::string> Known(const std::string& dir) {
  std::set<std::string> known;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    std::ifstream in(e.path());
    json doc = json::parse(in, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) continue;
    doc.erase("name");
    doc.erase("description");
    known.insert(doc.dump());
  }
  return known;
}

int CompareOne(const std::string& file, std::optional<int> max_steps,
               const lockstep::soundness::Limits& limits) {
  std::ifstream in(file);
  json doc = json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    std::cerr << file << ": not a JSON object\n";
    return 2;
  }
  if (max_steps) doc["max_steps"] = *max_steps;
  const auto began = std::chrono::steady_clock::now();
  const Comparison c = lockstep::soundness::Compare(doc, limits);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  if (!c.loaded) {
    std::cerr << file << ": the scenario loader refuses it (lockstep run says why)\n";
    return 2;
  }
  if (!c.finished) {
    std::cout << file << ": too large to enumerate within " << limits.max_transitions
              << " transitions a search (" << s << " s)\n";
    return 2;
  }
  std::cout << file << ": plain enumeration " << c.plain_verdict
            << (c.all_time_compared ? ", compared for all time" : "")
            << (c.liveness_compared ? ", liveness compared" : "") << ", " << c.disagreements.size()
            << " disagreements, " << s << " s\n";
  for (const Disagreement& d : c.disagreements) std::cout << "  " << d.Text() << "\n";
  return c.disagreements.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = -1;
  uint64_t max_transitions = lockstep::soundness::Limits{}.max_transitions;
  uint64_t seed = 1;
  std::string save, scenario;
  std::optional<int> max_steps;
  bool verbose = false;
  std::optional<uint64_t> print;
  try {
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      if (i + 1 >= argc) return Usage();
      std::string v = argv[++i];
      if (a == "--seconds")
        seconds = std::stod(v);
      else if (a == "--seed")
        seed = std::stoull(v);
      else if (a == "--save")
        save = v;
      else if (a == "--max-transitions")
        max_transitions = std::stoull(v);
      else if (a == "--verbose")
        verbose = v == "1";
      else if (a == "--scenario")
        scenario = v;
      else if (a == "--max-steps")
        max_steps = std::stoi(v);
      else if (a == "--print")
        print = std::stoull(v);
      else
        return Usage();
    }
  } catch (const std::exception&) {
    return Usage();
  }
  const lockstep::soundness::Limits limits{.max_transitions = max_transitions, .max_states = {}};
  if (!scenario.empty()) return CompareOne(scenario, max_steps, limits);
  if (print) {
    std::cout << lockstep::soundness::RandomScenario(*print).dump(2) << "\n";
    return 0;
  }
  if (seconds < 0) return Usage();

  std::set<std::string> known = save.empty() ? std::set<std::string>{} : Known(save);
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  auto last_report = start;
  uint64_t compared = 0, refused = 0, too_large = 0, disagreeing = 0, all_time = 0, liveness = 0,
           lua = 0;
  std::map<std::string, uint64_t> covered;
  std::cout << "soundness: seeds from " << seed << " for " << seconds << " s\n" << std::flush;
  for (uint64_t s = seed; Clock::now() < deadline; ++s) {
    const json doc = lockstep::soundness::RandomScenario(s);
    const auto began = Clock::now();
    const Comparison c = lockstep::soundness::Compare(doc, limits);
    if (verbose) {
      std::cout << "seed " << s << ": "
                << (!c.loaded     ? "refused"
                    : !c.finished ? "too large"
                                  : c.plain_verdict)
                << ", " << std::chrono::duration<double>(Clock::now() - began).count() << " s\n"
                << std::flush;
    }
    if (!c.loaded) {
      ++refused;
    } else if (!c.finished) {
      ++too_large;
    } else {
      ++compared;
      all_time += c.all_time_compared;
      liveness += c.liveness_compared;
      lua += lockstep::soundness::RunsLua(doc);
      for (const std::string& f : lockstep::soundness::Covered(doc, c)) ++covered[f];
    }
    if (!c.disagreements.empty()) {
      ++disagreeing;
      const Disagreement& d = c.disagreements.front();
      std::cout << "\nDISAGREEMENT on seed " << s << ":\n" << doc.dump() << "\n";
      for (const Disagreement& each : c.disagreements) std::cout << "  " << each.Text() << "\n";
      const json shrunk = lockstep::soundness::Shrink(doc, d, limits);
      std::cout << "shrunk:\n" << shrunk.dump() << "\n" << std::flush;
      const Comparison again = lockstep::soundness::Compare(shrunk, limits);
      const json file = lockstep::soundness::RegressionDocument(shrunk, d, again.plain_verdict, s);
      json key = file;
      key.erase("name");
      key.erase("description");
      if (!save.empty() && known.insert(key.dump()).second) {
        std::string path = save + "/seed-" + std::to_string(s) + ".json";
        std::ofstream(path) << file.dump(2) << "\n";
        std::cout << "saved " << path << "\n";
      }
    }
    const auto now = Clock::now();
    if (now - last_report > std::chrono::seconds(10)) {
      last_report = now;
      std::cout << "  " << compared << " compared (" << all_time << " also for all time, "
                << liveness << " liveness, " << lua << " Lua), " << disagreeing
                << " disagreements, " << too_large << " too large, " << refused
                << " refused by the loader, " << std::chrono::duration<double>(now - start).count()
                << " s\n"
                << std::flush;
    }
  }
  std::cout << compared << " scenarios compared (" << all_time << " also for all time, " << liveness
            << " liveness, " << lua << " Lua), " << disagreeing << " disagreements (" << too_large
            << " too large to enumerate, " << refused << " refused by the loader)\n";
  // What the run covered, a line each: a feature or check at 0 was not.
  std::cout << "scenarios compared, by feature and check:\n";
  for (const std::string& f : lockstep::soundness::FeatureNames()) {
    std::cout << "  " << f << ": " << covered[f] << (covered[f] == 0 ? " (not covered)" : "")
              << "\n";
  }
  return disagreeing == 0 ? 0 : 1;
}
