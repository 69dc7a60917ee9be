#pragma once
/// \file The bodies of <tfjob/workflow/explain_facts.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/explain_facts.hpp>, never this file.

namespace tfjob::workflow {

namespace detail {
TFJOB_INLINE std::optional<QuotedLog> quoted_log(const k8s::Pod& pod) {
  const PodInfo i = pod_info(pod);
  if (!(i.phase == "Failed" || (i.exit_code && *i.exit_code != 0))) return std::nullopt;
  QuotedLog q;
  for (const auto& ctr : pod.spec.containers) {
    if (q.container.empty() || ctr.name == "tensorflow") q.container = ctr.name;
    if (ctr.name == "tensorflow") break;
  }
  q.previous = i.phase != "Failed";
  return q;
}

TFJOB_INLINE std::vector<std::string> quoted_lines(const std::string& text, int n) {
  std::vector<std::string> lines;
  std::istringstream is(text);
  for (std::string l; std::getline(is, l);) lines.push_back(l.size() > 500 ? l.substr(0, 500) + "…" : l);
  if (n >= 0 && lines.size() > static_cast<std::size_t>(n)) lines.erase(lines.begin(), lines.end() - n);
  return lines;
}

/// Whether `pod` carries the job-name label of `job`, in any of the operator's generations.
TFJOB_INLINE bool pod_of_job(const k8s::Pod& pod, const std::string& job) {
  for (const char* key : {labels::job_name, labels::legacy::job_name, labels::legacy::tf_job_name})
    if (auto it = pod.metadata.labels.find(key); it != pod.metadata.labels.end() && it->second == job) return true;
  return false;
}
}  // namespace detail

namespace detail {
/// Whether a pod's labels name job `job` (any job, when `job` is empty), in any of the
/// operator's generations.
TFJOB_INLINE bool labelled(const k8s::Pod& pod, const std::string& job) {
  if (!job.empty()) return pod_of_job(pod, job);
  for (const char* key : {labels::job_name, labels::legacy::job_name, labels::legacy::tf_job_name})
    if (pod.metadata.labels.count(key)) return true;
  return false;
}
}  // namespace detail

TFJOB_INLINE SavedState::SavedState(std::string name) : name_(std::move(name)), job_name_(name_) {}

TFJOB_INLINE bool SavedState::wanted(const std::string& kind, const std::string& name) const {
  // explain reads the events about the job, its pods (by name), its PodGroup (named after the
  // job) and the claims its pods mount; the job's pods are named JOB-TYPE-INDEX by the operator
  if (kind == "PersistentVolumeClaim") return true;
  if (kind != tfjob::kind && kind != "Pod" && kind != "PodGroup") return false;
  if (job().empty()) return true;  // not known yet: kept until it is
  if (kind == tfjob::kind) return name == job();
  if (kind == "PodGroup") return name.find(job()) != std::string::npos;
  return name.rfind(job() + "-", 0) == 0 ||
         std::find(pod_names_.begin(), pod_names_.end(), name) != pod_names_.end();
}

TFJOB_INLINE void SavedState::add(const nlohmann::json& d) {
  // each object's kind and name: the one place explain reads raw objects before decoding them
  const auto o = d.is_object() ? kube::Object(d) : kube::Object();
  const std::string kind = o.kind(), obj_name = o.name();
  if (kind == tfjob::kind) {
    jobs_.push_back(obj_name);
    if (name_.empty() ? !job_ : obj_name == name_) {  // the only one, or the last one named so
      job_ = d;
      job_name_ = obj_name;
    }
  } else if (kind == "Pod") {
    auto pod = tfjob::detail::decoded<k8s::Pod>(d);
    if (!detail::labelled(pod, job())) return;  // a pod of no job, or of another job
    in_.pods.push_back(std::move(pod));
    pod_names_.push_back(obj_name);
  } else if (kind == "Event") {
    auto event = tfjob::detail::decoded<k8s::Event>(d);
    if (wanted(event.involved_object.kind, event.involved_object.name)) in_.events.push_back(std::move(event));
  } else if (kind == "Node") {
    if (!in_.nodes) in_.nodes.emplace();
    in_.nodes->push_back(tfjob::detail::decoded<k8s::Node>(d));
  } else if (kind == "PersistentVolumeClaim") in_.claims[obj_name] = tfjob::detail::decoded<k8s::PersistentVolumeClaim>(d);
  else if (kind == "Namespace") in_.namespace_object = tfjob::detail::decoded<k8s::Namespace>(d);
  else if (kind == "Workload") {  // explain keeps those the job owns
    in_.queue.workloads_read = true;
    in_.queue.workloads.push_back(tfjob::detail::decoded<k8s::Workload>(d));
  } else if (kind == "LocalQueue") in_.queue.local_queue = tfjob::detail::decoded<k8s::LocalQueue>(d);
  else if (kind == "ClusterQueue") in_.queue.cluster_queue = tfjob::detail::decoded<k8s::ClusterQueue>(d);
  else if (kind == "PodGroup" && (job().empty() || obj_name == job())) {  // the operator v1.9 names it after the job
    pod_groups_[obj_name] = {tfjob::detail::decoded<k8s::PodGroup>(d),
                             o.api_version().rfind("scheduling.volcano.sh/", 0) == 0 ? "Volcano" : "scheduler-plugins"};
  }
}

TFJOB_INLINE std::optional<ExplainInput> SavedState::finish() {
  if (!job_ || !job_->is_object()) return std::nullopt;
  if (name_.empty() && jobs_.size() > 1) {
    std::string names;
    for (const auto& n : jobs_) names += (names.empty() ? "" : ", ") + n;
    throw tfjob::error("several TFJobs are saved here (" + names + "): name the one to explain");
  }
  ExplainInput in = std::move(in_);
  in.job = tfjob::detail::decoded<TFJob>(*job_);
  const std::string& job_name = in.job.metadata.name;
  // what was kept before the job was known: only its own
  std::vector<k8s::Pod> pods;
  pod_names_.clear();
  for (auto& p : in.pods)
    if (detail::pod_of_job(p, job_name)) {
      pod_names_.push_back(p.metadata.name);
      pods.push_back(std::move(p));
    }
  in.pods = std::move(pods);
  std::vector<k8s::Event> events;
  for (auto& e : in.events) {
    const auto& io = e.involved_object;
    const bool mine = io.kind == "Pod" ? std::find(pod_names_.begin(), pod_names_.end(), io.name) != pod_names_.end()
                                       : wanted(io.kind, io.name);
    if (mine) events.push_back(std::move(e));
  }
  in.events = std::move(events);
  if (auto pg = pod_groups_.find(job_name); pg != pod_groups_.end()) {
    in.queue.pod_group = std::move(pg->second.first);
    in.queue.pod_group_system = pg->second.second;
  }
  return in;
}

TFJOB_INLINE std::optional<ExplainInput> explain_input(const std::vector<nlohmann::json>& objects, const std::string& name) {
  SavedState state(name);
  for (const auto& d : objects) state.add(d);
  return state.finish();
}

TFJOB_INLINE std::optional<ExplainInput> gather(kube::Client& c, const std::string& ns, const std::string& name, int log_lines) {
  ExplainInput in;
  // the job, its pods and events: each decoded as it is read (get_tfjob, job_reads)
  auto job = get_tfjob(c, ns, name);
  if (!job) return std::nullopt;
  in.job = std::move(*job);
  auto reads = job_reads(c, ns, in.job.metadata);  // the job's pods and events, each by its selector, asked at once
  in.pods = std::move(reads.pods);
  in.events = std::move(reads.events);
  auto optional_read = [](auto fn) {
    try {
      fn();
    } catch (const api_error& e) {
      if (!e.is_forbidden()) throw;  // what a user may not read makes the explanation less precise, not wrong
    }
  };
  optional_read([&] { in.nodes = tfjob::detail::decode_each<k8s::Node>(list_nodes(c)); });
  optional_read([&] {
    if (auto o = get_opt(c, resources::namespaces(), "", ns)) in.namespace_object = tfjob::detail::decoded<k8s::Namespace>(*o);
  });
  in.queue = gather_queue_state(c, ns, in.job);
  for (auto& e : queue_events(c, ns, in.queue)) in.events.push_back(std::move(e));
  for (const auto& [t, rs] : in.job.spec.tf_replica_specs) {
    const auto tmpl = pod_template(rs);
    for (const auto& v : tmpl.spec.volumes) {
      if (!v.persistent_volume_claim) continue;
      const std::string cn = v.persistent_volume_claim->claim_name;
      if (cn.empty() || in.claims.count(cn)) continue;
      optional_read([&] {
        if (auto got = get_opt(c, resources::pvcs(), ns, cn)) {
          auto pvc = tfjob::detail::decoded<k8s::PersistentVolumeClaim>(*got);
          // a claim not bound is explained by its own events
          if (pvc.status.phase != "Bound")
            for (auto& e : object_events(c, ns, "PersistentVolumeClaim", cn, pvc.metadata.uid))
              in.events.push_back(std::move(e));
          in.claims[cn] = std::move(pvc);
        }
      });
    }
  }
  if (log_lines > 0)
    for (const auto& p : in.pods) {
      const auto q = detail::quoted_log(p);
      if (!q) continue;
      kube::LogParams lp;
      lp.tail_lines = log_lines;
      lp.limit_bytes = 64 * 1024;  // bounded: a log line can be long
      lp.container = q->container;
      lp.previous = q->previous;
      const std::string& pod = p.metadata.name;
      try {
        in.logs[pod] = detail::quoted_lines(kube::get_logs(c, ns, pod, lp), log_lines);
      } catch (const tfjob::error&) {
        // a log the kubelet no longer has is one fact less, not a failure of the explanation
      }
    }
  return in;
}

}  // namespace tfjob::workflow
