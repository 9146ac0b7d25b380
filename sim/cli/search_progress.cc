#include "sim/cli/search_progress.h"

#include <cstdio>
#include <vector>

#include <sys/resource.h>

#include "sim/cli/explore_report.h"

namespace lockstep::cli {

std::string RoundedSize(uint64_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int u = 0;
  while (u < 4 && value >= 1024) {
    value /= 1024;
    ++u;
  }
  char text[32];
  // One decimal below 10 (1.2 GiB), none above (312 MiB).
  std::snprintf(text, sizeof text, u > 0 && value < 10 ? "%.1f %s" : "%.0f %s", value, units[u]);
  return text;
}

std::string ProgressLine(const explore::SearchStats& st,
                         const std::optional<world::Millis>& horizon, uint64_t resident,
                         uint64_t max_memory, size_t width) {
  struct Field {
    std::string text;
    int keep;  // the higher, the longer it stays as the line narrows
  };
  std::vector<Field> fields;
  fields.push_back({Thousands(st.states) + " states", 9});
  fields.push_back({Thousands(st.transitions) + " transitions", 5});
  fields.push_back({Thousands(st.waiting) + " waiting", 7});
  fields.push_back({"depth " + std::to_string(st.max_depth), 4});
  if (st.clock_reached) {
    fields.push_back({"clock " + std::to_string(*st.clock_reached) +
                          (horizon ? " of " + std::to_string(*horizon) : ""),
                      6});
  }
  if (resident > 0) {
    fields.push_back(
        {"memory " + RoundedSize(resident) + (max_memory ? " of " + RoundedSize(max_memory) : ""),
         8});
  }
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f s", st.elapsed_s);
  fields.push_back({seconds, 3});
  auto joined = [&] {
    std::string line;
    for (const Field& f : fields) line += "  " + f.text;
    return line;
  };
  std::string line = joined();
  while (width > 0 && line.size() >= width && fields.size() > 1) {
    auto least = fields.begin();
    for (auto it = fields.begin(); it != fields.end(); ++it) {
      if (it->keep < least->keep) least = it;
    }
    fields.erase(least);
    line = joined();
  }
  return line;
}

std::string MemoryText(const explore::SearchStats& st, uint64_t peak_resident, uint64_t texts_bytes,
                       uint64_t programs_bytes) {
  if (peak_resident == 0) return "";
  const uint64_t known = st.memory_bytes + st.automata_bytes + texts_bytes;
  std::string text = "memory: peak " + RoundedSize(peak_resident) + " resident: ";
  text += st.memory_bytes ? "the visited table " + RoundedSize(st.memory_bytes) + ", " : "";
  text += "the clients' automata about " + RoundedSize(st.automata_bytes) + " (" +
          Thousands(st.automata_states) + " states, " + Thousands(st.automata_transitions) +
          " transitions learned" +
          (st.automata_forgets ? ", forgotten " + Thousands(st.automata_forgets) +
                                     " times to bound their memory, then learned again"
                               : std::string()) +
          "), the keys, values and replies kept " + RoundedSize(texts_bytes);
  if (peak_resident > known) {
    text += ", the rest " + RoundedSize(peak_resident - known) +
            " (the search's stack or queue, the fibers' stacks, the program)";
  }
  if (programs_bytes > 0) {
    text += "; besides, the programs clients ran, with what they started, " +
            RoundedSize(programs_bytes) + " at most";
  }
  return text + "\n";
}

nlohmann::json MemoryJson(const explore::SearchStats& st, uint64_t peak_resident,
                          uint64_t texts_bytes, uint64_t programs_bytes) {
  return {{"peak_resident_bytes", peak_resident},
          {"programs_peak_resident_bytes", programs_bytes},
          {"table_bytes", st.memory_bytes},
          {"texts_bytes", texts_bytes},
          {"automata_bytes", st.automata_bytes},
          {"automata_states", st.automata_states},
          {"automata_transitions", st.automata_transitions},
          {"automata_forgets", st.automata_forgets}};
}

uint64_t PeakResidentBytes() {
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // kilobytes on Linux
}

}  // namespace lockstep::cli
