// lockstep for a program that links it (find_package(lockstep), target
// lockstep::lockstep): write a lock algorithm against the client API,
// register it, load a scenario that uses it, search every schedule, and
// read the counterexample as a trace.
//
//   #include <lockstep/lockstep.h>
//
//   void RunMyLock(lockstep::Client& c, const lockstep::Settings& s) { ... }
//   constexpr lockstep::Setting kMySettings[] = {lockstep::kKeySetting, ...};
//   LOCKSTEP_ALGORITHM(my_lock, {.name = "my-lock", .summary = "...",
//                                .make = lockstep::MakeBody<RunMyLock>,
//                                .settings = kMySettings});
//
//   lockstep::ExploreResult r = lockstep::Explore(lockstep::LoadScenarioFile("s.json"));
//   if (!r.safe()) std::cout << lockstep::Timeline(r.counterexample->trace);
//
// Only the names below are the interface. The headers under lockstep/detail
// are what they are built from, installed because they need them; they may
// change between versions.
#pragma once

#include <string>

#include "sim/algo/algorithm.h"
#include "sim/algo/lock_settings.h"
#include "sim/run/explore.h"
#include "sim/run/runner.h"
#include "sim/run/trace_file.h"
#include "sim/scenario/builder.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/trace.h"

namespace lockstep {

// --- An algorithm: the client API, its settings, its registration. ---
using algo::AlgorithmInfo;  // what LOCKSTEP_ALGORITHM registers
using algo::Algorithms;
using algo::Body;  // an algorithm's run, made from its settings
using algo::FindAlgorithm;
using algo::HoldLock;     // enter the critical section (and write the resource)
using algo::kKeySetting;  // settings the shipped algorithms declare, to share
using algo::kReleaseWithLeaveSetting;
using algo::kRetryDelaySetting;
using algo::kRoundsSetting;
using algo::kTimeoutSetting;
using algo::kTtlSetting;
using algo::MakeBody;  // Body that calls Run(client, settings, Args...)
using algo::Setting;   // a declared setting: name, type, range, default, help
using algo::Settings;  // one client's values of its algorithm's settings
using algo::SettingType;
using algo::WorldFacts;      // the resource, the masters, the token server
using kv::Reply;             // a command's reply, as Redis gives it
using world::Client;         // every command, the clock, the critical section
using world::ClientStopped;  // let it pass through any catch (...)
using world::Millis;         // virtual time, in ticks
using world::RuleBroken;     // throw it for a misuse; any other exception is a finding
using world::Value;          // a command argument (Value::ClockPlus for timestamps)

// --- A scenario. ---
using base::InputError;            // bad input: names the file, the place, what was expected
using scenario::LoadScenario;      // from a JSON document
using scenario::LoadScenarioFile;  // from a file; throws base::InputError
using scenario::Scenario;
using scenario::SetProgramsAllowed;  // let process clients' programs start (program_trust.h)
// A scenario written in C++, no file needed:
//   ScenarioBuilder().Clients(3, "my-lock").Ttl(3).Stall(1).Horizon(8)
// Every field of the reference, with the loader's validation and messages.
using scenario::ClientSpec;
using scenario::KeyspaceEntry;
using scenario::LuaSpec;
using scenario::ScenarioBuilder;
using scenario::ServerSpec;

// --- A search and its counterexample. ---
using explore::Verdict;
using explore::VerdictText;
using run::Counterexample;  // the violating execution as a trace, shrunk
using run::ExploreOptions;  // strategy, reductions, bounds, progress, stop flag
using run::ExploreResult;   // verdict, counts, counterexample
// Searches every schedule of `s` (by default: exhaustively, with every
// reduction) and shrinks a violation found.
inline ExploreResult Explore(const Scenario& s, ExploreOptions options = {}) {
  return run::Explore(s, std::move(options));
}
// The same for the scenario in `scenario_file`.
ExploreResult Explore(const std::string& scenario_file, ExploreOptions options = {});
// The same for the scenario `builder` builds. Throws base::InputError.
inline ExploreResult Explore(const ScenarioBuilder& builder, ExploreOptions options = {}) {
  return run::Explore(builder.Build(), std::move(options));
}

// --- One execution as a trace. ---
using run::LoadTraceFile;
using run::ReplaySchedule;  // the scenario's own schedule
using run::RunSeeded;       // one random execution
using trace::OneLine;       // every step on one line, and the violation: what a test pins
using trace::Timeline;      // the execution as text, step by step
using trace::ToJsonText;
using trace::Trace;
// OneLine(t) as C++ source: a string literal to paste into
// HasCounterexample(...). With a `width`, adjacent literals of at most that
// many columns, one a line (the compiler joins them), so that nothing that
// wraps long lines, such as a test reporter, can cut one.
std::string OneLineLiteral(const Trace& t, size_t width = 0);

}  // namespace lockstep
