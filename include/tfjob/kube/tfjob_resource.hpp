#pragma once
/// \file Where TFJobs live in the API: `/apis/kubeflow.org/v1/namespaces/{ns}/tfjobs`. The
/// one place kube/ names a TFJob (the resource description `Api<TFJob>` needs, as kube/core.hpp
/// holds those of the core kinds); the type itself is api/'s.

#include <tfjob/api/types.hpp>
#include <tfjob/kube/resource.hpp>

namespace tfjob::kube {

/// TFJob: kubeflow.org/v1, plural `tfjobs`, namespaced (the CRD's `spec.names`).
template <>
struct resource_traits<tfjob::TFJob> {
  static constexpr const char* group = tfjob::api_group;
  static constexpr const char* version = "v1";
  static constexpr const char* plural = "tfjobs";
  static constexpr const char* kind = tfjob::kind;
  static constexpr bool namespaced = true;
};

}  // namespace tfjob::kube
