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
namespace tfjob::kube {

TFJOB_INLINE std::optional<nlohmann::json> api_resources(Client client, const std::string& group, const std::string& version) {
  Request r;
  r.path = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  r.what = "discover " + (group.empty() ? version : group + "/" + version);
  return client.discovery(r.path, [&]() -> std::optional<nlohmann::json> {
    try {
      return client.request_json(r);
    } catch (const api_error& e) {
      if (e.is_not_found()) return std::nullopt;
      throw;
    }
  });
}

TFJOB_INLINE bool serves(Client client, const std::string& group, const std::string& version, const std::string& plural) {
  auto list = api_resources(std::move(client), group, version);
  if (!list || !list->contains("resources") || !(*list)["resources"].is_array()) return false;
  for (const auto& r : (*list)["resources"])
    if (r.is_object() && r.contains("name") && r["name"] == plural) return true;  // other shapes: not it
  return false;
}

TFJOB_INLINE std::string server_version(Client client) {
  Request r;
  r.path = "/version";
  r.what = "get the server version";
  auto v = client.request_json(r);
  auto g = v.is_object() ? v.find("gitVersion") : v.end();
  return v.is_object() && g != v.end() && g->is_string() ? g->get<std::string>() : std::string();
}

}  // namespace tfjob::kube
#endif  // TFJOB_SDK_DEFINE_KUBE
