#pragma once
/// \file What a TFJob's status says, summarised for people and for `wait`.
///
/// Works on the job as JSON (`kubeflow.org/v1` TFJob, as served), so it applies equally to
/// a typed `tfjob::TFJob` converted with `to_json` and to an object read from any server.
/// Pure functions: no I/O.

#include <tfjob/api/k8s/pod.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
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
/// The same for a pod spec held as JSON (decoded leniently, then read as above).
long long pod_spec_gpus(const nlohmann::json& pod_spec, const std::string& resource = "nvidia.com/gpu");

/// GPUs per pod for each replica type of a TFJob (JSON), with the replica count.
struct ReplicaGpus {
  std::string type;
  int replicas = 1;
  long long gpus_per_pod = 0;
};
std::vector<ReplicaGpus> replica_gpus(const nlohmann::json& job);

/// Summarise a TFJob object. Condition precedence follows the operator's
/// `pkg/util/status.go`: the last condition whose status is "True" is the current state.
JobSummary summarize(const nlohmann::json& job);

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
namespace tfjob::workflow {

TFJOB_INLINE long long bounded_count(long double v) {
  constexpr long double bound = 1e9;
  if (!(v == v)) return 0;
  if (v > bound) return static_cast<long long>(bound);
  if (v < -bound) return -static_cast<long long>(bound);
  return static_cast<long long>(v);
}

TFJOB_INLINE int bounded_sum(long long a, long long b) {
  return static_cast<int>(bounded_count(static_cast<long double>(a) + static_cast<long double>(b)));
}

TFJOB_INLINE long long integer_quantity(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return bounded_count(static_cast<long double>(v.get<unsigned long long>()));
  if (v.is_number_integer()) return bounded_count(static_cast<long double>(v.get<long long>()));
  if (v.is_number()) return bounded_count(v.get<double>());
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    try {
      size_t pos = 0;
      long long n = std::stoll(s, &pos);
      if (pos == s.size()) return bounded_count(static_cast<long double>(n));
      std::string suf = s.substr(pos);
      if (suf == "k") return bounded_count(static_cast<long double>(n) * 1000);
      if (suf == "Ki") return bounded_count(static_cast<long double>(n) * 1024);
    } catch (...) {
    }
  }
  return 0;
}

TFJOB_INLINE long long pod_spec_gpus(const k8s::PodSpec& pod_spec, const std::string& resource) {
  auto container_gpus = [&](const k8s::Container& c) -> long long {
    for (const auto* m : {&c.resources.limits, &c.resources.requests})
      if (auto it = m->find(resource); it != m->end()) return integer_quantity(nlohmann::json(it->second));
    return 0;
  };
  long long sum = 0, init_max = 0;
  for (const auto& c : pod_spec.containers) sum = bounded_count(static_cast<long double>(sum) + container_gpus(c));
  for (const auto& c : pod_spec.init_containers) init_max = std::max(init_max, container_gpus(c));
  return std::max(sum, init_max);
}

TFJOB_INLINE long long pod_spec_gpus(const nlohmann::json& pod_spec, const std::string& resource) {
  k8s::PodSpec spec;
  if (pod_spec.is_object()) from_json(pod_spec, spec);
  return pod_spec_gpus(spec, resource);
}

TFJOB_INLINE std::vector<ReplicaGpus> replica_gpus(const nlohmann::json& job) {
  std::vector<ReplicaGpus> out;
  const auto* specs = job.contains("spec") ? &job["spec"] : nullptr;
  if (!specs || !specs->contains("tfReplicaSpecs") || !(*specs)["tfReplicaSpecs"].is_object()) return out;
  for (const auto& [type, rs] : (*specs)["tfReplicaSpecs"].items()) {
    ReplicaGpus r;
    r.type = type;
    if (rs.contains("replicas") && rs["replicas"].is_number()) r.replicas = static_cast<int>(integer_quantity(rs["replicas"]));
    if (rs.contains("template") && rs["template"].contains("spec"))
      r.gpus_per_pod = pod_spec_gpus(rs["template"]["spec"]);
    out.push_back(r);
  }
  return out;
}

