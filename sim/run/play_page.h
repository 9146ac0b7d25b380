// The scheduler game as one self-contained web page (`lockstep render
// SCENARIO --play-html game.html`): a student is the scheduler, as in the
// viewer's play mode, in any browser and without a build.
//
// The page carries the scenario's whole reachable state graph, explored
// without symmetry or partial-order reduction so that every choice is
// shown, up to a bound on its size; each state carries its distance to the
// nearest violation, so the hint needs no search in the browser. Nothing is
// fetched: the data, the script and the styles are in the page.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/lang/language.h"
#include "sim/scenario/scenario.h"

namespace lockstep::run {

// The most states a page carries by default: a few megabytes of page.
inline constexpr uint64_t kPlayPageMaxStates = 20'000;
// The most bytes of data a page carries: what a browser opens at once. Long
// texts (reasons, values) can make even a few states too large.
inline constexpr uint64_t kPlayPageMaxBytes = uint64_t{64} << 20;

// The game's graph as the page reads it: "states" (each with its clocks,
// keyspace, critical section, moves and distance to the nearest violation)
// and the scenario's name, description and clients. Throws
// base::InputError (naming `file`) if the graph has more than `max_states`
// states or its data more than `max_bytes`, saying which bound it passed.
nlohmann::json PlayGraph(const scenario::Scenario& s, const std::string& file,
                         uint64_t max_states = kPlayPageMaxStates,
                         uint64_t max_bytes = kPlayPageMaxBytes);

// The page, in `language`: the template with its words and the graph in it,
// the graph's recorded texts (goal, events, why-lines) shown in that
// language beside the data.
std::string PlayPage(const nlohmann::json& graph, lang::Language language = lang::Language::kEn);

// The page's words in `language`, by the names its script reads.
nlohmann::json PageWords(lang::Language language);

// The template (play_page.html, embedded when lockstep is built).
const char* PlayPageTemplate();

}  // namespace lockstep::run
