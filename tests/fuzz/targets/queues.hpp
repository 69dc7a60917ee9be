#pragma once
/// \file Fuzz target: what a server answers about a job's queues, as a YAML/JSON stream of
/// objects (a TFJob, Kueue's Workloads, LocalQueue and ClusterQueue, a PodGroup),
/// sorted by kind as `gather_queue_state` and submit's preflight read them, then the rules
/// over them: `kueue_quota`, `queue_findings` (the ClusterQueue's GPU quota, the scheduler)
/// and `queue_wait_findings`. Pods and events are left out: `pod_info` (workflow/pods.hpp)
/// and `events_for` (workflow/progress.hpp) are not yet hardened against every hostile
/// answer (a non-string metadata.uid or involvedObject.kind throws JSON's type_error).
#include "common.hpp"

#include <tfjob/api/manifest.hpp>
#include <tfjob/workflow/queues.hpp>

namespace tfjob::fuzz {

inline int queues(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = text_of(data, size);
  expect_sdk_errors_only([&] {
    struct {
      nlohmann::json job;  // the queue rules read the job as served
      workflow::QueueState queue;
    } in;
    workflow::QueueFacts facts;
    facts.systems.kueue = facts.systems.volcano = true;
    facts.local_queue_exists = true;
    facts.scheduler_found = size % 2 == 0;
    for (auto& d : parse_objects(text, "fuzz.yaml")) {
      if (!d.is_object()) continue;
      const auto k = d.find("kind");
      const std::string kind = k != d.end() && k->is_string() ? k->get<std::string>() : "";
      if (kind == "TFJob") in.job = d;
      else if (kind == "Workload") {  // each decoded as the client decodes what a server sends
        in.queue.workloads_read = true;
        in.queue.workloads.push_back(d.get<k8s::Workload>());
      } else if (kind == "LocalQueue") in.queue.local_queue = d.get<k8s::LocalQueue>();
      else if (kind == "ClusterQueue") {
        in.queue.cluster_queue = d.get<k8s::ClusterQueue>();
        facts.cluster_queue = in.queue.cluster_queue;
        facts.cluster_queue_name = "fuzz";
      } else if (kind == "PodGroup") {
        in.queue.pod_group = d.get<k8s::PodGroup>();
        in.queue.pod_group_system = size % 3 == 0 ? "Volcano" : "scheduler-plugins";
      }
    }
    if (!in.job.is_object()) return;
    const TFJob job = tfjob::detail::decoded<TFJob>(in.job);  // as served: leniently
    (void)workflow::queue_findings(job, facts);
    (void)workflow::queue_wait_findings(job, {}, {}, in.queue);
    if (in.queue.cluster_queue) (void)workflow::kueue_quota(*in.queue.cluster_queue, "nvidia.com/gpu");
  });
  return 0;
}

}  // namespace tfjob::fuzz
