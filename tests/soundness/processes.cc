// The harness's checks that run lockstep as its users do, in processes of
// its own (harness.h, CompareProcesses): the SETNX lock as a Python program
// (tests/process/setnx_port.py) in place of the built-ins it ports, and the
// distributed search under a real mpirun. Each is started only for a
// scenario small enough, and for some of them (a draw from the document
// itself), since a start costs what hundreds of built-in searches do.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/check/liveness.h"
#include "sim/run/exit_codes.h"
#include "tests/soundness/harness.h"
#include "tests/test_util.h"

namespace lockstep::soundness {
namespace {

using nlohmann::json;

// Plain enumeration's transitions up to which each is tried: the other
// searches walk no more than plain enumeration does.
constexpr uint64_t kPortTransitions = 3'000;
constexpr uint64_t kMpirunTransitions = 20'000;

// The same number for the same document on every machine (FNV-1a).
uint64_t DocumentDraw(const json& doc) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char ch : doc.dump()) h = (h ^ ch) * 0x100000001b3ULL;
  return h;
}

// `doc` with each client of setnx-naive or setnx-getset running the port;
// false if some client runs anything else, or the clock has no horizon.
bool PortEverything(json& doc) {
  // A program cannot promise that its times count only by their
  // differences, which a search without a horizon needs.
  if (!doc["clock"]["horizon"].is_number()) return false;
  bool any = false;
  for (json& c : doc["clients"]) {
    if (!c.contains("algorithm")) continue;
    if (!c["algorithm"].is_string()) return false;
    const std::optional<json> port = testing::SetnxPortFor(c["algorithm"]);
    if (!port) return false;
    c["algorithm"] = *port;
    any = true;
  }
  return any;
}

// `lockstep explore` of `doc`, alone or on `ranks` ranks under mpirun, as
// its JSON report; an object with "error" if it gave none.
json ExploreReport(const testing::TempDir& dir, const json& doc, const std::string& name,
                   std::vector<std::string> mode, int ranks = 0) {
  const std::string file = dir.Write(name + ".json", doc.dump(2));
  std::vector<std::string> args = {"explore", file, "--json", "--out", dir.File(name)};
  args.insert(args.end(), mode.begin(), mode.end());
  testing::ProcessResult r;
#ifdef LOCKSTEP_MPIEXEC
  r = ranks > 0 ? testing::RunOnRanks(ranks, args) : testing::RunLockstep(args);
#else
  r = testing::RunLockstep(args);
#endif
  const json report = json::parse(r.out, nullptr, false);
  const bool reported = r.exit_code == run::kExitSafe || r.exit_code == run::kExitViolation ||
                        r.exit_code == run::kExitBound || r.exit_code == run::kExitVacuous;
  if (!reported || !report.is_object()) {
    return {{"error", "exit " + std::to_string(r.exit_code) + ": " + r.err.substr(0, 400)}};
  }
  return report;
}

// The property a report's counterexample violates, if it has one.
std::optional<check::Violation> ViolationOf(const json& report) {
  if (report.value("verdict", "") != "violation" || !report.contains("counterexample")) {
    return std::nullopt;
  }
  check::Violation v;
  v.property = report["counterexample"]["violation"].value("property", "");
  return v;
}

// The report's verdict as plain enumeration's reads ("violation:PROPERTY").
std::string VerdictOf(const json& report) {
  if (report.contains("error")) return "error: " + report["error"].get<std::string>();
  const std::optional<check::Violation> v = ViolationOf(report);
  return v ? "violation:" + v->property : report.value("verdict", "");
}

// The algorithms the lockstep program knows (a test program registers
// more of its own), as `lockstep list --json` names them; asked once.
const std::vector<std::string>& ShippedAlgorithms() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    const testing::ProcessResult r = testing::RunLockstep({"list", "--json"});
    const json list = json::parse(r.out, nullptr, false);
    if (!list.is_object()) return out;
    for (const json& a : list.value("algorithms", json::array()))
      out.push_back(a.value("name", ""));
    return out;
  }();
  return names;
}

// Whether the lockstep program runs every algorithm `doc` names.
bool ShippedOnly(const json& doc) {
  const std::vector<std::string>& shipped = ShippedAlgorithms();
  for (const json& c : doc.value("clients", json::array())) {
    if (!c.contains("algorithm") || !c["algorithm"].is_string()) continue;
    if (std::find(shipped.begin(), shipped.end(), c["algorithm"].get<std::string>()) ==
        shipped.end()) {
      return false;
    }
  }
  return true;
}

