// What a process writes reaches the terminal and the trace escaped: an
// exception's text with a colour code, a tab and a bidirectional override,
// from a program whose file name holds a tab, is a finding whose trace
// lockstep reads back and replays.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using testing::Has;
using testing::RunLockstep;
using testing::TempDir;

bool HasRawControl(const std::string& text) {
  for (unsigned char c : text) {
    if ((c < 0x20 && c != '\n') || c == 0x7f) return true;
  }
  return Has(text, "\u202e");
}

TEST_CASE("a process's words with control characters are escaped, and its trace replays",
          "[process]") {
  TempDir dir;
  const std::string script = "tab\there.py";
  dir.Write(script,
            "import os, socket\n"
            "port = int(os.environ['LOCKSTEP_REDIS_PORTS'].split()[0])\n"
            "s = socket.create_connection(('127.0.0.1', port))\n"
            "s.sendall(b'*3\\r\\n$5\\r\\nSETNX\\r\\n$1\\r\\nk\\r\\n$1\\r\\n1\\r\\n')\n"
            "s.recv(64)\n"
            "raise RuntimeError('red \\x1b[31m\\x1b]52;c;aGk=\\x07 tab\\t rtl \\u202e end')\n");
  const nlohmann::json scenario = {
      {"name", "words"},
      {"clients",
       {{{"name", "C1"},
         {"algorithm", {{"process", {{"command", {"/usr/bin/python3", script}}}}}}}}},
      {"lock", {{"key", "k"}, {"ttl", 2}}},
      {"clock", {{"start", 0}, {"horizon", 2}}},
      {"expect", "violation:client_error"}};
  const std::string s = dir.Write("scenario.json", scenario.dump());
  const auto found = RunLockstep({"explore", "--allow-programs", s, "--out", dir.File("out")});
  INFO(found.out << found.err);
  CHECK(found.exit_code == 1);
  CHECK(Has(found.out, "RuntimeError: red \\x1b[31m\\x1b]52;c;aGk=\\x07 tab\\t rtl \\u202e end"));
  CHECK_FALSE(HasRawControl(found.out));
  CHECK_FALSE(HasRawControl(found.err));

  const std::string trace = dir.File("out/words-client_error-1clients.json");
  const auto replayed = RunLockstep({"replay", "--allow-programs", trace});
  INFO(replayed.err);
  CHECK(replayed.exit_code == 1);
  CHECK(Has(replayed.out, "replay reproduces the trace byte for byte"));
  // The program's name, as its steps and its client are named.
  const nlohmann::json saved = nlohmann::json::parse(testing::ReadText(trace));
  CHECK(saved["clients"][0]["algorithm"] == "process:tab\\there.py");
  CHECK_FALSE(HasRawControl(replayed.out));
  CHECK(RunLockstep({"render", trace, "--svg", dir.File("t.svg")}).exit_code == 0);
}

TEST_CASE("a course's titles reach the terminal escaped", "[process]") {
  TempDir dir;
  const std::string levels = dir.Write(
      "levels.json", nlohmann::json{{"levels",
                                     {{{"scenario", testing::ScenarioPath("setnx-docs-race.json")},
                                       {"title", "race \x1b[2J\xe2\x80\xae cleared"}}}}}
                         .dump());
  const auto r = RunLockstep({"render", "--course", dir.File("course"), "--levels", levels});
  INFO(r.out << r.err);
  CHECK_FALSE(HasRawControl(r.out));
  CHECK_FALSE(HasRawControl(r.err));
  CHECK(Has(r.out + r.err, "race \\x1b[2J\\u202e cleared"));
}

}  // namespace
}  // namespace lockstep
