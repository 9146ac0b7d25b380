#include "sim/scenario/process_algorithm.h"

#include <cstdlib>
#include <filesystem>
#include <regex>

#include "sim/base/hash.h"
#include "sim/base/printable.h"
#include "sim/process/child_process.h"
#include "sim/process/process_program.h"

namespace lockstep::scenario {

const char* const kProcessFields =
    R"(                               or a process: {process: {command: [PROGRAM, ARG...]
                               (run in the scenario's folder, or cwd?), env?: {NAME:
                               VALUE}, cwd?: DIR, timeout_seconds?: 1-3600 (default
                               10: how long it may do nothing lockstep sees),
                               draws_numbers?: BOOL (default true; false: its
                               random bytes are one stream for all its clients,
                               which symmetry may then interchange)}}, which
                               connects to $LOCKSTEP_REDIS_URL(S) and gets the lock
                               settings as LOCKSTEP_<NAME> and $LOCKSTEP_SETTINGS
                               (README, "Real lock libraries");
)";

std::shared_ptr<process::ProcessProgram> ReadProcessAlgorithm(
    const ::lockstep::json::ObjectReader& a, nlohmann::json settings, world::Millis request_timeout,
    const std::string& scenario_file, world::ClientSetup& setup, nlohmann::json& written) {
  namespace fs = std::filesystem;
  a.RejectUnknown({"process"});
  const ::lockstep::json::ObjectReader p = a.Object("process");
  p.RejectUnknown({"command", "env", "cwd", "timeout_seconds", "draws_numbers"});
  auto program = std::make_shared<process::ProcessProgram>();
  const nlohmann::json& command = p.Array("command");
  if (command.empty()) {
    throw ::lockstep::json::JsonError(p.PointerOf("command"), "expected [PROGRAM, ARG...], got []");
  }
  for (size_t i = 0; i < command.size(); ++i) {
    if (!command[i].is_string() || command[i].get<std::string>().find('\0') != std::string::npos) {
      throw ::lockstep::json::JsonError(p.PointerOf("command") + "/" + std::to_string(i),
                                        "expected a string without NUL");
    }
    program->command.push_back(command[i].get<std::string>());
  }
  if (p.Has("env")) {
    const ::lockstep::json::ObjectReader env = p.Object("env");
    static const std::regex kName("[A-Za-z_][A-Za-z0-9_]{0,127}");
    for (const auto& [name, value] : p.Raw("env").items()) {
      if (!std::regex_match(name, kName) || name.starts_with("LOCKSTEP_") || name == "LD_PRELOAD") {
        throw ::lockstep::json::JsonError(
            env.PointerOf(name),
            "expected an environment name of letters, digits and '_', not "
            "LD_PRELOAD nor one starting LOCKSTEP_ (lockstep sets those)");
      }
      if (!value.is_string() || value.get<std::string>().find('\0') != std::string::npos) {
        throw ::lockstep::json::JsonError(env.PointerOf(name), "expected a string without NUL");
      }
      program->env[name] = value.get<std::string>();
    }
  }
  std::error_code ec;
  fs::path cwd = fs::path(scenario_file).parent_path();
  if (p.Has("cwd"))
    cwd =
        fs::path(p.String("cwd")).is_absolute() ? fs::path(p.String("cwd")) : cwd / p.String("cwd");
  cwd = process::AbsoluteFolder(cwd, ec);
  if (!fs::is_directory(cwd, ec)) {
    throw ::lockstep::json::JsonError(
        p.Has("cwd") ? p.PointerOf("cwd") : p.PointerOf("command"),
        "expected the folder the process runs in; " + cwd.string() + " is no folder");
  }
  program->cwd = cwd.string();
  const char* path = std::getenv("PATH");
  program->program =
      process::FindProgram(program->command[0], path ? path : "/usr/bin:/bin", program->cwd);
  if (program->program.empty()) {
    throw ::lockstep::json::JsonError(
        p.PointerOf("command") + "/0",
        "expected a program to run; found no executable " +
            nlohmann::json(program->command[0]).dump() +
            (program->command[0].find('/') == std::string::npos ? " on PATH"
                                                                : " in " + program->cwd));
  }
  program->timeout_seconds = static_cast<int>(p.OptInt("timeout_seconds", 1, 3600).value_or(10));
  // Named in every step of a trace, escaped as the trace's texts are.
  program->label = fs::path(program->command.back()).filename().string();
  if (program->label.empty()) program->label = program->command.back();
  program->label = base::Printable(program->label);

  program->draws_numbers = p.Bool("draws_numbers", true);

  setup.algorithm = "process:" + program->label;
  setup.request_timeout = request_timeout;
  // Interchangeable only with a client that runs the same program the same
  // way, and only if it declares that it draws no numbers of its own.
  setup.settings = setup.algorithm + " " + p.Raw("command").dump() + " " +
                   nlohmann::json(program->env).dump() + " " + program->cwd + " " + settings.dump();
  setup.draws_numbers = program->draws_numbers;
  setup.max_parked = process::kParkedProcesses;
  setup.body = process::MakeProcessBody(program, std::move(settings), setup.name);
  written["process"]["cwd"] = program->cwd;
  return program;
}

}  // namespace lockstep::scenario
