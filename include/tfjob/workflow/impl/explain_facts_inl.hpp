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

TFJOB_INLINE std::optional<ExplainInput> explain_input(const std::vector<nlohmann::json>& objects, const std::string& name) {
  ExplainInput in;
  std::vector<std::string> jobs;
  const nlohmann::json* job = nullptr;
  // each document's kind and name: the one place explain reads raw objects before decoding them
  auto meta = [](const nlohmann::json& d) { return d.is_object() ? kube::Object(d) : kube::Object(); };
  for (const auto& d : objects) {
    const auto o = meta(d);
    if (o.kind() != tfjob::kind) continue;
    jobs.push_back(o.name());
    if (name.empty() || o.name() == name) job = &d;
  }
  if (!job || !job->is_object()) return std::nullopt;
  if (name.empty() && jobs.size() > 1) {
    std::string names;
    for (const auto& n : jobs) names += (names.empty() ? "" : ", ") + n;
    throw tfjob::error("several TFJobs are saved here (" + names + "): name the one to explain");
  }
  in.job = tfjob::detail::decoded<TFJob>(*job);
  const std::string& job_name = in.job.metadata.name;
  for (const auto& d : objects) {
    const auto o = meta(d);
    const std::string kind = o.kind(), obj_name = o.name();
    if (kind == "Pod") {
      auto pod = tfjob::detail::decoded<k8s::Pod>(d);
      if (detail::pod_of_job(pod, job_name)) in.pods.push_back(std::move(pod));
    } else if (kind == "Event") in.events.push_back(tfjob::detail::decoded<k8s::Event>(d));
    else if (kind == "Node") {
      if (!in.nodes) in.nodes.emplace();
      in.nodes->push_back(tfjob::detail::decoded<k8s::Node>(d));
    } else if (kind == "PersistentVolumeClaim") in.claims[obj_name] = tfjob::detail::decoded<k8s::PersistentVolumeClaim>(d);
    else if (kind == "Namespace") in.namespace_object = tfjob::detail::decoded<k8s::Namespace>(d);
    else if (kind == "Workload") {  // explain keeps those the job owns
      in.queue.workloads_read = true;
      in.queue.workloads.push_back(tfjob::detail::decoded<k8s::Workload>(d));
    } else if (kind == "LocalQueue") in.queue.local_queue = tfjob::detail::decoded<k8s::LocalQueue>(d);
    else if (kind == "ClusterQueue") in.queue.cluster_queue = tfjob::detail::decoded<k8s::ClusterQueue>(d);
    else if (kind == "PodGroup" && obj_name == job_name) {  // the operator v1.9 names it after the job
      in.queue.pod_group = tfjob::detail::decoded<k8s::PodGroup>(d);
      in.queue.pod_group_system = o.api_version().rfind("scheduling.volcano.sh/", 0) == 0 ? "Volcano" : "scheduler-plugins";
    }
  }
  return in;
}

TFJOB_INLINE std::optional<ExplainInput> gather(kube::Client& c, const std::string& ns, const std::string& name, int log_lines) {
  ExplainInput in;
  // the job and its pods as served: decoded once here; queues.hpp and cluster.hpp still take
  // them as JSON, so the served JSON is what they are given
  auto job = get_opt(c, resources::tfjobs(), ns, name);
  if (!job) return std::nullopt;
  in.job = tfjob::detail::decoded<TFJob>(*job);
  auto reads = job_reads(c, ns, *job);  // the job's pods and events, each by its selector, asked at once
  const auto& pods = reads.pods;
  in.pods = tfjob::detail::decode_each<k8s::Pod>(pods);
  in.events = tfjob::detail::decode_each<k8s::Event>(reads.events);
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
  for (auto& e : tfjob::detail::decode_each<k8s::Event>(queue_events(c, ns, in.queue))) in.events.push_back(std::move(e));
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
            for (auto& e : tfjob::detail::decode_each<k8s::Event>(object_events(c, ns, "PersistentVolumeClaim", cn, pvc.metadata.uid)))
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
