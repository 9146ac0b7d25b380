// The terminal timeline: one row per step, one column per client.
#include <algorithm>
#include <sstream>

#include "sim/trace/trace.h"

namespace lockstep::trace {
namespace {

std::string EntriesText(const std::vector<kv::Entry>& entries,
                        const std::map<std::string, std::string>& writers) {
  std::string s;
  for (const kv::Entry& e : entries) {
    if (!s.empty()) s += "  ";
    s += e.key + "=";
    if (e.kind == kv::Entry::Kind::kList) {
      s += "(list of " + std::to_string(e.list.size()) + ")";
    } else {
      s += "\"" + e.value + "\"";
    }
    if (e.deadline) s += " until " + std::to_string(*e.deadline);
    auto w = writers.find(e.key);
    if (w != writers.end()) s += " by " + w->second;
  }
  return s.empty() ? "(empty)" : s;
}

// One server's keyspace, or with several each one's: "S1: ... | S2: ...".
std::string KeyspaceText(const world::StepRecord& r) {
  if (r.servers.empty()) return EntriesText(r.keyspace, r.writers);
  std::string s;
  for (const world::ServerRecord& sv : r.servers) {
    if (!s.empty()) s += " | ";
    s += sv.name;
    if (sv.role != "master") s += " (" + sv.role + ")";
    if (!sv.available) s += " (down)";
    if (sv.role == "failed") continue;
    s += ": " + EntriesText(sv.keyspace, sv.writers);
    if (sv.unreplicated > 0) s += " +" + std::to_string(sv.unreplicated) + " unreplicated";
  }
  return s;
}

std::string Join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

}  // namespace

std::string Timeline(const Trace& t) {
  const size_t n = t.clients.size();
  // Rows of cells: step, clock, one per client, critical section, keyspace.
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"step", "clock"};
  for (const ClientInfo& c : t.clients) {
    std::string h = c.name;
    if (c.skew != 0)
      h += " (skew " + std::string(c.skew > 0 ? "+" : "") + std::to_string(c.skew) + ")";
    header.push_back(h);
  }
  header.push_back("in CS");
  header.push_back("keyspace after the step");
  rows.push_back(header);

  for (const world::StepRecord& r : t.steps) {
    std::vector<std::string> row(n + 4);
    row[0] = std::to_string(r.index);
    row[1] = std::to_string(r.global_time);
    for (size_t i = 0; i < n; ++i) {
      const std::string& name = t.clients[i].name;
      std::string cell;
      if (r.index == 0) {
        if (t.clients[i].crashed_at_start) cell = "(crashed)";
      } else if (r.actor == name) {
        switch (r.action.kind) {
          case world::Action::Kind::kCrash:
            cell = "CRASHES";
            break;
          case world::Action::Kind::kStall:
            cell = "STALLS (clock passes its bound)";
            break;
          case world::Action::Kind::kLoseRequest:
          case world::Action::Kind::kLoseReply:
          case world::Action::Kind::kStep: {
            if (r.command.empty()) {
              cell = "leaves CS";
            } else {
              cell = (r.server.empty() ? "" : r.server + ": ") + CommandText(r.command);
              if (r.action.kind == world::Action::Kind::kLoseRequest) {
                cell += " -> request LOST";
              } else if (r.reply) {
                cell += " -> " + CompactReply(*r.reply);
                if (r.action.kind == world::Action::Kind::kLoseReply) cell += ", reply LOST";
              }
              if (r.action.arg_age > 0)
                cell += " (args " + std::to_string(r.action.arg_age) + " ticks old)";
            }
            break;
          }
          default:
            break;
        }
      }
      for (const std::string& e : r.events) {
        if (e == name + " enters the critical section") cell += " [enters CS]";
        if (e == name + " wakes") cell += cell.empty() ? "(wakes)" : " (wakes)";
        if (e == name + " times out") cell += cell.empty() ? "(times out)" : " (times out)";
      }
      row[2 + i] = cell;
    }
    if (r.index > 0 && (r.action.kind == world::Action::Kind::kTick ||
                        r.action.kind == world::Action::Kind::kStall)) {
      row[1] = "tick " + row[1];
    }
    // Server actions name their server when there are several.
    const std::string on = r.servers.empty() ? "" : r.actor + " ";
    if (r.action.kind == world::Action::Kind::kJump) row[1] = "jump " + on + row[1];
    if (r.action.kind == world::Action::Kind::kRestart) row[1] = "RESTART " + on + row[1];
    if (r.action.kind == world::Action::Kind::kReplicate) row[1] = "replicate " + on + row[1];
    if (r.action.kind == world::Action::Kind::kFailover) row[1] = "FAILOVER " + on + row[1];
    row[n + 2] = Join(r.in_critical_section, ",");
    row[n + 3] = KeyspaceText(r);
    rows.push_back(row);
  }

  std::vector<size_t> width(n + 4, 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::ostringstream out;
  for (size_t ri = 0; ri < rows.size(); ++ri) {
    const auto& row = rows[ri];
    bool violating = ri > 0 && t.violation && t.steps[ri - 1].index == t.violation->step;
    std::string line = violating ? "!! " : "   ";
    for (size_t c = 0; c < row.size(); ++c) {
      std::string cell = row[c];
      if (c < 2) cell = std::string(width[c] - cell.size(), ' ') + cell;  // right-align numbers
      line += (c + 1 == row.size()) ? cell : Pad(cell, width[c]) + "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
    if (ri == 0) {
      std::string rule = "   ";
      for (size_t c = 0; c < row.size(); ++c) rule += std::string(width[c], '-') + "  ";
      while (rule.back() == ' ') rule.pop_back();
      out << rule << "\n";
    }
  }
  if (t.violation) {
    out << "VIOLATION of " << t.violation->property << " at step " << t.violation->step << ": "
        << t.violation->message << "\n";
  } else {
    out << "no violation (" << t.end << ", " << (t.steps.size() - 1) << " steps)\n";
  }
  return out.str();
}

}  // namespace lockstep::trace