TFJOB_INLINE JobSummary summarize(const nlohmann::json& job) {
  JobSummary s;
  auto str = [](const nlohmann::json& o, const char* k) {
    auto it = o.find(k);
    return (it != o.end() && it->is_string()) ? it->get<std::string>() : std::string();
  };
  if (auto m = job.find("metadata"); m != job.end() && m->is_object()) {
    s.name = str(*m, "name");
    s.namespace_ = str(*m, "namespace");
    s.creation_timestamp = str(*m, "creationTimestamp");
  }
  long long gpus = 0;
  for (const auto& r : replica_gpus(job)) {
    s.spec_replicas[r.type] = r.replicas;
    gpus = bounded_count(static_cast<long double>(gpus) + static_cast<long double>(r.gpus_per_pod) * r.replicas);
  }
  s.gpus = static_cast<int>(gpus);
  auto st = job.find("status");
  if (st == job.end() || !st->is_object()) return s;
  s.completion_time = str(*st, "completionTime");
  if (auto cs = st->find("conditions"); cs != st->end() && cs->is_array()) {
    for (const auto& c : *cs) {
      if (!c.is_object()) continue;
      Condition k{str(c, "type"), str(c, "status"), str(c, "reason"), str(c, "message"),
                  str(c, "lastTransitionTime")};
      s.conditions.push_back(k);
    }
  }
  for (auto it = s.conditions.rbegin(); it != s.conditions.rend(); ++it) {
    if (it->status == "True") {
      s.state = it->type;
      s.reason = it->reason;
      s.message = it->message;
      break;
    }
  }
  if (auto rs = st->find("replicaStatuses"); rs != st->end() && rs->is_object()) {
    for (const auto& [type, v] : rs->items()) {
      ReplicaCounts c;
      c.active = static_cast<int>(bounded_count(tfjob::detail::value_at(v, "active", 0LL)));
      c.succeeded = static_cast<int>(bounded_count(tfjob::detail::value_at(v, "succeeded", 0LL)));
      c.failed = static_cast<int>(bounded_count(tfjob::detail::value_at(v, "failed", 0LL)));
      s.replicas[type] = c;
    }
  }
  return s;
}

TFJOB_INLINE WaitOutcome wait_outcome(const JobSummary& s, const std::string& condition) {
  auto lower = [](std::string x) {
    std::transform(x.begin(), x.end(), x.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return x;
  };
  const std::string want = lower(condition);
  for (const auto& c : s.conditions)
    if (lower(c.type) == want && c.status == "True") return WaitOutcome::reached;
  if (s.finished()) return WaitOutcome::impossible;
  return WaitOutcome::pending;
}

TFJOB_INLINE std::optional<std::time_t> parse_time(const std::string& t) {
  auto s = tfjob::detail::rfc3339_seconds(t);
  if (!s) return std::nullopt;
  return static_cast<std::time_t>(*s);
}

TFJOB_INLINE std::string human_duration(long long secs) {
  if (secs < 0) secs = 0;
  auto S = [](long long v) { return std::to_string(v); };
  if (secs < 60 * 2) return S(secs) + "s";
  long long minutes = secs / 60;
  if (minutes < 10) {
    long long s = secs % 60;
    return s == 0 ? S(minutes) + "m" : S(minutes) + "m" + S(s) + "s";
  }
  if (minutes < 60 * 3) return S(minutes) + "m";
  long long hours = secs / 3600;
  if (hours < 8) {
    long long m = minutes % 60;
    return m == 0 ? S(hours) + "h" : S(hours) + "h" + S(m) + "m";
  }
  if (hours < 48) return S(hours) + "h";
  if (hours < 24 * 8) {
    long long h = hours % 24;
    return h == 0 ? S(hours / 24) + "d" : S(hours / 24) + "d" + S(h) + "h";
  }
  if (hours < 24 * 365 * 2) return S(hours / 24) + "d";
  if (hours < 24 * 365 * 8) {
    long long d = (hours / 24) % 365;
    return d == 0 ? S(hours / 24 / 365) + "y" : S(hours / 24 / 365) + "y" + S(d) + "d";
  }
  return S(hours / 24 / 365) + "y";
}

TFJOB_INLINE std::string age(const std::string& timestamp, std::time_t now) {
  auto t = parse_time(timestamp);
  if (!t) return "<unknown>";
  return human_duration(static_cast<long long>(now - *t));
}

TFJOB_INLINE std::string replicas_column(const JobSummary& s) {
  std::string out;
  std::map<std::string, ReplicaCounts> all = s.replicas;
  for (const auto& [t, n] : s.spec_replicas) all.emplace(t, ReplicaCounts{});
  for (const auto& [t, c] : all) {
    if (!out.empty()) out += ",";
    out += t + ":" + std::to_string(c.active) + "/" + std::to_string(c.succeeded) + "/" + std::to_string(c.failed);
  }
  return out.empty() ? "<none>" : out;
}

}  // namespace tfjob::workflow
#endif  // TFJOB_SDK_DEFINE_WORKFLOW
