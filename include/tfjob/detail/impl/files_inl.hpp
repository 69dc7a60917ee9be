#pragma once
/// \file The bodies of <tfjob/detail/files.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_CORE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/detail/files.hpp>, never this file.

namespace tfjob::detail {

TFJOB_INLINE std::string path_part(std::string_view name) {
  if (name.empty()) return "%";
  if (name == ".") return "%2E";
  if (name == "..") return "%2E%2E";
  static const char hex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(name.size());
  for (unsigned char c : name) {
    if (c == '/' || c == '%' || c < 0x20 || c == 0x7f) {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (out.size() > max_path_part_bytes) {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a 64 over the whole name
    for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
    std::string tail = "~";
    for (int i = 60; i >= 0; i -= 4) tail += hex[(h >> i) & 15];
    std::size_t keep = max_path_part_bytes - tail.size();
    // do not cut inside a %XX escape
    if (keep >= 1 && out[keep - 1] == '%') keep -= 1;
    else if (keep >= 2 && out[keep - 2] == '%') keep -= 2;
    out = out.substr(0, keep) + tail;
  }
  return out;
}

TFJOB_INLINE OutFile::OutFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}

TFJOB_INLINE OutFile::OutFile(OutFile&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)), buf_(std::move(o.buf_)) {
  o.fd_ = -1;
}

TFJOB_INLINE OutFile& OutFile::operator=(OutFile&& o) noexcept {
  if (this != &o) {
    try {
      if (fd_ >= 0) close();
    } catch (const std::exception&) {
    }
    fd_ = o.fd_;
    path_ = std::move(o.path_);
    buf_ = std::move(o.buf_);
    o.fd_ = -1;
  }
  return *this;
}

TFJOB_INLINE OutFile::~OutFile() {
  try {
    if (fd_ >= 0) close();
  } catch (const std::exception&) {
  }
}

TFJOB_INLINE void OutFile::write(std::string_view data) {
  if (fd_ < 0) throw tfjob::error("cannot write \"" + path_ + "\": it is not open");
  buf_.append(data.data(), data.size());
  if (buf_.size() >= (64u << 10)) flush();
}

namespace files_detail {
/// Writes `data` whole to `fd` (again after EINTR); 0, or the errno that stopped it (ENOSPC
/// for a write that took nothing). `done`: the bytes written.
TFJOB_INLINE int write_all(int fd, std::string_view data, std::size_t& done) {
  done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : ENOSPC;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}
}  // namespace files_detail

TFJOB_INLINE void OutFile::flush() {
  std::size_t done = 0;
  if (const int e = files_detail::write_all(fd_, buf_, done)) {
    buf_.erase(0, done);
    throw tfjob::error("cannot write \"" + path_ + "\": " + std::strerror(e));
  }
  buf_.clear();
}

TFJOB_INLINE void OutFile::close() {
  if (fd_ < 0) return;
  struct Closer {
    int& fd;
    ~Closer() {
      ::close(fd);
      fd = -1;
    }
  } closer{fd_};
  flush();
}

TFJOB_INLINE Folder::Folder(const std::string& path, mode_t mode) : path_(path) {
  if (path.empty()) throw tfjob::error("cannot use \"\" as a folder");
  for (std::size_t i = 1; i <= path.size(); ++i) {  // mkdir -p, `mode` for the folders it makes
    if (i == path.size() || path[i] == '/') {
      const std::string cur = path.substr(0, i);
      if (::mkdir(cur.c_str(), mode) != 0 && errno != EEXIST)
        throw tfjob::error("cannot create \"" + cur + "\": " + std::strerror(errno));
    }
  }
  fd_ = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) throw tfjob::error("cannot open \"" + path + "\" as a folder: " + std::strerror(errno));
}

TFJOB_INLINE Folder::Folder(Folder&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }

TFJOB_INLINE Folder& Folder::operator=(Folder&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    path_ = std::move(o.path_);
    o.fd_ = -1;
  }
  return *this;
}

TFJOB_INLINE Folder::~Folder() {
  if (fd_ >= 0) ::close(fd_);
}

