#pragma once
/// \file Files the SDK writes from names it did not choose (a pod, container, node, replica
/// type, job or claim from a cluster or a manifest): one path part per name, escaped so it
/// stays one part; files made inside a folder's descriptor without following a symbolic
/// link and without truncating a file that was already there; private folders for what holds
/// pods, logs or manifests. (`kubectl cp` had CVE-2018-1002100, CVE-2019-1002101 and
/// CVE-2019-11246 for writing where a name from the cluster led it.)

#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>

#include <fcntl.h>  // openat, O_NOFOLLOW
#include <sys/stat.h>
#include <sys/types.h>  // mode_t
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tfjob::detail {

/// Longest path part path_part returns (NAME_MAX is 255; a suffix such as ".previous.log"
/// still fits).
inline constexpr std::size_t max_path_part_bytes = 200;

/// One path part from a name the SDK did not choose: '/', '%', NUL and the other control
/// characters (0x00-0x1f, 0x7f) are written %XX; "" "." and ".." become "%", "%2E" and
/// "%2E%2E"; one longer than max_path_part_bytes is cut and ends in '~' and 16 hex digits of
/// its hash. Two different names never give the same part (short of a hash collision), and
/// the part is never empty, never "." or "..", never holds a '/'. A name Kubernetes accepts
/// (a DNS label or subdomain) is returned as it is.
std::string path_part(std::string_view name);

/// A file written through its descriptor, buffered. Move-only; the destructor flushes what is
/// left (ignoring errors: call close() to see them).
class OutFile {
 public:
  OutFile() = default;
  OutFile(int fd, std::string path);
  OutFile(OutFile&& o) noexcept;
  OutFile& operator=(OutFile&& o) noexcept;
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;
  ~OutFile();

  bool is_open() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }
  /// Buffered; throws tfjob::error naming the file when it cannot be written.
  void write(std::string_view data);
  void flush();
  /// Flush and close; throws tfjob::error when the last bytes cannot be written.
  void close();

 private:
  int fd_ = -1;
  std::string path_, buf_;
};

/// An open folder in which the SDK makes files and folders by name, each made relative to the
/// folder's descriptor (openat), so a link swapped in along the way is never followed.
/// Move-only.
class Folder {
 public:
  /// `path` itself is the caller's (a folder the user named: a link in it is followed), created
  /// with its parents (`mode` for the folders made) when missing. Throws tfjob::error when it
  /// cannot be created or opened, or is not a folder.
  explicit Folder(const std::string& path, mode_t mode = 0700);
  Folder(Folder&& o) noexcept;
  Folder& operator=(Folder&& o) noexcept;
  Folder(const Folder&) = delete;
  Folder& operator=(const Folder&) = delete;
  ~Folder();

  const std::string& path() const { return path_; }

  /// The folder `rel` below this one ("a/b", each part from path_part or the SDK's own),
  /// created (mode 0700) when missing. A part that is "", "." or "..", a symbolic link or not a
  /// folder is refused.
  Folder sub(std::string_view rel) const;
  /// A new file `rel` (its folders as sub() makes them), created exclusively without
  /// following a link: one that exists is refused, never truncated.
  OutFile create(std::string_view rel, mode_t mode = 0600) const;
  /// `rel` to append to: created when missing, an existing regular file continued (never
  /// truncated); a link, a folder or a device refused.
  OutFile append(std::string_view rel, mode_t mode = 0600) const;
  /// `rel` anew: whatever had the name is removed (a link removed, not followed; a folder
  /// refused), then the file is created exclusively.
  OutFile replace(std::string_view rel, mode_t mode = 0600) const;
  /// Remove the file `rel` (a link removed, not followed); none there is not an error.
  void remove(std::string_view rel) const;

 private:
  Folder(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  /// The folder holding `rel`'s last part, and that part.
  std::pair<Folder, std::string> parent_of(std::string_view rel) const;
  OutFile open_file(std::string_view rel, int flags, mode_t mode, bool regular_only) const;
  int fd_ = -1;
  std::string path_;
};

/// Where temporary folders go: $TMPDIR when it is an absolute path, else /tmp (Go's os.TempDir).
std::string temp_folder();

/// A new private folder `<temp_folder()>/<prefix>XXXXXX` (mkdtemp: an unpredictable name,
/// mode 0700); `prefix` is the SDK's own. Throws tfjob::error when none can be made.
std::string make_temp_dir(const std::string& prefix);

/// Records written in turn and read back by their index, kept in an unlinked temporary file
/// (no name from the moment it is made: O_TMPFILE, else mkstemp then unlink; mode 0600) in
/// temp_folder(), so that what it holds sits in the page cache, not in the process's memory, and
/// is gone when the process ends however it ends. What a manifest carries (a Secret's value in an
/// env) is never left behind. When no such file can be made, the records are held in memory
/// (in_memory() says why). Write with append(), then finish(); at() is then safe from several
/// threads at once (pread). Move-only.
class Spool {
 public:
  /// Makes the file; never throws for want of one (in_memory()).
  Spool();
  Spool(Spool&& o) noexcept;
  Spool& operator=(Spool&& o) noexcept;
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;
  ~Spool();

  /// Appends one record (buffered); throws tfjob::error naming the folder when it cannot be
  /// written (a full disk: set TMPDIR elsewhere).
  void append(std::string_view record);
  /// Writes what is buffered: call it once every record is appended, before at().
  void finish();
  /// How many records.
  std::size_t size() const { return ends_.size(); }
  /// Record `i` (0-based, < size()), read back from the file.
  std::string at(std::size_t i) const;
  /// Why the records are held in memory ("cannot create a file in \"/tmp\": ..."), "" when
  /// they are in a file.
  const std::string& in_memory() const { return why_in_memory_; }
  /// The file's descriptor (-1 in memory): for a test to look at it.
  int fd() const { return fd_; }

 private:
  void flush();
  int fd_ = -1;
  std::string folder_, why_in_memory_;
  std::string buf_;                 ///< appended, not yet written (everything, in memory)
  std::uint64_t written_ = 0;       ///< bytes in the file
  std::vector<std::uint64_t> ends_; ///< where each record ends (8 bytes a record)
};

/// Why `path` cannot serve as this user's private folder, "" when it can: it must be a folder
/// (not a link to one) owned by this user, with no access for group or others.
std::string private_dir_fault(const std::string& path);

}  // namespace tfjob::detail

#if TFJOB_SDK_DEFINE_CORE
#include <tfjob/detail/impl/files_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_CORE
