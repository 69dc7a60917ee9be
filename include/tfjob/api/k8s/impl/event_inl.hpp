#pragma once
/// \file The bodies of <tfjob/api/k8s/event.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/k8s/event.hpp>, never this file.

namespace tfjob::k8s {

TFJOB_INLINE std::string Event::last_seen() const {
  if (!last_timestamp.empty()) return last_timestamp;
  if (series && !series->last_observed_time.empty()) return series->last_observed_time;
  return event_time;
}


// Each type's fields, listed once for both directions (detail::write_fields, read_fields).

template <class F>
void fields(ObjectReference& v, F& f) {
  f("kind", v.kind);
  f("namespace", v.namespace_);
  f("name", v.name);
  f("uid", v.uid);
  f("apiVersion", v.api_version);
  f("resourceVersion", v.resource_version);
  f("fieldPath", v.field_path);
}

template <class F>
void fields(EventSource& v, F& f) {
  f("component", v.component);
  f("host", v.host);
}

template <class F>
void fields(EventSeries& v, F& f) {
  f("count", v.count);
  f("lastObservedTime", v.last_observed_time);
}

template <class F>
void fields(Event& v, F& f) {
  f("apiVersion", v.api_version);
  f("kind", v.kind);
  f("metadata", v.metadata);
  f("involvedObject", v.involved_object);
  f("reason", v.reason);
  f("message", v.message);
  f("source", v.source);
  f("firstTimestamp", v.first_timestamp);
  f("lastTimestamp", v.last_timestamp);
  f("count", v.count);
  f("type", v.type);
  f("eventTime", v.event_time);
  f("series", v.series);
  f("action", v.action);
  f("reportingComponent", v.reporting_component);
  f("reportingInstance", v.reporting_instance);
}

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ObjectReference& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const EventSource& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const EventSeries& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Event& v) { detail::write_fields(j, v); }

TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Event& v) { detail::decode_lenient(j, "Event", v); }

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ObjectReference& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, EventSource& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, EventSeries& v) {
  detail::read_fields(d, j, path, v);
}

TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Event& v) {
  detail::read_fields(d, j, path, v);
}

}  // namespace tfjob::k8s