namespace files_detail {
/// The parts of a relative path; "", "." and ".." refused.
TFJOB_INLINE std::vector<std::string> split_rel(std::string_view rel, const std::string& base) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t slash = rel.find('/', start);
    const std::string part(rel.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (part.empty() || part == "." || part == "..")
      throw tfjob::error("refusing to write \"" + std::string(rel) + "\" in \"" + base +
                         "\": it is not a plain path below that folder");
    parts.push_back(part);
    if (slash == std::string_view::npos) return parts;
    start = slash + 1;
  }
}
}  // namespace files_detail

TFJOB_INLINE Folder Folder::sub(std::string_view rel) const {
  int fd = ::dup(fd_);
  if (fd < 0) throw tfjob::error("cannot open \"" + path_ + "\": " + std::strerror(errno));
  Folder cur(fd, path_);
  for (const auto& part : files_detail::split_rel(rel, path_)) {
    const std::string p = cur.path_ + "/" + part;
    if (::mkdirat(cur.fd_, part.c_str(), 0700) != 0 && errno != EEXIST)
      throw tfjob::error("cannot create \"" + p + "\": " + std::strerror(errno));
    const int next = ::openat(cur.fd_, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) {
      const int e = errno;
      throw tfjob::error("cannot open \"" + p + "\" as a folder: " +
                         (e == ELOOP || e == ENOTDIR ? std::string("it is a symbolic link or not a folder") : std::strerror(e)));
    }
    cur = Folder(next, p);
  }
  return cur;
}

TFJOB_INLINE std::pair<Folder, std::string> Folder::parent_of(std::string_view rel) const {
  auto parts = files_detail::split_rel(rel, path_);
  const std::string last = parts.back();
  const auto slash = rel.rfind('/');
  if (slash == std::string_view::npos) {
    int fd = ::dup(fd_);
    if (fd < 0) throw tfjob::error("cannot open \"" + path_ + "\": " + std::strerror(errno));
    return {Folder(fd, path_), last};
  }
  return {sub(rel.substr(0, slash)), last};
}

