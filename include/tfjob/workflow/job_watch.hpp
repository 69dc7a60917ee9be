#pragma once
/// \file What a waiting command knows of one TFJob, kept up to date by three long-lived
/// watches and never by listing: the job (by name), its pods (by the operator's job-name
/// label) and the job's own events (by kubectl describe's field selector), each selecting
/// only what is the job's, so neither the requests nor the memory grow with the namespace.
/// Why a pod waits for a node is in its PodScheduled condition, which kube-scheduler writes
/// with the same message as its FailedScheduling event (scheduler.go recordSchedulingFailure).
/// `wait` and `logs -f` read it; a fixed number of requests however long they wait. Each
/// object is decoded once, as its watch delivers it (the client's edge), into the typed value
/// (TFJob, k8s::Pod, k8s::Event), leniently: what a type does not model, or has of the wrong
/// type, stays in its `other`, and readers read fields.

#include <tfjob/api/k8s/event.hpp>
#include <tfjob/api/k8s/pod.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/kube/api.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/side_task.hpp>
#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/progress.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::workflow {

/// Which watches a JobWatch runs.
struct JobWatchOptions {
  bool pods = true;    ///< its pods
  bool events = true;  ///< the job's events (involvedObject: the TFJob of that name)
  /// The pods' label selector; "" = the v1.9 operator's job-name label (older operators'
  /// labels: pass the one of pod_selectors() that found them).
  std::string pod_selector;
  /// The watches end when this passes (the wait's own deadline).
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

/// One change of the job as its watch delivered it, decoded.
struct JobChange {
  bool deleted = false;
  /// The job as changed; for a deletion that a relist found (its final state unknown), the job
  /// as this watch last had it.
  TFJob object;
};

/// The watches of one job and what they delivered. Stops its watches when destroyed.
class JobWatch {
 public:
  /// What is known now (a copy).
  struct View {
    std::uint64_t generation = 0;  ///< counts changes; a new one means something moved
    bool synced = false;           ///< every watch has delivered its first list
    bool ended = false;            ///< the job watch returned (its error: rethrow_error)
    bool deleted = false;          ///< the job watch saw it deleted
    std::optional<TFJob> job;        ///< absent until the job watch delivered it
    std::vector<k8s::Pod> pods;      ///< by name
    std::vector<k8s::Event> events;  ///< the job's

    /// The job as waiting reports it (Pending pods and why), once the job is known.
    Progress progress() const;
  };

  JobWatch(kube::Client c, std::string ns, std::string name, JobWatchOptions o = {});
  JobWatch(const JobWatch&) = delete;
  JobWatch& operator=(const JobWatch&) = delete;
  ~JobWatch();

  const std::string& name() const { return name_; }
  const std::string& namespace_() const { return ns_; }

  View view() const;

  /// The job's changes since the last call, in the order delivered.
  std::vector<JobChange> take_changes();

  /// Wait until the generation is past `seen` (or the job watch ended), at most `at_most`
  /// (to look at a caller's cancel token meanwhile). Returns the generation now.
  std::uint64_t wait(std::uint64_t seen, std::chrono::milliseconds at_most) const;

  /// Whether the job watch has returned (stopped, its deadline, or an error).
  bool ended() const;

  /// Stop the watches and wait for them (idempotent).
  void stop();

  /// Rethrows why the job watch failed, if it did.
  void rethrow_error() const;

  /// The events kept: far more than a job's pods produce while starting.
  static constexpr std::size_t max_events = 2000;

 private:
  using Apply = std::function<void(const kube::WatchEvent<kube::DynamicObject>&)>;

  /// One watch until `stop`; `apply` runs under the lock for each change.
  void run(kube::Client& c, const kube::ResourceInfo& res, const kube::WatchParams& wp, const std::atomic<bool>& stop,
           std::chrono::steady_clock::time_point deadline, const Apply& apply);

  /// A best-effort watch (pods, events): its failure only makes progress poorer (events may
  /// be forbidden to the user); it counts as synced so nobody waits for it.
  void side(kube::Client c, const kube::ResourceInfo& res, kube::WatchParams wp, std::chrono::steady_clock::time_point deadline,
            Apply apply);

  void keep_event(k8s::Event e);

  std::string ns_, name_;
  std::size_t expected_;  ///< watches that must sync
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::uint64_t generation_ = 0;
  std::size_t synced_ = 0;
  bool ended_ = false, deleted_ = false;
  std::exception_ptr error_;
  std::optional<TFJob> job_;
  std::vector<JobChange> changes_;
  std::map<std::string, k8s::Pod> pods_;
  std::map<std::string, k8s::Event> events_;  ///< by uid
  std::deque<std::string> event_order_;           ///< insertion order, for the bound
  std::vector<std::unique_ptr<kube::SideTask>> watches_;  // last: stopped before the rest goes
};

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/impl/job_watch_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
