#pragma once
/// \file Fuzz target: everything `explain`, `describe` and `wait` read about a job, as a
/// YAML/JSON stream of objects as a server answers them (a TFJob, its Pods, Events, Nodes,
/// PersistentVolumeClaims, the Namespace, Kueue's Workloads and queues, a PodGroup), sorted
/// by kind as `gather` (workflow/explain.hpp) sorts them, then the rules over them:
/// `explain`, `describe` + `render`, `progress`, `pending_reason` and `pod_info` of each pod.
/// A server may answer anything in any field: none of them may throw outside tfjob::error,
/// overflow or read out of range.
#include "common.hpp"

#include <tfjob/api/manifest.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/workflow/describe.hpp>
#include <tfjob/workflow/explain.hpp>
#include <tfjob/workflow/progress.hpp>

namespace tfjob::fuzz {

inline int explain(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = text_of(data, size);
  expect_sdk_errors_only([&] {
    workflow::ExplainInput in;
    in.now = 1714561200;  // 2024-05-01T11:00:00Z: the seeds' times are around it
    std::vector<std::pair<std::string, std::string>> tf_configs;
    for (auto& d : parse_objects(text, "fuzz.yaml")) {
      if (!d.is_object()) continue;
      const std::string kind = tfjob::detail::str_at(d, "kind");
      if (kind == "TFJob") in.job = d;
      else if (kind == "Pod") {
        in.pods.push_back(d);
        tf_configs.emplace_back(tfjob::detail::str_at(d, "/metadata/name"_json_pointer), tfjob::detail::str_at(d, "/metadata/annotations/tf-config"_json_pointer));
      } else if (kind == "Event") in.events.push_back(d);
      else if (kind == "Node") {
        if (!in.nodes) in.nodes.emplace();
        in.nodes->push_back(d);
      } else if (kind == "PersistentVolumeClaim") in.claims[tfjob::detail::str_at(d, "/metadata/name"_json_pointer)] = d;
      else if (kind == "Namespace") in.namespace_object = d;
      else if (kind == "Workload") {
        in.queue.workloads_read = true;
        in.queue.workloads.push_back(d);
      } else if (kind == "LocalQueue") in.queue.local_queue = d;
      else if (kind == "ClusterQueue") in.queue.cluster_queue = d;
      else if (kind == "PodGroup") {
        in.queue.pod_group = d;
        in.queue.pod_group_system = size % 3 == 0 ? "Volcano" : "scheduler-plugins";
      } else if (kind == "Log") {  // the last lines of a failed pod: {kind: Log, pod: NAME, lines: [...]}
        auto& lines = in.logs[tfjob::detail::str_at(d, "pod")];
        for (const auto& l : tfjob::detail::arr_at(d, "lines")) lines.push_back(l.is_string() ? l.get<std::string>() : l.dump());
      }
    }
    if (!in.job.is_object()) return;
    (void)workflow::explain(in);
    (void)workflow::render(workflow::describe(in.job, in.pods, in.events, tf_configs, in.now, in.queue), in.now);
    (void)workflow::progress(in.job, in.pods, in.events);
    for (const auto& p : in.pods) {
      (void)workflow::pod_info(p);
      (void)workflow::pending_reason(p, in.events);
    }
  });
  return 0;
}

}  // namespace tfjob::fuzz
