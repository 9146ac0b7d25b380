// The trace pane's side panels: the state after the cursor's step (clients
// and keyspaces) and the algorithm's source around the step's line.
#include <algorithm>

#include "sim/base/join.h"
#include "sim/base/printable.h"
#include "sim/trace/sources.h"
#include "viewer/trace_pane.h"

namespace lockstep::viewer {

using base::Join;

namespace {

// One server's keyspace after a step: key, value, TTL by its clock, writer.
void KeyspaceTable(const char* id, const std::vector<kv::Entry>& keyspace,
                   const std::map<std::string, std::string>& writers, world::Millis clock) {
  if (keyspace.empty()) {
    ImGui::TextDisabled("(empty)");
    return;
  }
  const ImGuiTableFlags flags =
      ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable(id, 4, flags)) return;
  ImGui::TableSetupColumn("key");
  ImGui::TableSetupColumn("value");
  ImGui::TableSetupColumn("TTL");
  ImGui::TableSetupColumn("writer");
  ImGui::TableHeadersRow();
  for (const kv::Entry& e : keyspace) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(e.key.str().c_str());
    ImGui::TableNextColumn();
    if (e.kind != kv::Entry::Kind::kString) {
      ImGui::TextUnformatted(base::Printable(kv::ItemsSummary(e)).c_str());
    } else {
      ImGui::Text("\"%s\"", e.value.str().c_str());
    }
    ImGui::TableNextColumn();
    if (e.deadline) {
      ImGui::Text("%lld (until %lld)", static_cast<long long>(*e.deadline - clock),
                  static_cast<long long>(*e.deadline));
    } else {
      ImGui::TextDisabled("none");
    }
    ImGui::TableNextColumn();
    auto w = writers.find(e.key);
    ImGui::TextUnformatted(w != writers.end() ? w->second.c_str() : "");
  }
  ImGui::EndTable();
}

}  // namespace

void TracePane::DrawStatePanel() {
  if (trace_.steps.empty()) return;
  const world::StepRecord& r = trace_.steps[static_cast<size_t>(cursor_)];
  if (r.index == 0) {
    ImGui::Text("Step 0 of %d: the initial state", last_step());
  } else {
    ImGui::Text("Step %d of %d: %s", r.index, last_step(), trace::StepLine(r).c_str());
  }
  ImGui::Text("Global clock: %lld", static_cast<long long>(r.global_time));
  if (trace_.violation && trace_.violation->step == r.index && r.index > 0) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(Col4(trace::palette::kViolation), "VIOLATION of %s: %s",
                       trace_.violation->property.c_str(), trace_.violation->message.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::Separator();
  const ImGuiTableFlags flags =
      ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("clients", 3, flags)) {
    ImGui::TableSetupColumn("client");
    ImGui::TableSetupColumn("clock");
    ImGui::TableSetupColumn("state");
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < trace_.clients.size(); ++i) {
      const std::string& name = trace_.clients[i].name;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(name.c_str());
      ImGui::TableNextColumn();
      if (i < r.client_clocks.size())
        ImGui::Text("%lld", static_cast<long long>(r.client_clocks[i]));
      ImGui::TableNextColumn();
      const bool in_cs = std::find(r.in_critical_section.begin(), r.in_critical_section.end(),
                                   name) != r.in_critical_section.end();
      const bool holds = std::find(r.holding.begin(), r.holding.end(), name) != r.holding.end();
      // What the trace says of the client up to here: crashed or finished
      // stay so; otherwise it is running (or waiting on its clock).
      std::string state = in_cs ? "in the critical section" : holds ? "holds the lock" : "running";
      for (int k = 1; k <= cursor_; ++k) {
        const world::StepRecord& step = trace_.steps[static_cast<size_t>(k)];
        if (step.action.kind == world::Action::Kind::kCrash &&
            step.action.client == static_cast<int>(i)) {
          state = "crashed";
        }
        for (const std::string& e : step.events) {
          if (e == name + " finishes") state = "finished";
        }
      }
      if (trace_.clients[i].crashed_at_start) state = "crashed at start";
      if (in_cs) {
        ImGui::TextColored(Col4(trace::palette::kCritical), "%s", state.c_str());
      } else {
        ImGui::TextUnformatted(state.c_str());
      }
    }
    ImGui::EndTable();
  }
  if (!r.events.empty()) ImGui::Text("Events: %s", Join(r.events, "; ").c_str());
  if (!r.source.empty()) ImGui::Text("Source: %s", r.source.c_str());
  for (const world::StepRecord::Why& w : r.reasons) {
    ImGui::TextWrapped("Why (%s): %s  [%s]", w.client.c_str(), w.reason.text.c_str(),
                       w.reason.source.c_str());
  }
  ImGui::Text("In the critical section: %s",
              r.in_critical_section.empty() ? "nobody" : Join(r.in_critical_section, ", ").c_str());
  ImGui::Text("Believe they hold the lock: %s",
              r.holding.empty() ? "nobody" : Join(r.holding, ", ").c_str());
  ImGui::Separator();
  if (r.servers.empty()) {
    ImGui::TextUnformatted("Server keyspace after the step:");
    KeyspaceTable("keyspace", r.keyspace, r.writers, r.global_time);
  }
  for (const world::ServerRecord& sv : r.servers) {
    ImGui::Text("%s (%s%s), clock %lld, after the step:", sv.name.c_str(), sv.role.c_str(),
                sv.available ? "" : ", restarting", static_cast<long long>(sv.clock));
    if (sv.role != "failed")
      KeyspaceTable(("keyspace " + sv.name).c_str(), sv.keyspace, sv.writers, sv.clock);
  }
  DrawSourcePanel();
}

// Each client's current line in its algorithm's source (as The Deadlock
// Empire shows each thread's): the line its latest step up to the cursor
// came from, with two lines either side.
void TracePane::DrawSourcePanel() {
  if (sources_.empty()) return;
  ImGui::Separator();
  ImGui::TextUnformatted("Where each client is in its algorithm:");
  for (size_t i = 0; i < trace_.clients.size(); ++i) {
    std::string source;
    for (int k = cursor_; k > 0 && source.empty(); --k) {
      const world::StepRecord& r = trace_.steps[static_cast<size_t>(k)];
      if (r.action.client == static_cast<int>(i)) source = r.source;
    }
    const auto at = trace::ParseSourceLine(source);
    if (!at || !sources_.count(at->first)) continue;
    ImGui::Text("%s at %s", trace_.clients[i].name.c_str(), source.c_str());
    const std::string& text = sources_.at(at->first);
    int n = 0;
    for (size_t pos = 0; pos < text.size();) {
      size_t end = text.find('\n', pos);
      if (end == std::string::npos) end = text.size();
      ++n;
      if (n >= at->second - 2 && n <= at->second + 2) {
        const std::string line = std::to_string(n) + "  " + text.substr(pos, end - pos);
        if (n == at->second) {
          ImGui::TextColored(Col4(trace::palette::kHolding), "%s", line.c_str());
        } else {
          ImGui::TextDisabled("%s", line.c_str());
        }
      }
      pos = end + 1;
    }
  }
}

}  // namespace lockstep::viewer
