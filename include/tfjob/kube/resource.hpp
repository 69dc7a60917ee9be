#pragma once
/// \file The one thing the generic client knows about a resource type: where it lives.
///
/// Specialise `resource_traits<T>` for each type `Api<T>` serves (kube-rs `Resource`,
/// client-go's GroupVersionResource). Example: `tfjob/kube/tfjob_resource.hpp` for `TFJob`.

namespace tfjob::kube {

/// Primary template, deliberately undefined: using `Api<T>` with a type that has no
/// specialisation is a compile error. A specialisation provides:
/// ```
///   static constexpr const char* group;       // "" for the core group
///   static constexpr const char* version;     // "v1"
///   static constexpr const char* plural;      // "tfjobs"
///   static constexpr const char* kind;        // "TFJob"
///   static constexpr bool namespaced;         // true
/// ```
template <class T>
struct resource_traits;

}  // namespace tfjob::kube
