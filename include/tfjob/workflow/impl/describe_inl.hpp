#pragma once
/// \file The bodies of <tfjob/workflow/describe.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/describe.hpp>, never this file.

namespace tfjob::workflow {

TFJOB_INLINE Description describe(const TFJob& job, const std::vector<k8s::Pod>& pods, const std::vector<k8s::Event>& events,
                                  std::vector<std::pair<std::string, std::string>> tf_configs,
                                  std::time_t now, QueueState queue) {
  Description d;
  d.summary = summarize(job);
  for (const auto& [type, rs] : job.spec.tf_replica_specs) {
    ReplicaSummary r;
    r.type = type;
    r.replicas = rs.replicas_or_default();
    r.restart_policy = rs.restart_policy;
    const auto tmpl = pod_template(rs);
    r.gpus_per_pod = pod_spec_gpus(tmpl.spec);  // as replica_gpus counts them, from the template decoded once here
    for (const auto& c : tmpl.spec.containers) if (c.name == "tensorflow") r.image = c.image;
    if (r.image.empty() && !tmpl.spec.containers.empty()) r.image = tmpl.spec.containers.front().image;
    d.replicas.push_back(r);
  }
  const auto& rp = job.spec.run_policy;
  if (rp.clean_pod_policy) d.clean_pod_policy = *rp.clean_pod_policy;
  if (rp.ttl_seconds_after_finished) d.ttl = std::to_string(*rp.ttl_seconds_after_finished) + "s";
  if (rp.backoff_limit) d.backoff_limit = std::to_string(*rp.backoff_limit);
  if (rp.active_deadline_seconds) d.active_deadline = std::to_string(*rp.active_deadline_seconds) + "s";
  if (rp.scheduling_policy) d.scheduling = nlohmann::json(*rp.scheduling_policy).dump();
  std::vector<k8s::Pod> sorted = pods;
  sort_pods(sorted);
  for (const auto& p : sorted) {
    PodInfo i = pod_info(p);
    PodRow r{i.name, i.replica_type, i.deleting ? "Terminating" : i.phase, i.node, i.replica_index, i.restarts, i.gpus, ""};
    if (!i.waiting_reason.empty()) r.detail = i.waiting_reason;
    // a Pending pod: the scheduler's words (FailedScheduling), as `wait` shows them
    if (i.phase == "Pending" && !i.deleting)
      if (auto why = pending_reason(p, events)) r.detail = why->message.empty() ? why->reason : why->message;
    if (i.exit_code) r.detail = "exit code " + std::to_string(*i.exit_code) +
                                (i.terminated_reason.empty() ? "" : " (" + i.terminated_reason + ")");
    d.pods.push_back(r);
  }
  // events about the job and its pods, oldest first, the last 20
  std::vector<const k8s::Event*> mine;
  for (const auto& e : events) {
    const auto& io = e.involved_object;
    bool about_job = io.kind == tfjob::kind && io.name == d.summary.name;
    bool about_pod = false;
    if (io.kind == "Pod") for (const auto& p : d.pods) if (p.name == io.name) about_pod = true;
    if (about_job || about_pod) mine.push_back(&e);
  }
  std::stable_sort(mine.begin(), mine.end(), [](const k8s::Event* a, const k8s::Event* b) {
    return detail::event_time(*a) < detail::event_time(*b);
  });
  if (mine.size() > 20) mine.erase(mine.begin(), mine.end() - 20);
  for (const auto* e : mine) {
    EventRow r;
    r.type = e->type.empty() ? std::string("Normal") : e->type;
    r.reason = e->reason;
    r.object = (e->involved_object.kind == "Pod" ? "pod/" : "tfjob/") + e->involved_object.name;
    r.message = e->message;
    r.count = e->count ? e->count : 1;  // an event without a count happened once
    r.age = age(detail::event_time(*e), now);
    d.events.push_back(r);
  }
  d.tf_configs = std::move(tf_configs);
  ExplainInput in;
  in.job = job;
  in.pods = pods;
  in.events = events;
  in.now = now;
  in.queue = std::move(queue);
  d.why = why_lines(explain(in));
  return d;
}

TFJOB_INLINE std::string render(const Description& d, std::time_t now) {
  std::ostringstream o;
  const auto& s = d.summary;
  o << "Name:         " << s.name << "\n";
  o << "Namespace:    " << s.namespace_ << "\n";
  o << "State:        " << (s.state.empty() ? "<pending>" : s.state) << "\n";
  if (!s.message.empty()) o << "Message:      " << s.message << "\n";
  o << "Created:      " << s.creation_timestamp << " (" << age(s.creation_timestamp, now) << " ago)\n";
  if (!s.completion_time.empty()) o << "Completed:    " << s.completion_time << "\n";
  o << "GPUs:         " << s.gpus << "\n";
  if (!d.why.empty()) {
    o << "Why:\n";
    for (const auto& w : d.why) o << "  " << w << "\n";
  }
  o << "Run Policy:\n";
  o << "  Clean Pod Policy:  " << (d.clean_pod_policy.empty() ? "<default>" : d.clean_pod_policy) << "\n";
  if (!d.backoff_limit.empty()) o << "  Backoff Limit:     " << d.backoff_limit << "\n";
  if (!d.active_deadline.empty()) o << "  Active Deadline:   " << d.active_deadline << "\n";
  if (!d.ttl.empty()) o << "  TTL After Finish:  " << d.ttl << "\n";
  if (!d.scheduling.empty()) o << "  Scheduling:        " << d.scheduling << "\n";
  o << "Replica Specs:\n";
  std::vector<std::vector<std::string>> rs = {{"TYPE", "REPLICAS", "RESTART POLICY", "GPUS/POD", "IMAGE"}};
  for (const auto& r : d.replicas)
    rs.push_back({r.type, std::to_string(r.replicas), r.restart_policy.empty() ? "<default>" : r.restart_policy,
                  std::to_string(r.gpus_per_pod), r.image});
  o << render_table(rs, "  ");
  o << "Conditions:\n";
  if (s.conditions.empty()) {
    o << "  <none>\n";
  } else {
    std::vector<std::vector<std::string>> cs = {{"TYPE", "STATUS", "LAST TRANSITION", "REASON", "MESSAGE"}};
    for (const auto& c : s.conditions) cs.push_back({c.type, c.status, c.last_transition_time, c.reason, c.message});
    o << render_table(cs, "  ");
  }
  o << "Replica Statuses:\n";
  if (s.replicas.empty()) {
    o << "  <none>\n";
  } else {
    std::vector<std::vector<std::string>> ss = {{"TYPE", "ACTIVE", "SUCCEEDED", "FAILED"}};
    for (const auto& [t, c] : s.replicas)
      ss.push_back({t, std::to_string(c.active), std::to_string(c.succeeded), std::to_string(c.failed)});
    o << render_table(ss, "  ");
  }
  o << "Pods:\n";
  if (d.pods.empty()) {
    o << "  <none>\n";
  } else {
    std::vector<std::vector<std::string>> ps = {{"NAME", "TYPE", "INDEX", "PHASE", "NODE", "RESTARTS", "GPUS", "DETAIL"}};
    for (const auto& p : d.pods)
      ps.push_back({p.name, p.type, p.index < 0 ? "-" : std::to_string(p.index), p.phase,
                    p.node.empty() ? "<none>" : p.node, std::to_string(p.restarts), std::to_string(p.gpus), p.detail});
    o << render_table(ps, "  ");
  }
  o << "TF_CONFIG:\n";
  if (d.tf_configs.empty()) o << "  <none>\n";
  for (const auto& [k, v] : d.tf_configs) o << "  " << k << ": " << (v.empty() ? "<not set: single replica>" : v) << "\n";
  o << "Events:\n";
  if (d.events.empty()) {
    o << "  <none>\n";
  } else {
    std::vector<std::vector<std::string>> es = {{"TYPE", "REASON", "AGE", "FROM", "MESSAGE"}};
    for (const auto& e : d.events)
      es.push_back({e.type, e.reason, e.count > 1 ? e.age + " (x" + std::to_string(e.count) + ")" : e.age, e.object, e.message});
    o << render_table(es, "  ");
  }
  return tfjob::detail::escape_terminal(o.str(), true);  // names and messages from the cluster: no raw ESC, CR...
}

}  // namespace tfjob::workflow
