#pragma once
/// \file Defaulting exactly as the training operator v1.9 (`SetDefaults_TFJob` in
/// `pkg/apis/kubeflow.org/v1/tensorflow_defaults.go` and `defaulting_utils.go`).

#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>

#include <string>
#include <vector>

namespace tfjob {

namespace detail {

/// `setTypeNameToCamelCase`: move the first key equal to `typ` ignoring case (and not
/// already `typ`) to `typ`. Like the operator, it replaces an existing exact key; the
/// validator reports keys that differ only in case before that can happen silently.
void set_type_name_to_camel_case(std::map<std::string, ReplicaSpec>& specs,
                                 const std::string& typ);

/// `setTensorflowDefaultPort`: add `tfjob-port: 2222` to the container named
/// `tensorflow` (or the first container) unless a port of that name exists.
void set_default_port(ReplicaSpec& r);

}  // namespace detail

/// Applies the operator's defaults in place: cleanPodPolicy `None`, successPolicy `""`,
/// replica-type keys in canonical case (`WORKER` -> `Worker`), replicas 1, restartPolicy
/// `Never`, and a `tfjob-port` 2222 port on the `tensorflow` container (or the first one).
void set_defaults(TFJob& job);

/// A defaulted copy.
TFJob with_defaults(TFJob job);

}  // namespace tfjob

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/impl/defaults_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
