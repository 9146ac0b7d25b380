// liblockstep_client.so across an execve: a client that becomes another
// program (`sh -c 'exec python3 client.py'`, a `#!/usr/bin/env python3`
// script, whose env execs python3) keeps the shim. The shim removes
// LOCKSTEP_SHIM from the environment at load, and its descriptors are
// close-on-exec, so that no program the client *starts* takes the channel;
// an exec by the client itself (the process lockstep started, not a child
// it forked or vforked) puts LD_PRELOAD and LOCKSTEP_SHIM back in the new
// program's environment and keeps the two descriptors open across it. The
// new program's shim takes the channel over without a hello, and draws
// random bytes from the run's seed again.
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <sys/syscall.h>

#include "sim/clock_shim/client_shim.h"
#include "sim/process/shim_protocol.h"

namespace lockstep::client_shim {
namespace {

namespace lp = lockstep::process;

int g_exec_control = -1;
int g_exec_clock = -1;
char g_shim_env[96];   // "LOCKSTEP_SHIM=3 4 SEED exec"
char g_preload[4096];  // the shim's own path, as LD_PRELOAD named it
constexpr const char* kPreload = "LD_PRELOAD=";

using ExecveFn = int (*)(const char*, char* const[], char* const[]);
using FexecveFn = int (*)(int, char* const[], char* const[]);

template <class F>
F RealExec(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

// The process lockstep started, not a child of it.
bool Handing() { return Active() && g_exec_control >= 0 && syscall(SYS_getpid) == RealPid(); }

bool StartsWith(const char* s, const char* prefix) {
  return std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

// `envp` with the shim's two variables in it, or null (out of memory).
// Free it with std::free.
char** WithShim(char* const envp[]) {
  size_t n = 0;
  while (envp != nullptr && envp[n] != nullptr) ++n;
  const char* theirs = nullptr;
  for (size_t i = 0; i < n; ++i) {
    if (StartsWith(envp[i], kPreload)) theirs = envp[i] + std::strlen(kPreload);
  }
  // Ours first; another preload the program asked for after it.
  const size_t preload_length = std::strlen(kPreload) + std::strlen(g_preload) + 1 +
                                (theirs != nullptr ? std::strlen(theirs) : 0) + 1;
  char** out = static_cast<char**>(std::malloc((n + 3) * sizeof(char*) + preload_length));
  if (out == nullptr) return nullptr;
  char* preload = reinterpret_cast<char*>(out + n + 3);
  std::snprintf(
      preload, preload_length, "%s%s%s%s", kPreload, g_preload,
      theirs != nullptr && *theirs != '\0' && std::strstr(theirs, g_preload) == nullptr ? ":" : "",
      theirs != nullptr && std::strstr(theirs, g_preload) == nullptr ? theirs : "");
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    if (StartsWith(envp[i], kPreload) || StartsWith(envp[i], lp::kShimEnv)) continue;
    out[k++] = envp[i];
  }
  out[k++] = preload;
  out[k++] = g_shim_env;
  out[k] = nullptr;
  return out;
}

void SetCloseOnExec(bool on) {
  for (int fd : {g_exec_control, g_exec_clock}) fcntl(fd, F_SETFD, on ? FD_CLOEXEC : 0);
}

// Runs `exec` (the real call) with the shim handed over, when it is the
// client's own exec; returns only if that failed, errno kept.
template <class Exec>
int HandOver(char* const envp[], Exec exec) {
  if (!Handing()) return exec(envp);
  char** env = WithShim(envp);
  if (env == nullptr) return exec(envp);
  SetCloseOnExec(false);
  const int r = exec(env);
  const int error = errno;
  SetCloseOnExec(true);
  std::free(env);
  errno = error;
  return r;
}

// execl's arguments up to the null one, as an array (malloc'd).
char** CollectArgs(const char* first, va_list ap, char*** envp_out) {
  va_list count;
  va_copy(count, ap);
  size_t n = 1;
  while (va_arg(count, char*) != nullptr) ++n;
  va_end(count);
  char** argv = static_cast<char**>(std::malloc((n + 1) * sizeof(char*)));
  if (argv == nullptr) return nullptr;
  argv[0] = const_cast<char*>(first);
  for (size_t i = 1; i <= n; ++i) argv[i] = va_arg(ap, char*);
  if (envp_out != nullptr) *envp_out = va_arg(ap, char**);
  return argv;
}

}  // namespace

void KeepForExec(int control, int clock, uint64_t seed, const char* preload) {
  if (preload == nullptr || std::strlen(preload) >= sizeof g_preload) return;
  std::strcpy(g_preload, preload);
  std::snprintf(g_shim_env, sizeof g_shim_env, "%s=%d %d %llu %s", lp::kShimEnv, control, clock,
                static_cast<unsigned long long>(seed), lp::kShimExeced);
  g_exec_control = control;
  g_exec_clock = clock;
}

// The environment's own entry for `name` (not getenv's or unsetenv's: a
// program such as bash defines its own, which its variables, not yet made,
// would answer), and its removal in place.
const char* FindInEnviron(const char* name) {
  const size_t n = std::strlen(name);
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
  }
  return nullptr;
}

void RemoveFromEnviron(const char* name) {
  const size_t n = std::strlen(name);
  char** out = environ;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (!(std::strncmp(*e, name, n) == 0 && (*e)[n] == '=')) *out++ = *e;
  }
  if (out != nullptr) *out = nullptr;
}

}  // namespace lockstep::client_shim

namespace cs = lockstep::client_shim;

extern "C" {

int execve(const char* path, char* const argv[], char* const envp[]) {
  static const auto real = cs::RealExec<cs::ExecveFn>("execve");
  return cs::HandOver(envp, [&](char* const* env) { return real(path, argv, env); });
}

int execv(const char* path, char* const argv[]) { return execve(path, argv, environ); }

int execvpe(const char* file, char* const argv[], char* const envp[]) {
  static const auto real = cs::RealExec<cs::ExecveFn>("execvpe");
  return cs::HandOver(envp, [&](char* const* env) { return real(file, argv, env); });
}

int execvp(const char* file, char* const argv[]) { return execvpe(file, argv, environ); }

int fexecve(int fd, char* const argv[], char* const envp[]) {
  static const auto real = cs::RealExec<cs::FexecveFn>("fexecve");
  return cs::HandOver(envp, [&](char* const* env) { return real(fd, argv, env); });
}

int execl(const char* path, const char* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  char** argv = cs::CollectArgs(arg, ap, nullptr);
  va_end(ap);
  if (argv == nullptr) return errno = ENOMEM, -1;
  const int r = execve(path, argv, environ);
  const int error = errno;
  std::free(argv);
  errno = error;
  return r;
}

int execlp(const char* file, const char* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  char** argv = cs::CollectArgs(arg, ap, nullptr);
  va_end(ap);
  if (argv == nullptr) return errno = ENOMEM, -1;
  const int r = execvpe(file, argv, environ);
  const int error = errno;
  std::free(argv);
  errno = error;
  return r;
}

int execle(const char* path, const char* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  char** envp = nullptr;
  char** argv = cs::CollectArgs(arg, ap, &envp);
  va_end(ap);
  if (argv == nullptr) return errno = ENOMEM, -1;
  const int r = execve(path, argv, envp);
  const int error = errno;
  std::free(argv);
  errno = error;
  return r;
}

}  // extern "C"
