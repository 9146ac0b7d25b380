#include "viewer/png_writer.h"

#include <png.h>

#include <cstring>

#include "sim/base/check.h"
#include "sim/base/input_error.h"
#include "sim/run/output_file.h"

namespace lockstep::viewer {

void WritePng(const std::string& path, int width, int height, const std::vector<uint8_t>& rgb) {
  LOCKSTEP_CHECK(width > 0 && height > 0 &&
                     rgb.size() == static_cast<size_t>(width) * static_cast<size_t>(height) * 3,
                 "png: the image holds width * height RGB pixels");
  // libpng reports errors by longjmp; the image API avoids it. The image is
  // encoded in memory, then written as every output is (cli/output_file.h).
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(width);
  image.height = static_cast<png_uint_32>(height);
  image.format = PNG_FORMAT_RGB;
  png_alloc_size_t size = 0;
  std::string png;
  if (png_image_write_get_memory_size(image, size, 0, rgb.data(), width * 3, nullptr)) {
    png.resize(size);
    if (!png_image_write_to_memory(&image, png.data(), &size, 0, rgb.data(), width * 3, nullptr)) {
      size = 0;
    }
  }
  if (size == 0) {
    std::string why = "cannot encode " + path + ": " + image.message;
    png_image_free(&image);
    throw base::InputError("", "", why);
  }
  png.resize(size);
  run::WriteOutput(path, png);
}

}  // namespace lockstep::viewer
