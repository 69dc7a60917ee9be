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

TFJOB_INLINE std::vector<ReplicaGpus> replica_gpus(const TFJob& job) {
  std::vector<ReplicaGpus> out;
  // only the containers' resources decoded (scheduling's reading), not the whole template
  for (const auto& [type, rs] : job.spec.tf_replica_specs) {
    const nlohmann::json* spec = tfjob::detail::json_at(rs.template_, "spec");
    out.push_back({type, rs.replicas_or_default(), pod_spec_gpus(scheduling::detail::served_pod_spec(spec ? *spec : nlohmann::json()))});
  }
  return out;
}

TFJOB_INLINE JobStatusView status_view(const TFJob& job) {
  JobStatusView v;
  v.name = job.metadata.name;
  v.namespace_ = job.metadata.namespace_;
  v.creation_timestamp = job.metadata.creation_timestamp;
  v.replicas = replica_gpus(job);
  v.status = job.status;
  return v;
}

namespace detail {

/// One replica spec of a served job as the view reads it: its count, bounded (bounded_count),
/// and the GPUs its template's containers ask for; only their `resources` are decoded.
template <class Json>
ReplicaGpus replica_view(tfjob::detail::decoder& d, const Json& r, const std::string& path, const std::string& type) {
  ReplicaGpus g;
  g.type = type;
  if (r.is_null() || !d.object(r, path)) return g;  // (the TFJob decoder's default: 1 replica, no template)
  if (const auto* n = d.get(r, "replicas")) {
    if (n->is_number()) g.replicas = static_cast<int>(integer_quantity(*n));
    else d.wrong(path + ".replicas", *n, "an integer");
  }
  const auto* t = d.get(r, "template");
  if (!t || !d.object(*t, path + ".template")) return g;
  const auto* spec = d.get(*t, "spec");
  if (!spec || !d.object(*spec, path + ".template.spec")) return g;
  k8s::PodSpec resources_only;  // its containers, each with its resources alone
  auto containers = [&](const char* key, std::vector<k8s::Container>& out) {
    const auto* cs = d.get(*spec, key);
    if (!cs) return;
    const std::string at = path + ".template.spec." + key;
    if (!cs->is_array()) return d.wrong(at, *cs, "an array");
    for (std::size_t i = 0; i < cs->size(); ++i) {
      const std::string item = at + "[" + std::to_string(i) + "]";
      k8s::Container c;
      if (d.object((*cs)[i], item)) d.field((*cs)[i], "resources", item, c.resources);
      out.push_back(std::move(c));
    }
  };
  containers("containers", resources_only.containers);
  containers("initContainers", resources_only.init_containers);
  g.gpus_per_pod = pod_spec_gpus(resources_only);
  return g;
}

}  // namespace detail

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, JobStatusView& v) {
  if (!d.object(j, path)) return;
  const std::string meta = d.child(path, "metadata"), spec = d.child(path, "spec");
  if (const auto* m = d.get(j, "metadata"); m && d.object(*m, meta)) {
    d.str(*m, "name", meta, v.name);
    d.str(*m, "namespace", meta, v.namespace_);
    d.str(*m, "creationTimestamp", meta, v.creation_timestamp);
  }
  if (const auto* s = d.get(j, "spec"); s && d.object(*s, spec))
    if (const auto* rs = d.get(*s, "tfReplicaSpecs"); rs && d.object(*rs, spec + ".tfReplicaSpecs"))
      for (const auto& [type, r] : rs->items())
        v.replicas.push_back(detail::replica_view(d, r, spec + ".tfReplicaSpecs[" + type + "]", type));
  d.field(j, "status", path, v.status);
}

TFJOB_INLINE JobSummary summarize(const TFJob& job) { return summarize(status_view(job)); }

TFJOB_INLINE JobSummary summarize(const JobStatusView& job) {
  JobSummary s;
  s.name = job.name;
  s.namespace_ = job.namespace_;
  s.creation_timestamp = job.creation_timestamp;
  long long gpus = 0;
  for (const auto& r : job.replicas) {
    s.spec_replicas[r.type] = r.replicas;
    gpus = bounded_count(static_cast<long double>(gpus) + static_cast<long double>(r.gpus_per_pod) * r.replicas);
  }
  s.gpus = static_cast<int>(gpus);
  if (!job.status) return s;
  const JobStatus& st = *job.status;
  s.completion_time = st.completion_time;
  for (const auto& c : st.conditions) s.conditions.push_back({c.type, c.status, c.reason, c.message, c.last_transition_time});
  for (auto it = s.conditions.rbegin(); it != s.conditions.rend(); ++it) {
    if (it->status == "True") {
      s.state = it->type;
      s.reason = it->reason;
      s.message = it->message;
      break;
    }
  }
  for (const auto& [type, r] : st.replica_statuses) s.replicas[type] = ReplicaCounts{r.active, r.succeeded, r.failed};
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
