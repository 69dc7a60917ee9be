#pragma once
/// \file Fuzz target: everything `explain`, `describe` and `wait` read about a job, as a
/// YAML/JSON stream of objects as a server answers them (a TFJob, its Pods, Events, Nodes,
/// PersistentVolumeClaims, the Namespace, Kueue's Workloads and queues, a PodGroup), sorted
/// by kind by `explain_input` (workflow/explain.hpp) as `gather` sorts them, then the rules over them:
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
    std::vector<nlohmann::json> objects;
    std::map<std::string, std::vector<std::string>> logs;
    std::vector<std::pair<std::string, std::string>> tf_configs;
    for (auto& d : parse_objects(text, "fuzz.yaml")) {
      const std::string kind = tfjob::detail::str_at(d, "kind");
      if (kind == "Log") {  // the last lines of a failed pod: {kind: Log, pod: NAME, lines: [...]}
        auto& lines = logs[tfjob::detail::str_at(d, "pod")];
        for (const auto& l : tfjob::detail::arr_at(d, "lines")) lines.push_back(l.is_string() ? l.get<std::string>() : l.dump());
        continue;
      }
      if (kind == "Pod")
        tf_configs.emplace_back(tfjob::detail::str_at(d, "/metadata/name"_json_pointer),
                                tfjob::detail::str_at(d, "/metadata/annotations/tf-config"_json_pointer));
      objects.push_back(std::move(d));
    }
    // several TFJobs are an error unless one is named: both paths, the first one named
    std::string first_job;
    for (const auto& d : objects)
      if (first_job.empty() && tfjob::detail::str_at(d, "kind") == "TFJob") first_job = tfjob::detail::str_at(d, "/metadata/name"_json_pointer);
    auto saved = size % 2 ? workflow::explain_input(objects) : workflow::explain_input(objects, first_job);
    if (!saved) return;
    workflow::ExplainInput in = std::move(*saved);
    in.now = 1714561200;  // 2024-05-01T11:00:00Z: the seeds' times are around it
    in.logs = std::move(logs);
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
