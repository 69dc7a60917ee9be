#pragma once
// A generated MNIST-shaped data set (28x28 images in [0,1], labels 0..9) for machines with
// no MNIST-format files: a release archive unpacked on RHEL or Ubuntu has no Debian
// dataset-fashion-mnist, yet `kubectl tfjob submit hello --local` must train there. Each
// class is a fixed pattern of three soft blobs (the same in every replica: std::mt19937,
// seeded by the class, and one binary's distributions), and each example is its class's
// pattern shifted by up to 3 pixels, at 50-100% contrast, with Gaussian pixel noise, so a
// linear model has something to learn and cannot be perfect. It is not MNIST: its accuracy
// is no benchmark (softmax regression reaches about 0.88 in 5 epochs, near its 0.84 on
// Fashion-MNIST); it proves the TF_CONFIG wiring and the all-reduce, which is what the
// sample is for.
#include "idx.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace hello {

inline constexpr int kSyntheticSide = 28;
inline constexpr int kSyntheticTrain = 12000;
inline constexpr int kSyntheticTest = 2000;

/// `n` examples of the synthetic set; `split` 0 = train, 1 = test (a different stream of the
/// same classes). Deterministic: every replica generates the same examples.
inline Dataset synthetic_split(int split, int n) {
  const int side = kSyntheticSide, dim = side * side;
  // the class patterns: three blobs each, their centres and widths from the class's own stream
  std::vector<std::vector<float>> proto(10, std::vector<float>(size_t(dim), 0.0f));
  for (int k = 0; k < 10; ++k) {
    std::mt19937 g(1000u + unsigned(k));
    std::uniform_real_distribution<float> pos(6.0f, 21.0f), width(1.8f, 3.5f);
    for (int b = 0; b < 3; ++b) {
      const float cx = pos(g), cy = pos(g), w = width(g);
      for (int y = 0; y < side; ++y)
        for (int x = 0; x < side; ++x) {
          const float d2 = (float(x) - cx) * (float(x) - cx) + (float(y) - cy) * (float(y) - cy);
          float& p = proto[size_t(k)][size_t(y * side + x)];
          p = std::min(1.0f, p + std::exp(-d2 / (2 * w * w)));
        }
    }
  }
  Dataset d;
  d.n = n;
  d.dim = dim;
  d.x.assign(size_t(n) * size_t(dim), 0.0f);
  d.y.resize(size_t(n));
  std::mt19937 g(split == 0 ? 20240501u : 20240502u);
  std::uniform_int_distribution<int> cls(0, 9), shift(-3, 3);
  std::uniform_real_distribution<float> contrast(0.5f, 1.0f);
  std::normal_distribution<float> noise(0.0f, 0.35f);
  for (int i = 0; i < n; ++i) {
    const int k = cls(g), dx = shift(g), dy = shift(g);
    const float c = contrast(g);
    d.y[size_t(i)] = std::uint8_t(k);
    float* out = d.x.data() + size_t(i) * size_t(dim);
    for (int y = 0; y < side; ++y)
      for (int x = 0; x < side; ++x) {
        const int sx = x - dx, sy = y - dy;
        const float v = (sx >= 0 && sx < side && sy >= 0 && sy < side) ? c * proto[size_t(k)][size_t(sy * side + sx)] : 0.0f;
        out[y * side + x] = std::clamp(v + noise(g), 0.0f, 1.0f);
      }
  }
  return d;
}

}  // namespace hello
