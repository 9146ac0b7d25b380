#include "sim/run/play_page.h"

#include <deque>
#include <unordered_map>

#include "sim/base/input_error.h"
#include "sim/explore/execution.h"
#include "sim/explore/state_space.h"
#include "sim/lang/catalogue.h"
#include "sim/lang/translate.h"
#include "sim/trace/sources.h"
#include "sim/trace/trace.h"

namespace lockstep::run {
namespace {

using lang::Msg;
using nlohmann::json;

// What the page shows of a state: clocks, who is inside or holds, and each
// server's keyspace.
json StateJson(const world::StepRecord& r, const std::vector<std::string>& names) {
  json clocks = json::object();
  for (size_t i = 0; i < names.size() && i < r.client_clocks.size(); ++i) {
    clocks[names[i]] = r.client_clocks[i];
  }
  json servers = json::array();
  if (r.servers.empty()) {
    servers.push_back({{"name", ""}, {"keyspace", trace::EntriesText(r.keyspace, r.writers)}});
  }
  for (const world::ServerRecord& sv : r.servers) {
    servers.push_back(
        {{"name", sv.name + " (" + sv.role + (sv.available ? "" : ", down") + ")"},
         {"keyspace",
          sv.role == "failed" ? "(failed)" : trace::EntriesText(sv.keyspace, sv.writers)}});
  }
  return {{"clock", r.global_time},
          {"clocks", clocks},
          {"cs", r.in_critical_section},
          {"holding", r.holding},
          {"servers", servers}};
}

// What the page shows of a move: the command and reply, the events and the
// reasons with their source lines.
json StepJson(const world::StepRecord& r) {
  json why = json::array();
  for (const world::StepRecord::Why& w : r.reasons) {
    why.push_back({{"client", w.client}, {"text", w.reason.text}, {"source", w.reason.source}});
  }
  std::string command = trace::CommandText(r.command);
  if (!r.server.empty() && !command.empty()) command = r.server + ": " + command;
  return {{"command", command},
          {"reply", r.reply ? trace::CompactReply(*r.reply) : ""},
          {"events", r.events},
          {"why", why},
          {"source", r.source}};
}

// The ghost facts of a move, for the debrief: the value its command read
// and who wrote it, and each lock (a value some client's acquisition owns)
// the step removed or replaced, and by whom: a command, expiry or a fault
// (`action_text` names the step's action).
json FactsJson(const world::Model& model, const world::WorldState& before,
               const world::WorldState& after, const world::StepRecord& r,
               const world::StepEffects& effects, const std::string& action_text) {
  const std::vector<std::string>& writers = model.writer_names();
  auto name = [&](int w) {
    return w >= 0 && static_cast<size_t>(w) < writers.size() ? writers[w] : "";
  };
  json facts = json::object();
  if (effects.ran && r.command.size() >= 2 && r.reply && r.reply->type == kv::Reply::Type::kBulk) {
    const world::ValueGhost g =
        world::Model::GhostOf(before.servers[static_cast<size_t>(effects.server)], r.command[1]);
    facts["read"] = {{"key", r.command[1]},
                     {"value", trace::CompactReply(*r.reply)},
                     {"writer", name(g.writer)}};
  }
  // Without a command, time removed it (a tick, a stall, a clock jump), or a
  // fault such as a restart or a failover did.
  using Kind = world::Action::Kind;
  const Kind kind = r.action.kind;
  const std::string lapse = kind == Kind::kTick || kind == Kind::kStall || kind == Kind::kJump
                                ? "expiry"
                                : action_text.substr(0, action_text.find(' '));
  json removed = json::array();
  for (size_t i = 0; i < before.servers.size() && i < after.servers.size(); ++i) {
    const int server = static_cast<int>(i);
    for (const kv::Entry& entry : before.servers[i].keyspace.entries()) {
      const std::string& key = entry.key;
      const world::ValueGhost was = world::GhostIn(entry);
      if (was.owner < 0) continue;  // no acquisition holds it: not a lock
      const bool gone = !after.servers[i].keyspace.Find(key, model.ServerClock(after, server));
      const world::ValueGhost now = world::Model::GhostOf(after.servers[i], key);
      if (!gone && now.owner == was.owner) continue;
      const bool by_command = effects.ran && static_cast<size_t>(effects.server) == i &&
                              std::find(r.command.begin(), r.command.end(), key) != r.command.end();
      removed.push_back({{"key", key},
                         {"of", name(was.owner)},
                         {"by", by_command ? r.actor : ""},
                         {"how", by_command ? r.command[0] : lapse},
                         {"gone", gone}});
    }
  }
  if (!removed.empty()) facts["removed"] = std::move(removed);
  return facts;
}

// What the player is asked to do, before play: the goal, not the answer
// (the scenario's description tells the story, shown after the end).
// In English, as the graph's data: the page shows it in its language.
std::string Goal(const scenario::Scenario& s) {
  constexpr lang::Language en = lang::Language::kEn;
  if (s.expect.stated && s.expect.safe) return lang::Text(Msg::kGoalFix, en);
  const std::string& p = s.expect.property;
  if (p == "mutual_exclusion") return lang::Text(Msg::kGoalMutualExclusion, en);
  if (p.empty()) return lang::Text(Msg::kGoalAnyProperty, en);
  return lang::Format(Msg::kGoalProperty, en, {p});
}

// The page's words and the script's name for each.
struct PageWord {
  const char* key;
  Msg id;
};
constexpr PageWord kPageWords[] = {
    {"title", Msg::kPageTitle},
    {"heading", Msg::kPageHeading},
    {"your_goal", Msg::kPageYourGoal},
    {"story", Msg::kPageStory},
    {"your_move", Msg::kPageYourMove},
    {"undo", Msg::kPageUndo},
    {"restart", Msg::kPageRestart},
    {"hint", Msg::kPageHint},
    {"keys", Msg::kPageKeys},
    {"now", Msg::kPageNow},
    {"move", Msg::kPageMove},
    {"with_age", Msg::kPageWithAge},
    {"with_ages", Msg::kPageWithAges},
    {"next_step", Msg::kPageNextStep},
    {"tick", Msg::kPageTick},
    {"crash", Msg::kPageCrash},
    {"stall", Msg::kPageStall},
    {"over", Msg::kPageOver},
    {"nothing_left", Msg::kPageNothingLeft},
    {"choose", Msg::kPageChoose},
    {"clocks", Msg::kPageClocks},
    {"in_cs", Msg::kPageInCs},
    {"holding", Msg::kPageHolding},
    {"nobody", Msg::kPageNobody},
    {"keyspace", Msg::kPageKeyspace},
    {"lane_step", Msg::kPageLaneStep},
    {"lane_clock", Msg::kPageLaneClock},
    {"lane_keyspace", Msg::kPageLaneKeyspace},
    {"lane_tick", Msg::kPageLaneTick},
    {"debrief_step", Msg::kPageDebriefStep},
    {"read", Msg::kPageRead},
    {"read_by", Msg::kPageReadBy},
    {"expired", Msg::kPageExpired},
    {"lost_to", Msg::kPageLostTo},
    {"removed_own", Msg::kPageRemovedOwn},
    {"replaced_own", Msg::kPageReplacedOwn},
    {"removed", Msg::kPageRemoved},
    {"replaced", Msg::kPageReplaced},
    {"entered_believing", Msg::kPageEnteredBelieving},
    {"entered", Msg::kPageEntered},
    {"win", Msg::kPageWin},
    {"win_text", Msg::kPageWinText},
    {"win_texts", Msg::kPageWinTexts},
    {"broke", Msg::kPageBroke},
    {"violation_at", Msg::kPageViolationAt},
    {"how", Msg::kPageHow},
    {"story_so_far", Msg::kPageStorySoFar},
    {"hint_none", Msg::kPageHintNone},
    {"hint_away", Msg::kPageHintAway},
    {"hint_aways", Msg::kPageHintAways},
    {"hint_end", Msg::kPageHintEnd},
    {"code_next", Msg::kPageCodeNext},
    {"code_last", Msg::kPageCodeLast},
};
// Every kPage message, each once and in order: a word added to the
// catalogue for the page reaches the script.
constexpr bool PageWordsComplete() {
  int next = static_cast<int>(Msg::kPageTitle);
  for (const PageWord& w : kPageWords) {
    if (static_cast<int>(w.id) != next++) return false;
  }
  return next == static_cast<int>(Msg::kPageCodeLast) + 1;
}
static_assert(PageWordsComplete(), "kPageWords names every kPage message, in order");

// The graph's recorded texts as `language` shows them, beside the data the
// script reads (events and reasons stay as recorded: the script tells
// moves apart by them).
void ShowIn(json& graph, lang::Language language) {
  graph["goal"] = lang::Shown(graph["goal"], language);
  if (language == lang::Language::kEn) return;
  auto show_violation = [&](json& holder) {
    if (holder.contains("violation")) {
      json& v = holder["violation"];
      v["shown"] = lang::Shown(v["message"], language);
    }
  };
  for (json& state : graph["states"]) {
    show_violation(state);
    for (json& m : state["moves"]) {
      json shown = json::array();
      for (const json& e : m["events"]) shown.push_back(lang::Shown(e, language));
      m["shown_events"] = std::move(shown);
      for (json& w : m["why"]) w["shown"] = lang::Shown(w["text"], language);
      show_violation(m);
    }
  }
}

}  // namespace

json PlayGraph(const scenario::Scenario& s, const std::string& file, uint64_t max_states,
               uint64_t max_bytes) {
  const explore::Properties properties = explore::MakeProperties(s.properties);
  // Every choice is shown: no symmetry, no sleep sets; states that differ
  // only in what a client has forgotten are one (their futures are).
  explore::StateSpace space(s.world, properties,
                            {.forget_history = true,
                             .abstract_identity = true,
                             .symmetry = false,
                             .max_steps = s.max_steps,
                             .ghost = 0});
  world::Model& model = space.model();
  const std::vector<std::string>& names = model.client_names();
  const std::vector<std::string>& servers = model.server_names();

  struct Move {
    world::Action action;
    int to = -1;  // the state it leads to; -1 if it breaks a property
    json step;
    std::optional<check::Violation> violation;
  };
  struct Node {
    world::WorldState state;
    int depth = 0;
    json shown;
    std::vector<Move> moves;
    std::optional<check::Violation> end_violation;  // nothing left to do, and that breaks one
  };
  std::vector<Node> nodes;
  std::unordered_map<explore::Fingerprint, int, explore::FingerprintHash> index;
  // The page's data so far: refused as soon as it passes the bound, before
  // it takes the memory of a page no browser opens.
  uint64_t bytes = 0;
  auto count = [&](const json& shown) {
    bytes += shown.dump().size();
    if (bytes > max_bytes) {
      throw base::InputError(file, "",
                             "the game's page would hold more than " +
                                 std::to_string(max_bytes >> 20) +
                                 " MiB of data (long reasons or values in its states and moves): "
                                 "too much for a page; shorter texts, a smaller horizon or fewer "
                                 "clients make it fit");
    }
  };
  auto add = [&](world::WorldState st, int depth, json shown) {
    const explore::Fingerprint f = space.Identity(st);
    auto [it, fresh] = index.try_emplace(f, static_cast<int>(nodes.size()));
    if (fresh) {
      if (nodes.size() >= max_states) {
        throw base::InputError(file, "",
                               "the game has more than " + std::to_string(max_states) +
                                   " states (with every choice shown, nothing merged): too many "
                                   "for a page; a smaller horizon, fewer clients or fewer faults "
                                   "make it fit");
      }
      count(shown);
      nodes.push_back({std::move(st), depth, std::move(shown), {}, std::nullopt});
    }
    return it->second;
  };
  world::WorldState s0;
  if (std::optional<check::Violation> v = space.Initial(&s0)) {
    throw base::InputError(file, "",
                           "the game has nothing to play: its first state already violates " +
                               v->property + " (" + v->message + ")");
  }
  add(s0, 0, StateJson(world::RecordStart(model, s0), names));
  std::vector<world::Action> actions;
  for (size_t at = 0; at < nodes.size(); ++at) {
    const int depth = nodes[at].depth;
    // Ends are judged; the scenario's step bound leaves a state without moves.
    if (space.Offers(nodes[at].state, depth, &actions, &nodes[at].end_violation) !=
        explore::Offer::kActions) {
      continue;
    }
    for (const world::Action& a : actions) {
      world::WorldState next = nodes[at].state;
      world::StepEffects effects;
      std::optional<check::Violation> violation = space.Step(next, a, depth + 1, &effects);
      const world::StepEffects kept = effects;
      world::StepRecord r = world::RecordStep(model, next, depth + 1, a, std::move(effects));
      Move m;
      m.action = a;
      m.step = StepJson(r);
      m.step["facts"] =
          FactsJson(model, nodes[at].state, next, r, kept, world::FormatAction(a, names, servers));
      count(m.step);
      m.step["state"] = StateJson(r, names);
      m.violation = std::move(violation);
      if (!m.violation) {
        m.to = add(std::move(next), depth + 1, m.step["state"]);
        m.step.erase("state");  // the target state shows it
      } else {
        count(m.step["state"]);
      }
      nodes[at].moves.push_back(std::move(m));
    }
  }

  // Distance to the nearest violation, backwards from the moves that break
  // a property and the ends that do.
  std::vector<int> distance(nodes.size(), -1);
  std::vector<std::vector<int>> into(nodes.size());
  std::deque<int> queue;
  for (size_t i = 0; i < nodes.size(); ++i) {
    bool breaks = false;
    for (const Move& m : nodes[i].moves) {
      if (m.violation) breaks = true;
      if (m.to >= 0) into[static_cast<size_t>(m.to)].push_back(static_cast<int>(i));
    }
    if (breaks || nodes[i].end_violation) {
      distance[i] = nodes[i].end_violation ? 0 : 1;
      queue.push_back(static_cast<int>(i));
    }
  }
  // Ends first (0), then one move away (1): process in order of distance.
  std::stable_sort(queue.begin(), queue.end(),
                   [&](int a, int b) { return distance[a] < distance[b]; });
  while (!queue.empty()) {
    const int i = queue.front();
    queue.pop_front();
    for (int from : into[static_cast<size_t>(i)]) {
      if (distance[static_cast<size_t>(from)] < 0) {
        distance[static_cast<size_t>(from)] = distance[static_cast<size_t>(i)] + 1;
        queue.push_back(from);
      }
    }
  }

  json states = json::array();
  for (size_t i = 0; i < nodes.size(); ++i) {
    json moves = json::array();
    for (Move& m : nodes[i].moves) {
      json move = std::move(m.step);
      move["action"] = world::FormatAction(m.action, names, servers);
      move["to"] = m.to;
      if (m.violation) {
        move["violation"] = {{"property", m.violation->property},
                             {"clients", m.violation->clients},
                             {"message", m.violation->message}};
      }
      moves.push_back(std::move(move));
    }
    json state = std::move(nodes[i].shown);
    state["moves"] = std::move(moves);
    state["distance"] = distance[i] < 0 ? json(nullptr) : json(distance[i]);
    if (nodes[i].end_violation) {
      state["violation"] = {{"property", nodes[i].end_violation->property},
                            {"clients", nodes[i].end_violation->clients},
                            {"message", nodes[i].end_violation->message}};
    }
    states.push_back(std::move(state));
  }
  // The algorithms' text behind the moves, for the source panel.
  std::vector<std::string> lines;
  for (const json& state : states) {
    for (const json& m : state["moves"]) {
      lines.push_back(m["source"]);
      for (const json& w : m["why"]) lines.push_back(w["source"]);
    }
  }
  json clients = json::array();
  for (const auto& c : s.world.clients) clients.push_back(c.name);
  return {{"name", s.name},
          {"description", s.description},
          {"goal", Goal(s)},
          {"clients", clients},
          {"expect", s.expect.Text()},
          {"max_steps", s.max_steps},
          {"sources", trace::SourcesNamed(s.document, lines)},
          {"states", std::move(states)}};
}

// JSON for inside a <script> element, where "</script", "<!--" and
// "<script" change how the page parses whatever text holds them. With every
// "<" written as the JSON escape \u003c no text can; the script reads the
// same string.
std::string ScriptData(const json& value) {
  const std::string text = value.dump();
  std::string data;
  data.reserve(text.size());
  for (char c : text) {
    if (c == '<') {
      data += "\\u003c";
    } else {
      data += c;
    }
  }
  return data;
}

json PageWords(lang::Language language) {
  json words = {{"lang", lang::LanguageCode(language)}};
  for (const PageWord& w : kPageWords) words[w.key] = lang::Text(w.id, language);
  return words;
}

std::string PlayPage(const json& graph, lang::Language language) {
  std::string page = PlayPageTemplate();
  json shown = graph;
  ShowIn(shown, language);
  for (const auto& [marker, value] :
       {std::pair<std::string, std::string>{"/*LOCKSTEP_LANG*/en", lang::LanguageCode(language)},
        {"/*LOCKSTEP_WORDS*/null", ScriptData(PageWords(language))},
        {"/*LOCKSTEP_GAME*/null", ScriptData(shown)}}) {
    page.replace(page.find(marker), marker.size(), value);
  }
  return page;
}

}  // namespace lockstep::run
