#pragma once
/// \file The flags that build a TFJob, shared by `submit`, `tf-config` and later commands:
/// from flags, from `-f FILE` (`-` = stdin; YAML or JSON, several documents), or from a
/// built-in sample named as the first word (`submit mnist --workers 4`).
///
/// Use: `JobFlags f; add_job_flags(*sub, f);` in setup, then `build_jobs(f, g)` in run:
/// it returns defaulted TFJobs that passed validation, or throws `validation_error`
/// listing every problem (flags and fields) at once.

#include "command.hpp"
#include "flag_values.hpp"
#include "manifests.hpp"  // --validate
#include "samples.hpp"

#include <tfjob/api/builder.hpp>
#include <tfjob/api/defaults.hpp>
#include <tfjob/api/manifest.hpp>
#include <tfjob/api/manifest_stream.hpp>  // for_each_tfjob: -f a document at a time
#include <tfjob/api/validation.hpp>
#include <tfjob/error.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace tfjob::cli {

/// Everything that describes the job to build.
struct JobFlags {
  std::vector<std::string> files;  ///< -f/--filename (repeatable; "-" = stdin; a directory)
  std::string validate = "strict";  ///< --validate: how -f's manifests are judged by the schema (manifests.hpp)
  std::string sample;              ///< --sample NAME (or the first word when it names one)
  std::vector<std::string> words;  ///< positionals: [SAMPLE] or, after `--`, args/command
  std::string first_word;               ///< parsed: the first positional
  std::vector<std::string> rest_words;  ///< parsed: the other positionals
  const CLI::Option* first_option = nullptr;  ///< the first positional's: given as "" is not absent
  /// Of the positionals, how many came after `--` (the command sets it from
  /// Globals::args_after_dashes): only those are the container's args.
  std::size_t after_dashes = 0;
  bool command = false;            ///< --command: the words after -- are the command
  std::string name;
  std::string image;
  bool chief = false, master = false, evaluator = false;
  int workers = -1, ps = -1, gpus = -1;  ///< -1 = not given
  std::string cpu, memory;
  std::vector<std::string> env, pvc, selector, toleration, labels;
  std::string restart_policy, clean_pod_policy, success_policy;
  std::int64_t ttl = -1, active_deadline = -1;
  int backoff_limit = -1;
  bool dynamic_worker = false;
  // pods: every replica's
  std::vector<std::string> annotations, image_pull_secrets;
  std::string image_pull_policy, service_account, shm_size;
  /// Per replica type, as Arena has them (`--worker-image`, `--ps-memory`, ...): they
  /// override --image/--cpu/--memory/--gpus for that type.
  struct RoleFlags {
    std::string image, cpu, memory;
    int gpus = -1;  ///< -1 = not given
  };
  std::map<std::string, RoleFlags> roles;  ///< keyed by the canonical replica type
  // scheduling: runPolicy.schedulingPolicy (v1.9's five fields), the scheduler, Kueue
  std::string queue, priority_class, scheduler_name, local_queue, managed_by;
  int min_available = -1;
  std::vector<std::string> min_resources;  ///< NAME=QTY (repeatable, or comma-separated)
  std::int64_t schedule_timeout = -1;
  bool gang = false, suspend = false;
  std::vector<CLI::Option*> builder_options;  ///< the flags that conflict with -f
};

/// The replica types that take per-type flags, with the flags' prefix.
const std::vector<std::pair<std::string, std::string>>& role_flag_prefixes();

namespace detail {

/// Where the job comes from: files, a built-in sample, the words after `--`.
void add_source_flags(CLI::App& sub, JobFlags& f);

/// The job's shape from flags: name, image, replicas, resources, volumes, placement, labels.
void add_shape_flags(CLI::App& sub, JobFlags& f);

/// The operator's policies: restarts, cleanup, TTL, deadline, backoff, success.
void add_policy_flags(CLI::App& sub, JobFlags& f);

/// Every replica's pod: annotations, image pulls, service account, /dev/shm; and the
/// per-type overrides of image, CPU, memory and GPUs.
void add_pod_flags(CLI::App& sub, JobFlags& f);

/// Gang scheduling and queues: Volcano's PodGroup, Kueue's LocalQueue, the scheduler's name.
void add_scheduling_flags(CLI::App& sub, JobFlags& f);

}  // namespace detail

/// Adds the job flags to a subcommand.
void add_job_flags(CLI::App& sub, JobFlags& f);

/// `K=V` split at the first `=`; nullopt without one or with an empty key.
std::optional<std::pair<std::string, std::string>> split_key_value(const std::string& kv);

/// The manifests one `-f` names: the file itself, a directory's *.yaml, *.yml and *.json
/// (sorted, as kubectl's resource builder visits them), or "-" (stdin).
std::vector<std::string> source_files(const std::string& path);

/// Gives each manifest one `-f` names to `each` as a stream (name, stream), read as it is
/// parsed: a file is never held whole, stdin is read once, as it comes.
void for_each_source(const std::string& path, const std::function<void(const std::string&, std::istream&)>& each);

/// Each object of the manifests one `-f` names, given to `each` with its source and its index
/// there as soon as it is read (ManifestReader::each: a List's items one at a time), so that no
/// file is held whole.
void for_each_object(const std::string& path,
                     const std::function<void(const std::string& source, nlohmann::json&& object, std::size_t index)>& each);

