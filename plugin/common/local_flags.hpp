#pragma once
/// \file `submit --local`: run the job's replicas as processes on this machine (the SDK's
/// tfjob::local runner), with the flags that shape that run.

#include "command.hpp"

#include <tfjob/api/types.hpp>
#include <tfjob/local/runner.hpp>

#include <string>
#include <vector>

namespace tfjob::cli {

struct LocalFlags {
  bool enabled = false;              ///< --local
  bool all = false;                  ///< --all: every replica's output, prefixed
  std::vector<std::string> volumes;  ///< --volume CLAIM=DIR (repeatable)
  std::string state_dir;             ///< --state-dir
};

/// Adds --local, --all, --volume and --state-dir (group "Local run").
void add_local_flags(CLI::App& sub, LocalFlags& f);

/// Runs each job locally, one after the other, the replicas' output and the final table on
/// `ctx.out`, the runner's progress on `ctx.err`; returns 0 when every one succeeded, else 1.
int run_local(const std::vector<TFJob>& jobs, const LocalFlags& f, Context& ctx);

/// The final status of a local run, as `kubectl tfjob get` shows a job: a header and one row
/// (SUCCEEDED counts per replica type, `worker:1/2`).
std::string local_status_table(const local::RunResult& r);

}  // namespace tfjob::cli
