#pragma once
/// \file The bodies of <tfjob/serving/image.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/image.hpp>, never this file.

namespace tfjob::serving {

TFJOB_INLINE ImageInput plan_image_input(const Signature& sig) {
  auto takes = [&] {
    std::string s;
    for (const auto& t : sig.inputs) s += (s.empty() ? "" : ", ") + t.key + " " + t.dtype + " " + shape_text(t);
    return s.empty() ? std::string("no inputs") : s;
  };
  const TensorSpec* str = nullptr;
  const TensorSpec* flt = nullptr;
  int strings = 0, floats = 0;
  for (const auto& t : sig.inputs) {
    if (t.dtype == "DT_STRING") ++strings, str = &t;
    if (t.dtype == "DT_FLOAT") ++floats, flt = &t;
  }
  ImageInput p;
  p.named = sig.inputs.size() > 1;
  if (strings == 1) {
    p.kind = ImageInput::Kind::bytes;
    p.input = str->key;
    return p;
  }
  const auto key = setting::image_input;
  const Text refuse = ": signature \"" + sig.key + "\" takes " + takes() +
                             "; an image goes to one DT_STRING input (its encoded bytes) or one DT_FLOAT input of shape "
                             "[N, H, W, C] or [N, H, W] (decoded and resized): send this model a request body of your own "
                             "(" + setting::predict_body + ")";
  if (floats != 1 || !flt->shape) throw detail::invalid_setting(key, refuse);
  const auto& d = *flt->shape;
  if (d.size() != 4 && d.size() != 3) throw detail::invalid_setting(key, refuse);
  if (d[1] <= 0 || d[2] <= 0)
    throw detail::invalid_setting(key, ": input \"" + flt->key + "\" of signature \"" + sig.key + "\" has shape " + shape_text(*flt) +
                                  ": its height and width are not fixed, so there is no size to resize to; send a "
                                  "request body of your own (" + setting::predict_body + ")");
  const long long c = d.size() == 4 ? (d[3] < 0 ? 3 : d[3]) : 1;
  if (d.size() == 4 && c != 1 && c != 3)
    throw detail::invalid_setting(key, ": input \"" + flt->key + "\" has " + std::to_string(c) + " channels (" + shape_text(*flt) +
                                  "); an image gives 1 (gray) or 3 (RGB)");
  if (d[1] > 4096 || d[2] > 4096 || d[1] * d[2] * c > max_image_values)
    throw detail::invalid_setting(key, ": input \"" + flt->key + "\" (" + shape_text(*flt) + ") is larger than 4096 x 4096");
  p.kind = ImageInput::Kind::float_tensor;
  p.input = flt->key;
  p.height = static_cast<int>(d[1]);
  p.width = static_cast<int>(d[2]);
  p.channels = d.size() == 4 ? static_cast<int>(c) : 0;
  return p;
}

TFJOB_INLINE std::vector<float> resize_bilinear(const DecodedImage& img, int h, int w, int channels) {
  if (img.width <= 0 || img.height <= 0 || img.channels < 1 || img.channels > 4 ||
      img.pixels.size() != static_cast<std::size_t>(img.width) * static_cast<std::size_t>(img.height) * static_cast<std::size_t>(img.channels))
    throw tfjob::error("the decoded image is inconsistent (" + std::to_string(img.width) + "x" + std::to_string(img.height) + ")");
  if (h <= 0 || w <= 0 || (channels != 1 && channels != 3)) throw tfjob::error("resize to a bad size");
  // one source pixel as gray or RGB, 0..255
  auto px = [&](int x, int y, int c) -> float {
    const unsigned char* p = &img.pixels[(static_cast<std::size_t>(y) * img.width + x) * img.channels];
    const bool gray = img.channels < 3;
    if (channels == 3) return gray ? p[0] : p[c];
    return gray ? p[0] : 0.299f * p[0] + 0.587f * p[1] + 0.114f * p[2];  // ITU-R BT.601 luma
  };
  std::vector<float> out(static_cast<std::size_t>(h) * w * channels);
  const float sy = static_cast<float>(img.height) / h, sx = static_cast<float>(img.width) / w;
  for (int y = 0; y < h; ++y) {
    const float fy = std::clamp((y + 0.5f) * sy - 0.5f, 0.0f, static_cast<float>(img.height - 1));
    const int y0 = static_cast<int>(fy), y1 = std::min(y0 + 1, img.height - 1);
    const float wy = fy - y0;
    for (int x = 0; x < w; ++x) {
      const float fx = std::clamp((x + 0.5f) * sx - 0.5f, 0.0f, static_cast<float>(img.width - 1));
      const int x0 = static_cast<int>(fx), x1 = std::min(x0 + 1, img.width - 1);
      const float wx = fx - x0;
      for (int c = 0; c < channels; ++c) {
        const float top = px(x0, y0, c) * (1 - wx) + px(x1, y0, c) * wx;
        const float bottom = px(x0, y1, c) * (1 - wx) + px(x1, y1, c) * wx;
        out[(static_cast<std::size_t>(y) * w + x) * channels + c] = (top * (1 - wy) + bottom * wy) / 255.0f;
      }
    }
  }
  return out;
}

TFJOB_INLINE nlohmann::json image_instance(const ImageInput& p, const std::string& base64_bytes, const DecodedImage* decoded) {
  nlohmann::json v;
  if (p.kind == ImageInput::Kind::bytes) {
    v = {{"b64", base64_bytes}};
  } else {
    if (!decoded) throw tfjob::error("image_instance: a float input needs the decoded image");
    const int c = p.channels == 0 ? 1 : p.channels;
    auto f = resize_bilinear(*decoded, p.height, p.width, c);
    v = nlohmann::json::array();
    for (int y = 0; y < p.height; ++y) {
      nlohmann::json row = nlohmann::json::array();
      for (int x = 0; x < p.width; ++x) {
        const float* at = &f[(static_cast<std::size_t>(y) * p.width + x) * c];
        if (p.channels == 0) {
          row.push_back(at[0]);
        } else {
          nlohmann::json px = nlohmann::json::array();
          for (int k = 0; k < c; ++k) px.push_back(at[k]);
          row.push_back(px);
        }
      }
      v.push_back(row);
    }
  }
  if (p.named) return {{p.input, v}};
  return v;
}

}  // namespace tfjob::serving
