#pragma once
/// \file The bodies of <tfjob/api/k8s/workloads.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/k8s/workloads.hpp>, never this file.

namespace tfjob::k8s {

// Each type's fields, listed once for both directions (detail::write_fields, read_fields).

template <class F>
void fields(WorkloadCondition& v, F& f) {
  f("type", v.type);
  f("status", v.status);
  f("reason", v.reason);
  f("message", v.message);
  f("lastUpdateTime", v.last_update_time);
  f("lastTransitionTime", v.last_transition_time);
}

template <class F>
void fields(RollingUpdateDeployment& v, F& f) {
  f("maxSurge", v.max_surge);
  f("maxUnavailable", v.max_unavailable);
}

template <class F>
void fields(DeploymentStrategy& v, F& f) {
  f("type", v.type);
  f("rollingUpdate", v.rolling_update);
}

template <class F>
void fields(DeploymentSpec& v, F& f) {
  f("replicas", v.replicas);
  f("selector", v.selector);
  f("template", v.template_);
  f("strategy", v.strategy);
}

template <class F>
void fields(DeploymentStatus& v, F& f) {
  f("observedGeneration", v.observed_generation);
  f("replicas", v.replicas);
  f("updatedReplicas", v.updated_replicas);
  f("readyReplicas", v.ready_replicas);
  f("availableReplicas", v.available_replicas);
  f("unavailableReplicas", v.unavailable_replicas);
  f("conditions", v.conditions);
}

template <class F>
void fields(Deployment& v, F& f) {
  f("apiVersion", v.api_version);
  f("kind", v.kind);
  f("metadata", v.metadata);
  f("spec", v.spec);
  f("status", v.status);
}

template <class F>
void fields(JobSpec& v, F& f) {
  f("parallelism", v.parallelism);
  f("completions", v.completions);
  f("backoffLimit", v.backoff_limit);
  f("template", v.template_);
}

template <class F>
void fields(JobStatus& v, F& f) {
  f("active", v.active);
  f("succeeded", v.succeeded);
  f("failed", v.failed);
  f("startTime", v.start_time);
  f("completionTime", v.completion_time);
  f("conditions", v.conditions);
}

template <class F>
void fields(Job& v, F& f) {
  f("apiVersion", v.api_version);
  f("kind", v.kind);
  f("metadata", v.metadata);
  f("spec", v.spec);
  f("status", v.status);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const WorkloadCondition& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const RollingUpdateDeployment& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const DeploymentStrategy& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const DeploymentSpec& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const DeploymentStatus& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Deployment& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const JobSpec& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const JobStatus& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Job& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Deployment& v) { detail::decode_lenient(j, "Deployment", v); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Job& v) { detail::decode_lenient(j, "Job", v); }

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, WorkloadCondition& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, RollingUpdateDeployment& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, DeploymentStrategy& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, DeploymentSpec& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, DeploymentStatus& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Deployment& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, JobSpec& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, JobStatus& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Job& v) {
  detail::read_fields(d, j, path, v);
}

}  // namespace tfjob::k8s
