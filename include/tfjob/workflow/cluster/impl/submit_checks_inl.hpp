#pragma once
/// \file The bodies of <tfjob/workflow/cluster/submit_checks.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_WORKFLOW` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/workflow/cluster/submit_checks.hpp>, never this file.

namespace tfjob::workflow {

TFJOB_INLINE std::set<std::string> claims_of(const TFJob& job) {
  std::set<std::string> out;
  for (const auto& [type, rs] : job.spec.tf_replica_specs) {
    // the volumes alone decoded: the rest of the template (a container's env) can be megabytes
    k8s::PodSpec volumes;
    const auto& tmpl = rs.template_;
    if (tmpl.is_object() && tmpl.contains("spec") && tmpl["spec"].is_object() && tmpl["spec"].contains("volumes"))
      from_json(nlohmann::json{{"volumes", tmpl["spec"]["volumes"]}}, volumes);
    for (const auto& v : volumes.volumes)
      if (v.persistent_volume_claim && !v.persistent_volume_claim->claim_name.empty()) out.insert(v.persistent_volume_claim->claim_name);
  }
  return out;
}

TFJOB_INLINE Text forbidden_message(const std::string& verb, const std::string& ns, const std::string& server_message) {
  return "you may not " + verb + " TFJobs in namespace \"" + ns + "\" (403 Forbidden: " + server_message +
         ").\nAsk a cluster admin for a Role granting '" + verb +
         "' on tfjobs.kubeflow.org there (for example the \"kubeflow-edit\" ClusterRole bound in that namespace), "
         "or pick a namespace you may use with " + setting::config_namespace + ". Check with: kubectl auth can-i " + verb +
         " tfjobs.kubeflow.org -n " + ns;
}

TFJOB_INLINE std::optional<std::pair<bool, std::string>> can_i(kube::Client& c, const std::string& verb, const std::string& ns) {
  const auto tj = resources::tfjobs();
  kube::ResourceInfo ssar{"authorization.k8s.io", "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview", false};
  nlohmann::json review = {
      {"apiVersion", ssar.api_version()},
      {"kind", ssar.kind},
      {"spec", {{"resourceAttributes", {{"namespace", ns}, {"verb", verb}, {"group", tj.group}, {"resource", tj.plural}}}}}};
  try {
    kube::PostParams pp;
    pp.field_manager = "";
    auto r = c.request_json(kube::RequestBuilder(ssar, "").create(review, pp));
    return std::make_pair(tfjob::detail::value_at(r, "/status/allowed"_json_pointer, false),
                          tfjob::detail::value_at(r, "/status/reason"_json_pointer, std::string()));
  } catch (const api_error&) {
    return std::nullopt;
  }
}

TFJOB_INLINE bool PreflightReport::ok() const {
  for (const auto& f : findings) if (f.is_error()) return false;
  return true;
}

TFJOB_INLINE Text PreflightReport::errors() const {
  Text s;
  for (const auto& f : findings) {
    if (!f.is_error()) continue;
    s += (s.empty() ? "" : "\n") + f.message;
    if (!f.fix.empty()) s += "\nfix: " + f.fix;
  }
  return s;
}

namespace detail {

/// One preflight_submit run: where the job goes, what the cluster has said so far (the
/// namespace, the lint context) and the report; one method per check, called in the order
/// preflight_submit lists them.
struct Preflight {
  kube::Client& c;
  const std::string& ns;
  const nlohmann::json& job;
  PreflightReport r;
  std::optional<k8s::Namespace> ns_object;  ///< the namespace as read, decoded (nullopt: reading it is forbidden)
  lint::Context lc;
  std::string field_validation;  ///< the dry run's fieldValidation ("" = the server's default)
  PreflightShared* shared = nullptr;  ///< what the other jobs of the submit read already
  bool server_dry_run = true;
  const TFJob* given = nullptr;  ///< `job` decoded by the caller
  std::optional<TFJob> decoded_here;

  /// `job` decoded (leniently: lint says what is malformed), once.
  const TFJob& typed() {
    if (given) return *given;
    if (!decoded_here) decoded_here = tfjob::detail::decoded<TFJob>(job);
    return *decoded_here;
  }

