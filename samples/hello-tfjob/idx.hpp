#pragma once
// MNIST-format IDX files (http://yann.lecun.com/exdb/mnist/ "FILE FORMATS"), gzipped or not:
// zlib's gzread reads plain files unchanged, so one path serves both.
#include <zlib.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace hello {

/// Images scaled to [0,1] (row-major, n x dim) and their labels 0..9.
struct Dataset {
  int n = 0;
  int dim = 0;
  std::vector<float> x;
  std::vector<std::uint8_t> y;
};

inline bool file_exists(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

/// `dir/name.gz` or `dir/name`, or "" when neither exists.
inline std::string find_idx(const std::string& dir, const std::string& name) {
  for (const auto& cand : {dir + "/" + name + ".gz", dir + "/" + name})
    if (file_exists(cand)) return cand;
  return "";
}

inline std::vector<std::uint8_t> read_all(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  std::vector<std::uint8_t> out;
  std::uint8_t buf[1 << 16];
  for (;;) {
    int n = gzread(f, buf, sizeof buf);
    if (n < 0) {
      int errnum = 0;
      std::string msg = gzerror(f, &errnum);
      gzclose(f);
      throw std::runtime_error("cannot read " + path + ": " + msg);
    }
    if (n == 0) break;
    out.insert(out.end(), buf, buf + n);
  }
  gzclose(f);
  return out;
}

inline std::uint32_t be32(const std::vector<std::uint8_t>& b, size_t off) {
  return (std::uint32_t(b[off]) << 24) | (std::uint32_t(b[off + 1]) << 16) |
         (std::uint32_t(b[off + 2]) << 8) | std::uint32_t(b[off + 3]);
}

/// Loads an images file (magic 0x803) and its labels file (magic 0x801); `limit` > 0 keeps
/// only the first `limit` examples.
inline Dataset load_idx_pair(const std::string& images, const std::string& labels, int limit) {
  auto ib = read_all(images);
  auto lb = read_all(labels);
  if (ib.size() < 16 || be32(ib, 0) != 0x00000803)
    throw std::runtime_error(images + " is not an IDX images file (magic 0x00000803)");
  if (lb.size() < 8 || be32(lb, 0) != 0x00000801)
    throw std::runtime_error(labels + " is not an IDX labels file (magic 0x00000801)");
  std::uint32_t n = be32(ib, 4), rows = be32(ib, 8), cols = be32(ib, 12);
  std::uint32_t nl = be32(lb, 4);
  if (n != nl)
    throw std::runtime_error(images + " has " + std::to_string(n) + " images but " + labels +
                             " has " + std::to_string(nl) + " labels");
  if (rows == 0 || cols == 0 || rows * cols > (1u << 20))
    throw std::runtime_error(images + ": implausible image size " + std::to_string(rows) + "x" +
                             std::to_string(cols));
  if (ib.size() < 16 + size_t(n) * rows * cols || lb.size() < 8 + size_t(n))
    throw std::runtime_error(images + " or " + labels + " is truncated");
  Dataset d;
  d.n = (limit > 0 && std::uint32_t(limit) < n) ? limit : int(n);
  d.dim = int(rows * cols);
  d.x.resize(size_t(d.n) * d.dim);
  d.y.resize(d.n);
  for (size_t i = 0; i < d.x.size(); ++i) d.x[i] = float(ib[16 + i]) / 255.0f;
  for (int i = 0; i < d.n; ++i) {
    d.y[i] = lb[8 + i];
    if (d.y[i] > 9) throw std::runtime_error(labels + ": label " + std::to_string(d.y[i]) + " out of range 0..9");
  }
  return d;
}

}  // namespace hello
