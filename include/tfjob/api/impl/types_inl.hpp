#pragma once
/// \file The bodies of <tfjob/api/types.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/types.hpp>, never this file.

namespace tfjob::replica_type {

TFJOB_INLINE const std::vector<std::string>& all() {
  static const std::vector<std::string> v{PS, Worker, Chief, Master, Evaluator};
  return v;
}

}  // namespace tfjob::replica_type
namespace tfjob {

TFJOB_INLINE const JobCondition* JobStatus::condition(std::string_view type) const {
  for (const auto& c : conditions)
    if (c.type == type) return &c;
  return nullptr;
}

TFJOB_INLINE bool JobStatus::has_condition(std::string_view type) const {
  const auto* c = condition(type);
  return c && c->status == "True";
}

TFJOB_INLINE bool JobStatus::succeeded() const { return has_condition(condition_type::Succeeded); }

TFJOB_INLINE bool JobStatus::failed() const { return has_condition(condition_type::Failed); }

TFJOB_INLINE bool JobStatus::finished() const { return succeeded() || failed(); }

TFJOB_INLINE const ReplicaSpec* TFJob::replica(std::string_view type) const {
  auto it = spec.tf_replica_specs.find(std::string(type));
  return it == spec.tf_replica_specs.end() ? nullptr : &it->second;
}

TFJOB_INLINE ReplicaSpec* TFJob::replica(std::string_view type) {
  auto it = spec.tf_replica_specs.find(std::string(type));
  return it == spec.tf_replica_specs.end() ? nullptr : &it->second;
}

TFJOB_INLINE bool TFJob::has_replica(std::string_view type) const { return replica(type) != nullptr; }

TFJOB_INLINE int TFJob::total_replicas() const {
  int n = 0;
  for (const auto& [t, r] : spec.tf_replica_specs) n += r.replicas_or_default();
  return n;
}

TFJOB_INLINE const nlohmann::json* containers(const ReplicaSpec& r) {
  if (!r.template_.is_object()) return nullptr;
  auto s = r.template_.find("spec");
  if (s == r.template_.end() || !s->is_object()) return nullptr;
  auto c = s->find("containers");
  if (c == s->end() || !c->is_array()) return nullptr;
  return &*c;
}

TFJOB_INLINE nlohmann::json* containers(ReplicaSpec& r) {
  return const_cast<nlohmann::json*>(containers(static_cast<const ReplicaSpec&>(r)));
}

TFJOB_INLINE const nlohmann::json* tensorflow_container(const ReplicaSpec& r) {
  const auto* cs = containers(r);
  if (!cs) return nullptr;
  for (const auto& c : *cs)
    if (c.is_object() && tfjob::detail::value_at(c, "name", std::string()) == default_container_name) return &c;
  return nullptr;
}

TFJOB_INLINE k8s::PodTemplateSpec pod_template(const ReplicaSpec& r) {
  k8s::PodTemplateSpec t;
  if (r.template_.is_object()) from_json(r.template_, t);
  return t;
}

TFJOB_INLINE nlohmann::json* tensorflow_container(ReplicaSpec& r) {
  return const_cast<nlohmann::json*>(tensorflow_container(static_cast<const ReplicaSpec&>(r)));
}

TFJOB_INLINE std::string to_lower(std::string_view s) {
  std::string out(s);
  for (auto& ch : out)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  return out;
}

TFJOB_INLINE bool equal_fold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

TFJOB_INLINE std::optional<std::string> canonical_replica_type(std::string_view t) {
  for (const auto& c : replica_type::all())
    if (equal_fold(c, t)) return c;
  return std::nullopt;
}

TFJOB_INLINE bool is_chief_or_master(std::string_view t) {
  return t == replica_type::Chief || t == replica_type::Master;
}

}  // namespace tfjob
namespace tfjob {

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const SchedulingPolicy& s) {
  j = detail::with_other(s.other);
  if (s.min_available) j["minAvailable"] = *s.min_available;
  if (!s.queue.empty()) j["queue"] = s.queue;
  if (!s.min_resources.is_null()) j["minResources"] = s.min_resources;
  if (!s.priority_class.empty()) j["priorityClass"] = s.priority_class;
  if (s.schedule_timeout_seconds) j["scheduleTimeoutSeconds"] = *s.schedule_timeout_seconds;
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const RunPolicy& r) {
  j = detail::with_other(r.other);
  if (r.clean_pod_policy) j["cleanPodPolicy"] = *r.clean_pod_policy;
  if (r.ttl_seconds_after_finished) j["ttlSecondsAfterFinished"] = *r.ttl_seconds_after_finished;
  if (r.active_deadline_seconds) j["activeDeadlineSeconds"] = *r.active_deadline_seconds;
  if (r.backoff_limit) j["backoffLimit"] = *r.backoff_limit;
  if (r.scheduling_policy) j["schedulingPolicy"] = detail::json_of(*r.scheduling_policy);
  if (r.suspend) j["suspend"] = *r.suspend;
  if (r.managed_by) j["managedBy"] = *r.managed_by;
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ReplicaSpec& r) {
  j = detail::with_other(r.other);
  if (r.replicas) j["replicas"] = *r.replicas;
  if (!r.template_.is_null()) j["template"] = r.template_;
  if (!r.restart_policy.empty()) j["restartPolicy"] = r.restart_policy;
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const TFJobSpec& s) {
  j = detail::with_other(s.other);
  nlohmann::json rp = detail::json_of(s.run_policy);
  if (!rp.empty()) j["runPolicy"] = rp;
  if (s.success_policy) j["successPolicy"] = *s.success_policy;
  if (!s.tf_replica_specs.empty()) {
    auto& m = j["tfReplicaSpecs"];
    for (const auto& [k, v] : s.tf_replica_specs) m[k] = detail::json_of(v);
  }
  if (s.enable_dynamic_worker) j["enableDynamicWorker"] = true;
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const JobCondition& c) {
  j = detail::with_other(c.other);
  if (!c.type.empty()) j["type"] = c.type;
  if (!c.status.empty()) j["status"] = c.status;
  if (!c.reason.empty()) j["reason"] = c.reason;
  if (!c.message.empty()) j["message"] = c.message;
  if (!c.last_update_time.empty()) j["lastUpdateTime"] = c.last_update_time;
  if (!c.last_transition_time.empty()) j["lastTransitionTime"] = c.last_transition_time;
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ReplicaStatus& r) {
  j = detail::with_other(r.other);
  if (r.active) j["active"] = r.active;
  if (r.succeeded) j["succeeded"] = r.succeeded;
  if (r.failed) j["failed"] = r.failed;
  if (!r.label_selector.is_null()) j["labelSelector"] = r.label_selector;
  if (!r.selector.empty()) j["selector"] = r.selector;
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const JobStatus& s) {
  j = detail::with_other(s.other);
  if (!s.conditions.empty()) {
    auto& a = j["conditions"] = nlohmann::json::array();
    for (const auto& c : s.conditions) a.push_back(detail::json_of(c));
  }
  if (!s.replica_statuses.empty()) {
    auto& m = j["replicaStatuses"];
    for (const auto& [k, v] : s.replica_statuses) m[k] = detail::json_of(v);
  }
  if (!s.start_time.empty()) j["startTime"] = s.start_time;
  if (!s.completion_time.empty()) j["completionTime"] = s.completion_time;
  if (!s.last_reconcile_time.empty()) j["lastReconcileTime"] = s.last_reconcile_time;
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const TFJob& t) {
  j = detail::with_other(t.other);
  if (!t.api_version.empty()) j["apiVersion"] = t.api_version;
  if (!t.kind.empty()) j["kind"] = t.kind;
  nlohmann::json m = detail::json_of(t.metadata);
  if (!m.empty()) j["metadata"] = m;
  nlohmann::json s = detail::json_of(t.spec);
  if (!s.empty()) j["spec"] = s;
  if (t.status) j["status"] = detail::json_of(*t.status);
}

}  // namespace tfjob
namespace tfjob::detail {

TFJOB_JSON_FN decode_fields(decoder& d, const TFJOB_JSON& j, const std::string& path, SchedulingPolicy& s) {
  if (!d.object(j, path)) return;
  d.integer(j, "minAvailable", path, s.min_available);
  d.str(j, "queue", path, s.queue);
  if (const auto* v = d.get(j, "minResources")) {
    if (d.object(*v, path + ".minResources")) s.min_resources = *v;
  }
  d.str(j, "priorityClass", path, s.priority_class);
  d.integer(j, "scheduleTimeoutSeconds", path, s.schedule_timeout_seconds);
  s.other = nlohmann::json::object();
  keep_unmodeled(j, json_of(s), s.other);
}

TFJOB_JSON_FN decode_fields(decoder& d, const TFJOB_JSON& j, const std::string& path, RunPolicy& r) {
  if (!d.object(j, path)) return;
  d.str(j, "cleanPodPolicy", path, r.clean_pod_policy);
  d.integer(j, "ttlSecondsAfterFinished", path, r.ttl_seconds_after_finished);
  d.integer(j, "activeDeadlineSeconds", path, r.active_deadline_seconds);
  d.integer(j, "backoffLimit", path, r.backoff_limit);
  if (const auto* v = d.get(j, "schedulingPolicy")) {
    SchedulingPolicy s;
    d.decode(*v, path + ".schedulingPolicy", s);
    r.scheduling_policy = std::move(s);
  }
  d.boolean(j, "suspend", path, r.suspend);
  d.str(j, "managedBy", path, r.managed_by);
  r.other = nlohmann::json::object();
  keep_unmodeled(j, json_of(r), r.other);
}

TFJOB_JSON_FN decode_fields(decoder& d, const TFJOB_JSON& j, const std::string& path, ReplicaSpec& r) {
  if (!d.object(j, path)) return;
  d.integer(j, "replicas", path, r.replicas);
  if (const auto* v = d.get(j, "template")) {
    if (d.object(*v, path + ".template")) {
      r.template_ = *v;
      if (auto s = v->find("spec"); s != v->end() && !s->is_null()) {
        if (d.object(*s, path + ".template.spec")) {
          if (auto c = s->find("containers"); c != s->end() && !c->is_null()) {
            if (!c->is_array()) d.wrong(path + ".template.spec.containers", *c, "an array");
            else
              for (std::size_t i = 0; i < c->size(); ++i)
                d.object((*c)[i], path + ".template.spec.containers[" + std::to_string(i) + "]");
          }
        }
      }
    }
  }
  d.str(j, "restartPolicy", path, r.restart_policy);
  r.other = nlohmann::json::object();
  keep_unmodeled(j, json_of(r), r.other);
}

TFJOB_JSON_FN decode_fields(decoder& d, const TFJOB_JSON& j, const std::string& path, TFJobSpec& s) {
  if (!d.object(j, path)) return;
  if (const auto* v = d.get(j, "runPolicy")) d.decode(*v, path + ".runPolicy", s.run_policy);
  d.str(j, "successPolicy", path, s.success_policy);
  if (const auto* v = d.get(j, "tfReplicaSpecs")) {
    if (d.object(*v, path + ".tfReplicaSpecs")) {
      for (const auto& [k, x] : v->items()) {
        ReplicaSpec r;
        if (!x.is_null()) d.decode(x, path + ".tfReplicaSpecs[" + k + "]", r);
        s.tf_replica_specs[k] = std::move(r);
      }
    }
  }
  std::optional<bool> dyn;
  d.boolean(j, "enableDynamicWorker", path, dyn);
  s.enable_dynamic_worker = dyn.value_or(false);
  s.other = nlohmann::json::object();
  keep_unmodeled(j, json_of(s), s.other);
}

TFJOB_JSON_FN decode_fields(decoder& d, const TFJOB_JSON& j, const std::string& path, JobCondition& c) {
  if (!d.object(j, path)) return;
  d.str(j, "type", path, c.type);
  d.str(j, "status", path, c.status);
  d.str(j, "reason", path, c.reason);
  d.str(j, "message", path, c.message);
  d.str(j, "lastUpdateTime", path, c.last_update_time);
  d.str(j, "lastTransitionTime", path, c.last_transition_time);
  c.other = nlohmann::json::object();
  keep_unmodeled(j, json_of(c), c.other);
}

TFJOB_JSON_FN decode_fields(decoder& d, const TFJOB_JSON& j, const std::string& path, ReplicaStatus& r) {
  if (!d.object(j, path)) return;
  d.integer(j, "active", path, r.active);
  d.integer(j, "succeeded", path, r.succeeded);
  d.integer(j, "failed", path, r.failed);
  if (const auto* v = d.get(j, "labelSelector")) r.label_selector = *v;
  d.str(j, "selector", path, r.selector);
  r.other = nlohmann::json::object();
  keep_unmodeled(j, json_of(r), r.other);
}

TFJOB_JSON_FN decode_fields(decoder& d, const TFJOB_JSON& j, const std::string& path, JobStatus& s) {
  if (!d.object(j, path)) return;
  if (const auto* v = d.get(j, "conditions")) {
    if (!v->is_array()) d.wrong(path + ".conditions", *v, "an array");
    else
      for (std::size_t i = 0; i < v->size(); ++i) {
        JobCondition c;
        d.decode((*v)[i], path + ".conditions[" + std::to_string(i) + "]", c);
        s.conditions.push_back(std::move(c));
      }
  }
  if (const auto* v = d.get(j, "replicaStatuses")) {
    if (d.object(*v, path + ".replicaStatuses"))
      for (const auto& [k, x] : v->items()) {
        ReplicaStatus r;
        if (!x.is_null()) d.decode(x, path + ".replicaStatuses[" + k + "]", r);
        s.replica_statuses[k] = std::move(r);
      }
  }
  d.str(j, "startTime", path, s.start_time);
  d.str(j, "completionTime", path, s.completion_time);
  d.str(j, "lastReconcileTime", path, s.last_reconcile_time);
  s.other = nlohmann::json::object();
  keep_unmodeled(j, json_of(s), s.other);
}

TFJOB_JSON_FN decode_fields(decoder& d, const TFJOB_JSON& j, const std::string& path, TFJob& t) {
  if (!j.is_object()) {
    d.errors.push_back({"<root>", "Invalid value",
                      "a TFJob must be an object, not " + d.type_name(j)});
    return;
  }
  t.api_version.clear();
  t.kind.clear();
  d.str(j, "apiVersion", path, t.api_version);
  d.str(j, "kind", path, t.kind);
  if (const auto* v = d.get(j, "metadata")) d.decode(*v, d.child(path, "metadata"), t.metadata);
  if (const auto* v = d.get(j, "spec")) d.decode(*v, d.child(path, "spec"), t.spec);
  if (const auto* v = d.get(j, "status")) {
    JobStatus s;
    d.decode(*v, d.child(path, "status"), s);
    t.status = std::move(s);
  }
  t.other = nlohmann::json::object();
  keep_unmodeled(j, json_of(t), t.other);
}

}  // namespace tfjob::detail
namespace tfjob {

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, SchedulingPolicy& s) { detail::decode_whole(j, "schedulingPolicy", s); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, RunPolicy& r) { detail::decode_whole(j, "runPolicy", r); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, ReplicaSpec& r) { detail::decode_whole(j, "replicaSpec", r); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, TFJobSpec& s) { detail::decode_whole(j, "spec", s); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, JobCondition& c) { detail::decode_whole(j, "condition", c); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, ReplicaStatus& r) { detail::decode_whole(j, "replicaStatus", r); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, JobStatus& s) { detail::decode_whole(j, "status", s); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, TFJob& t) { detail::decode_whole(j, "", t); }

}  // namespace tfjob
