#pragma once
/// \file The bodies of <tfjob/workflow/status.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/status.hpp>, never this file.

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
