#pragma once
/// \file JobSpool: the jobs of `submit -f` as the one reading of the manifests judged them
/// (defaults applied), kept to be printed or sent once every job is judged
/// (submit_cluster.hpp; tests/submit_many_test.cpp).

#include <tfjob/detail/files.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

namespace tfjob::cli {

/// The jobs read from -f, each as MessagePack in a detail::Spool (an unlinked temporary file):
/// the manifests are read and parsed once, and what a submit of many jobs holds in memory is the
/// jobs in flight, not the file. Jobs are added in the order read, then taken by index, in any
/// order and from several threads (the workers that send them).
class JobSpool {
 public:
  /// One job, as it will be printed or sent.
  void add(const nlohmann::json& job);
  /// Every job is added: they can be taken.
  void finish() {
    spool_.finish();
    bytes_ = std::string();
  }
  std::size_t size() const { return spool_.size(); }
  /// Job `i` (0-based), as it was added.
  nlohmann::json at(std::size_t i) const;
  /// A warning to say when the jobs are held in memory (no temporary file could be made), or "".
  std::string warning() const {
    if (spool_.in_memory().empty()) return {};
    return "the jobs read are held in memory (" + spool_.in_memory() + "); set TMPDIR to a writable folder";
  }

 private:
  tfjob::detail::Spool spool_;
  std::string bytes_;  ///< one job's bytes, reused
};

}  // namespace tfjob::cli
