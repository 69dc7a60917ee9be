// kubectl tfjob archive JOB [-o DIR|FILE.tar.gz]: what to attach to a bug report (the
// TFJob, pods, every container's current and previous log, events, describe, TF_CONFIG,
// nodes, and a manifest of what could not be read). The gathering is the SDK's
// (workflow/archive.hpp); this file picks the destination and reports.
#include "commands.hpp"
#include "../common/context.hpp"
#include "../common/flag_values.hpp"

#include <tfjob/detail/files.hpp>
#include <tfjob/workflow/archive.hpp>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

namespace tfjob::cli {
namespace {

struct ArchiveCommand {
  std::string name;
  std::string output;
  /// -o: a new directory (or an empty one) or a new FILE.tar.gz, before any request.
  void validate();
  int run(Context& ctx) const;

 private:
  std::string out;
  bool targz = false;
};

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

void ArchiveCommand::validate() {
  out = output.empty() ? name + "-archive.tar.gz" : output;
  targz = ends_with(out, ".tar.gz") || ends_with(out, ".tgz");
  namespace fs = std::filesystem;
  if (!targz && fs::exists(out) && (!fs::is_directory(out) || !fs::is_empty(out)))
    throw flag::usage("--output", "\"" + out + "\" exists and is not an empty directory", "give a new directory or a FILE.tar.gz");
  if (targz && fs::exists(out)) throw flag::usage("--output", "\"" + out + "\" exists", "give a new file name (or remove it)");
}

int ArchiveCommand::run(Context& ctx) const {
  const auto& o = *this;
  namespace fs = std::filesystem;
  auto& client = ctx.tfjobs();
  const std::string ns = client.namespace_();
  // A .tar.gz is staged in a private folder of an unpredictable name (mkdtemp, mode 0700):
  // another user can neither read the pods and logs nor swap a link in.
  const std::string staging = targz ? tfjob::detail::make_temp_dir("kubectl-tfjob-archive-") : std::string();
  struct Cleanup {
    std::string d;
    ~Cleanup() {
      std::error_code e;
      if (!d.empty()) fs::remove_all(d, e);
    }
  } cleanup{staging};
  const std::string dir = targz ? staging + "/" + tfjob::detail::path_part(o.name) : out;
  auto rep = workflow::archive_job(client, ns, o.name, dir);
  if (targz) workflow::write_tar_gz(rep, out, o.name + "-archive");
  for (const auto& m : rep.missing) ctx.err << "not archived: " << m.what << ": " << worded(m.why) << "\n";
  ctx.err << "archived TFJob " << o.name << ": " << rep.pods << " pods, " << rep.logs << " logs, " << rep.files.size()
            << " files (manifest.json lists them)\n";
  ctx.out << out << "\n";
  return exit_code::ok;
}

}  // namespace

void setup_archive(CLI::App& app, Globals& g) {
  auto o = std::make_shared<ArchiveCommand>();
  auto* sub = app.add_subcommand("archive", "Save a TFJob's objects, logs, events and nodes for a bug report");
  flag::text(*sub, "name", o->name, "TFJob name", "NAME")->required();
  flag::text(*sub, "-o,--output", o->output, "A new directory, or FILE.tar.gz (default: JOB-archive.tar.gz)", "PATH");
  sub->footer(R"(Examples:
  kubectl tfjob archive mnist                    # mnist-archive.tar.gz
  kubectl tfjob archive mnist -o /tmp/mnist      # a directory

Contents: tfjob.yaml (as stored), pods/POD.yaml, logs/POD/CONTAINER.log and
CONTAINER.previous.log (init containers and sidecars too), events.yaml (the job's and its
pods'), describe.txt, tf_config/TYPE-INDEX.json, nodes/NODE.yaml (labels, capacity,
allocatable, node info) and manifest.json, which lists every file and what could not be
read and why (pods cleaned up by cleanPodPolicy, a log not kept, events forbidden).
Each name from the cluster is one path part (a '/' written %2F, ".." as %2E%2E): nothing
is written outside the archive. Files are made 0600 in a 0700 directory, never overwriting
one that exists.
To keep logs that cleanup would delete, run `kubectl tfjob logs JOB -f --all --save DIR`
(or `wait --save DIR`, `submit --follow --save DIR`) while the job runs.

Exit codes: 0 archived (what could not be read is listed on stderr), 1 the job was not
found or nothing could be written, 64 usage error.)");
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
