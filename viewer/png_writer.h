// Writes an RGB image as a PNG file (through libpng), for the viewer's
// --screenshot, as every output is written (sim/run/output_file.h). Rows
// are given top to bottom.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lockstep::viewer {

// `rgb` holds width * height * 3 bytes. Throws base::InputError with the
// reason iff the file could not be written.
void WritePng(const std::string& path, int width, int height, const std::vector<uint8_t>& rgb);

}  // namespace lockstep::viewer
