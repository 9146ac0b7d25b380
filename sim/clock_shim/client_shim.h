// What the two halves of liblockstep_client.so share: client_shim.cc (the
// control channel, clocks, sleeps and waits) and client_identity.cc (random
// bytes and the process id).
#pragma once

#include <cstddef>
#include <cstdint>

// The module's own: the program it is loaded into sees only the calls it
// replaces.
#pragma GCC visibility push(hidden)
namespace lockstep::client_shim {

// Loaded into the client lockstep started (not into what it starts) and not
// in a child it forked.
bool Active();
// The calling thread is the one lockstep's client runs on: the only one
// that speaks to lockstep.
bool OnMainThread();
// The process's real id, for the system calls that need it.
int RealPid();
// Fills `out` from the run's seeded stream.
void FillRandom(void* out, size_t n);
// Seeds the stream (at load time).
void SeedRandom(uint64_t seed);
// `fd` is closed or replaced: it is no connection any more.
void ForgetConnection(int fd);
// At load, in the client: what a program it becomes by execve needs to
// take over the control channel and the clock (client_exec.cc).
void KeepForExec(int control, int clock, uint64_t seed, const char* preload);

// Whether every thread of the process but `main_tid` sleeps (own_threads.cc).
bool OwnThreadsIdle(int main_tid);
// The environment's own entry for `name`, and its removal in place
// (client_exec.cc).
const char* FindInEnviron(const char* name);
void RemoveFromEnviron(const char* name);

}  // namespace lockstep::client_shim
#pragma GCC visibility pop
