#pragma once
// PNG and JPEG files decoded for `predict --image` (Debian's stb_image, libstb-dev): the SDK's
// serving/image.hpp takes the pixels, so the SDK itself needs no image library.
#include <tfjob/serving/image.hpp>

#include <string>

namespace tfjob::cli {

/// Decodes PNG or JPEG bytes (at most 8192 x 8192); throws tfjob::error naming FILE and
/// stb_image's reason.
serving::DecodedImage decode_image(const std::string& bytes, const std::string& file);

}  // namespace tfjob::cli
