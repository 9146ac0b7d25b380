// SVG to PNG, for `lockstep render --png`: librsvg draws the SVG with cairo,
// so slides get the same picture as the SVG without a browser.
#pragma once

#include <string>

namespace lockstep::cli {

// The PNG file's bytes for the SVG document `svg`, at the size its width
// and height attributes give. Throws std::runtime_error if librsvg cannot
// read or draw it (the SVG is lockstep's own, so that is lockstep's fault).
std::string SvgToPng(const std::string& svg);

}  // namespace lockstep::cli
