// The bodies of job_spool.hpp that use nlohmann's MessagePack reader and writer: compiled once,
// not in every command that includes the header.
#include "job_spool.hpp"

namespace tfjob::cli {

void JobSpool::add(const nlohmann::json& job) {
  bytes_.clear();
  nlohmann::json::to_msgpack(job, nlohmann::detail::output_adapter<char>(bytes_));
  spool_.append(bytes_);
}

nlohmann::json JobSpool::at(std::size_t i) const {
  const std::string b = spool_.at(i);
  return nlohmann::json::from_msgpack(b.begin(), b.end());
}

}  // namespace tfjob::cli
