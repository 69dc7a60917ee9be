#pragma once
/// \file The bodies of <tfjob/workflow/archive.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/archive.hpp>, never this file.

namespace tfjob::workflow {

namespace detail {

/// Where the archive keeps a container's log, relative to its folder: logs/POD/CONTAINER.log
/// (CONTAINER.previous.log for the attempt before), each name one path part.
TFJOB_INLINE std::string archived_log(const std::string& pod, const std::string& container, bool previous) {
  return "logs/" + tfjob::detail::path_part(pod) + "/" + tfjob::detail::path_part(container) +
         (previous ? ".previous" : "") + ".log";
}

/// The part of a node a TFJob bug report needs: name, labels (GPU product, driver...),
/// capacity and allocatable, node info, conditions, taints.
TFJOB_INLINE nlohmann::json node_excerpt(const k8s::Node& n) {
  nlohmann::json out = {{"apiVersion", "v1"}, {"kind", "Node"}};
  out["metadata"] = {{"name", n.metadata.name}, {"labels", n.metadata.labels}};
  out["spec"] = {{"taints", n.spec.taints}};
  out["status"] = {{"capacity", n.status.capacity},
                   {"allocatable", n.status.allocatable},
                   {"nodeInfo", n.status.node_info},
                   {"conditions", n.status.conditions}};
  return out;
}


/// One archive_job run: where it writes, what it has read so far (the job, its pods, their
/// nodes) and the report; one method per part of the bug report, called in the order written.
struct Archiver {
  kube::Client& c;
  const std::string& ns;
  const std::string& job;
  const std::string& dir;
  std::optional<tfjob::detail::Folder> out;  ///< dir, where every file is made (no link followed)
  ArchiveReport rep;
  nlohmann::json obj;                ///< the TFJob as stored
  TFJob typed;                       ///< the same, decoded (leniently: describe is written whatever it holds)
  JobSummary s;                      ///< its summary (state)
  std::vector<k8s::Pod> pods;        ///< its pods, sorted
  std::set<std::string> nodes;       ///< the nodes they ran on
  std::vector<k8s::Event> events;  ///< the job's and its pods' (write_events), decoded as served

  /// Write `data` to the new file `rel` (relative to dir; names in it made by path_part) and
  /// list it in the report.
  void put(const std::string& rel, std::string_view data) {
    auto f = out->create(rel);
    f.write(data);
    f.close();
    rep.files.push_back(rel);
  }

  /// Create `dir` and write the TFJob as stored; a job that does not exist throws, and
  /// nothing is created for it.
  void write_job() {
    auto found = get_opt(c, resources::tfjobs(), ns, job);
    if (!found) throw tfjob::no_such_job(ns, job);
    rep.dir = dir;
    out.emplace(dir);
    obj = std::move(*found);
    typed = tfjob::detail::decoded<TFJob>(obj);
    put("tfjob.yaml", to_yaml(obj));
    s = summarize(typed);
  }

  /// Write each pod's YAML and its containers' logs; no pod at all is listed as missing, and why.
  void write_pods() {
    pods = job_pods(c, ns, job);
    sort_pods(pods);
    rep.pods = static_cast<int>(pods.size());
    if (pods.empty()) {
      const std::string policy = typed.spec.run_policy.clean_pod_policy.value_or("");
      rep.missing.push_back({"pods", s.finished() ? "none left: the job is " + s.state +
                                                        (policy.empty() ? std::string("") : " and its cleanPodPolicy is " + policy) +
                                                        " (keep logs while it runs: " + setting::log_save_task + ")"
                                                  : "none yet"});
    }
    for (const auto& p : pods) {
      PodInfo info = pod_info(p);
      put("pods/" + tfjob::detail::path_part(info.name) + ".yaml", to_yaml(nlohmann::json(p)));  // as served: a decoded pod round-trips
      if (!info.node.empty()) nodes.insert(info.node);
      write_logs(p, info.name);
    }
  }

  /// Write the logs of `p`'s containers (init containers included): the current attempt's,
  /// and the previous one's when the container restarted.
  void write_logs(const k8s::Pod& p, const std::string& pod) {
    for (const auto& cname : spec_containers(p.spec)) {
      int restarts = restart_count(p, cname);
      for (bool previous : {false, true}) {
        if (previous && restarts == 0) continue;
        write_log(pod, cname, previous);
      }
    }
  }

