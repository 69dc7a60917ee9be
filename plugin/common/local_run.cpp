// submit --local: the plugin side of the SDK's local runner. Flags -> RunOptions, the
// places to look for sample trainers, the final status table.
#include "local_flags.hpp"

#include "context.hpp"
#include "flag_values.hpp"
#include "output.hpp"

#include <tfjob/detail/table.hpp>
#include <tfjob/error.hpp>
#include <tfjob/local/runner.hpp>
#include <tfjob/workflow/status.hpp>  // human_duration

#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <map>
#include <system_error>
#include <ostream>

namespace tfjob::cli {

void add_local_flags(CLI::App& sub, LocalFlags& f) {
  const char* grp = "Local run (no cluster)";
  flag::boolean(sub, "--local", f.enabled,
               "Run every replica as a process on this machine (the tensorflow container's command and args, "
               "TF_CONFIG with 127.0.0.1 and free ports, the operator's restart rules)")
      ->group(grp);
  flag::boolean(sub, "--all", f.all, "With --local: print every replica's output, prefixed [worker-1] (default: the chief's)")
      ->group(grp);
  flag::key_values(sub, "--volume", f.volumes,
                   "With --local: a claim (or volume) name and the local directory it becomes, CLAIM=DIR; repeatable "
                   "(default: <state-dir>/volumes/<claim>)",
                   flag::Key::any, flag::Value::any, false, "CLAIM=DIR", "tfjob-mnist=./mnist-data")
      ->group(grp);
  flag::text(sub, "--state-dir", f.state_dir,
             "With --local: where volumes and logs go (default: ~/.local/state/kubectl-tfjob/local/<ns>/<name>)", "DIR")
      ->group(grp);
}

namespace {

std::string self_dir() {
  std::vector<char> buf(4096);
  ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return "";
  std::string p(buf.data(), size_t(n));
  auto slash = p.rfind('/');
  return slash == std::string::npos ? "" : p.substr(0, slash);
}

/// Where sample trainers such as hello-tfjob live: next to the plugin (installed, release
/// archive), the build tree (build/plugin/../samples/<sample>), the libexec directory.
std::vector<std::string> trainer_search_path() {
  std::vector<std::string> out;
  std::string d = self_dir();
  if (d.empty()) return out;
  out.push_back(d);
  out.push_back(d + "/../samples/hello-tfjob");
  out.push_back(d + "/../libexec/kubectl-tfjob");
  return out;
}

}  // namespace

std::string local_status_table(const local::RunResult& r) {
  std::map<std::string, std::pair<int, int>> by_type;  // succeeded, total
  for (const auto& x : r.replicas) {
    auto& c = by_type[x.type];
    c.second++;
    if (x.phase == "Succeeded") c.first++;
  }
  std::string replicas;
  for (const auto& [t, c] : by_type) {
    std::string type = t;
    for (auto& ch : type) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    replicas += (replicas.empty() ? "" : ",") + type + ":" + std::to_string(c.first) + "/" + std::to_string(c.second);
  }
  return tfjob::detail::render_table(
      {{"NAME", "STATE", "AGE", "SUCCEEDED", "RESTARTS", "MESSAGE"},
       {r.name, r.state, workflow::human_duration(static_cast<long long>(r.seconds + 0.5)), replicas,
        std::to_string(r.restarts), r.message}});
}

int run_local(const std::vector<TFJob>& jobs, const LocalFlags& f, Context& ctx) {
  const Globals& g = ctx.globals();
  local::RunOptions o;
  o.out = &ctx.out;
  o.err = &ctx.err;
  o.state_dir = f.state_dir;
  o.all_logs = f.all;
  o.color = use_color(g.color, 1);
  o.search_path = trainer_search_path();
  for (const auto& v : f.volumes) {
    auto eq = v.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
      throw flag::usage("--volume", "\"" + v + "\" names no directory", "give CLAIM=DIR, e.g. tfjob-hello=./hello-data");
    // a folder that is not there is refused, not made (a misspelt data folder would train on
    // nothing): docker's --mount refuses a bind source that does not exist, too
    const std::string dir = v.substr(eq + 1);
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
      throw flag::usage("--volume", "\"" + v + "\": " + dir + (std::filesystem::exists(dir, ec) ? " is not a directory" : " does not exist"),
                        "give the folder that holds the claim's data (mkdir it first for an empty one)");
    o.volumes[v.substr(0, eq)] = dir;
  }
  if (jobs.size() > 1 && !f.state_dir.empty())
    throw config_error("--state-dir with " + std::to_string(jobs.size()) + " jobs: run them one at a time");
  int rc = exit_code::ok;
  for (const auto& job : jobs) {
    local::RunResult r = local::run(job, o);
    ctx.out << local_status_table(r) << std::flush;
    if (r.exit_code() != 0) {
      rc = exit_code::failure;
      ctx.err << "local: logs of every replica are in " << r.state_dir << "/logs\n";
    }
    if (r.signal != 0) return 128 + r.signal;  // as a shell reports a command a signal ended: 130 for SIGINT
  }
  return rc;
}

}  // namespace tfjob::cli