  Preflight(kube::Client& client, const std::string& n, const nlohmann::json& j) : c(client), ns(n), job(j) {}

  /// `read()`, or what it gave another job of the same submit (read once, under the lock).
  template <class Read>
  nlohmann::json remember(const std::string& key, Read&& read) {
    if (!shared) return read();
    std::lock_guard<std::mutex> lk(shared->mu);
    auto it = shared->kept.find(key);
    if (it != shared->kept.end()) return it->second;
    return shared->kept[key] = read();
  }

  /// Add a fatal finding; false, so that a check says `return fail(...)` and preflight stops.
  bool fail(Text message) {
    r.findings.push_back({Finding::Severity::error, std::move(message)});
    return false;
  }

  /// The finding for a namespace that does not exist (the read and the dry run say it alike).
  Text namespace_missing() const {
    return "namespace \"" + ns + "\" does not exist. Create it with: kubectl create namespace " + ns + "  (or choose another with " + setting::config_namespace + ")";
  }

  /// The server serves TFJobs (the operator's CRD is installed).
  bool crd_served() {
    if (!tfjobs_served(c)) return fail(crd_missing_message(c.config().server));
    return true;
  }

  /// The namespace exists, or may not be read; kept in ns_object for lint.
  bool namespace_exists() {
    const nlohmann::json got = remember("namespace/" + ns, [&]() -> nlohmann::json {
      try {
        auto o = get_opt(c, resources::namespaces(), "", ns);
        return o ? nlohmann::json{{"object", *o}} : nlohmann::json{{"missing", true}};
      } catch (const api_error& e) {
        if (!e.is_forbidden()) throw;  // a namespaced user may not read namespaces: the access review decides
        return nlohmann::json{{"forbidden", true}};
      }
    });
    if (got.contains("missing")) return fail(namespace_missing());
    if (got.contains("object")) ns_object = tfjob::detail::decoded<k8s::Namespace>(got["object"]);
    return true;
  }

  /// The access review does not deny creating TFJobs in the namespace.
  bool create_allowed() {
    const nlohmann::json got = remember("can-i-create/" + ns, [&]() -> nlohmann::json {
      auto allowed = can_i(c, "create", ns);
      return allowed ? nlohmann::json{{"allowed", allowed->first}, {"reason", allowed->second}} : nlohmann::json();
    });
    if (got.is_object() && !got["allowed"].get<bool>()) {
      const std::string why = got["reason"].get<std::string>();
      return fail(forbidden_message("create", ns, why.empty() ? "denied by the access review" : why));
    }
    return true;
  }

  /// The server accepts the job in a dry run (a job without metadata.name is not sent).
  bool dry_run_accepted() {
    // A server-side dry run of the apply: the server's own answer on permission, namespace
    // and validity (admission webhooks included), with nothing persisted.
    if (!server_dry_run || !(job.contains("metadata") && job["metadata"].contains("name"))) return true;
    try {
      kube::ApplyParams ap;
      ap.dry_run = true;
      ap.field_validation = field_validation;
      nlohmann::json j = job;
      j["metadata"]["namespace"] = ns;
      c.request_json(kube::RequestBuilder(resources::tfjobs(), ns).apply(job["metadata"]["name"].get<std::string>(), j, ap));
    } catch (const api_error& e) {
      if (e.is_forbidden()) return fail(forbidden_message("create", ns, e.status().message));
      if (e.is_not_found() && e.status().details_kind == "namespaces") return fail(namespace_missing());
      if (e.is_invalid()) return fail(std::string("the server rejected the TFJob: ") + e.what());
      if (!e.is_conflict()) throw;  // a conflict with another field manager is submit_job's to explain
    }
    return true;
  }

  /// What the cluster says, for lint and the GPU check: the namespace, the nodes, the claims
  /// the job mounts.
  void read_lint_context(bool logs_kept) {
    // what the cluster says, for lint and the GPU check; each part is optional (403)
    lc.namespace_object = ns_object;
    lc.skip_gpu_fit = true;  // gpu_preflight (check_gpus) says it, with the GPU nodes' table
    lc.logs_kept = logs_kept;
    const nlohmann::json nodes = remember("nodes", [&]() -> nlohmann::json {
      try {
        return list_nodes(c);
      } catch (const api_error& e) {
        if (!e.is_forbidden()) throw;  // a namespaced user may not read nodes: those rules do not run
        return nullptr;
      }
    });
    if (nodes.is_array()) {
      lc.nodes.emplace();
      for (const auto& n : nodes) lc.nodes->push_back(tfjob::detail::decoded<k8s::Node>(n));
    }
    read_claims();
  }

