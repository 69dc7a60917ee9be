#pragma once
/// \file Discovery: which API groups, versions and resources the server serves
/// (GET /apis/GROUP/VERSION, as kubectl's discovery client).

#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/client.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace tfjob::kube {

/// The APIResourceList for group/version ("" group = core /api/v1); nullopt when the server
/// does not serve that group/version at all (404).
std::optional<nlohmann::json> api_resources(Client client, const std::string& group, const std::string& version);

/// Whether `plural` in group/version is served, e.g. serves(c, "kubeflow.org", "v1", "tfjobs").
bool serves(Client client, const std::string& group, const std::string& version, const std::string& plural);

/// The server's version (GET /version), e.g. "v1.30.2".
std::string server_version(Client client);

}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
#include <tfjob/kube/impl/discovery_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
