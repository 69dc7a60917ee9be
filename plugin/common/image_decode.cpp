// stb_image compiled once, here, for PNG and JPEG only, with its functions static to this
// file and its image size bounded (outside input).
#include "image_decode.hpp"

#include <tfjob/error.hpp>

#include <climits>

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_ONLY_JPEG
#define STBI_ONLY_PNG
#define STBI_NO_STDIO
#define STBI_MAX_DIMENSIONS 8192
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#pragma GCC diagnostic ignored "-Wcast-qual"
#pragma GCC diagnostic ignored "-Wold-style-cast"
#pragma GCC diagnostic ignored "-Wuseless-cast"
#endif
#include <stb_image.h>  // Debian's libstb-dev (/usr/include/stb)
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace tfjob::cli {

serving::DecodedImage decode_image(const std::string& bytes, const std::string& file) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX))
    throw tfjob::error("cannot decode image \"" + file + "\": the file is larger than 2 GiB");
  int w = 0, h = 0, n = 0;
  unsigned char* p = stbi_load_from_memory(reinterpret_cast<const stbi_uc*>(bytes.data()), static_cast<int>(bytes.size()), &w, &h, &n, 0);
  if (!p)
    throw tfjob::error("cannot decode image \"" + file + "\" (" + stbi_failure_reason() +
                       "): --image decodes PNG and JPEG files, at most 8192 x 8192");
  serving::DecodedImage img;
  img.width = w;
  img.height = h;
  img.channels = n;
  img.pixels.assign(p, p + static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * static_cast<std::size_t>(n));
  stbi_image_free(p);
  return img;
}

}  // namespace tfjob::cli