TFJOB_INLINE OutFile Folder::open_file(std::string_view rel, int flags, mode_t mode, bool regular_only) const {
  auto [dir, name] = parent_of(rel);
  const std::string p = dir.path_ + "/" + name;
  // O_NONBLOCK: a FIFO put in the file's place fails at once instead of blocking the open
  const int fd = ::openat(dir.fd_, name.c_str(), flags | O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, mode);
  if (fd < 0) {
    const int e = errno;
    if (e == EEXIST) throw tfjob::error("cannot write \"" + p + "\": it exists already (it is not overwritten)");
    if (e == ELOOP) throw tfjob::error("cannot write \"" + p + "\": it is a symbolic link (not followed)");
    throw tfjob::error("cannot write \"" + p + "\": " + std::strerror(e));
  }
  struct stat st {};
  if (regular_only && (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
    ::close(fd);
    throw tfjob::error("cannot write \"" + p + "\": it is not a regular file");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return OutFile(fd, p);
}

TFJOB_INLINE OutFile Folder::create(std::string_view rel, mode_t mode) const {
  return open_file(rel, O_CREAT | O_EXCL, mode, false);
}

TFJOB_INLINE OutFile Folder::append(std::string_view rel, mode_t mode) const {
  return open_file(rel, O_CREAT | O_APPEND, mode, true);
}

TFJOB_INLINE OutFile Folder::replace(std::string_view rel, mode_t mode) const {
  auto [dir, name] = parent_of(rel);
  if (::unlinkat(dir.fd_, name.c_str(), 0) != 0 && errno != ENOENT)
    throw tfjob::error("cannot replace \"" + dir.path_ + "/" + name + "\": " + std::strerror(errno));
  return dir.create(name, mode);
}

TFJOB_INLINE void Folder::remove(std::string_view rel) const {
  auto [dir, name] = parent_of(rel);
  if (::unlinkat(dir.fd_, name.c_str(), 0) != 0 && errno != ENOENT)
    throw tfjob::error("cannot remove \"" + dir.path_ + "/" + name + "\": " + std::strerror(errno));
}

TFJOB_INLINE std::string temp_folder() {
  const char* t = std::getenv("TMPDIR");
  return t && *t == '/' ? std::string(t) : std::string("/tmp");
}

TFJOB_INLINE std::string make_temp_dir(const std::string& prefix) {
  const std::string base = temp_folder();
  std::string tmpl = base + "/" + prefix + "XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data()))
    throw tfjob::error("cannot create a private folder in \"" + base + "\": " + std::strerror(errno));
  return buf.data();
}

TFJOB_INLINE Spool::Spool() : folder_(temp_folder()) {
  // O_TMPFILE: a file with no name at all; a file system without it (some network ones) gets
  // mkstemp's unpredictable name, removed at once
  fd_ = ::open(folder_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd_ < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    std::string tmpl = folder_ + "/tfjob-spool-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    fd_ = ::mkostemp(buf.data(), O_CLOEXEC);
    if (fd_ >= 0) ::unlink(buf.data());
  }
  if (fd_ < 0) why_in_memory_ = "cannot create a file in \"" + folder_ + "\": " + std::strerror(errno);
}

TFJOB_INLINE Spool::Spool(Spool&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), folder_(std::move(o.folder_)), why_in_memory_(std::move(o.why_in_memory_)),
      buf_(std::move(o.buf_)), written_(o.written_), ends_(std::move(o.ends_)) {}

TFJOB_INLINE Spool& Spool::operator=(Spool&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
    folder_ = std::move(o.folder_);
    why_in_memory_ = std::move(o.why_in_memory_);
    buf_ = std::move(o.buf_);
    written_ = o.written_;
    ends_ = std::move(o.ends_);
  }
  return *this;
}

TFJOB_INLINE Spool::~Spool() {
  if (fd_ >= 0) ::close(fd_);  // the last reference to a file with no name: its blocks are freed
}

TFJOB_INLINE void Spool::append(std::string_view record) {
  buf_.append(record.data(), record.size());
  ends_.push_back(written_ + buf_.size());
  if (fd_ >= 0 && buf_.size() >= (1u << 20)) flush();
}

TFJOB_INLINE void Spool::finish() {
  if (fd_ >= 0) flush();
}

TFJOB_INLINE void Spool::flush() {
  std::size_t done = 0;
  if (const int e = files_detail::write_all(fd_, buf_, done))
    throw tfjob::error("cannot write a temporary file in \"" + folder_ + "\": " + std::strerror(e) +
                       "; set TMPDIR to a folder with room (about the manifest's size)");
  written_ += buf_.size();
  buf_.clear();
}

TFJOB_INLINE std::string Spool::at(std::size_t i) const {
  const std::uint64_t begin = i == 0 ? 0 : ends_.at(i - 1), end = ends_.at(i);
  std::string out(static_cast<std::size_t>(end - begin), '\0');
  if (fd_ < 0) {
    out.assign(buf_, static_cast<std::size_t>(begin), out.size());
    return out;
  }
  if (end > written_) throw tfjob::error("a temporary file was read before it was written (Spool::finish)");
  std::size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::pread(fd_, out.data() + got, out.size() - got, static_cast<off_t>(begin + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw tfjob::error("cannot read back a temporary file in \"" + folder_ + "\": " +
                         (n < 0 ? std::strerror(errno) : "it is shorter than what was written"));
    got += static_cast<std::size_t>(n);
  }
  return out;
}

TFJOB_INLINE std::string private_dir_fault(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return std::strerror(errno);
  if (S_ISLNK(st.st_mode)) return "it is a symbolic link";
  if (!S_ISDIR(st.st_mode)) return "it is not a folder";
  if (st.st_uid != ::geteuid()) return "it belongs to another user (uid " + std::to_string(st.st_uid) + ")";
  if (st.st_mode & 077) {
    char m[8];
    std::snprintf(m, sizeof m, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return std::string("others may use it (mode ") + m + ")";
  }
  return "";
}

}  // namespace tfjob::detail
