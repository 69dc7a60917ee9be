#pragma once
/// \file An image file as what a signature's input takes (pure; decoding is the caller's, so
/// the SDK needs no image library): a DT_STRING input gets the file's bytes as {"b64": ...}
/// (the model decodes them, e.g. ResNet's decode_jpeg); a DT_FLOAT input of shape
/// [N, H, W, C] (C 1 or 3) or [N, H, W] (grayscale, MNIST's) gets the decoded pixels resized
/// to H x W with bilinear interpolation and scaled to [0, 1].

#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>
#include <tfjob/serving/operations.hpp>  // reasons::invalid_setting
#include <tfjob/serving/signature.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace tfjob::serving {

/// Decoded 8-bit pixels, row-major, interleaved channels (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA).
struct DecodedImage {
  int width = 0, height = 0, channels = 0;
  std::vector<unsigned char> pixels;  ///< width * height * channels bytes
};

/// How an image becomes the input of a signature.
struct ImageInput {
  enum class Kind { bytes, float_tensor } kind = Kind::bytes;
  std::string input;       ///< the signature's input key
  bool named = false;      ///< several inputs: the instance names this one
  int height = 0, width = 0;
  int channels = 0;        ///< 1 or 3; 0 = no channel dimension ([N, H, W])
};

/// The largest tensor an image is resized to (H * W * C values): a bounded request.
inline constexpr long long max_image_values = 4096LL * 4096LL * 3LL;

/// Picks how an image is fed to `sig`: its only DT_STRING input (bytes), else its only
/// DT_FLOAT input of rank 4 [N, H, W, C] or rank 3 [N, H, W] with known H and W. Throws
/// tfjob::error naming what the signature takes when it takes neither.
ImageInput plan_image_input(const Signature& sig);

/// Bilinear resize of `img` to h x w with `channels` (1: luma, 3: RGB; alpha dropped),
/// values scaled to [0, 1]; half-pixel centres, as tf.image.resize(method="bilinear") does.
/// Returns h * w * channels floats, row-major.
std::vector<float> resize_bilinear(const DecodedImage& img, int h, int w, int channels);

/// One instance of the predict request's row format for an image: {"b64": ...} for bytes,
/// else the [H][W][C] (or [H][W]) float tensor; named when the signature has several inputs.
nlohmann::json image_instance(const ImageInput& p, const std::string& base64_bytes, const DecodedImage* decoded);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
#include <tfjob/serving/impl/image_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
