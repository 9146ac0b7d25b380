// How visited states are kept: fingerprints, hash compaction and bitstate
// against exact storage (each state whole) on the shipped scenarios, the bitstate estimate of
// missed states against what a small array really misses, and the command line's report.
#include <atomic>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/base/hash.h"
#include "sim/explore/bitstate_table.h"
#include "sim/explore/search.h"
#include "sim/scenario/scenario.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using explore::Storage;

explore::SearchResult Search(const scenario::Scenario& s, Storage kind, bool por,
                             int bitstate_bits = 26, uint64_t max_transitions = 0) {
  std::atomic<bool> stop{false};
  explore::SearchOptions o;
  o.reductions.por = por;
  o.storage.kind = kind;
  o.storage.bitstate_log2_bits = bitstate_bits;
  o.interrupted = &stop;
  if (max_transitions) {
    o.progress = [&stop, max_transitions](const explore::SearchStats& st) {
      if (st.transitions > max_transitions) stop.store(true);
    };
  }
  return explore::DepthFirstSearch(s.world, explore::MakeProperties(s.properties), o);
}

std::string Verdict(const explore::SearchResult& r) {
  return r.violation ? "violation:" + r.violation->property : explore::VerdictText(r.verdict);
}

TEST_CASE("fingerprints and hash compaction and bitstate give exact storage's verdicts",
          "[sweep]") {
  int compared = 0;
  for (const std::string& file : testing::AllScenarioPaths()) {
    INFO(file);
    const scenario::Scenario s = scenario::LoadScenarioFile(file);
    // The large spaces are left to the verdict tests. The progress report
    // that stops a search past the limit comes every quarter second, so a
    // fast machine may finish a larger one: the count decides, so that the
    // same scenarios are compared on any machine.
    constexpr uint64_t kMaxTransitions = 200'000;
    const explore::SearchResult exact = Search(s, Storage::kExact, true, 26, kMaxTransitions);
    if (exact.verdict == explore::Verdict::kIncomplete) continue;
    if (exact.stats.transitions > kMaxTransitions) continue;
    if (testing::kAddressSanitizer && compared >= 8) break;
    // Fingerprints, and the same table with 64-bit keys: the same states,
    // one by one.
    const explore::SearchResult fingerprint = Search(s, Storage::kFingerprint, true);
    CHECK(Verdict(fingerprint) == Verdict(exact));
    CHECK(fingerprint.stats.states == exact.stats.states);
    CHECK(fingerprint.stats.transitions == exact.stats.transitions);
    CHECK(exact.stats.expected_omissions == 0);
    const explore::SearchResult compact = Search(s, Storage::kHashCompact, true);
    CHECK(Verdict(compact) == Verdict(exact));
    CHECK(compact.stats.states == exact.stats.states);
    CHECK(compact.stats.transitions == exact.stats.transitions);
    CHECK(compact.stats.expected_omissions < 1e-9);
    // Without sleep sets a bit array keys each state alone: the same count,
    // unless a state was missed, which 2^26 bits make unlikely here.
    const explore::SearchResult exact_no_por = Search(s, Storage::kExact, false);
    const explore::SearchResult bits = Search(s, Storage::kBitstate, false);
    CHECK(Verdict(bits) == Verdict(exact_no_por));
    CHECK(bits.stats.states == exact_no_por.stats.states);
    CHECK(bits.stats.memory_bytes == (uint64_t{1} << 26) / 8);
    CHECK(bits.stats.expected_omissions < 0.01);
    // With sleep sets it keys a state with its sleep set: a state met again
    // with another is explored again, never fewer states than exact.
    const explore::SearchResult bits_por = Search(s, Storage::kBitstate, true);
    CHECK(Verdict(bits_por) == Verdict(exact));
    if (exact.verdict == explore::Verdict::kSafe) {
      CHECK(bits_por.stats.states >= exact.stats.states);
    }
    ++compared;
  }
  CHECK(compared >= (testing::kAddressSanitizer ? 8 : 20));
}

