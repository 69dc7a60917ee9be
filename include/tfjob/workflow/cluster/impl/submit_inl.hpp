#pragma once
/// \file The bodies of <tfjob/workflow/cluster/submit.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/cluster/submit.hpp>, never this file.

namespace tfjob::workflow {

TFJOB_INLINE const char* to_string(SubmitOutcome o) {
  switch (o) {
    case SubmitOutcome::created: return "created";
    case SubmitOutcome::unchanged: return "unchanged";
    case SubmitOutcome::replaced: return "replaced";
  }
  return "";
}

TFJOB_INLINE std::vector<std::string> spec_differences(const nlohmann::json& a, const nlohmann::json& b) {
  std::vector<std::string> out;
  for (const auto& op : nlohmann::json::diff(a, b)) {
    std::string p = "spec" + tfjob::detail::value_at(op, "path", "");
    for (auto& ch : p) if (ch == '/') ch = '.';
    out.push_back(p);
    if (out.size() >= 5) break;
  }
  return out;
}

TFJOB_INLINE bool wait_gone(kube::Client& c, const kube::ResourceInfo& res, const std::string& ns, const std::string& name,
                            std::chrono::milliseconds timeout, const std::string& uid) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto o = get_opt(c, res, ns, name);
    if (!o) return true;
    if (!uid.empty() && metadata_of(*o).uid != uid) return true;  // recreated
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

TFJOB_INLINE SubmitResult submit_job(kube::Client& c, const std::string& ns, nlohmann::json job, const SubmitOptions& o) {
  const std::string name = metadata_of(job).name;
  if (name.empty()) throw tfjob::error("cannot submit a TFJob without metadata.name");
  job["metadata"]["namespace"] = ns;
  kube::RequestBuilder b(resources::tfjobs(), ns);
  kube::ApplyParams ap;
  ap.field_manager = o.field_manager;
  ap.field_validation = o.field_validation;
  auto apply = [&](bool dry) {
    ap.dry_run = dry;
    try {
      return c.request_json(b.apply(name, job, ap));
    } catch (const api_error& e) {
      if (e.is_forbidden()) throw tfjob::error(forbidden_message("create", ns, e.status().message));
      throw;
    }
  };
  auto existing = get_opt(c, resources::tfjobs(), ns, name);
  SubmitResult r;
  if (!existing) {
    r.outcome = SubmitOutcome::created;
    r.object = apply(o.dry_run);
    return r;
  }
  // What the job would look like after this apply, against what it is.
  std::optional<nlohmann::json> would;
  std::string conflict;
  try {
    would = apply(true);
  } catch (const api_error& e) {
    if (!e.is_conflict()) throw;
    conflict = e.status().message;  // fields owned by another manager (kubectl apply, an editor...)
  }
  const nlohmann::json old_spec = tfjob::detail::value_at(*existing, "spec", nlohmann::json::object());
  if (would && tfjob::detail::value_at(*would, "spec", nlohmann::json::object()) == old_spec && !o.rerun) {
    r.outcome = SubmitOutcome::unchanged;
    r.object = *existing;
    return r;
  }
  if (!o.replace && !o.rerun) {
    std::string why;
    if (would) {
      auto d = spec_differences(old_spec, tfjob::detail::value_at(*would, "spec", nlohmann::json::object()));
      for (size_t i = 0; i < d.size(); ++i) why += (i ? ", " : "") + d[i];
      why = " (differs at " + why + ")";
    } else {
      why = " (" + conflict + ")";
    }
    throw tfjob::error(reasons::spec_conflict,
                       "TFJob \"" + name + "\" already exists in namespace \"" + ns + "\" with a different spec" + why +
                           ".\nA running TFJob's spec cannot be changed in place",
                       ". Set " + setting::submit_replace + " to delete it and its pods and submit this one, or give it another name.");
  }
  if (o.dry_run) {
    r.outcome = SubmitOutcome::replaced;
    r.object = would ? *would : job;
    return r;
  }
  const std::string uid = metadata_of(*existing).uid;
  if (o.progress)
    o.progress("deleting TFJob " + ns + "/" + name + " and its pods to " + (o.rerun ? "run it again" : "replace it"));
  kube::DeleteParams dp;
  dp.propagation_policy = "Foreground";
  try {
    c.request_json(b.remove(name, dp));
  } catch (const api_error& e) {
    if (!e.is_not_found()) throw;
  }
  if (!wait_gone(c, resources::tfjobs(), ns, name, o.delete_timeout, uid))
    throw tfjob::error("timed out waiting for the old TFJob \"" + name + "\" to be deleted; try again later");
  r.outcome = SubmitOutcome::replaced;
  r.object = apply(false);
  return r;
}

TFJOB_INLINE std::pair<nlohmann::json, bool> ensure_pvc(kube::Client& c, const std::string& ns, const std::string& name,
                                                        const std::string& size, const std::string& storage_class,
                                                        bool dry_run,
                                                        const std::string& access_mode) {
  if (auto pvc = get_opt(c, resources::pvcs(), ns, name)) return {*pvc, false};
  nlohmann::json pvc = {{"apiVersion", "v1"},
                        {"kind", "PersistentVolumeClaim"},
                        {"metadata", {{"name", name}, {"namespace", ns}, {"labels", {{"app.kubernetes.io/created-by", "kubectl-tfjob"}}}}},
                        {"spec", {{"accessModes", {access_mode}}, {"resources", {{"requests", {{"storage", size}}}}}}}};
  if (!storage_class.empty()) pvc["spec"]["storageClassName"] = storage_class;
  kube::PostParams pp;
  pp.dry_run = dry_run;
  try {
    return {c.request_json(kube::RequestBuilder(resources::pvcs(), ns).create(pvc, pp)), true};
  } catch (const api_error& e) {
    // another job of the same submit (applied at the same time) created it first
    if (!e.is_already_exists()) throw;
    if (auto got = get_opt(c, resources::pvcs(), ns, name)) return {*got, false};
    throw;
  }
}

TFJOB_INLINE nlohmann::json apply_owned(kube::Client& c, const kube::ResourceInfo& res, const std::string& ns,
                                        nlohmann::json obj, const nlohmann::json& owner, const SubmitOptions& o) {
  const std::string name = metadata_of(obj).name;
  obj["metadata"]["namespace"] = ns;
  if (!metadata_of(owner).uid.empty())
    obj["metadata"]["ownerReferences"] = nlohmann::json::array({kube::owner_reference(owner)});
  kube::ApplyParams ap;
  ap.field_manager = o.field_manager;
  ap.dry_run = o.dry_run;
  ap.force = true;  // ours alone: take the fields back from whoever edited them
  try {
    return c.request_json(kube::RequestBuilder(res, ns).apply(name, obj, ap));
  } catch (const api_error& e) {
    if (e.is_forbidden())
      throw tfjob::error("you may not create " + res.plural + " in namespace \"" + ns + "\" (403 Forbidden: " +
                         e.status().message + "): the job needs " + res.kind + " \"" + name +
                         "\". Check with: kubectl auth can-i create " + res.plural + " -n " + ns);
    throw;
  }
}

TFJOB_INLINE std::string pvc_pending_reason(const k8s::PersistentVolumeClaim& claim, const std::vector<k8s::Event>& events) {
  if (claim.status.phase == "Bound") return "";
  std::string msg;
  // events_for matches the uid too: an event about an earlier claim of the same name
  // (deleted, then created again) says nothing about this one
  for (const auto& ev : events_for(events, "PersistentVolumeClaim", claim.metadata.name, claim.metadata.uid)) {
    // WaitForFirstConsumer: binding waits for the first pod, which is normal
    msg = ev.reason == "WaitForFirstConsumer" ? "" : ev.reason + ": " + ev.message;
  }
  if (!msg.empty()) return msg;
  // a storageClassName of the wrong type stays in `other`: set, as the raw object said
  if (!claim.spec.storage_class_name && !claim.spec.other.contains("storageClassName"))
    return "no storage class is set and the cluster has no default StorageClass to provision a volume";
  return "";
}

}  // namespace tfjob::workflow
