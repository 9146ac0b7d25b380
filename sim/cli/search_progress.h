// What `lockstep explore` shows of a search while it runs, and where its
// memory went at the end: what TLC and SPIN print (states waiting, memory
// against its bound), and how far the clock got.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/explore/search.h"

namespace lockstep::cli {

// "312 MiB", "1.2 GiB", "48 KiB": a size as a person reads it.
std::string RoundedSize(uint64_t bytes);

// The live line (without its leading \r): states, transitions, states
// waiting, depth, the clock reached against the horizon, the resident size
// against its bound (0: none), the time. Fields are left out, the least
// telling first, until it fits in `width` columns (0: no limit).
std::string ProgressLine(const explore::SearchStats& st,
                         const std::optional<world::Millis>& horizon, uint64_t resident,
                         uint64_t max_memory, size_t width);

// At the end: the peak resident size and what took it (the visited table,
// the clients' automata, the keys, values and replies kept once
// (`texts_bytes`, kv::Text::KeptBytes), the rest: the search's stack or
// queue, the fibers' stacks, the program), and the most the programs
// clients ran held at once (`programs_bytes`, with what they started, if
// any). One line; "" if the peak is not known.
std::string MemoryText(const explore::SearchStats& st, uint64_t peak_resident, uint64_t texts_bytes,
                       uint64_t programs_bytes = 0);
nlohmann::json MemoryJson(const explore::SearchStats& st, uint64_t peak_resident,
                          uint64_t texts_bytes, uint64_t programs_bytes = 0);

// This process's peak resident size so far, in bytes (getrusage; 0 if
// unknown).
uint64_t PeakResidentBytes();

}  // namespace lockstep::cli
