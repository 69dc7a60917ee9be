#pragma once
/// \file The bodies of <tfjob/api/defaults.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/defaults.hpp>, never this file.

namespace tfjob::detail {

TFJOB_INLINE void set_type_name_to_camel_case(std::map<std::string, ReplicaSpec>& specs,
                                              const std::string& typ) {
  for (auto it = specs.begin(); it != specs.end(); ++it) {
    if (equal_fold(it->first, typ) && it->first != typ) {
      ReplicaSpec spec = std::move(it->second);
      specs.erase(it);
      specs[typ] = std::move(spec);
      return;
    }
  }
}

TFJOB_INLINE void set_default_port(ReplicaSpec& r) {
  auto* cs = containers(r);
  if (!cs || cs->empty()) return;  // the operator would index [0]; validation reports it
  std::size_t index = 0;  // getDefaultContainerIndex
  for (std::size_t i = 0; i < cs->size(); ++i) {
    const auto& c = (*cs)[i];
    if (c.is_object() && tfjob::detail::value_at(c, "name", std::string()) == default_container_name) {
      index = i;
      break;
    }
  }
  auto& c = (*cs)[index];
  if (!c.is_object()) return;
  auto ports = c.find("ports");
  if (ports != c.end() && ports->is_array()) {
    for (const auto& p : *ports)  // hasDefaultPort
      if (p.is_object() && tfjob::detail::value_at(p, "name", std::string()) == default_port_name) return;
  } else if (ports != c.end() && !ports->is_null()) {
    return;  // not a list: leave it for validation to report
  }
  c["ports"].push_back({{"name", default_port_name}, {"containerPort", default_port}});
}

}  // namespace tfjob::detail
namespace tfjob {

TFJOB_INLINE void set_defaults(TFJob& job) {
  auto& spec = job.spec;
  if (!spec.run_policy.clean_pod_policy) spec.run_policy.clean_pod_policy = clean_pod_policy::None;
  if (!spec.success_policy) spec.success_policy = success_policy::Default;
  for (const auto& t : replica_type::all())
    detail::set_type_name_to_camel_case(spec.tf_replica_specs, t);
  for (auto& [type, r] : spec.tf_replica_specs) {
    if (!r.replicas) r.replicas = 1;
    if (r.restart_policy.empty()) r.restart_policy = default_restart_policy;
    detail::set_default_port(r);
  }
}

TFJOB_INLINE TFJob with_defaults(TFJob job) {
  set_defaults(job);
  return job;
}

}  // namespace tfjob
