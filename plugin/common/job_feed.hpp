#pragma once
/// \file JobFeed: the jobs of `submit -f` read on a thread of their own while they are sent,
/// a bounded number read ahead (submit_cluster.hpp; tests/submit_many_test.cpp).

#include <tfjob/error.hpp>

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace tfjob::cli {

/// Jobs read on a thread of their own (a manifest's second reading, after the first judged it)
/// and taken by index, in order, by the workers that send them: at most `ahead` are held read
/// and not yet taken, so what a submit of many jobs holds is the jobs in flight, not the file.
class JobFeed {
 public:
  /// `read` reads the jobs and gives each to the function it is passed, in order; `count`:
  /// how many the first reading found.
  using Read = std::function<void(const std::function<void(nlohmann::json)>&)>;
  JobFeed(std::size_t count, std::size_t ahead, Read read) : count_(count), ahead_(ahead == 0 ? 1 : ahead) {
    thread_ = std::thread([this, read = std::move(read)] {
      try {
        read([this](nlohmann::json j) {
          std::unique_lock<std::mutex> lk(mu_);
          if (read_ == count_) throw error(changed(read_ + 1));
          cv_.wait(lk, [&] { return stop_ || held_.size() < ahead_; });
          if (stop_) throw Stopped{};
          held_.emplace(read_++, std::move(j));
          if (held_.size() > most_held_) most_held_ = held_.size();
          cv_.notify_all();
        });
      } catch (const Stopped&) {
      } catch (...) {
        std::lock_guard<std::mutex> lk(mu_);
        failed_ = std::current_exception();
      }
      std::lock_guard<std::mutex> lk(mu_);
      done_ = true;
      cv_.notify_all();
    });
  }
  JobFeed(const JobFeed&) = delete;
  JobFeed& operator=(const JobFeed&) = delete;
  ~JobFeed() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  /// Job `i` (0-based), waiting for it to be read; throws what the reading threw, or that the
  /// input changed since the first reading (fewer jobs, or more).
  nlohmann::json take(std::size_t i) {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [&] { return held_.count(i) > 0 || done_; });
    auto it = held_.find(i);
    if (it == held_.end()) {
      if (failed_) std::rethrow_exception(failed_);
      throw error(changed(i + 1));
    }
    nlohmann::json j = std::move(it->second);
    held_.erase(it);
    cv_.notify_all();
    return j;
  }

  /// The most jobs held read and not yet taken at one moment (never more than `ahead`).
  std::size_t most_held() {
    std::lock_guard<std::mutex> lk(mu_);
    return most_held_;
  }

  /// After every job was taken: the reading's error, if the input changed after the last job.
  void check_end() {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [&] { return done_; });
    if (failed_) std::rethrow_exception(failed_);
  }

 private:
  struct Stopped {};
  std::string changed(std::size_t job) const {
    return "the manifests changed while they were read: the first reading found " + std::to_string(count_) +
           " TFJobs, the second " + (job > count_ ? "more" : "fewer (no job " + std::to_string(job) + ")") +
           "; nothing after that was sent. Run the command again on files that do not change";
  }
  std::size_t count_, ahead_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::size_t, nlohmann::json> held_;  ///< read, not yet taken (by index)
  std::size_t read_ = 0, most_held_ = 0;
  bool stop_ = false, done_ = false;
  std::exception_ptr failed_;
  std::thread thread_;
};

}  // namespace tfjob::cli
