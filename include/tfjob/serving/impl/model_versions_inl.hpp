#pragma once
/// \file The bodies of <tfjob/serving/model_versions.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/model_versions.hpp>, never this file.

namespace tfjob::serving {

TFJOB_INLINE std::optional<StoredModelConfig> read_model_config(kube::Client& c, const std::string& ns, const std::string& name) {
  auto svc = get_service(c, ns, name);
  if (!svc) (void)served_model(c, ns, name);  // throws "service not found" with what to do
  auto cm_name = model_config_map_of(svc->metadata);
  if (!cm_name) return std::nullopt;
  StoredModelConfig s;
  try {
    s.config_map = kube::Api<k8s::ConfigMap>(c, ns).get(*cm_name);
  } catch (const api_error& e) {
    if (!e.is_not_found()) throw;
    throw tfjob::error("configmap \"" + *cm_name + "\" (the model config of server \"" + name + "\") not found in namespace \"" +
                       ns + "\": serve it again to recreate it");
  }
  auto text = s.config_map.data.find(model_config_key);  // (a data map of another shape is not decoded: no key)
  if (text == s.config_map.data.end())
    throw tfjob::error("configmap \"" + *cm_name + "\" has no " + model_config_key + " key: serve it again to recreate it");
  try {
    s.config = parse_model_config(text->second);
  } catch (const tfjob::error& e) {
    throw tfjob::error("configmap \"" + *cm_name + "\": " + e.text());
  }
  return s;
}

TFJOB_INLINE bool allows_labels_for_unavailable(const k8s::Deployment& deployment) {
  for (const auto& ct : deployment.spec.template_.spec.containers)
    for (const auto& a : ct.args)
      if (a == "--allow_version_labels_for_unavailable_models" || a == "--allow_version_labels_for_unavailable_models=true")
        return true;
  return false;
}

TFJOB_INLINE std::vector<std::string> available_versions(kube::Client& c, const std::string& ns, const std::string& service,
                                                         const std::string& model) {
  ModelProbe p = probe_model(c, ns, service, model);
  if (p.kind == ModelProbe::Kind::unreachable) throw tfjob::error(p.message);
  return p.status.available_versions();
}

TFJOB_INLINE LabelReport move_version_label(kube::Client& c, const std::string& ns, const std::string& name, const std::string& model,
                                           const std::string& label, std::int64_t version, bool wait, const WaitOptions& o) {
  LabelReport rep;
  const std::string v = std::to_string(version);
  auto no_config = [&] {
    return tfjob::error("server \"" + name + "\" serves one model by flags, without a model config file, so it has no version labels: "
                        "serve it with a model config (" + setting::model_config_models + " NAME=SOURCE) to get one");
  };
  {
    auto first = read_model_config(c, ns, name);
    if (!first) throw no_config();
    ModelServerConfig probe = first->config;
    set_version_label(probe, model, label, version);  // throws when the server does not serve the model
  }
  auto dep = kube::Api<k8s::Deployment>(c, ns).get(name);
  if (!allows_labels_for_unavailable(dep)) {
    auto avail = available_versions(c, ns, name, model);
    if (std::find(avail.begin(), avail.end(), v) == avail.end()) {
      std::string have;
      for (const auto& a : avail) have += (have.empty() ? "" : ", ") + a;
      throw tfjob::error("version " + v + " of model \"" + model + "\" is not AVAILABLE (AVAILABLE: " + (have.empty() ? "none" : have) +
                         "): TF Serving only lets a version label name an AVAILABLE version (unless it runs with "
                         "--allow_version_labels_for_unavailable_models), and would refuse the whole model config; "
                         "serve the version first (its version policy decides which versions load), then move the label");
    }
  }
  for (int attempt = 0;; ++attempt) {
    auto stored = read_model_config(c, ns, name);
    if (!stored) throw no_config();
    const ModelEntry* m = stored->config.find(model);
    if (m) {
      auto it = m->labels.find(label);
      if (it != m->labels.end()) rep.previous = it->second;
    }
    set_version_label(stored->config, model, label, version);  // throws: the model is not served
    if (rep.previous && *rep.previous == version) break;
    k8s::ConfigMap cm = stored->config_map;
    cm.data[model_config_key] = render_model_config(stored->config);
    try {
      kube::Api<k8s::ConfigMap>(c, ns).replace(cm.metadata.name, cm);
      rep.changed = true;
      break;
    } catch (const api_error& e) {
      if (!e.is_conflict() || attempt >= 2) throw;
    }
  }
  if (!wait) {
    rep.message = "label \"" + label + "\" of model \"" + model + "\" set to version " + v;
    return rep;
  }
  // The kubelet refreshes the ConfigMap's file (its sync period), then TF Serving's next poll reads it.
  for (;;) {
    auto a = proxy_call(c, ns, name, "GET", model_rest_path(model, "", label));
    std::string now;
    if (a.status == 200) {
      try {
        auto st = parse_model_status(a.body);
        if (!st.versions.empty()) now = st.versions.front().version;
      } catch (const tfjob::error&) {
      }
    }
    if (now == v) {
      rep.result = WaitResult::ready;
      rep.message = "label \"" + label + "\" of model \"" + model + "\" is version " + v;
      return rep;
    }
    rep.message = "waiting for TF Serving to re-read its model config: label \"" + label + "\" is " +
                  (now.empty() ? "not known yet" : "still version " + now);
    if (o.on_progress) o.on_progress(rep.message);
    if (std::chrono::steady_clock::now() + o.interval >= o.deadline) {
      rep.result = WaitResult::timeout;
      return rep;
    }
    if (!kube::sleep_for(o.interval, o.cancel, o.deadline) && o.cancel && o.cancel->load()) {
      rep.result = WaitResult::cancelled;
      return rep;
    }
  }
}

TFJOB_INLINE std::vector<ModelRow> server_models(kube::Client& c, const std::string& ns, const std::string& name) {
  std::vector<ModelRow> rows;
  auto stored = read_model_config(c, ns, name);
  if (stored) {
    for (const auto& m : stored->config.models) rows.push_back({m.name, {}, m.labels, {}});
  } else {
    rows.push_back({served_model(c, ns, name), {}, {}, {}});
  }
  for (auto& r : rows) {
    try {
      ModelProbe p = probe_model(c, ns, name, r.name);
      r.state = p.message;
      r.available_versions = p.status.available_versions();
    } catch (const std::exception& e) {
      r.state = e.what();
    }
  }
  return rows;
}

TFJOB_INLINE WaitReport wait_model_version(kube::Client& c, const std::string& ns, const std::string& service, const std::string& model,
                                           const std::string& version, const WaitOptions& o) {
  validate_version(version);
  WaitReport rep;
  for (;;) {
    ModelProbe p = probe_model(c, ns, service, model);
    bool available = false, failed = false;
    for (const auto& v : p.status.versions) {
      if (v.version != version) continue;
      available = v.state == "AVAILABLE";
      failed = v.state == "END" && !v.error_code.empty() && v.error_code != "OK";
      if (failed) rep.message = "model \"" + model + "\" version " + version + " failed to load (" + v.error_code + "): " + v.error_message;
    }
    if (available) {
      rep.result = WaitResult::ready;
      rep.version = version;
      rep.message = "model \"" + model + "\" version " + version + " is AVAILABLE";
      return rep;
    }
    if (failed) {
      rep.result = WaitResult::failed;
      return rep;
    }
    rep.message = "waiting for version " + version + " of model \"" + model + "\" (TF Serving has: " + p.status.summary() + ")";
    if (o.on_progress) o.on_progress(rep.message);
    if (std::chrono::steady_clock::now() + o.interval >= o.deadline) {
      rep.result = WaitResult::timeout;
      rep.diagnosis = "TF Serving serves a version once <base path>/" + version +
                      "/saved_model.pb exists and the model's version policy includes it (latest:N serves the N highest)";
      return rep;
    }
    if (!kube::sleep_for(o.interval, o.cancel, o.deadline) && o.cancel && o.cancel->load()) {
      rep.result = WaitResult::cancelled;
      return rep;
    }
  }
}

TFJOB_INLINE JobExport finished_job_export(kube::Client& c, const std::string& ns, const std::string& job, const std::string& export_dir) {
  TFJob tj;
  try {
    // decoded as a server's object: a field of another shape stays unread, it does not fail
    tfjob::detail::decode_lenient(c.request_json(kube::RequestBuilder(kube::resource_info<TFJob>(), ns).get(job)), "TFJob", tj);
  } catch (const api_error& e) {
    if (!e.is_not_found()) throw;
    throw tfjob::no_such_job(ns, job, Text(" (") + setting::export_job + " names the TFJob whose exported model to serve)");
  }
  std::string last;
  bool succeeded = false, failed = false;
  for (const auto& cond : tj.status ? tj.status->conditions : std::vector<JobCondition>{}) {
    if (cond.status != "True") continue;
    last = cond.type;
    succeeded |= last == "Succeeded";
    failed |= last == "Failed";
  }
  if (failed) throw tfjob::error("tfjob \"" + job + "\" failed, so its export may be missing or partial: its explanation says why (" + setting::explain + " " + job + ")");
  if (!succeeded)
    throw tfjob::error("tfjob \"" + job + "\" has not succeeded yet (" + (last.empty() ? "no condition" : last) +
                       "): its model is exported when the chief finishes; wait for it (" + setting::wait_for_job + " " + job + "), then serve it");
  return job_export(tj, export_dir);
}

}  // namespace tfjob::serving
