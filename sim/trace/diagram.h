// The space-time diagram of a trace, as geometry: what to draw and where,
// in pixels, so that every renderer (SVG, HTML, the viewer) draws the same
// picture. Time flows down, one row per step (row 0 is the initial state);
// one lane per client, left to right in the trace's order, then one column
// per server.
//
// In each row the acting client's lane holds a box with its command and
// reply; with several servers an arrow leads from it to the server that ran
// it. At the left edge of a lane, two bars span the rows in which the
// client believes it holds the lock and in which it is inside the critical
// section. A server's column shows the lock key's value on that server, its
// writer and its TTL by that server's clock, over time; a server's faults
// (restart, failover, a clock jump) and replication are boxes in its own
// column. The violating step is marked in kViolation, a colour used for
// nothing else, and the property's message is printed under the rows.
//
// The layout is a pure function of the trace: the same trace gives the same
// numbers, so renderings are byte-identical. Text widths are estimated for a
// monospaced font of about 7 pixels per character.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/trace/trace.h"

namespace lockstep::trace {

struct Box {
  double x = 0, y = 0, w = 0, h = 0;
  double right() const { return x + w; }
  double bottom() const { return y + h; }
  bool Contains(double px, double py) const {
    return px >= x && px < x + w && py >= y && py < y + h;
  }
};

// Colours as 0xRRGGBB, shared by the renderers so that tests can look for
// them in pictures.
namespace palette {
inline constexpr uint32_t kBackground = 0xFFFFFF;
inline constexpr uint32_t kLaneHeader = 0x34435E;  // lane title bands
inline constexpr uint32_t kLaneHeaderText = 0xFFFFFF;
inline constexpr uint32_t kLaneBody = 0xF2F5F9;
inline constexpr uint32_t kLaneBodyAlt = 0xE8EDF4;
inline constexpr uint32_t kGrid = 0xD5DBE4;
inline constexpr uint32_t kText = 0x1B1F24;
inline constexpr uint32_t kMutedText = 0x6A7381;
inline constexpr uint32_t kBoxFill = 0xFFFFFF;
inline constexpr uint32_t kBoxBorder = 0x8A94A6;
inline constexpr uint32_t kFaultFill = 0x4A4F57;
inline constexpr uint32_t kFaultText = 0xFFFFFF;
inline constexpr uint32_t kHolding = 0x2F6FDE;   // believes it holds the lock
inline constexpr uint32_t kCritical = 0x1E9E4A;  // inside the critical section
inline constexpr uint32_t kWarning = 0xB45F06;   // a step's stale arguments
inline constexpr uint32_t kKeyFill = 0xEFE7FA;
inline constexpr uint32_t kKeyBorder = 0x7D5BA6;
inline constexpr uint32_t kDownFill = 0xE1E4EA;   // a server that is restarting or failed
inline constexpr uint32_t kViolation = 0xE8112D;  // the violation marker, nothing else
inline constexpr uint32_t kViolationBand = 0xFDE3E6;
inline constexpr uint32_t kCycle = 0xD9822B;       // a lasso's cycle, first turn
inline constexpr uint32_t kCycleAgain = 0xF0C79A;  // ...and its second
}  // namespace palette

enum class StepKind {
  kStart,    // row 0: the initial state
  kCommand,  // a client's step (a command, or leaving its critical section)
  kTick,     // the global clock advanced
  kFault,    // a fault of a client: crash, stall, a lost request or reply
  kServer,   // a server's fault or replication: drawn in its column (ServerEvent)
};

struct DiagramStep {
  int index = 0;
  StepKind kind = StepKind::kStart;
  int lane = -1;                   // the acting client's lane; -1 if none
  int server = -1;                 // several servers: the column the command went to
  std::string action;              // as scheduled: "C1", "tick", "crash C3"
  std::string command;             // "SETNX lock.foo 13", "leaves CS", "CRASH", ""
  std::string reply;               // "0", "\"7\"", nil ...; empty if none
  std::vector<std::string> notes;  // "enters CS", "wakes"
  std::string warning;             // "args 1 tick old": drawn after the notes, in its colour
  // Why (Client::Because): the actor's reasons, wrapped to its lane, drawn
  // under the box's reply line; and where its algorithm made the request.
  std::vector<std::string> why;
  std::string source;
  // Other clients this step resumed (woken by a tick): "wakes" and what
  // they said, drawn in their lanes without a box.
  struct LaneNote {
    int lane = 0;
    std::vector<std::string> lines;
  };
  std::vector<LaneNote> lane_notes;
  world::Millis clock = 0;  // global clock after the step
  bool violating = false;
  // A liveness counterexample's cycle (Trace::lasso): 1 in its first turn,
  // 2 in the second, drawn as a bar beside the step numbers; 0 outside.
  int cycle_turn = 0;
  Box cycle_bar;
  Box row;  // the whole row, across every column
  Box box;  // the step's box (kCommand, kFault with a lane)
  // Several servers: from the box's right edge to the server's column, at
  // the row's middle; drawn under the columns it passes.
  struct Arrow {
    double x1 = 0, x2 = 0, y = 0;
  };
  std::optional<Arrow> arrow;
};

enum class BarKind { kHolding, kCritical };

struct Bar {
  int lane = 0;
  BarKind kind = BarKind::kHolding;
  int from_row = 0;  // the first row after which the client is in the state
  int to_row = -1;   // the first row after which it no longer is; -1: to the end
  Box box;
};

// An interval of rows over which the lock key kept one value on a server.
struct KeySpan {
  int from_row = 0;
  int to_row = 0;  // last row of the span, inclusive
  bool present = false;
  bool down = false;  // the server is restarting or has failed over
  std::string value;
  std::string writer;  // empty if unknown
  std::optional<world::Millis> deadline;
  std::string label;                 // "\"13\" by C1", "(no key)", "(down)"
  std::vector<std::string> details;  // per row from from_row: "until 13  ttl 3", "no TTL"
  Box box;
};

// A server's fault, or a write replicated to it, in the server's column.
struct ServerEvent {
  int step = 0;
  int column = 0;
  std::string label;  // "RESTART", "FAILOVER", "JUMP +4", "REPLICATED"
  std::string note;   // what it did to the lock key: "lock.foo lost", "clock 3 -> 7"
  bool fault = true;  // replication is not a fault
  Box box;
};

struct ServerColumn {
  std::string name;      // empty with one server
  std::string role;      // in the first row: "master", "replica"; empty with one server
  std::string title;     // "S1 (master)", or with one server the lock key
  std::string subtitle;  // the lock key, or "value, writer, TTL"
  Box header;
  Box body;
  std::vector<KeySpan> spans;
};

struct Lane {
  std::string name;
  std::string algorithm;  // empty for a client crashed before the run
  world::Millis skew = 0;
  bool crashed_at_start = false;
  Box header;  // the title band
  Box body;    // the lane below the header, over every row
};

// A step's notes on one line, each set apart: "leaves CS; finishes".
inline std::string NotesText(const DiagramStep& s) {
  std::string text;
  for (const std::string& n : s.notes) text += (text.empty() ? "" : "; ") + n;
  return text;
}

// The second line of a lane's header: its algorithm, or "crashed" for a
// client crashed before the run (whose lane is narrow).
inline std::string LaneSubtitle(const Lane& l) {
  return l.crashed_at_start ? "crashed" : l.algorithm;
}

struct Marker {
  int step = 0;
  std::string property;
  std::vector<std::string> clients;
  std::string message;
  std::string headline;  // "VIOLATION of mutual_exclusion at step 8"
  Box flag;              // the filled square in the step column of the violating row
  Box banner;            // the message under the rows
};

struct Diagram {
  std::string title;     // the scenario's name
  std::string lock_key;  // the key shown in the servers' columns
  std::vector<Lane> lanes;
  std::vector<DiagramStep> steps;  // steps[i] is row i (step i unless DiagramOptions cut them)
  std::vector<Bar> bars;
  std::vector<ServerColumn> servers;  // one per server, in the trace's order
  std::vector<ServerEvent> server_events;
  std::optional<Marker> marker;
  Box step_column, clock_column;  // headers of the side columns
  Box legend;
  double width = 0, height = 0;
  double row_height = 0;   // of a row with nothing to explain; rows with reasons are taller
  double line_height = 0;  // of each line of a reason or a lane note
};

// What part of a trace to draw, for slides.
struct DiagramOptions {
  int from_step = 0;       // the first row: this step (0: the initial state)
  int to_step = -1;        // the last row: this step (-1: the last one)
  bool hide_idle = false;  // leave out the lanes of clients that do nothing in those rows
};

// Lays out the trace. Throws base::InputError if the options' steps are not
// the trace's.
Diagram Layout(const Trace& t, const DiagramOptions& options = {});

// The width, in pixels, the layout allows for `text` at the diagram's font
// (12 pixels, monospaced): what boxes are sized by.
double TextWidth(const std::string& text);

// What each step did to the servers, for every picture of the trace:
// events[i] are step i's (empty unless it is a server's fault or
// replication), their boxes not laid out.
std::vector<std::vector<ServerEvent>> ServerEvents(const Trace& t);

// The lock key of a trace: its scenario's "lock"/"key" if some step holds
// it or none holds any key, else the first key that appears in any step,
// else "".
std::string LockKeyOf(const Trace& t);

// "#E8112D"
std::string HexColour(uint32_t rgb);

}  // namespace lockstep::trace
