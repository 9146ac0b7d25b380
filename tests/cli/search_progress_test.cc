// What explore shows while it searches (on a terminal), and where its
// memory went at the end.
#include "sim/cli/search_progress.h"

#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <regex>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using testing::Has;

TEST_CASE("the live line narrows to the terminal, dropping the least telling fields first",
          "[cli]") {
  explore::SearchStats st;
  st.states = 1'234'567;
  st.transitions = 9'876'543;
  st.waiting = 2'345;
  st.max_depth = 2'346;
  st.clock_reached = 16;
  st.elapsed_s = 12.34;
  const std::string wide = cli::ProgressLine(st, 64, uint64_t{312} << 20, uint64_t{12} << 30, 0);
  CHECK(wide ==
        "  1,234,567 states  9,876,543 transitions  2,345 waiting  depth 2346  clock 16 of 64  "
        "memory 312 MiB of 12 GiB  12.3 s");
  const std::string narrow = cli::ProgressLine(st, 64, uint64_t{312} << 20, uint64_t{12} << 30, 80);
  CHECK(narrow.size() < 80);
  // The time, the depth and the transitions go first; the states, memory
  // and what waits stay.
  CHECK(narrow == "  1,234,567 states  2,345 waiting  clock 16 of 64  memory 312 MiB of 12 GiB");
  // Without a horizon the clock stands alone; unknown figures are left out.
  st.clock_reached.reset();
  CHECK(cli::ProgressLine(st, std::nullopt, 0, 0, 0) ==
        "  1,234,567 states  9,876,543 transitions  2,345 waiting  depth 2346  12.3 s");
  CHECK(cli::RoundedSize(1536) == "1.5 KiB");
  CHECK(cli::RoundedSize(uint64_t{312} << 20) == "312 MiB");
  CHECK(cli::RoundedSize(1000) == "1000 bytes");
}

TEST_CASE(
    "explore says where its memory went: the table, the clients' automata, the texts kept, the "
    "rest",
    "[cli]") {
  const auto r = testing::RunLockstep(
      {"explore", testing::ScenarioPath("getset-bounded.json"), "--clients", "3", "--json"});
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& m = j["memory"];
  CHECK(m["automata_states"].get<uint64_t>() > 0);
  CHECK(m["automata_transitions"].get<uint64_t>() >= m["automata_states"].get<uint64_t>() - 3);
  CHECK(m["table_bytes"].get<uint64_t>() > 0);
  // The parts are within the whole the kernel measured: an estimate of the
  // automata that overcounted would pass it.
  CHECK(m["automata_bytes"].get<uint64_t>() + m["table_bytes"].get<uint64_t>() +
            m["texts_bytes"].get<uint64_t>() <
        m["peak_resident_bytes"].get<uint64_t>());
  // The keys, values and replies kept: a few distinct texts here (the key,
  // the times written, the replies), each a record and its index.
  CHECK(m["texts_bytes"].get<uint64_t>() > 2 * 64);
  CHECK(m["texts_bytes"].get<uint64_t>() < 64 * 1024);
  // Each transition learned keeps at least its memo.
  CHECK(m["automata_bytes"].get<uint64_t>() > 64 * m["automata_transitions"].get<uint64_t>());
  // The clock got to the horizon and no further.
  CHECK(j["clock_reached"] == j["bounds"]["horizon"]);

  // Every strategy learns the clients as it walks, and says so.
  for (const std::vector<std::string>& strategy :
       {std::vector<std::string>{"bfs"},
        std::vector<std::string>{"random", "--executions", "20"}}) {
    std::vector<std::string> args = {"explore",   testing::ScenarioPath("getset-bounded.json"),
                                     "--clients", "3",
                                     "--json",    "--strategy"};
    args.insert(args.end(), strategy.begin(), strategy.end());
    const auto other = testing::RunLockstep(args);
    INFO(strategy[0] << ": " << other.err);
    const nlohmann::json o = nlohmann::json::parse(other.out);
    CHECK(o["memory"]["automata_states"].get<uint64_t>() > 0);
  }

  const auto text = testing::RunLockstep(
      {"explore", testing::ScenarioPath("getset-bounded.json"), "--clients", "3"});
  CHECK(Has(text.out, "memory: peak "));
  CHECK(Has(text.out, " transitions learned)"));
}

TEST_CASE("the memory line says when the automata forgot their transitions") {
  explore::SearchStats st;
  st.automata_bytes = 1'000;
  st.automata_states = 7;
  st.automata_transitions = 40;
  CHECK(!Has(cli::MemoryText(st, 1 << 20, 0), "forgotten"));
  st.automata_forgets = 1'234;
  CHECK(Has(cli::MemoryText(st, 1 << 20, 0),
            "40 transitions learned, forgotten 1,234 times to bound their memory, then learned "
            "again)"));
  CHECK(cli::MemoryJson(st, 1 << 20, 0)["automata_forgets"] == 1'234);
  CHECK(Has(cli::MemoryText(st, 1 << 20, 30 << 10), "the keys, values and replies kept 30 KiB"));
  CHECK(cli::MemoryJson(st, 1 << 20, 30 << 10)["texts_bytes"] == 30 << 10);
}

// Reads `fd` until `done` says the text so far is enough, or 120 s pass.
template <typename Done>
std::string ReadUntil(int fd, Done done) {
  std::string text;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!done(text) && std::chrono::steady_clock::now() < give_up) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 1000) <= 0) continue;
    char buffer[4096];
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  return text;
}

TEST_CASE("on a terminal, explore's live line shows what waits, the clock and the memory bound",
          "[cli]") {
  // Redlock's clients for all time: a search that outlasts the first
  // second (the line waits for it), stopped by the test.
  winsize size{};
  size.ws_row = 24;
  size.ws_col = 120;
  int terminal = -1;
  const std::string scenario = testing::ScenarioPath("redlock-safe.json");
  const pid_t pid = forkpty(&terminal, nullptr, nullptr, &size);
  REQUIRE(pid >= 0);
  if (pid == 0) {
    execl(testing::LockstepBinary(), "lockstep", "explore", scenario.c_str(), "--horizon", "none",
          "--max-memory", "6G", static_cast<char*>(nullptr));
    _exit(127);
  }
  // A whole line: one \r, then another after it.
  const std::string text = ReadUntil(terminal, [](const std::string& t) {
    const size_t first = t.find("\r  ");
    return first != std::string::npos && t.find('\r', first + 1) != std::string::npos;
  });
  kill(pid, SIGINT);
  ReadUntil(terminal, [](const std::string&) { return false; });  // to its end
  int status = 0;
  waitpid(pid, &status, 0);
  close(terminal);
  const size_t first = text.find("\r  ");
  REQUIRE(first != std::string::npos);
  const std::string line = text.substr(first + 1, text.find('\r', first + 1) - first - 1);
  INFO(line);
  // A second into a depth-first search of Redlock for all time, states
  // wait on its stack and the clock has moved.
  std::smatch m;
  REQUIRE(std::regex_search(line, m,
                            std::regex("^  ([0-9,]+) states  ([0-9,]+) transitions  "
                                       "([0-9,]+) waiting  depth ([0-9]+)  clock "
                                       "([0-9]+)  memory [0-9.]+ [KMG]iB of 6.0 GiB  ")));
  CHECK(m[3].str() != "0");
  CHECK(m[5].str() != "0");
  CHECK(line.size() == 119);  // padded to the terminal's width, less one
}

}  // namespace
}  // namespace lockstep
