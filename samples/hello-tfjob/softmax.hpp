#pragma once
// Softmax regression (multinomial logistic regression): logits = W x + b, cross-entropy loss.
#include "idx.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace hello {

constexpr int kClasses = 10;

/// Parameters as one flat vector (W row-major, classes x dim, then b), so that gradients
/// can be all-reduced in one piece.
struct Model {
  int dim = 0;
  std::vector<float> p;
  explicit Model(int d = 0) : dim(d), p(size_t(kClasses) * d + kClasses, 0.0f) {}
  float* w(int c) { return p.data() + size_t(c) * dim; }
  const float* w(int c) const { return p.data() + size_t(c) * dim; }
  float* b() { return p.data() + size_t(kClasses) * dim; }
  const float* b() const { return p.data() + size_t(kClasses) * dim; }
};

/// Class probabilities of one example into `prob`; returns the arg-max.
inline int forward(const Model& m, const float* x, float* prob) {
  float mx = -1e30f;
  int best = 0;
  for (int c = 0; c < kClasses; ++c) {
    const float* wc = m.w(c);
    float s = m.b()[c];
    for (int i = 0; i < m.dim; ++i) s += wc[i] * x[i];
    prob[c] = s;
    if (s > mx) mx = s, best = c;
  }
  float sum = 0;
  for (int c = 0; c < kClasses; ++c) {
    prob[c] = std::exp(prob[c] - mx);
    sum += prob[c];
  }
  for (int c = 0; c < kClasses; ++c) prob[c] /= sum;
  return best;
}

/// Adds the summed gradient of the examples `idx[0..n)` to `g` (same layout as the model,
/// plus two trailing slots: summed loss and number of correct predictions).
inline void accumulate_gradient(const Model& m, const Dataset& d, const int* idx, int n, std::vector<float>& g) {
  float prob[kClasses];
  const size_t nb = size_t(kClasses) * m.dim;
  for (int k = 0; k < n; ++k) {
    const float* x = d.x.data() + size_t(idx[k]) * d.dim;
    int y = d.y[idx[k]];
    int pred = forward(m, x, prob);
    g[nb + kClasses] += -std::log(std::max(prob[y], 1e-12f));
    g[nb + kClasses + 1] += pred == y ? 1.0f : 0.0f;
    for (int c = 0; c < kClasses; ++c) {
      float delta = prob[c] - (c == y ? 1.0f : 0.0f);
      float* gc = g.data() + size_t(c) * m.dim;
      for (int i = 0; i < m.dim; ++i) gc[i] += delta * x[i];
      g[nb + c] += delta;
    }
  }
}

struct Eval {
  double loss = 0, accuracy = 0;
};

inline Eval evaluate(const Model& m, const Dataset& d) {
  Eval e;
  float prob[kClasses];
  int correct = 0;
  for (int i = 0; i < d.n; ++i) {
    int pred = forward(m, d.x.data() + size_t(i) * d.dim, prob);
    correct += pred == d.y[i];
    e.loss += -std::log(std::max(prob[d.y[i]], 1e-12f));
  }
  if (d.n > 0) e.loss /= d.n, e.accuracy = double(correct) / d.n;
  return e;
}

/// FNV-1a over the parameters' bytes: replicas that agree print the same value.
inline std::uint64_t checksum(const Model& m) {
  std::uint64_t h = 1469598103934665603ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(m.p.data());
  for (size_t i = 0; i < m.p.size() * sizeof(float); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  return h;
}

}  // namespace hello
