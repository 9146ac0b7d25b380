// What a run of the harness covered (harness.h, Covered): the features of
// the scenario format each compared scenario uses, and the checks made.
#include <algorithm>
#include <string>
#include <vector>

#include "tests/soundness/harness.h"

namespace lockstep::soundness {
namespace {

using nlohmann::json;

// Every Lua source the document's clients run, inline or from a file.
std::string LuaSources(const json& doc) {
  std::string all;
  for (const json& c : doc.value("clients", json::array())) {
    if (!c.contains("algorithm") || !c["algorithm"].is_object()) continue;
    const json& a = c["algorithm"];
    if (a.contains("lua_inline")) all += a["lua_inline"].get<std::string>();
    if (a.contains("lua")) all += "\n-- " + a["lua"].get<std::string>() + "\n";
  }
  return all;
}

bool Has(const std::string& text, const char* what) { return text.find(what) != std::string::npos; }

}  // namespace

std::vector<std::string> FeatureNames() {
  return {"Lua",
          "lock.renew",
          "lock.sleep(least, most)",
          "lock.random",
          "lock.draw",
          "lock.give_up",
          "lock.clock_plus and sent_timestamp",
          "a lock over several masters released without a script",
          "more than 3 contenders",
          "may_never_enter",
          "no horizon",
          "faults",
          "all time",
          "liveness",
          "probabilistic",
          "run::Explore",
          "counterexample replayed",
          "lasso replayed",
          "shrinking",
          "vacuity",
          "stuck states",
          "sampling",
          "preemption bounds",
          "bitstate",
          "schedules",
          "process clients",
          "mpirun"};
}

std::vector<std::string> Covered(const json& doc, const Comparison& c) {
  std::vector<std::string> out;
  const std::string lua = LuaSources(doc);
  if (RunsLua(doc)) out.emplace_back("Lua");
  if (Has(lua, "lock.renew(")) out.emplace_back("lock.renew");
  if (Has(lua, "lock.sleep(s.retry_delay, ")) out.emplace_back("lock.sleep(least, most)");
  if (Has(lua, "lock.random()")) out.emplace_back("lock.random");
  if (Has(lua, "lock.draw(")) out.emplace_back("lock.draw");
  if (Has(lua, "lock.give_up()")) out.emplace_back("lock.give_up");
  if (Has(lua, "lock.clock_plus(") && Has(lua, "lock.sent_timestamp()")) {
    out.emplace_back("lock.clock_plus and sent_timestamp");
  }
  if (Has(lua, "pcall_on(") && !Has(lua, "EVAL")) {
    out.emplace_back("a lock over several masters released without a script");
  }
  int live = 0;
  bool may_never_enter = false;
  for (const json& client : doc.value("clients", json::array())) {
    live += !client.value("crashed", false);
    may_never_enter = may_never_enter || client.value("may_never_enter", false);
  }
  if (live > 3) out.emplace_back("more than 3 contenders");
  if (may_never_enter) out.emplace_back("may_never_enter");
  if (doc.contains("clock") && doc["clock"].value("horizon", json()).is_null()) {
    out.emplace_back("no horizon");
  }
  if (doc.contains("faults")) out.emplace_back("faults");
  for (const std::string& check : c.checks) {
    if (std::find(out.begin(), out.end(), check) == out.end()) out.push_back(check);
  }
  return out;
}

}  // namespace lockstep::soundness
