#include "sim/cli/svg_png.h"

#include <cairo.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include <librsvg/rsvg.h>

namespace lockstep::cli {
namespace {

struct GObjectUnref {
  void operator()(void* p) const { g_object_unref(p); }
};
struct SurfaceDestroy {
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};
struct CairoDestroy {
  void operator()(cairo_t* c) const { cairo_destroy(c); }
};

std::runtime_error RsvgError(const char* what, GError* error) {
  std::string message = std::string(what) + ": " + (error ? error->message : "unknown error");
  if (error) g_error_free(error);
  return std::runtime_error(message);
}

cairo_status_t Append(void* out, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(out)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

}  // namespace

std::string SvgToPng(const std::string& svg) {
  GError* error = nullptr;
  std::unique_ptr<RsvgHandle, GObjectUnref> handle(
      rsvg_handle_new_from_data(reinterpret_cast<const guint8*>(svg.data()), svg.size(), &error));
  if (!handle) throw RsvgError("librsvg cannot read the SVG", error);
  double width = 0, height = 0;
  if (!rsvg_handle_get_intrinsic_size_in_pixels(handle.get(), &width, &height)) {
    throw std::runtime_error("the SVG has no size in pixels");
  }
  // cairo's image surfaces, and so PNGs drawn here, stop at this size.
  constexpr double kMaxPixels = 32767;
  if (width > kMaxPixels || height > kMaxPixels) {
    throw std::runtime_error(
        "the picture is " + std::to_string(static_cast<long>(std::ceil(width))) + " x " +
        std::to_string(static_cast<long>(std::ceil(height))) +
        " pixels, more than a PNG can be drawn at (32767 each way); draw a part of the trace "
        "(--steps FROM..TO) or write --svg");
  }
  std::unique_ptr<cairo_surface_t, SurfaceDestroy> surface(
      cairo_image_surface_create(CAIRO_FORMAT_ARGB32, static_cast<int>(std::ceil(width)),
                                 static_cast<int>(std::ceil(height))));
  std::unique_ptr<cairo_t, CairoDestroy> cr(cairo_create(surface.get()));
  const RsvgRectangle viewport{0, 0, width, height};
  if (!rsvg_handle_render_document(handle.get(), cr.get(), &viewport, &error)) {
    throw RsvgError("librsvg cannot draw the SVG", error);
  }
  std::string png;
  if (cairo_surface_write_to_png_stream(surface.get(), Append, &png) != CAIRO_STATUS_SUCCESS) {
    throw std::runtime_error("cairo cannot write the PNG");
  }
  return png;
}

}  // namespace lockstep::cli
