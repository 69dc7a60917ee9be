#pragma once
/// \file What to attach to a bug report about a TFJob, gathered while it can still be read:
/// the TFJob as stored, every pod's YAML, every container's log (current and previous
/// attempts, init containers included), the job's and its pods' events, describe's text,
/// each replica's TF_CONFIG, and the nodes its pods ran on (labels, capacity). A manifest
/// lists every file and everything that could not be read, and why. Written to a directory
/// (logs streamed to disk: memory stays bounded) and optionally packed as a .tar.gz (ustar,
/// gzip by zlib).

#include <tfjob/api/manifest.hpp>
#include <tfjob/api/manifest_stream.hpp>  // ManifestReader: saved objects read an object at a time
#include <tfjob/api/tf_config.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/files.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/kube/logs.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/describe.hpp>
#include <tfjob/workflow/explain.hpp>
#include <tfjob/workflow/logs.hpp>
#include <tfjob/workflow/pods.hpp>

#include <nlohmann/json.hpp>
#include <zlib.h>  // deflate with a gzip wrapper

#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>  // the .tar.gz: created exclusively, no link followed

#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tfjob::workflow {

/// What archive_job wrote and what it could not read.
struct ArchiveReport {
  std::string dir;
  std::vector<std::string> files;  ///< relative to dir, in the order written
  struct Missing {
    std::string what;
    Text why;  ///< it may name a setting (workflow::LogSaveTask) by key
  };
  std::vector<Missing> missing;
  int pods = 0, logs = 0;
};

/// Gather `job`'s bug-report material into `dir` (created, mode 0700; files 0600, each made
/// new: a file already there is refused, not overwritten). Every name from the cluster or the
/// job (pod, container, node, replica type) is one path part (tfjob::detail::path_part), so
/// nothing is written outside `dir`. Each part that cannot be read
/// (a pod cleaned up, a log not kept, events forbidden, a node gone) is listed in the
/// report and in `manifest.json`, not fatal; a job that does not exist is.
ArchiveReport archive_job(kube::Client c, const std::string& ns, const std::string& job, const std::string& dir);

// ---- .tar.gz ------------------------------------------------------------------------------

/// Pack `dir`'s files (the archive_job report's, in its order) into `out` as a .tar.gz
/// whose entries sit under `top/`; `out` is created (mode 0600), never overwritten.
void write_tar_gz(const ArchiveReport& rep, const std::string& out, const std::string& top);

// ---- reading an archive back -------------------------------------------------------------

/// The job's state as an archive_job directory holds it, for `explain` after the job or its
/// pods are gone: the TFJob, its pods and events, the last `log_lines` lines of each failed
/// pod's log (the rule gather reads them by), at the time the archive was collected
/// (manifest.json). Nodes stay unknown (the archive keeps only those the pods ran on). The
/// objects' files are read an object at a time (SavedState), events.yaml's List item by item.
/// Throws tfjob::error when `dir` holds no tfjob.yaml.
ExplainInput read_archive(const std::string& dir, int log_lines = 10);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/impl/archive_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
