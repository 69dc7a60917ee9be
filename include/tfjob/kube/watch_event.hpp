#pragma once
/// \file A watch's events as the API server names them (apimachinery pkg/watch): the type of a
/// change and the object it carries.

#include <tfjob/detail/compiled.hpp>
#include <optional>
#include <string_view>

namespace tfjob::kube {

/// The type of a watch event (apimachinery pkg/watch/watch.go EventType). ERROR never reaches
/// a callback (the watcher throws the server's Status or relists on 410); BOOKMARK only when
/// WatchParams::deliver_bookmarks is set.
enum class EventType { added, modified, deleted, bookmark, error };

/// The wire spelling: "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR".
const char* to_string(EventType t);

/// The event type a wire spelling names; nullopt for any other (the watcher ignores those).
std::optional<EventType> parse_event_type(std::string_view s);

/// One change.
template <class T>
struct WatchEvent {
  EventType type;
  T object;
  /// A deletion that a relist found (the server's DELETED event was missed: a 410, a restart):
  /// `object` is what the watcher remembered, not the final state (client-go's
  /// DeletedFinalStateUnknown): apiVersion, kind, and metadata name, namespace, uid, the last
  /// resourceVersion seen, creationTimestamp and labels.
  bool final_state_unknown = false;
};

}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
#include <tfjob/kube/impl/watch_event_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
