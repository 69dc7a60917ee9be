#pragma once
/// \file What a TFJob's status says, summarised for people and for `wait`.
///
/// Works on typed data: a `tfjob::TFJob`, or a `JobStatusView`, the part of a served TFJob
/// that a summary reads, decoded without the rest (`get -A` decodes one per job).
/// Pure functions: no I/O.

#include <tfjob/api/k8s/pod.hpp>
#include <tfjob/api/meta.hpp>
#include <tfjob/api/scheduling.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/time.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::workflow {

/// One `status.conditions[]` entry.
struct Condition {
  std::string type, status, reason, message, last_transition_time;
};

/// `status.replicaStatuses[<type>]`.
struct ReplicaCounts {
  int active = 0, succeeded = 0, failed = 0;
};

/// A TFJob's state as `kubectl tfjob get` shows it.
struct JobSummary {
  std::string name, namespace_;
  std::string state;    ///< the newest true condition: Created, Running, Restarting, Succeeded, Failed, Suspended; "" when none yet
  std::string reason, message;  ///< of that condition
  std::string creation_timestamp, completion_time;
  std::vector<Condition> conditions;  ///< in the order the operator wrote them
  std::map<std::string, ReplicaCounts> replicas;  ///< by replica type as in the spec (Chief, Worker...)
  std::map<std::string, int> spec_replicas;       ///< replicas per type from the spec (default 1)
  int gpus = 0;  ///< nvidia.com/gpu the whole job asks for (limits, else requests, × replicas)
  bool finished() const { return state == "Succeeded" || state == "Failed"; }
};

/// A count read from a server's answer (replicas, GPUs), bounded to +-10^9 (NaN: 0) so that
/// the sums and products this file makes of such counts cannot overflow (hostile objects).
long long bounded_count(long double v);
/// `a + b` for counts, bounded as bounded_count (a running total of restarts, event counts).
int bounded_sum(long long a, long long b);

/// Integer value of a resource quantity such as `nvidia.com/gpu: 2` (also "2" or 2); 0 when
/// absent or not an integer (extended resources must be whole numbers); bounded_count's range.
long long integer_quantity(const nlohmann::json& v);

/// `nvidia.com/gpu` one pod spec asks for: per container `limits` (which the scheduler
/// copies to requests for extended resources), else `requests`; init containers count as
/// the max, as the scheduler does.
long long pod_spec_gpus(const k8s::PodSpec& pod_spec, const std::string& resource = "nvidia.com/gpu");

/// GPUs per pod for each replica type of a TFJob, with the replica count.
struct ReplicaGpus {
  std::string type;
  int replicas = 1;
  long long gpus_per_pod = 0;
};
/// Each replica type of a job (in the spec's order): its count (default 1; also for a count
/// the TFJob decoder could not take as an int32) and what its pod template asks for (pod_spec_gpus).
std::vector<ReplicaGpus> replica_gpus(const TFJob& job);

/// What a summary reads of a TFJob, and no more: name, namespace and creation time, the
/// status, and each replica type's count and GPUs per pod. Decoded from a served object
/// (`tfjob::detail::decoded<JobStatusView>`, lenient as every server object), it reads the pod
/// templates' container resources and nothing else of the spec, so that a list of jobs
/// (`get -A`) is summarised without decoding whole templates (env, commands, volumes). A
/// read-only view: it keeps nothing to write back (use TFJob for that).
struct JobStatusView {
  std::string name, namespace_;
  std::string creation_timestamp;      ///< RFC 3339, "" when unset
  std::vector<ReplicaGpus> replicas;   ///< by replica type, in the spec's order
  std::optional<JobStatus> status;     ///< absent until the operator writes one
};
/// A typed job's view (what summarize(const TFJob&) reads).
JobStatusView status_view(const TFJob& job);

/// Decodes a served TFJob's view (through `tfjob::detail::decoded`): a replica count is read
/// as a number bounded as bounded_count (a hostile 1e300 is 10^9, never an overflow).
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, JobStatusView& v);

/// Summarise a TFJob. Condition precedence follows the operator's `pkg/util/status.go`: the
/// last condition whose status is "True" is the current state.
JobSummary summarize(const JobStatusView& job);
JobSummary summarize(const TFJob& job);

/// Outcome of waiting for a condition.
enum class WaitOutcome { pending, reached, impossible };

/// Whether `job` has reached `condition` (Created, Running, Restarting, Succeeded, Failed,
/// Suspended, matched case-insensitively), or can no longer reach it: a finished job
/// (Succeeded/Failed) never gains Running, Created or the other terminal condition again.
WaitOutcome wait_outcome(const JobSummary& s, const std::string& condition);

/// Parse an RFC 3339 time as the API server writes it (`2024-05-01T10:00:00Z`): the SDK's
/// one RFC 3339 parser (detail/time.hpp), to whole seconds.
std::optional<std::time_t> parse_time(const std::string& t);

/// A duration the way kubectl prints ages (`duration.HumanDuration`): 45s, 5m30s, 3h, 2d4h, 400d.
std::string human_duration(long long secs);

/// Age of an object from its RFC 3339 timestamp, relative to `now`; "<unknown>" when unset.
std::string age(const std::string& timestamp, std::time_t now = std::time(nullptr));

/// `ACTIVE/SUCCEEDED/FAILED` per type for `-o wide`, e.g. `Chief:1/0/0 Worker:2/0/0`.
std::string replicas_column(const JobSummary& s);

}  // namespace tfjob::workflow

#if TFJOB_SDK_DEFINE_WORKFLOW
#include <tfjob/workflow/impl/status_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
