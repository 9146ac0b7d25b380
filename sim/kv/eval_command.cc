// EVAL (Redis 7.0's evalGenericCommand): the per-thread interpreter with its
// cache of compiled scripts, the shebang line, the instruction limit, and one
// script run atomically on the script's Db. See lua_script_context.h for the
// rule every function here keeps.
#include <time.h>

#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/kv/command_table.h"
#include "sim/kv/commands.h"
#include "sim/kv/error_text.h"
#include "sim/kv/int_parse.h"
#include "sim/kv/lua_determinism.h"
#include "sim/kv/lua_script_context.h"
#include "sim/kv/lua_string_match.h"
#include "sim/kv/script.h"
#include "sim/kv/sha1.h"

namespace lockstep::kv::internal {
namespace {

// Lua instructions between two calls of the count hook.
constexpr int kHookEvery = 10'000;
// Compiled scripts kept per thread before the cache starts over.
constexpr size_t kMaxCachedScripts = 1000;

// Runs every kHookEvery instructions. Past the limit it fires on every
// instruction of the thread and of the main thread.
lua_State* t_main = nullptr;

// The last resort for work no count sees (a comparison of two long
// strings is one instruction): a script that takes more CPU time than any
// counted one could stops the whole run, since a reply that depends on the
// machine's speed would make the trace depend on it too.
bool OverCpuBound(RunContext* ctx) {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  const int64_t ns = int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
  if (ctx->cpu_start_ns == 0) ctx->cpu_start_ns = ns;
  if (ns - ctx->cpu_start_ns <= kScriptCpuBoundSeconds * 1'000'000'000) return false;
  ctx->over_cpu = true;
  return true;
}

[[noreturn]] void StopScript(lua_State* L);

void CountHook(lua_State* L, lua_Debug*) {
  RunContext* ctx = t_ctx;
  if (ctx == nullptr) return;
  if (!ctx->over_limit) {
    ctx->instructions += kHookEvery;
    if (ctx->instructions < kScriptInstructionLimit && !OverCpuBound(ctx)) return;
    ctx->over_limit = true;
  }
  StopScript(L);
}

// From here on every instruction of the script's threads raises the error,
// so a script that catches it with pcall cannot keep running (Redis does
// the same for SCRIPT KILL).
void StopScript(lua_State* L) {
  lua_sethook(L, CountHook, LUA_MASKCOUNT, 1);
  if (t_main != nullptr && t_main != L) lua_sethook(t_main, CountHook, LUA_MASKCOUNT, 1);
  PushError(L, kScriptInstructionLimitError.data() + 4);  // without "ERR "
  lua_error(L);
  __builtin_unreachable();  // lua_error longjmps
}

void PushArgs(lua_State* L, const Argv& argv, size_t begin, size_t end) {
  lua_createtable(L, static_cast<int>(end - begin), 0);
  for (size_t j = begin; j < end; ++j) {
    lua_pushlstring(L, argv[j].data(), argv[j].size());
    lua_rawseti(L, -2, static_cast<int>(j - begin + 1));
  }
}

struct Engine {
  lua_State* L = nullptr;
  size_t used = 0;
  size_t scripts = 0;
  Refs refs;

  Engine() {
    L = lua_newstate(Alloc, &used);
    if (L == nullptr) return;
    if (lua_cpcall(L, InitState, &refs) != 0) {
      lua_close(L);
      L = nullptr;
    }
  }
  ~Engine() {
    if (L != nullptr) lua_close(L);
  }
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Accounts every byte, so a script cannot take the host's memory.
  static void* Alloc(void* ud, void* ptr, size_t osize, size_t nsize) {
    auto* used = static_cast<size_t*>(ud);
    const size_t base = *used - (ptr != nullptr ? osize : 0);
    if (nsize == 0) {
      std::free(ptr);
      *used = base;
      return nullptr;
    }
    if (nsize > osize && base + nsize > kScriptMemoryLimit) {
      if (t_ctx != nullptr) t_ctx->out_of_memory = true;
      return nullptr;
    }
    // Bytes allocated count toward the instruction limit, so that building
    // long strings over and over is bounded as a loop is.
    if (t_ctx != nullptr && nsize > osize) t_ctx->instructions += nsize / kBytesPerInstruction;
    void* p = std::realloc(ptr, nsize);
    if (p == nullptr) return nullptr;
    *used = base + nsize;
    return p;
  }
};

int RunProtected(lua_State* L);

Engine* ThreadEngine() {
  thread_local std::unique_ptr<Engine> engine;
  if (!engine) engine = std::make_unique<Engine>();
  return engine->L != nullptr ? engine.get() : nullptr;
}

// Everything one EVAL does in Lua, inside lua_cpcall so that no error can
// escape to Lua's panic handler.
int RunProtected(lua_State* L) {
  RunContext* ctx = t_ctx;
  auto* engine = static_cast<Engine*>(lua_touserdata(L, 1));
  const Refs& refs = engine->refs;
  lua_settop(L, 0);
  // Undo whatever the last script could change: the collector's settings.
  lua_gc(L, LUA_GCRESTART, 0);
  lua_gc(L, LUA_GCSETPAUSE, 200);
  lua_gc(L, LUA_GCSETSTEPMUL, 200);
  ResetObjectNames(L);
  ResetLibraries(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, refs.proxy_globals);  // 1
  lua_pushvalue(L, 1);
  lua_replace(L, LUA_GLOBALSINDEX);

  lua_rawgeti(L, LUA_REGISTRYINDEX, refs.scripts);  // 2
  lua_pushlstring(L, ctx->sha.data(), ctx->sha.size());
  lua_rawget(L, 2);  // 3: the function, or nil
  if (lua_isnil(L, 3)) {
    lua_pop(L, 1);
    if (luaL_loadbuffer(L, ctx->body.data(), ctx->body.size(), "@user_script") != 0) {
      SetFormatError(ctx, "Error compiling script (new function): ", lua_tostring(L, -1),
                     std::string_view::npos);
      return 0;
    }
    if (++engine->scripts > kMaxCachedScripts) {
      engine->scripts = 1;
      lua_newtable(L);
      lua_replace(L, 2);
      lua_pushvalue(L, 2);
      lua_rawseti(L, LUA_REGISTRYINDEX, refs.scripts);
    }
    lua_pushlstring(L, ctx->sha.data(), ctx->sha.size());
    lua_pushvalue(L, 3);
    lua_rawset(L, 2);
  }
  lua_pushvalue(L, 1);
  lua_setfenv(L, 3);

  lua_rawgeti(L, LUA_REGISTRYINDEX, refs.globals);  // 4
  const Argv& argv = *ctx->argv;
  lua_pushstring(L, "KEYS");
  PushArgs(L, argv, 3, 3 + ctx->numkeys);
  lua_rawset(L, 4);
  lua_pushstring(L, "ARGV");
  PushArgs(L, argv, 3 + ctx->numkeys, argv.size());
  lua_rawset(L, 4);
  lua_getfield(L, 4, "__redis__err__handler");  // 5
  lua_pushvalue(L, 3);                          // 6

  t_main = L;
  lua_sethook(L, CountHook, LUA_MASKCOUNT, kHookEvery);
  const int status = lua_pcall(L, 0, 1, 5);
  lua_sethook(L, nullptr, 0, 0);
  t_main = nullptr;

  if (status == 0) {
    ctx->reply = Reply();
    ctx->have_reply = true;
    LuaToReply(L, ctx, &ctx->reply);
  } else if (!lua_istable(L, -1)) {
    // Errors that never reached the handler (memory) or broke it.
    const char* msg = lua_isstring(L, -1) ? lua_tostring(L, -1) : "execution failure";
    lua_pushfstring(L, "Error running script %s, ", ctx->sha.c_str());
    SetFormatError(ctx, lua_tostring(L, -1), msg, 100);
  } else {
    // luaExtractErrorInformation, reading fields without metamethods. The
    // strings stay on the stack while they are used.
    const int error = lua_gettop(L);
    lua_pushstring(L, "err");
    lua_rawget(L, error);
    const char* msg = lua_isstring(L, -1) ? lua_tostring(L, -1) : nullptr;
    lua_pushstring(L, "source");
    lua_rawget(L, error);
    const char* source = lua_isstring(L, -1) ? lua_tostring(L, -1) : nullptr;
    lua_pushstring(L, "line");
    lua_rawget(L, error);
    const char* line = lua_isstring(L, -1) ? lua_tostring(L, -1) : nullptr;
    if (msg == nullptr) {
      // redis-server 7.0.15 crashes here (a NULL message); see
      // known_departures.h.
      msg = "ERR Error running script: the error object has no err string";
    }
    SetRuntimeError(ctx, msg, source, line);
  }
  // A script may have stored into a proxy with table.insert and friends,
  // which write raw: empty them again.
  lua_rawgeti(L, LUA_REGISTRYINDEX, refs.proxies);
  const int proxies = lua_gettop(L);
  for (int i = 1;; ++i) {
    lua_rawgeti(L, proxies, i);
    if (lua_isnil(L, -1)) break;
    while (true) {
      lua_pushnil(L);
      if (!lua_next(L, -2)) break;
      lua_pop(L, 1);
      lua_pushnil(L);
      lua_rawset(L, -3);
    }
    lua_pop(L, 1);
  }
  // Keep the garbage left for the next script small, so it rarely decides
  // whether that script hits the memory cap.
  if (engine->used > kScriptMemoryLimit / 8) lua_gc(L, LUA_GCCOLLECT, 0);
  return 0;
}

// evalExtractShebangFlags, for the flags 7.0 knows; only no-writes changes
// what the model does.
std::optional<Reply> ParseShebang(RunContext* ctx) {
  const std::string& body = ctx->body;
  if (body.compare(0, 2, "#!") != 0) return std::nullopt;
  // strchr on the body: a NUL before the line feed hides it.
  const size_t end = AsCString(body).find('\n');
  if (end == std::string::npos) return Reply::Error("ERR Invalid script shebang");
  std::vector<std::string> parts;
  std::string_view line = AsCString(body).substr(0, end);
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    size_t j = i;
    while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
    if (j > i) parts.emplace_back(line.substr(i, j - i));
    i = j;
  }
  if (parts.empty()) return Reply::Error("ERR Invalid engine in script shebang");
  if (parts[0] != "#!lua") {
    return Reply::Error("ERR Unexpected engine in script shebang: " + parts[0]);
  }
  static const char* const kFlags[] = {"no-writes", "allow-oom", "allow-stale", "no-cluster",
                                       "allow-cross-slot-keys"};
  for (size_t p = 1; p < parts.size(); ++p) {
    if (parts[p].compare(0, 6, "flags=") != 0) {
      return Reply::Error("ERR Unknown lua shebang option: " + parts[p]);
    }
    // sdssplitlen on ",": no flag for "flags=", and an empty one (known to
    // no table, so refused) for each "," with nothing on one side.
    std::string_view flags = std::string_view(parts[p]).substr(6);
    size_t start = 0;
    while (!flags.empty() && start <= flags.size()) {
      size_t comma = flags.find(',', start);
      if (comma == std::string_view::npos) comma = flags.size();
      const std::string_view flag = flags.substr(start, comma - start);
      bool known = false;
      for (const char* f : kFlags) known = known || flag == f;
      if (!known) {
        return Reply::Error("ERR Unexpected flag in script shebang: " + std::string(flag));
      }
      ctx->no_writes = ctx->no_writes || flag == "no-writes";
      start = comma + 1;
    }
  }
  // The shebang line is skipped but its line feed kept, so line numbers in
  // errors stay the user's.
  ctx->body.erase(0, end);
  return std::nullopt;
}

}  // namespace

thread_local RunContext* t_ctx = nullptr;

void ChargeScriptWork(lua_State* L, int64_t work) {
  RunContext* ctx = t_ctx;
  if (ctx == nullptr) return;
  if (work == kMatchTooComplex) {
    if (ctx->unvouched == nullptr) ctx->unvouched = "its script met the model's bound on patterns";
    return;
  }
  ctx->instructions += work;
  if (ctx->over_limit || ctx->instructions >= kScriptInstructionLimit) {
    ctx->over_limit = true;
    StopScript(L);
  }
}

// evalGenericCommand.
Reply EvalCommand(Db& db, const Argv& argv) {
  int64_t numkeys = 0;
  if (!ParseInt64(argv[2], &numkeys)) return Reply::Error(std::string(kNotAnInteger));
  if (numkeys > static_cast<int64_t>(argv.size()) - 3) {
    return Reply::Error(std::string(kNumkeysTooLarge));
  }
  if (numkeys < 0) return Reply::Error(std::string(kNumkeysNegative));
  if (t_ctx != nullptr) {
    // Unreachable: EVAL is refused inside scripts before it gets here.
    return Reply::Error("ERR This Redis command is not allowed from script");
  }
  RunContext ctx;
  ctx.db = &db;
  ctx.argv = &argv;
  ctx.numkeys = static_cast<size_t>(numkeys);
  ctx.sha = Sha1Hex(argv[1]);
  ctx.body = argv[1];
  ctx.rand48 = kLrand48Initial;
  if (auto error = ParseShebang(&ctx)) return *std::move(error);
  Engine* engine = ThreadEngine();
  if (engine == nullptr) return Reply::Error("ERR Failed creating the lua VM.");
  t_ctx = &ctx;
  const int status = lua_cpcall(engine->L, RunProtected, engine);
  t_ctx = nullptr;
  lua_settop(engine->L, 0);
  // Where the model stops a script that Redis would let go on, what Redis
  // does is not what the model did.
  if (ctx.over_cpu) {
    throw std::runtime_error("a script (EVAL " + ctx.sha + ") ran for more than " +
                             std::to_string(kScriptCpuBoundSeconds) +
                             " s of CPU time; lockstep stops rather than give a reply that "
                             "depends on the machine's speed");
  }
  if (ctx.over_limit) ctx.unvouched = "its script ran into the model's instruction limit";
  if (ctx.host_oom || status != 0 || !ctx.have_reply || ctx.out_of_memory) {
    ctx.unvouched = "its script ran out of the model's memory for scripts";
  }
  if (ctx.unvouched != nullptr) db.MarkUnvouched(ctx.unvouched);
  if (ctx.host_oom)
    return Reply::Error("ERR Error running script " + ctx.sha + ", not enough memory");
  if (status != 0 || !ctx.have_reply) {
    // Only memory can fail outside the script's own pcall.
    return Reply::Error("ERR Error running script " + ctx.sha + ", not enough memory");
  }
  return std::move(ctx.reply);
}

}  // namespace lockstep::kv::internal
