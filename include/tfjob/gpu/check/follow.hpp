#pragma once
/// \file Following gpu-check's probe pods: created, followed by one watch (Pending explained
/// from events, running ones told), their logs read back and judged, and deleted at the end or
/// on cancel (ProbeFollower, ProbeCleanup). Part of <tfjob/gpu/check.hpp>.

#include <tfjob/api/cluster_words.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>
#include <tfjob/gpu/probe_report.hpp>
#include <tfjob/gpu/check/inventory.hpp>
#include <tfjob/gpu/check/probe_pod.hpp>
#include <tfjob/gpu/check/result.hpp>
#include <tfjob/gpu/verdict.hpp>
#include <tfjob/kube/api.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/logs.hpp>
#include <tfjob/kube/side_task.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <mutex>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace tfjob::gpu {

namespace detail {
/// Says one progress line when the caller asked for them.
void tell(const CheckOptions& o, const Text& line);

/// Whether the caller raised its cancel token.
bool cancel_raised(const CheckOptions& o);

/// Deletes the probe pods a run created when it leaves scope, whatever ended it (unless `keep`).
struct ProbeCleanup {
  kube::Api<k8s::Pod>& pods;
  std::vector<std::string>& created;
  bool keep;
  const std::function<void(const Text&)>& say;  // CheckOptions::progress itself (a reference: no copy of another type)
  ~ProbeCleanup();
};

/// Creates the chosen nodes' probe pods until all exist or the caller cancels; each name
/// goes to `created` as soon as its pod exists (for the cleanup).
void create_probe_pods(kube::Api<k8s::Pod>& pods, CheckResult& res, const std::vector<std::size_t>& probing,
                       const CheckOptions& o, const std::string& ns, std::vector<std::string>& created);

/// Follows a run's probe pods with a watch (each change judged when it arrives) until every
/// one has a result, the deadline passes or the caller cancels. A side task meanwhile
/// refreshes the explanation of pods still Pending from the events every `poll` (an event can
/// come after the pod's last change) and tells running probes' last line every
/// `running_every`. The state is guarded by `mu_`; reads from the server happen outside it
/// (what they need is copied under it first) and so do the progress lines (`told_`, said by
/// speak(); `say_mu_` only keeps the caller's callback to one line at a time).
class ProbeFollower {
 public:
  /// Follows `probing` (indices into `res.nodes`, whose pods exist in `ns`).
  ProbeFollower(kube::Client& client, std::string ns, const CheckOptions& o, const VerdictOptions& v, CheckResult& res,
                const std::vector<std::size_t>& probing);

  /// Follows the pods until done, then ends those still open as cancelled or timed out.
  void run(kube::Api<k8s::Pod>& pods);

 private:
  using Clock = std::chrono::steady_clock;
  /// What judging one change of a pod needs from the server (read without `mu_`).
  struct Fetched {
    std::string logs, log_error;
    std::vector<k8s::Event> events;
  };

  /// Says the lines told so far (takes `mu_` only to take them).
  void speak();

  /// Records why node `i`'s pod is Pending, told when it changes (`mu_` held).
  void note_pending(std::size_t i, const k8s::Pod& p, const std::vector<k8s::Event>& events);

  /// The events about probe pod `p` (kubectl describe's field selector), or none when they
  /// cannot be listed (an explanation, not a requirement).
  std::vector<k8s::Event> pod_events(kube::Client& cl, const k8s::Pod& p) const;

  /// Reads what a change needs: the probe's log once the pod ended, the events while it is Pending.
  Fetched fetch(const k8s::Pod& p);

  /// Judges one change of node `i`'s pod (`mu_` held).
  void look(std::size_t i, const k8s::Pod& p, const Fetched& f);

  /// Node `i`'s probe pod ended: its result from the exit code and log (`mu_` held).
  void look_ended(std::size_t i, const k8s::Pod& p, const Fetched& f);

  /// Node `i`'s probe pod is Pending: failed at once when its image cannot be pulled, else
  /// explained (`mu_` held).
  void look_pending(std::size_t i, const k8s::Pod& p, const Fetched& f);

  /// Explains pods still Pending again from their events (read without `mu_`): each pod's
  /// by its own field selector, at most `refresh_batch` pods a call, taking turns, so a run
  /// over many nodes asks a bounded number of requests per `poll`.
  void refresh_pending(kube::Client& ec);
  static constexpr std::size_t refresh_batch = 8;

  /// Tells each running probe's time so far and last log line (read without `mu_`).
  void tell_running(kube::Client& ec);

  /// One watch event: a deleted pod fails its node, any other change is fetched (without
  /// `mu_`) and judged. Returns whether any pod is still open.
  bool on_event(const kube::WatchEvent<k8s::Pod>& ev);

  /// Ends the nodes still open once the watch is over: cancelled, or Pending/timeout at the deadline.
  void finish();

  kube::Client& client_;
  const std::string ns_;
  const CheckOptions& o_;
  const VerdictOptions& v_;
  CheckResult& res_;
  std::mutex mu_;
  std::set<std::size_t> open_;
  std::map<std::size_t, std::string> last_note_;
  std::map<std::string, std::size_t> index_of_;  // pod name -> its node's result
  std::map<std::size_t, k8s::Pod> pending_;     // the last state of pods still Pending
  std::size_t refresh_next_ = 0;                 // refresh_pending's turn: the first index it looks at
  std::map<std::size_t, Clock::time_point> running_since_;
  std::vector<std::string> told_;  // lines to say once `mu_` is released
  std::mutex say_mu_;              // one line at a time, from either thread
  const Clock::time_point deadline_;
};
}  // namespace detail

}  // namespace tfjob::gpu

#if TFJOB_SDK_DEFINE_GPU
#include <tfjob/gpu/check/impl/follow_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_GPU
