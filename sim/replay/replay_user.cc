#include "sim/replay/replay_user.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <stdexcept>

#include "sim/kv/command_table.h"

namespace lockstep::replay {

std::vector<std::string> ReplayUserRules(bool setup) {
  std::vector<std::string> rules = {"resetkeys", "~*", "resetchannels", "-@all"};
  for (const kv::CommandSpec& spec : kv::CommandTable()) {
    // The model's SELECT keeps database 0; a real server's would switch, and
    // the replay's user may never leave database 0 (kMustBeRefused). A
    // script's SELECT 0 then fails there, which only a script that shows
    // its reply could tell.
    if (spec.name == "SELECT") continue;
    std::string name = "+";
    for (const char ch : std::string_view(spec.name)) {
      name += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
    rules.push_back(name);
  }
  if (setup) rules.insert(rules.end(), {"+dbsize", "+time", "+flushdb"});
  return rules;
}

std::string RandomPassword() {
  unsigned char bytes[16];
  const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  const bool ok = fd >= 0 && read(fd, bytes, sizeof(bytes)) == static_cast<ssize_t>(sizeof(bytes));
  if (fd >= 0) close(fd);
  if (!ok) throw std::runtime_error("cannot read /dev/urandom for a Redis password");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 0xf];
  }
  return out;
}

std::string HowToMakeReplayUser(const HostPort& at) {
  const std::string password = RandomPassword();
  std::string setuser = std::string("ACL SETUSER ") + kReplayUser + " on '>" + password + "'";
  for (const std::string& rule : ReplayUserRules(/*setup=*/true)) {
    setuser += " " + (rule == "~*" ? "'~*'" : rule);
  }
  const std::string url = std::string("redis://") + kReplayUser + ":" + password + "@" + at.host +
                          ":" + std::to_string(at.port);
  return "  redis-cli -h " + at.host + " -p " + std::to_string(at.port) + " " + setuser +
         "\n  then replay with --redis " + url;
}

namespace {

// Each harmless if it runs: database 0 is the connection's already; the
// others fail on a bad argument after the permission check and before
// they do anything (Redis 7.0), MIGRATE before it connects (to port 0).
const std::vector<std::vector<std::string>> kMustBeRefused = {
    {"SELECT", "0"},
    {"SWAPDB", "0", "lockstep-probe"},
    {"MOVE", "lockstep-probe", "lockstep-probe"},
    {"COPY", "lockstep-probe", "lockstep-probe", "DB", "lockstep-probe"},
    {"FLUSHALL", "lockstep-probe"},
    {"MIGRATE", "127.0.0.1", "0", "", "0", "0", "lockstep-probe"},
    {"CONFIG", "GET", "bind"},
    // A script's calls are bound by the same rules.
    {"EVAL", "return redis.pcall('SELECT', '0')", "0"},
};

bool Refused(const kv::Reply& r) {
  if (!r.is_error()) return false;
  const std::string& text = r.text.str();
  return text.rfind("NOPERM", 0) == 0 ||
         text.find("The user executing the script can't run this command") != std::string::npos;
}

}  // namespace

bool ProbeReplayUser(RedisConnection& c, std::string* allowed, std::string* error) {
  allowed->clear();
  for (const std::vector<std::string>& argv : kMustBeRefused) {
    std::optional<kv::Reply> r = c.Command(argv, error);
    if (!r) return false;
    if (Refused(*r)) continue;
    for (const std::string& a : argv) {
      *allowed += (allowed->empty() ? "" : " ") + (a.empty() ? std::string("\"\"") : a);
    }
    return true;
  }
  return true;
}

}  // namespace lockstep::replay
