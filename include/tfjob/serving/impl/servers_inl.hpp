#pragma once
/// \file The bodies of <tfjob/serving/servers.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/servers.hpp>, never this file.

namespace tfjob::serving {

TFJOB_INLINE std::vector<std::pair<std::string, ServerInfo>> list_servers(kube::Client& c, const std::string& ns,
                                                                          const ListOptions& lo) {
  kube::ListParams lp;
  lp.label_selector = std::string(keys::managed_by) + "=kubectl-tfjob," + keys::name + "=tensorflow-serving";
  auto all = [&](auto api) {
    decltype(api.list().items) items;
    api.list_pages(lp, [&](auto& page) {
      for (auto& i : page.items) items.push_back(std::move(i));
      return true;
    });
    return items;
  };
  auto items = all(kube::Api<k8s::Deployment>(c, ns));
  std::vector<k8s::Service> services;
  try {
    services = all(kube::Api<k8s::Service>(c, ns));
  } catch (const api_error&) {
    // the Deployments are the servers; a Service that cannot be read leaves its columns empty
  }
  std::vector<std::pair<std::string, ServerInfo>> out;
  for (const auto& d : items) {
    ServerInfo s;
    s.name = d.metadata.name;
    const std::string dns = d.metadata.namespace_;
    s.model = d.metadata.annotation(keys::model);
    s.model_name = model_name_of(d.metadata);
    s.age_timestamp = d.metadata.creation_timestamp;
    s.desired = d.spec.replicas.value_or(1);
    s.ready = d.status.ready_replicas;
    s.gpus = "0";
    for (const auto& ct : d.spec.template_.spec.containers)
      if (auto g = ct.resources.limits.find("nvidia.com/gpu"); g != ct.resources.limits.end()) s.gpus = g->second;
    for (const auto& svc : services) {
      if (svc.metadata.name != s.name || svc.metadata.namespace_ != dns) continue;
      // A Service's DNS name (Kubernetes DNS spec: <service>.<ns>.svc.<zone>).
      s.address = s.name + "." + dns + ".svc." + lo.cluster_domain;
      s.model_name = model_name_of(svc.metadata);  // predict's source of the name
      for (const auto& p : svc.spec.ports) s.ports.push_back({p.name, p.port});
    }
    if (lo.models) {
      try {
        ModelProbe p = probe_model(c, dns, s.name, s.model_name);
        s.model_state = p.message;
        s.available_versions = p.status.available_versions();
      } catch (const std::exception& e) {
        s.model_state = e.what();  // a server that cannot answer is listed without versions
      }
    }
    out.emplace_back(dns, std::move(s));
  }
  return out;
}

TFJOB_INLINE bool created_by_serve(const ObjectMeta& meta, const std::string& name) {
  // a label of another shape leaves the decoded labels empty: "no"
  return meta.label(keys::managed_by) == "kubectl-tfjob" && meta.label(keys::instance) == name;
}

TFJOB_INLINE DeleteReport delete_server_report(kube::Client& c, const std::string& ns, const std::string& name) {
  DeleteReport rep;
  auto& gone = rep.deleted;
  kube::DeleteParams dp;
  dp.propagation_policy = "Background";
  std::vector<kube::ResourceInfo> all = {resources::deployments(), resources::services()};
  for (const auto& res : {resources::pod_disruption_budgets(), resources::horizontal_pod_autoscalers()})
    for (const auto& v : kind_versions(res.kind)) {  // whichever version the server has it under
      auto r = res;
      r.version = v;
      all.push_back(r);
    }
  for (const auto& res : all) {
    std::string label = res.plural.substr(0, res.plural.size() - 1) + (res.group.empty() ? "" : "." + res.group);
    if (std::find(gone.begin(), gone.end(), label + "/" + name) != gone.end()) continue;  // deleted under a newer version
    try {
      c.request_json(kube::RequestBuilder(res, ns).remove(name, dp));
      gone.push_back(label + "/" + name);
    } catch (const api_error& e) {
      if (!e.is_not_found()) throw;  // 404 also when the server does not serve that version
    }
  }
  kube::Api<k8s::ConfigMap> cms(c, ns);
  for (const std::string& cm : {name, model_config_map_name(name)}) {
    try {
      auto obj = cms.get(cm);
      if (!created_by_serve(obj.metadata, name)) {
        rep.kept.push_back("configmap/" + cm);
        continue;
      }
      cms.remove(cm, dp);
      gone.push_back("configmap/" + cm);
    } catch (const api_error& e) {
      if (!e.is_not_found()) throw;
    }
  }
  return rep;
}

TFJOB_INLINE std::vector<std::string> delete_server(kube::Client& c, const std::string& ns, const std::string& name) {
  return delete_server_report(c, ns, name).deleted;
}

TFJOB_INLINE bool has_monitoring(const k8s::Deployment& deployment) {
  for (const auto& c : deployment.spec.template_.spec.containers)
    for (const auto& a : c.args)
      if (a.rfind("--monitoring_config_file=", 0) == 0) return true;
  return false;
}

TFJOB_INLINE ServerStatus server_status(kube::Client& c, const std::string& ns, const std::string& name) {
  ServerStatus st;
  st.name = name;
  k8s::Deployment dep;
  try {
    dep = kube::Api<k8s::Deployment>(c, ns).get(name);
  } catch (const api_error& e) {
    if (!e.is_not_found()) throw;
    throw tfjob::error("model server \"" + name + "\" not found in namespace \"" + ns + "\" (no deployment of that name)");
  }
  st.model = served_model(c, ns, name);
  st.desired = dep.spec.replicas.value_or(1);
  st.ready = dep.status.ready_replicas;
  try {
    st.model_state = probe_model(c, ns, name, st.model).message;
  } catch (const std::exception& e) {
    st.model_state = e.what();
  }
  for (const auto& v : kind_versions("HorizontalPodAutoscaler")) {  // the newest version the server has
    auto res = resources::horizontal_pod_autoscalers();
    res.version = v;
    try {
      auto hpa = kube::Api<k8s::HorizontalPodAutoscaler>(c, res, ns).get(name);  // v2 or v2beta2: the same fields
      if (created_by_serve(hpa.metadata, name)) st.autoscaler = autoscaler_status(hpa);
      break;
    } catch (const api_error& e) {
      if (!e.is_not_found() && !e.is_forbidden()) throw;  // 404 also when the server does not serve that version
    }
  }
  st.monitoring = has_monitoring(dep);
  if (!st.monitoring) return st;
  auto a = proxy_call(c, ns, name, "GET", prometheus_path);
  if (a.from_apiserver())
    throw tfjob::error("cannot reach TF Serving's metrics behind service \"" + name + "\" (" + std::to_string(a.status) + ": " +
                       a.apiserver_message() + ")");
  if (a.status != 200)
    throw tfjob::error("TF Serving answered " + std::to_string(a.status) + " for " + prometheus_path + ": " +
                       a.body.substr(0, 200));
  st.metrics = request_metrics(parse_prometheus_text(a.body));
  return st;
}

}  // namespace tfjob::serving
