#pragma once
/// \file `submit --local`: run the job's replicas as processes on this machine (the SDK's
/// tfjob::local runner), with the flags that shape that run.

#include "command.hpp"

#include <tfjob/api/types.hpp>

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

/// Runs each job locally, one after the other; returns 0 when every one succeeded, else 1.
int run_local(const std::vector<TFJob>& jobs, const LocalFlags& f, const Globals& g);

}  // namespace tfjob::cli
