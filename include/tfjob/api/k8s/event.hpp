#pragma once
/// \file core/v1 Event as a value type (k8s.io/api/core/v1 `types.go`): what happened to which
/// object, when and how often; the rest stays in `other`.

#include <tfjob/api/meta.hpp>
#include <tfjob/detail/compiled.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tfjob::k8s {

/// `ObjectReference`: the object an event is about.
struct ObjectReference {
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string api_version;
  std::string resource_version;
  std::string field_path;  ///< e.g. spec.containers{tensorflow}
  nlohmann::json other = nlohmann::json::object();
};

/// `EventSource`.
struct EventSource {
  std::string component;
  std::string host;
  nlohmann::json other = nlohmann::json::object();
};

/// `EventSeries` (a deduplicated event, events.k8s.io).
struct EventSeries {
  std::int32_t count = 0;
  std::string last_observed_time;
  nlohmann::json other = nlohmann::json::object();
};

/// core/v1 Event.
struct Event {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  ObjectReference involved_object;
  std::string reason;
  std::string message;
  EventSource source;
  std::string first_timestamp;
  std::string last_timestamp;
  std::int32_t count = 0;
  std::string type;  ///< Normal or Warning
  std::string event_time;  ///< MicroTime, set by events.k8s.io/v1 writers
  std::optional<EventSeries> series;
  std::string action;
  std::string reporting_component;
  std::string reporting_instance;
  nlohmann::json other = nlohmann::json::object();

  /// When it was last seen: lastTimestamp, else the series' last observation, else eventTime
  /// (events.k8s.io/v1 writers leave lastTimestamp empty).
  std::string last_seen() const;
};

TFJOB_JSON_FN to_json(TFJOB_JSON& j, const ObjectReference& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const EventSource& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const EventSeries& v);
TFJOB_JSON_FN to_json(TFJOB_JSON& j, const Event& v);
/// Decoders: what has the wrong type stays in `other`, untouched; they throw only for a
/// value that is not a JSON object at all.
TFJOB_JSON_FN from_json(const TFJOB_JSON& j, Event& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, ObjectReference& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, EventSource& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, EventSeries& v);
TFJOB_JSON_FN decode_fields(tfjob::detail::decoder& d, const TFJOB_JSON& j, const std::string& path, Event& v);

}  // namespace tfjob::k8s

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/k8s/impl/event_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
