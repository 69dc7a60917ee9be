#pragma once
/// \file The bodies of <tfjob/api/k8s/gang.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/k8s/gang.hpp>, never this file.

namespace tfjob::k8s {

// Each type's fields, listed once for both directions (detail::write_fields, read_fields).

template <class F>
void fields(PodGroupSpec& v, F& f) {
  f("minMember", v.min_member);
  f("queue", v.queue);
  f("priorityClassName", v.priority_class_name);
  f.quantities("minResources", v.min_resources);
  f("scheduleTimeoutSeconds", v.schedule_timeout_seconds);
}

template <class F>
void fields(PodGroupStatus& v, F& f) {
  f("phase", v.phase);
  f("conditions", v.conditions);
  f("running", v.running);
  f("succeeded", v.succeeded);
  f("failed", v.failed);
  f("occupiedBy", v.occupied_by);
  f("scheduleStartTime", v.schedule_start_time);
}

template <class F>
void fields(PodGroup& v, F& f) {
  f("apiVersion", v.api_version);
  f("kind", v.kind);
  f("metadata", v.metadata);
  f("spec", v.spec);
  f("status", v.status);
}

template <class F>
void fields(VolcanoQueueSpec& v, F& f) {
  f("weight", v.weight);
  f.quantities("capability", v.capability);
  f("reclaimable", v.reclaimable);
}

template <class F>
void fields(VolcanoQueueStatus& v, F& f) {
  f("state", v.state);
  f("pending", v.pending);
  f("running", v.running);
  f("inqueue", v.inqueue);
}

template <class F>
void fields(VolcanoQueue& v, F& f) {
  f("apiVersion", v.api_version);
  f("kind", v.kind);
  f("metadata", v.metadata);
  f("spec", v.spec);
  f("status", v.status);
}

template <class F>
void fields(LeaseSpec& v, F& f) {
  f("holderIdentity", v.holder_identity);
  f("leaseDurationSeconds", v.lease_duration_seconds);
  f("acquireTime", v.acquire_time);
  f("renewTime", v.renew_time);
  f("leaseTransitions", v.lease_transitions);
}

template <class F>
void fields(Lease& v, F& f) {
  f("apiVersion", v.api_version);
  f("kind", v.kind);
  f("metadata", v.metadata);
  f("spec", v.spec);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PodGroupSpec& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PodGroupStatus& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const PodGroup& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const VolcanoQueueSpec& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const VolcanoQueueStatus& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const VolcanoQueue& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const LeaseSpec& v) { detail::write_fields(j, v); }
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Lease& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, PodGroup& v) { detail::decode_lenient(j, "PodGroup", v); }
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, VolcanoQueue& v) { detail::decode_lenient(j, "Queue", v); }
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Lease& v) { detail::decode_lenient(j, "Lease", v); }

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PodGroupSpec& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PodGroupStatus& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, PodGroup& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, VolcanoQueueSpec& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, VolcanoQueueStatus& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, VolcanoQueue& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, LeaseSpec& v) { detail::read_fields(d, j, path, v); }
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Lease& v) { detail::read_fields(d, j, path, v); }

}  // namespace tfjob::k8s
