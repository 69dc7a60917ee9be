#pragma once
/// \file Where TFJobs live in the API: `/apis/kubeflow.org/v1/namespaces/{ns}/tfjobs`.

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
