#pragma once
/// \file The bodies of <tfjob/kube/side_task.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/side_task.hpp>, never this file.

namespace tfjob::kube {

TFJOB_INLINE bool sleep_for(std::chrono::milliseconds d, const std::atomic<bool>* cancel,
                            std::chrono::steady_clock::time_point deadline) {
  using clock = std::chrono::steady_clock;
  const auto now = clock::now();
  const bool by_deadline = deadline - now < d;
  const auto end = by_deadline ? deadline : now + d;
  for (;;) {
    if (cancel && cancel->load()) return false;
    const auto left = end - clock::now();
    if (left <= clock::duration::zero()) return !by_deadline;
    std::this_thread::sleep_for(std::min<clock::duration>(std::chrono::milliseconds(20), left));
  }
}

TFJOB_INLINE SideTask::SideTask(std::chrono::milliseconds every, Task task, bool first_now)
    : task_(std::move(task)), every_(every), first_now_(first_now), thread_([this] { loop(); }) {}

TFJOB_INLINE SideTask::SideTask(Task task) : SideTask(std::chrono::milliseconds(0), std::move(task)) {}

TFJOB_INLINE SideTask::~SideTask() { halt(); }

TFJOB_INLINE void SideTask::stop() {
  halt();
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

TFJOB_INLINE bool SideTask::ended() const { return ended_.load(); }

TFJOB_INLINE void SideTask::loop() {
  try {
    std::unique_lock<std::mutex> lk(mu_);
    bool run = first_now_ || every_.count() <= 0;
    for (;;) {
      if (!run) {
        if (cv_.wait_for(lk, every_, [&] { return stop_.load(); })) break;
      }
      run = false;
      if (stop_) break;
      lk.unlock();
      const bool again = task_(stop_);
      lk.lock();
      if (!again || every_.count() <= 0) break;
    }
  } catch (...) {
    error_ = std::current_exception();
  }
  ended_ = error_ || !stop_.load();
}

TFJOB_INLINE void SideTask::halt() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

TFJOB_INLINE void for_each_bounded(std::size_t n, std::size_t limit, const std::function<void(std::size_t)>& work,
                                   const std::function<void(std::size_t)>& done) {
  if (limit <= 1 || n <= 1) {
    for (std::size_t i = 0; i < n; ++i) {
      work(i);
      done(i);
    }
    return;
  }
  std::mutex mu;
  std::condition_variable cv;
  std::vector<char> finished(n, 0);
  std::atomic<std::size_t> next{0};
  std::exception_ptr escaped;
  auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        work(i);
      } catch (...) {
        std::lock_guard<std::mutex> lk(mu);
        if (!escaped) escaped = std::current_exception();
      }
      std::lock_guard<std::mutex> lk(mu);
      finished[i] = 1;
      cv.notify_one();
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < std::min(limit, n); ++t) threads.emplace_back(worker);
  for (std::size_t i = 0; i < n; ++i) {
    {
      std::unique_lock<std::mutex> lk(mu);
      cv.wait(lk, [&] { return finished[i] != 0; });
    }
    done(i);
  }
  for (auto& t : threads) t.join();
  if (escaped) std::rethrow_exception(escaped);
}

}  // namespace tfjob::kube
