#pragma once
/// \file The bodies of <tfjob/kube/discovery.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/discovery.hpp>, never this file.

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