  /// Stream one container's log to disk; one that cannot be read is listed as missing (no file left).
  void write_log(const std::string& pod, const std::string& cname, bool previous) {
    const std::string rel = archived_log(pod, cname, previous);
    kube::LogParams lp;
    lp.container = cname;
    lp.previous = previous;
    auto f = out->create(rel);
    try {
      kube::LogStreamer ls(c, ns, pod, lp);
      ls.run_bytes([&](std::string_view b) {
        f.write(b);
        return true;
      });
      f.close();
      rep.files.push_back(rel);
      ++rep.logs;
    } catch (const std::exception& e) {
      try {
        f.close();
        out->remove(rel);
      } catch (const std::exception&) {
      }
      rep.missing.push_back({rel, e.what()});
    }
  }

  /// Write the events of the job and its pods.
  void write_events() {
    try {
      events = job_events(c, ns, typed.metadata, pods);  // the job's and its pods', each by its field selector
      // as served: a decoded event round-trips
      put("events.yaml", to_yaml(nlohmann::json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", tfjob::detail::to_json_each(events)}}));
    } catch (const std::exception& e) {
      rep.missing.push_back({"events.yaml", e.what()});
    }
  }

  /// Write each replica's TF_CONFIG, then describe's text (which shows them).
  void write_describe() {
    std::vector<std::pair<std::string, std::string>> tf_configs;
    try {
      const tfjob::TFJob strict = tfjob::detail::from_json_of<tfjob::TFJob>(obj);  // TF_CONFIG only for a job that decodes whole
      for (const auto& r : tfjob::gen_all_tf_configs(strict)) {
        std::string key = tfjob::detail::path_part(lower(r.type)) + "-" + std::to_string(r.index);
        tf_configs.emplace_back(r.type + "-" + std::to_string(r.index), r.tf_config.value_or(""));
        put("tf_config/" + key + ".json", r.tf_config ? *r.tf_config + "\n" : std::string("null\n"));
      }
    } catch (const std::exception& e) {
      rep.missing.push_back({"tf_config", std::string("cannot compute TF_CONFIG: ") + e.what()});
    }
    put("describe.txt", render(describe(typed, pods, events, tf_configs)));
  }

  /// Write an excerpt of each node the pods ran on; one gone or unreadable is listed as missing.
  void write_nodes() {
    for (const auto& n : nodes) {
      const std::string rel = "nodes/" + tfjob::detail::path_part(n) + ".yaml";
      try {
        auto node = get_opt(c, resources::nodes(), "", n);
        if (!node) {
          rep.missing.push_back({rel, "the node no longer exists"});
          continue;
        }
        put(rel, to_yaml(node_excerpt(tfjob::detail::decoded<k8s::Node>(*node))));
      } catch (const std::exception& e) {
        rep.missing.push_back({rel, e.what()});
      }
    }
  }

  /// Write manifest.json: the job, when it was collected, every file written and everything missing.
  void write_manifest() {
    nlohmann::json manifest = {{"job", job},
                               {"namespace", ns},
                               {"state", s.state},
                               {"collected", kube::detail::format_rfc3339(std::time(nullptr))},
                               {"files", rep.files},
                               {"missing", nlohmann::json::array()}};
    for (const auto& m : rep.missing) manifest["missing"].push_back({{"what", m.what}, {"why", m.why.str()}});
    put("manifest.json", manifest.dump(2) + "\n");
  }
};

}  // namespace detail

TFJOB_INLINE ArchiveReport archive_job(kube::Client c, const std::string& ns, const std::string& job, const std::string& dir) {
  detail::Archiver a{c, ns, job, dir, {}, {}, {}, {}, {}, {}, {}, {}};
  a.write_job();
  a.write_pods();  // and their logs
  a.write_events();
  a.write_describe();
  a.write_nodes();
  a.write_manifest();
  return std::move(a.rep);
}

namespace detail {

/// gzip (RFC 1952) by zlib's deflate, streamed to a file.
class GzipFile {
 public:
  explicit GzipFile(const std::string& path) : f_(open_new(path)), path_(path) {
    std::memset(&z_, 0, sizeof z_);
    if (deflateInit2(&z_, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      std::fclose(f_);
      throw tfjob::error("zlib: deflateInit2 failed");
    }
  }
  ~GzipFile() {
    if (f_) {
      deflateEnd(&z_);
      std::fclose(f_);
    }
  }
  void write(const void* data, std::size_t n) { pump(static_cast<const unsigned char*>(data), n, Z_NO_FLUSH); }
  /// `path` created exclusively (mode 0600) without following a link: an existing file is
  /// refused, never truncated.
  static std::FILE* open_new(const std::string& path) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
      throw tfjob::error("cannot write \"" + path + "\": " +
                         (errno == EEXIST ? std::string("it exists already (it is not overwritten)") : std::strerror(errno)));
    std::FILE* f = ::fdopen(fd, "wb");
    if (!f) {
      ::close(fd);
      throw tfjob::error("cannot write \"" + path + "\": " + std::strerror(errno));
    }
    return f;
  }
  void close() {
    pump(nullptr, 0, Z_FINISH);
    deflateEnd(&z_);
    bool ok = std::fclose(f_) == 0;
    f_ = nullptr;
    if (!ok) throw tfjob::error("cannot write \"" + path_ + "\": " + std::strerror(errno));
  }

