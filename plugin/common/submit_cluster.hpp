#pragma once
/// \file `submit`'s cluster path: preflight, the PVCs the job mounts, server-side apply
/// (created / unchanged / refused or --replace), then optionally --wait with a live
/// progress line or --follow with the chief's log. The logic lives in
/// include/tfjob/workflow/; this file turns it into output and exit codes.

#include "context.hpp"
#include "flag_values.hpp"
#include "output.hpp"
#include "workflow_cli.hpp"

#include <tfjob/api/types.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/logs.hpp>
#include <tfjob/workflow/queues.hpp>
#include <tfjob/workflow/wait.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <mutex>
#include <set>
#include <streambuf>
#include <utility>
#include <string>
#include <thread>
#include <vector>
#include <tfjob/detail/json.hpp>

namespace tfjob::cli {

/// The cluster-path flags of `submit`.
struct SubmitClusterFlags {
  bool replace = false;
  bool rerun = false;           ///< delete the job even with the same spec and submit it again
  std::string pvc_access_mode = workflow::default_claim_access_mode;
  /// Objects created with each job (by job name), owned by it: a sample's trainer ConfigMap.
  std::map<std::string, std::vector<nlohmann::json>> owned;
  bool wait = false;
  bool follow = false;
  std::string save;             ///< with --follow: every replica's log written there as it streams
  std::string timeout = "0";
  std::string pvc_size = "10Gi";
  std::string storage_class;
  bool create_pvcs = false;     ///< create missing claims (samples, or --pvc-size/--storage-class given)
  bool skip_gpu_check = false;
  bool strict = false;          ///< --strict: a lint or preflight warning refuses the submit
  std::string field_validation; ///< fieldValidation of the apply and its dry run (from --validate)
};

/// Adds the cluster-path flags to `submit`.
void add_submit_cluster_flags(CLI::App& sub, SubmitClusterFlags& f);

/// Lint and preflight warnings on stderr, each with its fix; info findings (ExitCode's retry
/// rule) as a `note:`, each code once per command (`noted` keeps the codes said; a note never
/// counts for --strict).
/// `subject` ("TFJob NAME", when a command submits several) begins each warning.
void print_warnings(const std::vector<tfjob::Finding>& findings, std::set<std::string>& noted, std::ostream& err,
                    const std::string& subject = {});

/// --strict: any warning is an error (nothing has been created yet).
void refuse_on_warnings(const std::vector<tfjob::Finding>& findings);

/// The cluster path's flags that no request is needed to refuse.
std::chrono::milliseconds check_submit_cluster_flags(const SubmitClusterFlags& f, std::size_t jobs, bool dry_run_server);

/// Step 2 of a submit: the claims the job mounts (workflow::claims_of) exist, or are created when asked.
void ensure_claims(Context& ctx, const std::string& ns, const std::set<std::string>& claims, const SubmitClusterFlags& f,
                   bool dry_run_server);

/// Step 3's companions: what the job brings along (the sample's trainer), owned by it.
void apply_owned_objects(Context& ctx, const std::string& ns, const std::string& name, const nlohmann::json& applied,
                         const SubmitClusterFlags& f, const workflow::SubmitOptions& so, bool dry_run_server);

/// Step 4: a claim that cannot bind is worth saying now (a few seconds' look).
void warn_unbound_claims(Context& ctx, const std::string& ns, const std::set<std::string>& claims);

/// Steps 1-4 for one job: preflight (nothing is created when it fails), the claims,
/// server-side apply with what it owns, unbound claims. Returns what the server answered.
/// The info codes said once for all the jobs of a submit (jobs applied at once share it).
struct NotedCodes {
  std::mutex mu;
  std::set<std::string> codes;
};

/// `shared`: what the other jobs of a submit of several read of the cluster already.
nlohmann::json submit_one(Context& ctx, nlohmann::json job, const SubmitClusterFlags& f, bool dry_run_server,
                          OutputFormat fmt, NotedCodes& noted, const std::string& subject = {},
                          workflow::PreflightShared* shared = nullptr);

/// --follow: the chief's log to stdout until the job ends; nullopt = it ended (its state
/// in `final_state`), else the exit code (timed out).
std::optional<int> follow_submitted(Context& ctx, const std::string& ns, const std::string& name,
                                    const SubmitClusterFlags& f, std::chrono::milliseconds timeout,
                                    wf::ProgressLine& line, workflow::JobSummary& final_state);

/// --wait: until the job ends; nullopt = it ended (`final_state`), else the exit code.
std::optional<int> wait_submitted(Context& ctx, const std::string& ns, const std::string& name,
                                  const SubmitClusterFlags& f, std::chrono::milliseconds timeout,
                                  wf::ProgressLine& line, workflow::JobSummary& final_state);

/// How a waited-for job ended, and its exit code: Succeeded, or the failed pod and its
/// exit code with where to read more.
int say_how_it_ended(Context& ctx, const std::string& ns, const std::string& name, const workflow::JobSummary& final_state);

namespace detail {
/// What one job of several says while it is applied, stdout's and stderr's lines kept in the
/// order they were written, to be said together when its turn comes.
struct HeldLines {
  std::vector<std::pair<bool, std::string>> parts;  ///< (on stderr, text)
  /// A stream writing into `parts` as stdout (`err` false) or stderr.
  class Buf : public std::streambuf {
   public:
    Buf(HeldLines& h, bool err) : h_(h), err_(err) {}

   protected:
    int overflow(int ch) override {
      if (ch == traits_type::eof()) return traits_type::not_eof(ch);
      const char c = static_cast<char>(ch);
      xsputn(&c, 1);
      return ch;
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
      if (h_.parts.empty() || h_.parts.back().first != err_) h_.parts.emplace_back(err_, std::string());
      h_.parts.back().second.append(s, static_cast<std::size_t>(n));
      return n;
    }

   private:
    HeldLines& h_;
    bool err_;
  };
  /// Says what was held on `out` and `err`, in order.
  void say(std::ostream& out, std::ostream& err) const {
    for (const auto& [on_err, text] : parts) (on_err ? err : out) << text << std::flush;
  }
};
}  // namespace detail

/// Submit `count` jobs to the cluster (flags checked by check_submit_cluster_flags), job `i`
/// given by `job(i)` (called once per job, in order of `i` as workers take them).
/// `dry_run_server`: validated and defaulted by the server, nothing persisted. Several jobs
/// are applied workflow::apply_concurrency at a time; each one's lines (its result, its
/// warnings, its error) are said together and in the order of the jobs as each is done,
/// a failure does not stop the others (kubectl apply -f goes on past a failed object and
/// exits 1 at the end); -o json|yaml|name prints each applied job when its turn comes
/// (ObjectPrinter: several as one List in JSON), so nothing is held for the end. Returns the
/// exit code.
int submit_to_cluster_path(Context& ctx, std::size_t count, const std::function<nlohmann::json(std::size_t)>& job,
                           const SubmitClusterFlags& f, bool dry_run_server, OutputFormat fmt,
                           std::chrono::milliseconds timeout);

}  // namespace tfjob::cli