class ProcessChecks {
 public:
  ProcessChecks(const json& doc, const PlainOracle& plain, std::vector<std::string>* checks)
      : doc_(doc), plain_(plain), checks_(checks) {}

  std::vector<Disagreement> Run() {
    const uint64_t transitions = plain_.outcome().result.stats.transitions;
    const uint64_t draw = DocumentDraw(doc_);
    const bool port = transitions <= kPortTransitions && draw % 3 == 0;
    bool mpirun = false;
#ifdef LOCKSTEP_MPIEXEC
    // The distributed search judges no liveness property.
    mpirun = transitions <= kMpirunTransitions && (draw >> 8) % 12 == 0 && !Liveness();
#endif
    // Asked only when a check is drawn: it starts lockstep once.
    if ((!port && !mpirun) || !ShippedOnly(doc_)) return {};
    if (port) Port();
    if (mpirun) Mpirun();
    return std::move(out_);
  }

 private:
  bool Liveness() const {
    for (const json& p : doc_.value("properties", json::array())) {
      if (p.is_string() && check::IsLiveness(p.get<std::string>())) return true;
    }
    return false;
  }

  // A verdict a report gives is plain enumeration's: a violation one it
  // reaches, a SAFE only where it finds none.
  void Judge(const std::string& mode, const json& report) {
    const std::string got = VerdictOf(report);
    if (report.contains("error")) {
      out_.push_back({"error", mode, plain_.Verdict(), got});
      return;
    }
    const std::string verdict = report.value("verdict", "");
    const explore::Verdict v = verdict == "safe"        ? explore::Verdict::kSafe
                               : verdict == "violation" ? explore::Verdict::kViolation
                                                        : explore::Verdict::kIncomplete;
    const std::optional<bool> agree = plain_.Agrees(v, ViolationOf(report), false);
    if (agree && !*agree) out_.push_back({"verdict", mode, plain_.Verdict(), got});
  }

  // `field` of the two reports alike.
  void Same(const std::string& mode, const json& expected, const json& got, const char* field) {
    const json a = expected.value(field, json()), b = got.value(field, json());
    if (a != b) out_.push_back({field, mode, a.dump(), b.dump()});
  }

  // The port is the built-ins it ports: the same verdict, states,
  // transitions, reductions and shortest counterexample.
  void Port() {
    json ported = doc_;
    if (!PortEverything(ported)) return;
    testing::TempDir dir;
    const json built_in = ExploreReport(dir, doc_, "built-in", {});
    const json port = ExploreReport(dir, ported, "port", {"--allow-programs"});
    const std::string mode = "setnx_port.py as a process client";
    checks_->push_back("process clients");
    Judge("explore (the built-ins)", built_in);
    Judge(mode, port);
    if (built_in.contains("error") || port.contains("error")) return;
    for (const char* field : {"verdict", "states", "transitions", "reductions", "vacuous"}) {
      Same(mode, built_in, port, field);
    }
    Same(mode, built_in.value("counterexample", json::object()),
         port.value("counterexample", json::object()), "schedule");
  }

  // The distributed search on two processes under mpirun gives what it
  // gives on one: the verdict and the states, plain enumeration's verdict.
  void Mpirun() {
    testing::TempDir dir;
    const json alone = ExploreReport(dir, doc_, "alone", {"--strategy", "distributed"});
    const json ranked = ExploreReport(dir, doc_, "ranked", {"--distributed"}, 2);
    const std::string mode = "mpirun -np 2 explore --distributed";
    checks_->push_back("mpirun");
    Judge("explore --strategy distributed", alone);
    Judge(mode, ranked);
    if (alone.contains("error") || ranked.contains("error")) return;
    Same(mode, alone, ranked, "verdict");
    // Cut by the step bound, which states are reached depends on the order.
    if (alone.value("verdict", "") == "safe") Same(mode, alone, ranked, "states");
  }

  const json& doc_;
  const PlainOracle& plain_;
  std::vector<std::string>* checks_;
  std::vector<Disagreement> out_;
};

}  // namespace

std::vector<Disagreement> CompareProcesses(const json& doc, const PlainOracle& plain,
                                           std::vector<std::string>* checks) {
  return ProcessChecks(doc, plain, checks).Run();
}

}  // namespace lockstep::soundness