 private:
  void pump(const unsigned char* data, std::size_t n, int flush) {
    z_.next_in = const_cast<unsigned char*>(data);
    z_.avail_in = static_cast<uInt>(n);
    unsigned char out[1 << 16];
    int rc;
    do {
      z_.next_out = out;
      z_.avail_out = sizeof out;
      rc = deflate(&z_, flush);
      if (rc == Z_STREAM_ERROR) throw tfjob::error("zlib: deflate failed");
      std::size_t have = sizeof out - z_.avail_out;
      if (have && std::fwrite(out, 1, have, f_) != have)
        throw tfjob::error("cannot write \"" + path_ + "\": " + std::strerror(errno));
    } while (z_.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
  }
  std::FILE* f_;
  std::string path_;
  z_stream z_;
};

/// A POSIX ustar header (IEEE Std 1003.1 "pax" interchange format, ustar form).
TFJOB_INLINE void tar_header(unsigned char (&h)[512], const std::string& name, std::uint64_t size, std::time_t mtime, char type) {
  std::memset(h, 0, sizeof h);
  std::string n = name, prefix;
  if (n.size() > 100) {  // split at a '/' into prefix (155) and name (100)
    auto cut = n.rfind('/', 155);
    while (cut != std::string::npos && n.size() - cut - 1 > 100) cut = cut == 0 ? std::string::npos : n.rfind('/', cut - 1);
    if (cut == std::string::npos) throw tfjob::error("path too long for a tar archive: " + name);
    prefix = n.substr(0, cut);
    n = n.substr(cut + 1);
  }
  auto octal = [&](std::size_t off, std::size_t len, std::uint64_t v) {
    std::snprintf(reinterpret_cast<char*>(h) + off, len, "%0*llo", static_cast<int>(len - 1), static_cast<unsigned long long>(v));
  };
  std::memcpy(h, n.data(), n.size());
  octal(100, 8, type == '5' ? 0755 : 0644);
  octal(108, 8, 0);
  octal(116, 8, 0);
  octal(124, 12, size);
  octal(136, 12, static_cast<std::uint64_t>(mtime));
  h[156] = static_cast<unsigned char>(type);
  std::memcpy(h + 257, "ustar", 6);
  std::memcpy(h + 263, "00", 2);
  std::memcpy(h + 345, prefix.data(), prefix.size());
  std::memset(h + 148, ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  std::snprintf(reinterpret_cast<char*>(h) + 148, 8, "%06o", sum);
  h[155] = ' ';
}

}  // namespace detail

TFJOB_INLINE void write_tar_gz(const ArchiveReport& rep, const std::string& out, const std::string& top_name) {
  const std::string top = tfjob::detail::path_part(top_name);
  detail::GzipFile gz(out);
  const std::time_t now = std::time(nullptr);
  unsigned char h[512];
  std::set<std::string> dirs;
  auto add_dirs = [&](const std::string& rel) {
    std::string path = top;
    if (dirs.insert(path).second) {
      detail::tar_header(h, path + "/", 0, now, '5');
      gz.write(h, sizeof h);
    }
    std::size_t pos = 0;
    while ((pos = rel.find('/', pos)) != std::string::npos) {
      std::string d = top + "/" + rel.substr(0, pos);
      if (dirs.insert(d).second) {
        detail::tar_header(h, d + "/", 0, now, '5');
        gz.write(h, sizeof h);
      }
      ++pos;
    }
  };
  std::vector<char> buf(1 << 16);
  for (const auto& rel : rep.files) {
    const std::string path = rep.dir + "/" + rel;
    std::ifstream f(path, std::ios::binary);
    if (!f) throw tfjob::error("cannot read \"" + path + "\"");
    auto size = static_cast<std::uint64_t>(std::filesystem::file_size(path));
    add_dirs(rel);
    detail::tar_header(h, top + "/" + rel, size, now, '0');
    gz.write(h, sizeof h);
    std::uint64_t left = size;
    while (left > 0) {
      f.read(buf.data(), static_cast<std::streamsize>(std::min<std::uint64_t>(buf.size(), left)));
      auto got = static_cast<std::size_t>(f.gcount());
      if (got == 0) throw tfjob::error("\"" + path + "\" changed while being archived");
      gz.write(buf.data(), got);
      left -= got;
    }
    static const unsigned char zeros[512] = {};
    if (size % 512) gz.write(zeros, 512 - size % 512);
  }
  static const unsigned char end[1024] = {};
  gz.write(end, sizeof end);  // two zero blocks end the archive
  gz.close();
}

namespace detail {
/// The last `max` bytes of a file (a log can be large; explain quotes its end).
TFJOB_INLINE std::string read_tail(const std::string& path, std::uintmax_t max) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return {};
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return {};
  const std::uintmax_t from = size > max ? size - max : 0;
  f.seekg(static_cast<std::streamoff>(from));
  std::string out(static_cast<std::size_t>(size - from), '\0');
  f.read(out.data(), static_cast<std::streamsize>(out.size()));
  out.resize(static_cast<std::size_t>(f.gcount()));
  return out;
}

/// A small file of the archive (its manifest.json) as text, bounded as manifests are; "" when
/// it is not there.
TFJOB_INLINE std::string read_archived(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return {};
  if (std::filesystem::file_size(path, ec) > limits::max_manifest_bytes)
    throw tfjob::error("\"" + path + "\" is larger than " + tfjob::detail::human_bytes(limits::max_manifest_bytes) +
                       ": it is not what archive writes");
  return read_tail(path, limits::max_manifest_bytes);
}

/// The objects of an archive's file given to `state` as they are read (a List's items one at a
/// time: events.yaml holds every event of the job and its pods); false when it is not there.
TFJOB_INLINE bool read_archived_objects(const std::string& path, SavedState& state) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw tfjob::error("cannot read \"" + path + "\"");
  ManifestReader(in, path).each([&](nlohmann::json&& o, const ObjectPlace&) { state.add(o); });
  return true;
}
}  // namespace detail

TFJOB_INLINE ExplainInput read_archive(const std::string& dir, int log_lines) {
  namespace fs = std::filesystem;
  const std::string job_file = dir + "/tfjob.yaml";
  SavedState state;  // read as a stream, a file at a time: only what explain reads is kept
  if (!detail::read_archived_objects(job_file, state))
    throw tfjob::error("\"" + dir + "\" holds no tfjob.yaml: it is not a directory that archive wrote");
  detail::read_archived_objects(dir + "/events.yaml", state);
  std::error_code ec;
  std::vector<std::string> pod_files;
  for (const auto& e : fs::directory_iterator(dir + "/pods", ec))
    if (e.path().extension() == ".yaml") pod_files.push_back(e.path().string());
  std::sort(pod_files.begin(), pod_files.end());
  for (const auto& f : pod_files) detail::read_archived_objects(f, state);
  auto in = state.finish();
  if (!in) throw tfjob::error("\"" + job_file + "\" holds no TFJob");
  const auto manifest = nlohmann::json::parse(detail::read_archived(dir + "/manifest.json"), nullptr, false);
  if (auto t = parse_time(tfjob::detail::str_at(manifest, "collected"))) in->now = *t;  // archive's own manifest, not a Kubernetes object
  if (log_lines > 0)
    for (const auto& p : in->pods) {
      const auto q = detail::quoted_log(p);
      if (!q) continue;
      const std::string& pod = p.metadata.name;
      const std::string log = dir + "/" + detail::archived_log(pod, q->container, q->previous);
      if (fs::is_regular_file(log, ec)) in->logs[pod] = detail::quoted_lines(detail::read_tail(log, 64 * 1024), log_lines);
    }
  return *in;
}

}  // namespace tfjob::workflow
