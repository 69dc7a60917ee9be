#pragma once
/// \file Waiting, once: a sleep that a cancel token or a deadline cuts short (every retry's
/// pause), and `SideTask`, the one helper that runs work beside a wait for its length (look
/// at pods meanwhile, flush a file, follow a watch) on a side thread that its scope stops and
/// joins, with a cancel token that the task's own streams and watches take and its exception
/// handed back. kube-runtime composes such work onto its watcher stream instead of each
/// feature writing "side thread + done flag + join" of its own. And `for_each_bounded`: many
/// requests at once, at most so many at a time, each answer handed over in order.

#include <tfjob/detail/compiled.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace tfjob::kube {

/// Sleep `d`, or less: until `cancel` is raised (seen within 20 ms) or `deadline` passes.
/// Returns false when cut short by either.
bool sleep_for(std::chrono::milliseconds d, const std::atomic<bool>* cancel = nullptr,
               std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

/// Runs a task on a side thread for the length of a scope: once (`every` 0: a blocking watch
/// or stream, given the token as its cancel) or every `every` until it returns false. It
/// stops when the task returns false or throws, or when stop() or the destructor raises the
/// token (a pause between runs ends at once). stop() rethrows what the task threw.
class SideTask {
 public:
  /// The task; `stop` is raised when the owner stops it (pass it to streams and watches as
  /// their cancel). Returns whether to run again (after `every`; ignored when `every` is 0).
  using Task = std::function<bool(const std::atomic<bool>& stop)>;

  /// Run `task` every `every` (first run at once, or after one period with `first_now`
  /// false); `every` 0 runs it once.
  SideTask(std::chrono::milliseconds every, Task task, bool first_now = true);
  /// Run `task` once.
  explicit SideTask(Task task);
  SideTask(const SideTask&) = delete;
  SideTask& operator=(const SideTask&) = delete;
  /// Stops and joins; an exception the task threw and nobody took is dropped here.
  ~SideTask();

  /// Raise the token, wait for the task to return; rethrows what the task threw (once).
  void stop();
  /// Whether the task ended by itself (returned false or threw).
  bool ended() const;
  /// The token the task sees (raised by stop() and the destructor).
  const std::atomic<bool>& token() const { return stop_; }

 private:
  void loop();
  void halt();

  Task task_;
  std::chrono::milliseconds every_;
  bool first_now_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> ended_{false};
  std::exception_ptr error_;  ///< written by the thread before it ends, read after join
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;  // last: starts once the rest exists
};

/// How many requests one command sends at once (many documents applied, a job's lists).
// 8: under client-go's default Burst of 10 (rest.DefaultBurst), so a command never sends more at once than a default client-go client may
inline constexpr std::size_t request_concurrency = 8;

/// Runs `work(i)` for each i in [0, n), at most `limit` at once on threads of their own;
/// `done(i)` runs on the caller's thread in the order of i, as soon as work(0..i) have
/// ended (results said in input order as they come, as kubectl says each object's).
/// `work` should catch what one item throws; an exception that escapes it is rethrown
/// here after every started item has ended.
void for_each_bounded(std::size_t n, std::size_t limit, const std::function<void(std::size_t)>& work,
                      const std::function<void(std::size_t)>& done);

}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
#include <tfjob/kube/impl/side_task_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