  /// The PersistentVolumeClaims the job's replicas mount, each once, as far as they may be read.
  void read_claims() {
    for (const auto& claim : claims_of(typed())) {
      try {
        if (auto pvc = get_opt(c, resources::pvcs(), ns, claim)) lc.claims[claim] = tfjob::detail::decoded<k8s::PersistentVolumeClaim>(*pvc);
      } catch (const api_error& e) {
        if (!e.is_forbidden()) throw;
      }
    }
  }

  /// The cluster's pods that hold resources (not Succeeded or Failed); nullopt when forbidden.
  std::optional<std::vector<nlohmann::json>> active_pods() {
    const nlohmann::json got = remember("active-pods", [&]() -> nlohmann::json {
      try {
        return list_active_pods(c);
      } catch (const api_error& e) {
        if (!e.is_forbidden()) throw;
        return nullptr;
      }
    });
    if (!got.is_array()) return std::nullopt;
    return got.get<std::vector<nlohmann::json>>();
  }

  /// The GPU check (gpu_preflight), when some replica asks for GPUs (`gpus`, the job's) and the
  /// nodes were read: its findings replace lint's of the same fact; GpuCheckSkipped when the nodes were not.
  void check_gpus(const std::vector<ReplicaGpus>& gpus) {
    bool wants_gpus = false;
    for (const auto& g : gpus) wants_gpus |= g.gpus_per_pod > 0;
    if (wants_gpus && lc.nodes) {
      std::optional<std::vector<k8s::Pod>> pods;
      if (auto listed = active_pods()) pods = tfjob::detail::decode_each<k8s::Pod>(*listed);
      // the TFJob decoded once (not the JSON copied and decoded again), in the namespace it goes to
      std::optional<TFJob> moved;
      if (typed().metadata.namespace_ != ns) {
        moved = typed();
        moved->metadata.namespace_ = ns;
      }
      auto g = gpu_preflight(moved ? *moved : typed(), *lc.nodes, pods);  // the nodes lint read, decoded once
      // a fact the GPU check states (with its node table) is not said again by lint
      for (const auto& f : g.findings)
        r.findings.erase(std::remove_if(r.findings.begin(), r.findings.end(),
                                        [&](const Finding& l) { return !l.is_error() && l.code == f.code && l.replica == f.replica; }),
                         r.findings.end());
      for (const auto& f : g.findings) r.findings.push_back(f);
      r.gpu = std::move(g);
    } else if (wants_gpus) {
      Finding f{Finding::Severity::warning,
                "cannot list nodes (403), so the GPU check was skipped: make sure nodes expose nvidia.com/gpu"};
      f.code = "GpuCheckSkipped";
      r.findings.push_back(f);
    }
  }
};

}  // namespace detail

TFJOB_INLINE PreflightReport preflight_submit(kube::Client& c, const std::string& ns, const nlohmann::json& job,
                                              bool check_gpus, bool logs_kept, const std::string& field_validation,
                                              PreflightShared* shared, bool server_dry_run, const TFJob* typed) {
  detail::Preflight p(c, ns, job);
  p.field_validation = field_validation;
  p.shared = shared;
  p.server_dry_run = server_dry_run;
  p.given = typed;
  // each check stops preflight at a fatal finding that makes the later ones meaningless
  if (!p.crd_served() || !p.namespace_exists() || !p.create_allowed() || !p.dry_run_accepted()) return std::move(p.r);
  p.read_lint_context(logs_kept);
  for (auto& f : lint::lint(job, p.lc)) p.r.findings.push_back(std::move(f));
  if (check_gpus) {
    const auto gpus = replica_gpus(p.typed());
    if (!gpus.empty()) p.check_gpus(gpus);
  }
  p.r.findings = dedupe(std::move(p.r.findings));
  return std::move(p.r);
}

}  // namespace tfjob::workflow
