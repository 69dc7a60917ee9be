#pragma once
/// \file What gang schedulers serve, as value types: Volcano's PodGroup and Queue
/// (scheduling.volcano.sh/v1beta1, volcano.sh/apis `pkg/apis/scheduling/v1beta1/types.go`),
/// scheduler-plugins' PodGroup (scheduling.x-k8s.io/v1alpha1, `apis/scheduling/v1alpha1/types.go`:
/// one struct for both, its fields a subset of Volcano's but for `scheduleTimeoutSeconds`), and
/// the coordination.k8s.io/v1 Lease a scheduler holds for leader election (k8s.io/api
/// `coordination/v1/types.go`). What the SDK reads is modeled; the rest stays in `other`.

#include <tfjob/api/meta.hpp>
#include <tfjob/api/k8s/condition.hpp>
#include <tfjob/api/k8s/pod.hpp>  // ResourceList
#include <tfjob/detail/compiled.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::k8s {

/// `PodGroupSpec` of either system (`queue` and `priorityClassName` are Volcano's,
/// `scheduleTimeoutSeconds` scheduler-plugins').
struct PodGroupSpec {
  std::optional<std::int32_t> min_member;
  std::string queue;
  std::string priority_class_name;
  ResourceList min_resources;
  std::optional<std::int32_t> schedule_timeout_seconds;
  nlohmann::json other = nlohmann::json::object();  ///< minTaskMember, networkTopology, ...
};

/// `PodGroupStatus` of either system (`conditions` are Volcano's, `occupiedBy` and
/// `scheduleStartTime` scheduler-plugins').
struct PodGroupStatus {
  std::string phase;  ///< Volcano: Pending, Inqueue, Running, Unknown; scheduler-plugins: Pending, PreScheduling, Scheduling, Scheduled, Running, ...
  std::vector<Condition> conditions;
  std::int32_t running = 0;
  std::int32_t succeeded = 0;
  std::int32_t failed = 0;
  std::string occupied_by;
  std::string schedule_start_time;
  nlohmann::json other = nlohmann::json::object();
};

/// A PodGroup: the pods a gang scheduler starts together or not at all.
struct PodGroup {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  PodGroupSpec spec;
  PodGroupStatus status;
  nlohmann::json other = nlohmann::json::object();
};

/// Volcano's `QueueSpec`.
struct VolcanoQueueSpec {
  std::int32_t weight = 0;
  ResourceList capability;
  std::optional<bool> reclaimable;
  nlohmann::json other = nlohmann::json::object();  ///< guarantee, deserved, parent, ...
};

/// Volcano's `QueueStatus`.
struct VolcanoQueueStatus {
  std::string state;  ///< Open, Closed, Closing, Unknown
  std::int32_t pending = 0;
  std::int32_t running = 0;
  std::int32_t inqueue = 0;
  nlohmann::json other = nlohmann::json::object();
};

/// Volcano's Queue (cluster-scoped): where its PodGroups wait for capability.
struct VolcanoQueue {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  VolcanoQueueSpec spec;
  VolcanoQueueStatus status;
  nlohmann::json other = nlohmann::json::object();
};

/// `LeaseSpec`.
struct LeaseSpec {
  std::optional<std::string> holder_identity;
  std::optional<std::int32_t> lease_duration_seconds;
  std::string acquire_time;
  std::string renew_time;
  std::optional<std::int32_t> lease_transitions;
  nlohmann::json other = nlohmann::json::object();
};

/// A Lease (leader election: a scheduler holds one named after itself).
struct Lease {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  LeaseSpec spec;
  nlohmann::json other = nlohmann::json::object();
};

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PodGroupSpec& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PodGroupStatus& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PodGroup& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const VolcanoQueueSpec& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const VolcanoQueueStatus& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const VolcanoQueue& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const LeaseSpec& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Lease& v);
/// Decoders: what has the wrong type stays in `other`, untouched; they throw only for a
/// value that is not a JSON object at all.
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, PodGroup& v);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, VolcanoQueue& v);
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Lease& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PodGroupSpec& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PodGroupStatus& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PodGroup& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, VolcanoQueueSpec& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, VolcanoQueueStatus& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, VolcanoQueue& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, LeaseSpec& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Lease& v);

}  // namespace tfjob::k8s

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/k8s/impl/gang_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
