#pragma once
/// \file The bodies of <tfjob/workflow/pods.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/pods.hpp>, never this file.

namespace tfjob::workflow {

TFJOB_INLINE std::vector<std::string> pod_selectors(const std::string& job) {
  return {std::string(labels::job_name) + "=" + job, std::string(labels::legacy::job_name) + "=" + job,
          std::string(labels::legacy::tf_job_name) + "=" + job};
}

namespace detail {

TFJOB_INLINE std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

TFJOB_INLINE int to_int(const std::string& s, int dflt = -1) {
  try {
    size_t p = 0;
    int v = std::stoi(s, &p);
    return p == s.size() ? v : dflt;
  } catch (...) {
    return dflt;
  }
}

}  // namespace detail

TFJOB_INLINE PodInfo pod_info(const k8s::Pod& pod, const std::string& container) {
  const auto& m = pod.metadata;
  auto label = [&](const char* a, const char* b, const char* c = nullptr) {
    std::string v = m.label(a);
    if (v.empty()) v = m.label(b);
    if (v.empty() && c) v = m.label(c);
    return v;
  };
  PodInfo p;
  p.name = m.name;
  p.uid = m.uid;
  p.creation_timestamp = m.creation_timestamp;
  p.deleting = !m.deletion_timestamp.empty();
  p.replica_type = detail::lower(label(labels::replica_type, labels::legacy::replica_type, labels::legacy::tf_replica_type));
  p.replica_index = detail::to_int(label(labels::replica_index, labels::legacy::replica_index, labels::legacy::tf_replica_index));
  p.master_role = label(labels::job_role, labels::legacy::job_role) == "master";
  p.phase = pod.status.phase.empty() ? std::string("Pending") : pod.status.phase;
  p.node = pod.spec.node_name;
  p.gpus = pod_spec_gpus(pod.spec);
  auto add_restarts = [&](int r) {  // a server's count: bounded, never summed past INT_MAX
    if (r > 0) p.restarts = r > std::numeric_limits<int>::max() - p.restarts ? std::numeric_limits<int>::max() : p.restarts + r;
  };
  // the named container first, then the others
  std::vector<const k8s::ContainerStatus*> ordered;
  for (const auto& c : pod.status.container_statuses) if (c.name == container) ordered.push_back(&c);
  for (const auto& c : pod.status.container_statuses) if (c.name != container) ordered.push_back(&c);
  for (const auto* c : ordered) {
    add_restarts(c->restart_count);
    if (p.waiting_reason.empty() && c->state.waiting) p.waiting_reason = c->state.waiting->reason;
    for (const auto* term : {&c->state.terminated, &c->last_state.terminated}) {
      if (p.exit_code || !*term || (*term)->exit_code == 0) continue;
      p.exit_code = (*term)->exit_code;
      p.terminated_reason = (*term)->reason;
    }
  }
  // Init containers: their restarts count toward backoffLimit as the containers' do (training
  // operator v1.9 pkg/core/job.go PastBackoffLimit sums InitContainerStatuses' restartCount);
  // one that waits holds the pod back (kubectl shows Init:<reason>); a regular one that failed
  // failed the pod. A native sidecar's exit (stopped by the kubelet after the containers,
  // e.g. 143) says nothing about the replica.
  for (const auto& c : pod.status.init_container_statuses) {
    bool sidecar = false;
    for (const auto* s : pod.spec.sidecars()) sidecar = sidecar || s->name == c.name;
    add_restarts(c.restart_count);
    if (sidecar) p.sidecars.emplace_back(c.name, c.restart_count);
    const std::string w = c.state.waiting ? c.state.waiting->reason : std::string();
    if (!w.empty() && w != "PodInitializing" && (p.waiting_reason.empty() || p.waiting_reason == "PodInitializing"))
      p.waiting_reason = w;
    if (sidecar || p.exit_code) continue;
    if (c.state.terminated && c.state.terminated->exit_code != 0) {
      p.exit_code = c.state.terminated->exit_code;
      p.terminated_reason = c.state.terminated->reason;
    }
  }
  return p;
}

namespace detail {

/// select_chief's rank of a pod: current labels first (0-3), then legacy (4-7); 100 when it is no chief.
TFJOB_INLINE int chief_rank(const k8s::Pod& pod) {
  const auto& m = pod.metadata;
  const std::string role = m.label(labels::job_role);
  const std::string type = lower(m.label(labels::replica_type));
  const std::string idx = m.label(labels::replica_index);
  if (role == "master") return 0;
  if (type == "chief") return 1;
  if (type == "master") return 2;
  if (type == "worker" && idx == "0") return 3;
  const std::string lrole = m.label(labels::legacy::job_role);
  std::string ltype = lower(m.label(labels::legacy::replica_type));
  if (ltype.empty()) ltype = lower(m.label(labels::legacy::tf_replica_type));
  std::string lidx = m.label(labels::legacy::replica_index);
  if (lidx.empty()) lidx = m.label(labels::legacy::tf_replica_index);
  if (lrole == "master") return 4;
  if (ltype == "chief") return 5;
  if (ltype == "master") return 6;
  if (ltype == "worker" && lidx == "0") return 7;
  return 100;
}

/// The position of select_chief's pod among `pods` (each decoded once), or std::nullopt.
TFJOB_INLINE std::optional<std::size_t> chief_index(const std::vector<k8s::Pod>& pods) {
  std::optional<std::size_t> best;
  int best_rank = 100;
  bool best_deleting = true;
  std::string best_created;
  for (std::size_t k = 0; k < pods.size(); ++k) {
    const int r = chief_rank(pods[k]);
    if (r >= 100) continue;
    const PodInfo info = pod_info(pods[k]);
    const bool better = !best || r < best_rank || (r == best_rank && best_deleting && !info.deleting) ||
                        (r == best_rank && best_deleting == info.deleting && info.creation_timestamp > best_created);
    if (better) {
      best = k;
      best_rank = r;
      best_deleting = info.deleting;
      best_created = info.creation_timestamp;
    }
  }
  return best;
}

}  // namespace detail

TFJOB_INLINE std::optional<k8s::Pod> select_chief(const std::vector<k8s::Pod>& pods) {
  const auto k = detail::chief_index(pods);
  if (!k) return std::nullopt;
  return pods[*k];
}

TFJOB_INLINE std::optional<k8s::Pod> select_replica(const std::vector<k8s::Pod>& pods, const std::string& type, int index) {
  std::optional<std::size_t> best;
  PodInfo bi;
  for (std::size_t k = 0; k < pods.size(); ++k) {
    PodInfo i = pod_info(pods[k]);
    if (i.replica_type != detail::lower(type) || i.replica_index != index) continue;
    if (!best || (bi.deleting && !i.deleting) ||
        (bi.deleting == i.deleting && i.creation_timestamp > bi.creation_timestamp)) {
      best = k;
      bi = i;
    }
  }
  if (!best) return std::nullopt;
  return pods[*best];
}

TFJOB_INLINE std::optional<k8s::Pod> select_failed(const std::vector<k8s::Pod>& pods) {
  std::vector<k8s::Pod> failed;
  for (const auto& p : pods) {
    PodInfo i = pod_info(p);
    if (i.phase == "Failed" || (i.exit_code && *i.exit_code != 0)) failed.push_back(p);
  }
  if (failed.empty()) return std::nullopt;
  if (auto c = detail::chief_index(failed)) return failed[*c];
  std::size_t first = 0;  // else the first by name
  for (std::size_t k = 1; k < failed.size(); ++k)
    if (failed[k].metadata.name < failed[first].metadata.name) first = k;
  return failed[first];
}

TFJOB_INLINE int replica_rank(const std::string& lower_type) {
  static const char* o[] = {"chief", "master", "worker", "ps", "evaluator"};
  for (int i = 0; i < 5; ++i)
    if (lower_type == o[i]) return i;
  return 5;
}

TFJOB_INLINE void sort_pods(std::vector<k8s::Pod>& pods) {
  tfjob::detail::stable_order_by(pods, [](const k8s::Pod& p) {  // each pod's PodInfo once
    PodInfo x = pod_info(p);
    return std::make_tuple(replica_rank(x.replica_type), std::move(x.replica_type), x.replica_index, std::move(x.name));
  });
}

}  // namespace tfjob::workflow
