#pragma once
/// \file The bodies of <tfjob/kube/watch_event.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/watch_event.hpp>, never this file.

namespace tfjob::kube {

TFJOB_INLINE const char* to_string(EventType t) {
  switch (t) {
    case EventType::added: return "ADDED";
    case EventType::modified: return "MODIFIED";
    case EventType::deleted: return "DELETED";
    case EventType::bookmark: return "BOOKMARK";
    case EventType::error: return "ERROR";
  }
  return "UNKNOWN";
}

TFJOB_INLINE std::optional<EventType> parse_event_type(std::string_view s) {
  for (EventType t : {EventType::added, EventType::modified, EventType::deleted, EventType::bookmark, EventType::error})
    if (s == std::string_view(to_string(t))) return t;
  return std::nullopt;
}

}  // namespace tfjob::kube
