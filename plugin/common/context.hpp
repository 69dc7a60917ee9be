#pragma once
/// \file The shape of a command: options with `validate()` (no request) and
/// `run(Context&)`, its streams and its client passed in (kubectl's `IOStreams` and
/// `Factory`, cmd/util/factory.go), so a test runs a command in-process with string
/// streams. Also the preamble the TFJob commands share: "are TFJobs served?" and kubectl's
/// NotFound line.

#include "command.hpp"
#include "error_words.hpp"
#include "kube.hpp"

#include <tfjob/error.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/workflow/cluster.hpp>  // tfjobs_served, crd_missing_message

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <mutex>
#include <vector>

namespace tfjob::cli {

/// What a command runs with: the global flags, its streams, and the client they resolve
/// to (made on first use, so `validate()` and a `--dry-run=client` never load kubeconfig).
class Context {
 public:
  Context(const Globals& g, std::ostream& out, std::ostream& err) : out(out), err(err), g_(g) {}

  const Globals& globals() const { return g_; }
  std::ostream& out;  ///< data (stdout)
  std::ostream& err;  ///< progress, warnings, errors (stderr)

  /// The resolved connection settings (loads kubeconfig; makes no request). The server's
  /// warnings are said as kubectl says them (`Warning: TEXT`, each once: rest.WarningWriter
  /// with Deduplicate), but not one that repeats what warn_once said already.
  kube::RestConfig rest_config() const {
    auto rc = make_rest_config(g_, err);
    rc.on_warning = [said = said_, &e = err](const std::string& text) {
      std::lock_guard<std::mutex> lk(said->mu);  // jobs applied at once share the client
      for (const auto& s : said->texts)
        if (s.find(text) != std::string::npos) return;
      said->texts.push_back(text);
      e << "Warning: " << text << "\n";
    };
    if (rc.log)  // -v=6 lines, from every job applied at once, one whole line at a time
      rc.log = [said = said_, log = rc.log](const std::string& line) {
        std::lock_guard<std::mutex> lk(said->mu);
        log(line);
      };
    return rc;
  }
  /// Says `warning: TEXT` on err unless said already in this run (the schema's findings
  /// under --validate=warn; the server's Warning header for the same field then stays quiet).
  void warn_once(const std::string& text) {
    std::lock_guard<std::mutex> lk(said_->mu);
    for (const auto& s : said_->texts)
      if (s == text) return;
    said_->texts.push_back(text);
    err << "warning: " << text << "\n";
  }
  /// The same run writing to other streams (one document's lines, buffered while several
  /// are applied at once): it shares the client (its connections) and the warnings said.
  Context redirected(std::ostream& o, std::ostream& e) {
    client();
    Context c(g_, o, e);
    c.said_ = said_;
    c.client_ = client_;
    c.served_ = served_;
    return c;
  }
  /// Held while writing to the run's own err when other threads may say a server warning there.
  std::unique_lock<std::mutex> lock_streams() const { return std::unique_lock<std::mutex>(said_->mu); }
  /// The client for these flags, one per run.
  kube::Client& client() {
    if (!client_) client_.emplace(rest_config());
    return *client_;
  }
  /// At -v=6 and above, one line for the run: how many requests its client sent
  /// (Client::requests_sent), so a user or a test sees what a command costs the server.
  void log_request_count() const {
    if (g_.verbosity >= 6 && client_) err << "requests: " << client_->requests_sent() << "\n";
  }
  /// The namespace the flags resolve to (-n, else the context's, else "default").
  const std::string& namespace_() { return client().namespace_(); }

  /// The preamble of a TFJob command: the client, after discovery says the server serves
  /// kubeflow.org/v1 tfjobs (asked once per run); throws the install hint otherwise.
  kube::Client& tfjobs() {
    auto& c = client();
    if (!served_) {
      if (!workflow::tfjobs_served(c)) throw tfjob::error(workflow::crd_missing_message(c.config().server));
      served_ = true;
    }
    return c;
  }

 private:
  const Globals& g_;
  struct Said {
    std::mutex mu;
    std::vector<std::string> texts;
  };
  std::shared_ptr<Said> said_ = std::make_shared<Said>();  ///< warnings said (and the lock of err)
  std::optional<kube::Client> client_;
  bool served_ = false;
};

/// An input the command names (a manifest file) that cannot be used, found after validate()
/// (explain -f, tensorboard -f read theirs when they run): refused as validate() refuses an
/// input, with exit 64 (docs/cli.md's table), in the reader's own words.
class input_error : public tfjob::error {
 public:
  using tfjob::error::error;
};

/// The line a failure is said with: kubectl's own words for a server that refused the
/// connection or cannot be reached (kubectl/pkg/cmd/util/helpers.go standardErrorMessage),
/// else `error: MESSAGE` with the SDK's advice in the plugin's flags.
inline std::string failure_line(const std::exception& e) {
  if (const auto* t = dynamic_cast<const tfjob::error*>(&e)) {
    if (t->reason() == reasons::connection_refused)
      return "The connection to the server " + t->subject() + " was refused - did you specify the right host or port?";
    if (t->reason() == reasons::server_unreachable) return "Unable to connect to the server: " + t->problem();
    if (t->reason() == reasons::job_not_found) return "Error from server (NotFound): " + error_message(e);  // kubectl's words
  }
  return "error: " + error_message(e);
}

/// kubectl's line for a TFJob that is not there (cmd/get: `Error from server (NotFound):
/// <resource>.<group> "<name>" not found`, with the namespace as kube-apiserver words it).
inline std::string not_found_line(const std::string& ns, const std::string& name) {
  return "Error from server (NotFound): " + tfjob::no_such_job(ns, name).problem();
}

/// Says `not_found_line` on `err`; returns exit_code::failure for the caller's rc.
inline int say_not_found(Context& ctx, const std::string& name) {
  ctx.err << not_found_line(ctx.namespace_(), name) << "\n";
  return exit_code::failure;
}

/// Makes `cmd` the subcommand's action: the parse callback hands main (or a test's
/// `run_cli`) its two steps, validate (no request: what it refuses is a usage error, exit
/// 64) and run.
/// `Cmd` has `void validate()` and `int run(Context&)`. Where a subcommand of this one was
/// chosen (`serve list`), its action stands: CLI11 runs its callback first.
template <class Cmd>
void set_action(CLI::App& sub, Globals& g, std::shared_ptr<Cmd> cmd) {
  sub.callback([cmd, &g, s = &sub] {
    if (!s->get_subcommands().empty()) return;
    g.validate = [cmd] { cmd->validate(); };
    g.command = [cmd](Context& ctx) { return cmd->run(ctx); };
  });
}

}  // namespace tfjob::cli