namespace detail {
inline bool given(const CLI::Option* o) { return o && o->count() > 0; }

/// A builder being filled from the flags, and the problems found with flag values so far
/// (builder_from_flags' steps share it).
struct FlagsBuild {
  const JobFlags& f;
  TFJobBuilder& b;
  std::vector<field_error>& errs;
  /// Runs `fn`, a builder call with `value` of `flag`: the tfjob::error it throws becomes
  /// a problem of that flag in `errs` (field = the flag).
  template <class Fn>
  void attempt(const std::string& flag, const std::string& value, Fn&& fn) {
    try {
      fn();
    } catch (const tfjob::error& e) {
      (void)value;
      errs.push_back({flag, "Invalid value", e.what()});
    }
  }
};

/// The job's shape: name, namespace, image, args or command, replicas, resources, env,
/// volumes, placement, labels.
void shape_from_flags(FlagsBuild& x, const std::vector<std::string>& words, const std::string& ns);

/// The operator's policies: restarts, cleanup, TTL, deadline, backoff, success, dynamic workers.
void policies_from_flags(FlagsBuild& x);

/// Every replica's pod: annotations, image pulls, service account, /dev/shm.
void pods_from_flags(FlagsBuild& x);

/// A job from flags' validation problem with the flag to give instead of the manifest's field
/// (`metadata.name` is --name, a replica's missing image --image); any other, as it is.
field_error named_by_flag(field_error fe, const JobFlags& f);

/// Whether the builder has no replica of any type (build_unchecked then makes one Worker).
bool no_replica_type(const TFJobBuilder& b);

/// The per replica type overrides (--worker-image, --ps-memory, ...) of the types the job has.
void roles_from_flags(FlagsBuild& x);

/// Gang scheduling and queues: the PodGroup's policy, the scheduler, Kueue, suspend.
void scheduling_from_flags(FlagsBuild& x);

}  // namespace detail

/// A builder from the flags (and the sample, when one is named). Problems with flag
/// values are appended to `errs` (field = the flag) so they are reported with the rest.
TFJobBuilder builder_from_flags(const JobFlags& f, const std::string& sample,
                                const std::vector<std::string>& words, const std::string& ns,
                                std::vector<field_error>& errs);

/// The positional words as given: the first positional, then the rest.
std::vector<std::string> positional_words(const JobFlags& f);

/// The positionals read as --help gives them, `[SAMPLE] [-- ARGS...]`.
struct Positionals {
  std::string sample;              ///< the word before `--`: a built-in sample's name, or ""
  std::vector<std::string> args;   ///< the words after `--`: the container's args (command with --command)
};

/// Reads the positionals: before `--` one built-in sample's name and nothing else, after it the
/// args. A word before `--` that names no sample, a second one, or one beside --sample is a
/// usage error, never taken for an argument.
Positionals read_positionals(const JobFlags& f);

/// The built-in sample the flags start from (--sample, or the word before `--`), "" if none.
std::string sample_name(const JobFlags& f);

/// `submit mnist --pvc NAME`: a bare claim name (no `:/path`) replaces the sample's own
/// claim at its mount path instead of adding a mount. Removes such names from `pvc` and
/// returns the one given ("" when none); more than one is a usage error.
std::string take_sample_claim(std::vector<std::string>& pvc);

/// Point every volume of `job` that mounts a claim at `claim`; returns how many it changed.
int rename_claims(TFJob& job, const std::string& claim);

namespace detail {

/// The TFJobs of `-f`, each given to `each` as it is read, defaulted and validated (the
/// manifests are read a document at a time). What build_jobs throws is thrown after the last,
/// in the same order of precedence: an unreadable or empty input at once, then the first
/// namespace that is not `ns`, then every problem of every job (a job of a source with a
/// schema problem is not validated further).
std::size_t jobs_from_files(const JobFlags& f, const std::string& ns, std::vector<field_error>* warnings,
                            const std::function<void(TFJob&)>& each);

}  // namespace detail

/// The TFJobs the flags describe, defaulted as the operator does and validated, given to
/// `each` one at a time: a manifest (-f) is read a document at a time, so that no more than
/// one job is held. `ns` is the namespace to use (the -n flag, or the context's; "" leaves it
/// unset). Manifests are judged by the CRD's schema as --validate says; under warn, what it
/// finds is appended to `warnings` for the caller to say. Throws `validation_error` listing
/// every problem of every job after the last (`each` may have seen the good ones: a caller
/// that acts on them keeps them until this returns, as submit's spool does), or
/// `tfjob::error`/`parse_error` for unreadable input. Returns how many jobs.
std::size_t for_each_job(const JobFlags& flags, const std::string& ns, std::vector<field_error>* warnings,
                         const std::function<void(TFJob&)>& each);

/// The TFJobs the flags describe (for_each_job()), all of them: for the paths that need them
/// together (several sent a bounded number at a time, the local runner).
std::vector<TFJob> build_jobs(const JobFlags& flags, const std::string& ns,
                              std::vector<field_error>* warnings = nullptr);

/// The namespace flags select: -n/--namespace, else "" (callers with a cluster fill in the
/// context's namespace; dry runs leave it unset as kubectl does).
inline std::string namespace_from_flags(const Globals& g) { return g.conn.namespace_; }

}  // namespace tfjob::cli