TEST_CASE("the bitstate estimate of missed states matches what a small array misses") {
  // Distinct fingerprints into 2^16 bits, 3 bits each, until the array is
  // about 60% full: every insertion that finds its bits set is a miss.
  explore::BitstateTable table(16, 3);
  uint64_t missed = 0;
  for (uint64_t i = 0; i < 20'000; ++i) {
    explore::Fingerprint f{base::Mix64(i + 1), base::Mix64(~i)};
    if (!table.Insert(f, 0)) ++missed;
  }
  INFO("missed " << missed << ", estimated " << table.ExpectedOmissions());
  CHECK(table.size() + missed == 20'000);
  CHECK(missed > 500);  // the array is small enough to miss
  CHECK(table.ExpectedOmissions() == Approx(static_cast<double>(missed)).epsilon(0.1));
}

TEST_CASE("a bit array too small for the space misses states and says so") {
  const scenario::Scenario s =
      scenario::LoadScenarioFile(testing::SourceDir() + "/scenarios/getset-bounded.json");
  const explore::SearchResult exact = Search(s, Storage::kExact, false);
  const explore::SearchResult tiny = Search(s, Storage::kBitstate, false, 10);
  INFO("exact " << exact.stats.states << ", bitstate in 1024 bits " << tiny.stats.states);
  CHECK(exact.stats.states > 2'000);
  CHECK(tiny.stats.states < exact.stats.states);
  CHECK(tiny.stats.expected_omissions > 1);
}

TEST_CASE("explore --storage reports what the states took and how sure SAFE is") {
  testing::TempDir tmp;
  const std::string scenario = testing::SourceDir() + "/scenarios/getset-bounded.json";
  testing::ProcessResult r =
      testing::RunLockstep({"explore", scenario, "--storage", "bitstate", "--bitstate-bits", "20",
                            "--out", tmp.path().string()});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("storage bitstate: 0.125 MiB"));
  CHECK_THAT(r.out, Catch::Contains("a SAFE verdict is probabilistic"));

  r = testing::RunLockstep(
      {"explore", scenario, "--storage", "hash-compact", "--json", "--out", tmp.path().string()});
  const nlohmann::json report = nlohmann::json::parse(r.out);
  CHECK(report["storage"]["kind"] == "hash-compact");
  CHECK(report["verdict"] == "safe");
  CHECK(report["storage"]["bytes_per_state"].get<double>() > 0);
  CHECK(report["storage"]["expected_omissions"].get<double>() < 1e-9);

  // The default: fingerprints, said in the report, not in the text.
  r = testing::RunLockstep({"explore", scenario, "--json", "--out", tmp.path().string()});
  CHECK(nlohmann::json::parse(r.out)["storage"]["kind"] == "fingerprint");
  CHECK(r.out.find("probabilistic") == std::string::npos);

  r = testing::RunLockstep(
      {"explore", scenario, "--storage", "exact", "--out", tmp.path().string()});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("storage exact: "));
  CHECK_THAT(r.out, Catch::Contains("every state kept whole"));
  CHECK(r.out.find("probabilistic") == std::string::npos);
  r = testing::RunLockstep(
      {"explore", scenario, "--storage", "exact", "--json", "--out", tmp.path().string()});
  const nlohmann::json whole = nlohmann::json::parse(r.out);
  CHECK(whole["storage"]["kind"] == "exact");
  CHECK(whole["states"] == report["states"]);
  CHECK(whole["storage"]["expected_omissions"] == 0);
}

TEST_CASE("explore refuses a bit array with a bound on steps and bits without a bit array") {
  const std::string scenario = testing::SourceDir() + "/scenarios/getset-bounded.json";
  testing::ProcessResult r =
      testing::RunLockstep({"explore", scenario, "--storage", "bitstate", "--max-steps", "20"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--storage bitstate: cannot bound the steps"));
  r = testing::RunLockstep({"explore", scenario, "--bitstate-bits", "20"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--bitstate-bits: expected --storage bitstate"));
  r = testing::RunLockstep({"explore", scenario, "--storage", "bloom"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--storage"));
}

}  // namespace
}  // namespace lockstep
