// Static pictures of a trace, for slides and pages: the space-time diagram
// of diagram.h as SVG, and as one self-contained HTML page (the SVG inline
// and a table of the steps; no scripts, nothing fetched).
//
// Both are pure functions of the trace: the same trace gives byte-identical
// output. The SVG marks its parts for readers and tests: each lane is a
// <g class="lane" data-client="C1">, each step's box a
// <rect class="step-box" data-step="N">, each bar a
// <rect class="bar holding|critical-section">, and the violation a
// <g class="violation-marker" data-step="N"> drawn in palette::kViolation.
#pragma once

#include <string>

#include "sim/trace/diagram.h"
#include "sim/trace/trace.h"

namespace lockstep::trace {

// The size the diagram's geometry is laid out for.
inline constexpr double kDiagramFontSize = 12;

struct PictureOptions {
  DiagramOptions diagram;               // which steps and lanes
  double font_size = kDiagramFontSize;  // the whole picture scales with it
};

// A standalone SVG document (with an XML declaration).
std::string RenderSvg(const Trace& t, const PictureOptions& options = {});

// An HTML5 page: title, the scenario's description, the diagram, the steps.
std::string RenderHtml(const Trace& t, const PictureOptions& options = {});

// Escapes &, <, >, " and ' for XML text and attribute values.
std::string XmlEscape(const std::string& s);

}  // namespace lockstep::trace
