// The clients: their names, skews and crashes, and each one's algorithm,
// built in (with the settings it declares) or written in Lua.
#include <filesystem>
#include <memory>
#include <regex>
#include <set>
#include <string>

#include "sim/algo/lua_algorithm.h"
#include "sim/base/hash.h"
#include "sim/base/limits.h"
#include "sim/scenario/process_algorithm.h"
#include "sim/scenario/sections.h"

namespace lockstep::scenario::internal {

namespace jr = lockstep::json;
using nlohmann::json;

using base::kMaxClients;

// A client's algorithm written in Lua: {"lua": FILE} (relative to the
// scenario's folder) or {"lua_inline": SOURCE}, with "settings" and
// "draws_numbers", "never_reads_tokens" and "relative_time". `written` is the client's algorithm in
// s.document: a file is put there inline (with "lua_file" naming it), so that a saved trace replays
// anywhere.
void ReadLuaAlgorithm(const jr::ObjectReader& a, const LockFields& mine,
                      const algo::WorldFacts& world, Scenario& s, world::ClientSetup& setup,
                      json& written) {
  a.RejectUnknown({"lua", "lua_inline", "lua_file", "settings", "draws_numbers",
                   "never_reads_tokens", "relative_time"});
  if (a.Has("lua") == a.Has("lua_inline")) {
    throw jr::JsonError(a.pointer(),
                        "expected a Lua algorithm as exactly one of \"lua\" (a file) and "
                        "\"lua_inline\" (its source)");
  }
  auto program = std::make_shared<algo::LuaProgram>();
  std::string shown;  // the file as the scenario names it
  if (a.Has("lua")) {
    shown = a.String("lua");
    std::filesystem::path path(shown);
    if (path.is_relative()) path = std::filesystem::path(s.file).parent_path() / path;
    try {
      program->source = ReadFile(path.string());
    } catch (const ScenarioError& e) {
      throw jr::JsonError(a.PointerOf("lua"), path.string() + ": " + e.expected);
    }
    program->name = path.string();
  } else {
    program->source = a.String("lua_inline");
    shown = a.OptString("lua_file").value_or("");
    program->name = shown.empty() ? s.file + "#" + a.PointerOf("lua_inline") : shown;
  }
  const std::string source_pointer = a.PointerOf(a.Has("lua") ? "lua" : "lua_inline");
  if (std::string error = algo::LuaSyntaxError(*program); !error.empty()) {
    throw jr::JsonError(source_pointer, "expected a Lua algorithm; " + error);
  }
  for (const std::string& w : algo::LuaStatusComparisons(*program)) {
    s.warnings.push_back("at " + source_pointer + ": " + w);
  }
  json settings = LuaSettings(mine, world);
  if (a.Has("settings")) {
    jr::ObjectReader(a.Raw("settings"), a.PointerOf("settings"));  // must be an object
    for (const auto& [key, value] : a.Raw("settings").items()) settings[key] = value;
  }
  const bool draws_numbers = a.Bool("draws_numbers", false);
  const bool never_reads_tokens = a.Bool("never_reads_tokens", false);
  program->relative_time = a.Bool("relative_time", false);
  setup.algorithm = "lua:" + (shown.empty() ? std::string("inline") : shown);
  setup.request_timeout = mine.request_timeout.value_or(0);
  setup.settings = setup.algorithm + " " + std::to_string(base::HashBytes(0, program->source)) +
                   " " + settings.dump();
  setup.draws_numbers = draws_numbers;
  setup.never_reads_tokens = never_reads_tokens;
  setup.relative_time = program->relative_time;
  setup.time_constants = algo::LuaTimeConstants(settings);
  setup.body = algo::MakeLuaBody(program, settings);
  if (a.Has("lua")) {
    json inline_form = {{"lua_inline", program->source}, {"lua_file", shown}};
    if (a.Has("settings")) inline_form["settings"] = a.Raw("settings");
    if (a.Has("draws_numbers")) inline_form["draws_numbers"] = draws_numbers;
    if (a.Has("never_reads_tokens")) inline_form["never_reads_tokens"] = never_reads_tokens;
    if (a.Has("relative_time")) inline_form["relative_time"] = program->relative_time;
    written = inline_form;
  }
}

// The clients and their algorithms. Returns the keys that timestamp locks
// take over.
std::set<std::string> ReadClients(const jr::ObjectReader& o, const LockFields& lock,
                                  const algo::WorldFacts& world, Scenario& s) {
  world::WorldConfig& w = s.world;
  const json& clients = o.Array("clients");
  const std::string cptr = o.PointerOf("clients");
  if (clients.empty() || clients.size() > kMaxClients) {
    throw jr::JsonError(cptr, "expected 1 to " + std::to_string(kMaxClients) + " clients, got " +
                                  std::to_string(clients.size()));
  }
  static const std::regex kName("[A-Za-z][A-Za-z0-9_-]{0,15}");
  std::set<std::string> seen;
  std::set<std::string> read;                 // the settings some client's algorithm reads
  bool lua = false;                           // a Lua algorithm reads them all
  std::set<std::string> timestamp_lock_keys;  // the keys timestamp locks take over
  for (size_t i = 0; i < clients.size(); ++i) {
    jr::ObjectReader c(clients[i], cptr + "/" + std::to_string(i));
    c.RejectUnknown({"name", "algorithm", "skew", "crashed", "lock", "may_never_enter"});
    world::ClientSetup setup;
    setup.name = c.String("name");
    if (!std::regex_match(setup.name, kName)) {
      throw jr::JsonError(c.PointerOf("name"),
                          "expected a client name of 1-16 letters, digits, '_' or '-' "
                          "starting with a letter, got " +
                              json(setup.name).dump());
    }
    if (!seen.insert(setup.name).second) {
      throw jr::JsonError(c.PointerOf("name"), "duplicate client name \"" + setup.name + "\"");
    }
    if (setup.name == "clock" || setup.name == "start" || setup.name == "tick" ||
        setup.name == "crash") {
      throw jr::JsonError(c.PointerOf("name"), "\"" + setup.name + "\" is reserved");
    }
    setup.crashed = c.Bool("crashed", false);
    setup.skew = c.OptInt("skew", -base::Limits::kMaxSpan, base::Limits::kMaxSpan).value_or(0);
    if (c.Has("algorithm") && c.Raw("algorithm").is_object()) {
      LockFields mine = lock;
      if (c.Has("lock")) mine = ReadLock(c.Object("lock"), mine, true);
      lua = true;
      if (c.Object("algorithm").Has("process")) {
        if (s.programs.empty()) s.first_program_place = c.PointerOf("algorithm");
        s.programs.push_back(
            {setup.name, ReadProcessAlgorithm(c.Object("algorithm"), LuaSettings(mine, world),
                                              mine.request_timeout.value_or(0), s.file, setup,
                                              s.document["clients"][i]["algorithm"])});
      } else {
        ReadLuaAlgorithm(c.Object("algorithm"), mine, world, s, setup,
                         s.document["clients"][i]["algorithm"]);
      }
    } else if (!setup.crashed || c.Has("algorithm")) {
      std::string name = c.String("algorithm");
      const algo::AlgorithmInfo* info = algo::FindAlgorithm(name);
      if (!info) {
        throw jr::JsonError(c.PointerOf("algorithm"),
                            "expected one of " + AlgorithmNames() + "; got " + json(name).dump());
      }
      LockFields mine = lock;
      if (c.Has("lock")) mine = ReadLock(c.Object("lock"), mine, true);
      if (info->needs_token_server && world.token_instance < 0) {
        throw jr::JsonError(c.PointerOf("algorithm"),
                            name +
                                " draws its fencing tokens from a server that is not "
                                "one of Redlock's instances: expected lock.token_server naming a "
                                "master");
      }
      const algo::Settings settings = MakeSettings(info->settings, mine, world);
      for (const algo::Setting& d : info->settings) read.insert(std::string(d.name));
      if (c.Has("lock")) WarnUnread(c.Object("lock"), info->settings, name, s.warnings);
      if (info->timestamp_lock && settings.Declares("key")) {
        timestamp_lock_keys.insert(settings.String("key"));
      }
      setup.algorithm = name;
      setup.request_timeout = mine.request_timeout.value_or(0);
      setup.settings =
          settings.Label() + " request_timeout=" + std::to_string(setup.request_timeout);
      setup.draws_numbers = info->draws_numbers;
      setup.never_reads_tokens = info->never_reads_tokens;
      setup.relative_time = info->relative_time;
      setup.time_constants = settings.Magnitude();
      setup.body = info->make(settings);
    }
    s.algorithms.push_back(setup.algorithm);
    s.may_never_enter.push_back(c.Bool("may_never_enter", false));
    w.clients.push_back(std::move(setup));
  }
  for (const auto& [name, value] : lock.settings) {
    if (!lua && !read.count(name)) {
      s.warnings.push_back("at " + o.PointerOf("lock") + "/" + name +
                           ": no client's algorithm reads this setting (" +
                           AlgorithmsDeclaring(name) + " do)");
    }
  }
  return timestamp_lock_keys;
}

}  // namespace lockstep::scenario::internal
