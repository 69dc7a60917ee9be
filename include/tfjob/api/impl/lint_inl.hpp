#pragma once
/// \file The bodies of <tfjob/api/lint.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/lint.hpp>, never this file.

namespace tfjob::lint::detail {

TFJOB_INLINE std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

TFJOB_INLINE const nlohmann::json& empty_object() {
  static const nlohmann::json e = nlohmann::json::object();
  return e;
}

TFJOB_INLINE const nlohmann::json& object_at(const nlohmann::json& j, const nlohmann::json::json_pointer& p) {
  const nlohmann::json* v = tfjob::detail::json_at(j, p);
  return v && v->is_object() ? *v : empty_object();
}

TFJOB_INLINE const nlohmann::json& specs_of(const nlohmann::json& job) { return object_at(job, "/spec/tfReplicaSpecs"_json_pointer); }

TFJOB_INLINE const nlohmann::json& pod_spec_of(const nlohmann::json& rs) { return object_at(rs, "/template/spec"_json_pointer); }

TFJOB_INLINE int replicas_of(const nlohmann::json& rs) {
  return rs.contains("replicas") && rs["replicas"].is_number_integer() ? rs["replicas"].get<int>() : 1;
}

TFJOB_INLINE const nlohmann::json& containers_of(const nlohmann::json& rs) {
  static const nlohmann::json none = nlohmann::json::array();
  const nlohmann::json* cs = tfjob::detail::json_at(pod_spec_of(rs), "containers");
  return cs && cs->is_array() ? *cs : none;
}

TFJOB_INLINE double amount(const nlohmann::json& m, const std::string& key) {
  if (!m.is_object() || !m.contains(key)) return 0;
  const auto& v = m[key];
  auto q = v.is_string() ? Quantity::try_parse(v.get<std::string>()) : v.is_number() ? Quantity::try_parse(v.dump()) : std::nullopt;
  return q ? q->value() : 0;
}

TFJOB_INLINE double gpus_of(const k8s::Node& n) {
  auto q = Quantity::try_parse(n.allocatable(gpu_resource));
  return q ? q->value() : 0;
}

TFJOB_INLINE std::string num(double v) {
  if (v == static_cast<double>(static_cast<long long>(v))) return std::to_string(static_cast<long long>(v));
  return std::to_string(v);
}

TFJOB_INLINE long long gpus_per_pod(const nlohmann::json& rs) {
  auto r = scheduling::pod_requests(pod_spec_of(rs));
  auto it = r.find(gpu_resource);
  return it == r.end() ? 0 : static_cast<long long>(it->second + 0.5);
}

TFJOB_INLINE std::pair<std::string, std::string> split_image(std::string img) {
  if (auto at = img.find('@'); at != std::string::npos) img = img.substr(0, at);
  std::string repo = img, tag = "latest";
  auto slash = img.rfind('/');
  auto colon = img.rfind(':');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) {
    repo = img.substr(0, colon);
    tag = img.substr(colon + 1);
  }
  repo = lower(repo);
  for (const char* p : {"docker.io/", "index.docker.io/", "registry-1.docker.io/"})
    if (repo.rfind(p, 0) == 0) repo = repo.substr(std::string(p).size());
  return {repo, lower(tag)};
}

TFJOB_INLINE Finding make(const char* code, const std::string& replica, std::string message, std::vector<std::string> evidence,
                          Text fix) {
  Finding f;
  f.severity = Finding::Severity::warning;
  f.code = code;
  f.replica = replica;
  f.message = std::move(message);
  f.evidence = std::move(evidence);
  f.fix = std::move(fix);
  return f;
}

TFJOB_INLINE bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

TFJOB_INLINE bool digit(char c) { return c >= '0' && c <= '9'; }

TFJOB_INLINE bool word_at(const std::string& s, std::size_t p, const char* word) {
  return (p == 0 || !lower_alnum(s[p - 1])) && s.compare(p, std::char_traits<char>::length(word), word) == 0;
}

TFJOB_INLINE bool digit_boundary(const std::string& s, std::size_t p) { return p >= s.size() || !digit(s[p]); }

TFJOB_INLINE bool has_tf2_word(const std::string& s) {
  for (std::size_t p = 0; p < s.size(); ++p)
    if ((word_at(s, p, "tf2") && digit_boundary(s, p + 3)) || (word_at(s, p, "tf-2") && digit_boundary(s, p + 4)))
      return true;
  return false;
}

TFJOB_INLINE bool is_v2_tag(const std::string& tag) {
  std::size_t p = !tag.empty() && tag[0] == 'v' ? 1 : 0;
  return tag.compare(p, 2, "2.") == 0 && p + 2 < tag.size() && digit(tag[p + 2]);
}

TFJOB_INLINE bool has_cuda13_word(const std::string& s) {
  for (std::size_t p = 0; p < s.size(); ++p) {
    if ((word_at(s, p, "cuda13") && digit_boundary(s, p + 6)) || (word_at(s, p, "cuda-13") && digit_boundary(s, p + 7)))
      return true;
    if (word_at(s, p, "cu13") && (digit_boundary(s, p + 4) || digit_boundary(s, p + 5))) return true;
  }
  return false;
}

}  // namespace tfjob::lint::detail
namespace tfjob::lint {

TFJOB_INLINE bool is_tf2_image(const std::string& image) {
  auto [repo, tag] = detail::split_image(image);
  std::string name = repo.substr(repo.rfind('/') == std::string::npos ? 0 : repo.rfind('/') + 1);
  if (detail::has_tf2_word(name) || detail::has_tf2_word(tag)) return true;
  bool tf_image = name.find("tensorflow") != std::string::npos || name == "tf" || name.rfind("tf-", 0) == 0;
  if (!tf_image) return false;
  if (detail::is_v2_tag(tag)) return true;
  if (name == "tensorflow" && (tag.rfind("latest", 0) == 0 || tag.rfind("nightly", 0) == 0)) return true;
  return false;
}

TFJOB_INLINE bool is_cuda13_image(const std::string& image) {
  auto [repo, tag] = detail::split_image(image);
  if ((repo == "nvidia/cuda" || repo == "nvcr.io/nvidia/cuda") && tag.rfind("13.", 0) == 0) return true;
  return detail::has_cuda13_word(tag) || detail::has_cuda13_word(repo);
}

TFJOB_INLINE bool node_gpu_is_volta_or_older(const k8s::Node& node) {
  auto label = [&](const char* k) { return node.metadata.label(k); };
  const std::string major = label("nvidia.com/gpu.compute.major"), minor = label("nvidia.com/gpu.compute.minor");
  if (!major.empty()) {
    try {
      int M = std::stoi(major), m = minor.empty() ? 0 : std::stoi(minor);
      return M < 7 || (M == 7 && m < 5);
    } catch (...) {
    }
  }
  const std::string product = detail::lower(label("nvidia.com/gpu.product") + " " + label("cloud.google.com/gke-accelerator"));
  for (const char* v : {"v100", "titan-v", "p100", "p4", "k80", "p40"})
    if (product.find(v) != std::string::npos) return true;
  return false;
}

TFJOB_INLINE std::vector<Finding> gpu_requests_limits(const nlohmann::json& job) {
  std::vector<Finding> out;
  const nlohmann::json& owned1 = detail::specs_of(job);
  for (const auto& [type, rs] : owned1.items())
    for (const auto& c : detail::containers_of(rs)) {
      const auto res = tfjob::detail::value_at(c, "resources", nlohmann::json::object());
      const auto req = tfjob::detail::value_at(res, "requests", nlohmann::json::object()), lim = tfjob::detail::value_at(res, "limits", nlohmann::json::object());
      const std::string cn = tfjob::detail::value_at(c, "name", "");
      if (req.contains(gpu_resource) && !lim.contains(gpu_resource))
        out.push_back(detail::make("GpuRequestWithoutLimit", type,
                                   type + " container \"" + cn + "\" requests " + gpu_resource + " without a limit: extended "
                                   "resources are given by limits, and the API server refuses a pod whose GPU request has no "
                                   "equal limit, so the operator cannot create the pods and no GPU is given (kubeflow/kubeflow #1042)",
                                   {"resources.requests." + std::string(gpu_resource) + ": " + req[gpu_resource].dump()},
                                   "set resources.limits." + std::string(gpu_resource) + " to the same number (requests may then be dropped)"));
      else if (req.contains(gpu_resource) && lim.contains(gpu_resource) &&
               detail::amount(req, gpu_resource) != detail::amount(lim, gpu_resource))
        out.push_back(detail::make("GpuRequestLimitMismatch", type,
                                   type + " container \"" + cn + "\" requests " + detail::num(detail::amount(req, gpu_resource)) + " " +
                                   gpu_resource + " but limits it to " + detail::num(detail::amount(lim, gpu_resource)) +
                                   ": for extended resources the API server requires them equal, so the pods are refused",
                                   {"requests: " + req[gpu_resource].dump(), "limits: " + lim[gpu_resource].dump()},
                                   "give requests and limits the same number of GPUs (or set only limits)"));
    }
  return out;
}

TFJOB_INLINE std::vector<Finding> gpus_on_ps(const nlohmann::json& job) {
  std::vector<Finding> out;
  const auto& specs = detail::specs_of(job);
  if (!specs.contains("PS")) return out;
  long long g = detail::gpus_per_pod(specs["PS"]);
  if (g > 0)
    out.push_back(detail::make("GpuOnParameterServer", "PS",
                               "each PS pod asks for " + std::to_string(g) + " " + gpu_resource +
                               ": parameter servers store and update variables and do not run the model, so the GPUs sit idle "
                               "while Workers may wait for them",
                               {"PS: " + std::to_string(detail::replicas_of(specs["PS"])) + " replica(s) x " + std::to_string(g) + " GPU"},
                               "remove the GPU limit from the PS template (give the GPUs to Workers)"));
  return out;
}

TFJOB_INLINE std::vector<Finding> master_with_tf2(const nlohmann::json& job) {
  const auto& specs = detail::specs_of(job);
  if (!specs.contains("Master")) return {};
  for (const auto& [type, rs] : specs.items())
    for (const auto& c : detail::containers_of(rs)) {
      std::string image = tfjob::detail::value_at(c, "image", "");
      if (is_tf2_image(image))
        return {detail::make("MasterWithTF2", "Master",
                             "the job has a Master replica but image " + image +
                             " is TensorFlow 2: MultiWorkerMirroredStrategy expects a \"chief\" task in TF_CONFIG and "
                             "does not treat \"master\" as the chief. Use a Chief replica instead of Master.",
                             {type + " image: " + image}, "rename the Master replica to Chief (" + setting::builder_chief + ")")};
    }
  return {};
}

TFJOB_INLINE std::vector<Finding> exit_code_policy(const nlohmann::json& job) {
  std::vector<std::string> types;
  const nlohmann::json& owned2 = detail::specs_of(job);
  for (const auto& [type, rs] : owned2.items())
    if (rules::restart_policy_of(rs) == "ExitCode") types.push_back(type);
  if (types.empty()) return {};
  std::string list;
  for (const auto& t : types) list += (list.empty() ? "" : ", ") + t;
  // info, not a warning: ExitCode is a sound choice for a trainer that knows the rule (the
  // mnist sample does), so submit says it once as a note that --strict does not refuse
  auto f = detail::make("ExitCodeRetriesSignalsOnly", types.size() == 1 ? types[0] : "",
                       "restartPolicy ExitCode (" + list + ") restarts a replica only when it exits with 128 or above "
                       "(killed by a signal: 137 is the OOM killer's SIGKILL, 143 SIGTERM); exit codes 1-127 fail the "
                       "replica and the job at once, so a trainer that exits 1 on a transient error is never retried "
                       "(training operator v1.9 IsRetryableExitCode; #2045). Recreated pods do not count toward backoffLimit.",
                       {"restartPolicy: ExitCode on " + list},
                       "exit with a code >= 128 on errors worth retrying (e.g. sys.exit(130)), or use OnFailure to retry every failure");
  f.severity = Finding::Severity::info;
  return {f};
}

TFJOB_INLINE std::vector<Finding> all_workers_with_evaluator(const nlohmann::json& job) {
  const auto& specs = detail::specs_of(job);
  const auto r = rules::success_rule(job);
  const auto sp = tfjob::detail::value_at(job, "/spec/successPolicy"_json_pointer, nlohmann::json());
  if (!(sp.is_string() && sp.get<std::string>() == "AllWorkers") || !specs.contains("Evaluator")) return {};
  std::string decided = r.success_policy_ignored ? "the " + r.decider + " alone (successPolicy is ignored when a Chief or Master exists)"
                                                 : "the Workers alone";
  return {detail::make("AllWorkersWithEvaluator", "Evaluator",
                       "successPolicy AllWorkers with an Evaluator: success is decided by " + decided +
                       ", never by the Evaluator, so the job can Succeed while the Evaluator is still evaluating the last "
                       "checkpoint, and cleanPodPolicy Running or All then deletes it mid-evaluation (training-operator #1658)",
                       {"successPolicy: AllWorkers", "Evaluator: " + std::to_string(detail::replicas_of(specs["Evaluator"])) + " replica(s)"},
                       "evaluate inside the chief/worker 0 after training, or keep the Evaluator with cleanPodPolicy None and stop it yourself")};
}

TFJOB_INLINE std::vector<Finding> logs_deleted(const nlohmann::json& job, const Context& ctx) {
  if (ctx.logs_kept) return {};
  std::vector<Finding> out;
  const auto rp = tfjob::detail::value_at(job, "/spec/runPolicy"_json_pointer, nlohmann::json::object());
  const std::string clean = tfjob::detail::value_at(rp, "cleanPodPolicy", "");
  if (clean == "All")
    out.push_back(detail::make("LogsDeletedAfterFinish", "",
                               "cleanPodPolicy All deletes every pod when the job finishes, and their logs with them: a failed "
                               "job can then not be explained from its pods",
                               {"runPolicy.cleanPodPolicy: All"},
                               "save the logs while it runs (" + setting::log_save_task + "), or use cleanPodPolicy None or Running"));
  if (rp.contains("ttlSecondsAfterFinished") && rp["ttlSecondsAfterFinished"].is_number())
    out.push_back(detail::make("LogsDeletedAfterFinish", "",
                               "ttlSecondsAfterFinished deletes the job and its pods " + rp["ttlSecondsAfterFinished"].dump() +
                               " s after it finishes, and their logs with them",
                               {"runPolicy.ttlSecondsAfterFinished: " + rp["ttlSecondsAfterFinished"].dump()},
                               "save the logs while it runs (" + setting::log_save_task + "), or archive the job before the TTL "
                               "(" + setting::archive_job + "), or drop the TTL"));
  return out;
}

TFJOB_INLINE std::vector<Finding> shared_rwo_claims(const nlohmann::json& job, const Context& ctx) {
  std::vector<Finding> out;
  struct Use { int pods = 0; long long gpus = 0; std::vector<std::string> types; bool read_only = true; };
  std::map<std::string, Use> uses;
  const nlohmann::json& owned3 = detail::specs_of(job);
  for (const auto& [type, rs] : owned3.items()) {
    const auto& ps = detail::pod_spec_of(rs);
    for (const auto& v : tfjob::detail::value_at(ps, "volumes", nlohmann::json::array())) {
      if (!v.contains("persistentVolumeClaim")) continue;
      const std::string claim = tfjob::detail::value_at(v["persistentVolumeClaim"], "claimName", "");
      auto& u = uses[claim];
      u.pods += detail::replicas_of(rs);
      u.gpus += detail::gpus_per_pod(rs) * detail::replicas_of(rs);
      u.types.push_back(type);
      if (!tfjob::detail::value_at(v["persistentVolumeClaim"], "readOnly", false)) u.read_only = false;
    }
  }
  for (const auto& [claim, u] : uses) {
    if (u.pods < 2) continue;
    auto it = ctx.claims.find(claim);
    if (it == ctx.claims.end()) continue;
    const auto& access_modes = it->second.spec.access_modes;
    const std::set<std::string> modes(access_modes.begin(), access_modes.end());
    if (modes.count("ReadWriteMany") || (modes.count("ReadOnlyMany") && u.read_only)) continue;
    if (!modes.count("ReadWriteOnce") && !modes.count("ReadWriteOncePod")) continue;
    std::string types;
    for (const auto& t : u.types) types += (types.empty() ? "" : ", ") + t;
    bool will = modes.count("ReadWriteOncePod") > 0;
    std::string why = "may land on different nodes";
    if (!will && u.gpus > 0 && ctx.nodes) {
      long long most = 0;
      for (const auto& n : *ctx.nodes) most = std::max(most, static_cast<long long>(detail::gpus_of(n)));
      if (most < u.gpus) { will = true; why = "need " + std::to_string(u.gpus) + " GPUs together while no node has more than " + std::to_string(most) + ", so they will land on different nodes"; }
    }
    if (modes.count("ReadWriteOncePod")) why = "each need the claim, which ReadWriteOncePod gives to one pod only";
    out.push_back(detail::make("ReadWriteOnceClaimShared", u.types.size() == 1 ? u.types[0] : "",
                               "claim \"" + claim + "\" is " + (modes.count("ReadWriteOncePod") ? "ReadWriteOncePod" : "ReadWriteOnce") +
                               " but " + std::to_string(u.pods) + " pods (" + types + ") mount it and " + why +
                               ": a pod on a second node stays ContainerCreating with a Multi-Attach error",
                               {"persistentvolumeclaim/" + claim + " accessModes: " + nlohmann::json(access_modes).dump()},
                               "use a ReadWriteMany claim (NFS, Filestore, CephFS), or mount it on the chief only"));
  }
  return out;
}

TFJOB_INLINE std::vector<Finding> request_fits_no_node(const nlohmann::json& job, const Context& ctx) {
  std::vector<Finding> out;
  if (!ctx.nodes) return out;
  const nlohmann::json& owned4 = detail::specs_of(job);
  for (const auto& [type, rs] : owned4.items()) {
    const k8s::PodSpec ps = scheduling::detail::served_pod_spec(detail::pod_spec_of(rs));  // decoded once, not once per node
    auto req = scheduling::pod_requests(ps);
    if (ctx.skip_gpu_fit) req.erase(gpu_resource);
    std::vector<scheduling::NodeFit> fits;
    std::vector<const k8s::Node*> candidates;
    for (const auto& n : *ctx.nodes) {
      auto f = scheduling::node_fit(ps, n);
      if (f.ok()) candidates.push_back(&n);
      fits.push_back(f);
    }
    if (ctx.nodes->empty()) continue;
    if (candidates.empty()) {
      std::stable_sort(fits.begin(), fits.end(), [](const auto& a, const auto& b) { return a.misses() < b.misses(); });
      std::vector<std::string> ev;
      for (size_t i = 0; i < fits.size() && i < 3; ++i) {
        std::string why;
        for (const auto& m : fits[i].selector_misses) why += (why.empty() ? "" : ", ") + std::string("lacks ") + m;
        for (const auto& t : fits[i].untolerated_taints) why += (why.empty() ? "" : ", ") + std::string("taint ") + t + " not tolerated";
        if (!fits[i].schedulable) why += (why.empty() ? "" : ", ") + std::string("cordoned");
        ev.push_back("node " + fits[i].node + ": " + why);
      }
      out.push_back(detail::make("NoNodeMatches", type,
                                 "no node can take a " + type + " pod: none matches its nodeSelector/affinity and tolerations, so "
                                 "its pods would stay Pending; the closest nodes are listed",
                                 ev, "fix the nodeSelector or add the toleration the closest node needs"));
      continue;
    }
    std::vector<std::string> too_big;
    std::map<std::string, double> best;
    for (const auto& [res, amount] : req) {
      if (amount <= 0) continue;
      double most = 0;
      for (const auto* n : candidates) most = std::max(most, scheduling::allocatable(*n).count(res) ? scheduling::allocatable(*n).at(res) : 0.0);
      if (most + 1e-9 < amount) { too_big.push_back(res); best[res] = most; }
    }
    if (too_big.empty()) continue;
    std::vector<std::string> ev;
    std::string what;
    for (const auto& res : too_big) {
      what += (what.empty() ? "" : ", ") + detail::num(req[res]) + " " + res;
      ev.push_back(res + ": asks " + detail::num(req[res]) + ", the most any of the " + std::to_string(candidates.size()) +
                   " node(s) it may use can allocate is " + detail::num(best[res]));
    }
    out.push_back(detail::make("RequestFitsNoNode", type,
                               "each " + type + " pod asks for " + what + ", more than any node it may use can allocate (after "
                               "its nodeSelector, affinity and tolerations): its pods would stay Pending forever",
                               ev, "lower the request (more replicas with less each), or widen the nodeSelector/tolerations"));
  }
  return out;
}

TFJOB_INLINE std::vector<Finding> istio_sidecar(const nlohmann::json& job, const Context& ctx) {
  if (!ctx.namespace_object) return {};
  const ObjectMeta& nsm = ctx.namespace_object->metadata;
  const std::string inj = nsm.label("istio-injection");
  const bool on = inj == "enabled" || (inj != "disabled" && nsm.labels.count("istio.io/rev"));
  if (!on) return {};
  std::vector<std::string> missing;
  const nlohmann::json& owned5 = detail::specs_of(job);
  for (const auto& [type, rs] : owned5.items()) {
    const auto md = tfjob::detail::value_at(rs, "/template/metadata"_json_pointer, nlohmann::json::object());
    auto opt_out = [&](const char* where) {
      const auto m = md.value(where, nlohmann::json::object());
      return m.contains("sidecar.istio.io/inject") && m["sidecar.istio.io/inject"] == "false";
    };
    if (!opt_out("annotations") && !opt_out("labels")) missing.push_back(type);
  }
  if (missing.empty()) return {};
  std::string list;
  for (const auto& t : missing) list += (list.empty() ? "" : ", ") + t;
  const std::string& ns = nsm.name;
  return {detail::make("IstioSidecarInjected", missing.size() == 1 ? missing[0] : "",
                       "namespace \"" + ns + "\" injects the Istio sidecar and the " + list +
                       " template(s) do not opt out: the sidecar keeps running after the trainer exits, so the pods stay "
                       "Running and the job never completes (kubeflow/kubeflow #3935)",
                       {"namespace label istio-injection=" + (inj.empty() ? "<istio.io/rev>" : inj)},
                       "add the annotation sidecar.istio.io/inject: \"false\" to each replica's template (" + setting::istio_opt_out + " does)")};
}

TFJOB_INLINE void add_istio_opt_out(nlohmann::json& job) {
  if (!job.contains("spec") || !job["spec"].contains("tfReplicaSpecs") || !job["spec"]["tfReplicaSpecs"].is_object()) return;
  for (auto& [type, rs] : job["spec"]["tfReplicaSpecs"].items()) {
    (void)type;
    rs["template"]["metadata"]["annotations"]["sidecar.istio.io/inject"] = "false";
  }
}

TFJOB_INLINE std::vector<Finding> gpu_images(const nlohmann::json& job, const Context& ctx) {
  std::vector<Finding> out;
  const nlohmann::json& owned6 = detail::specs_of(job);
  for (const auto& [type, rs] : owned6.items()) {
    if (detail::gpus_per_pod(rs) <= 0) continue;
    for (const auto& c : detail::containers_of(rs)) {
      const std::string image = tfjob::detail::value_at(c, "image", "");
      auto [repo, tag] = detail::split_image(image);
      if (repo == "tensorflow/tensorflow" && tag.find("gpu") == std::string::npos)
        out.push_back(detail::make("CpuOnlyImageOnGpuReplica", type,
                                   type + " asks for GPUs but runs " + image + ", a CPU-only TensorFlow build (the GPU "
                                   "builds are the -gpu tags): the GPUs are reserved and never used",
                                   {type + " image: " + image, type + ": " + std::to_string(detail::gpus_per_pod(rs)) + " GPU per pod"},
                                   "use the -gpu tag, e.g. tensorflow/tensorflow:" + (tag == "latest" ? std::string("latest") : tag) + "-gpu"));
      if (is_cuda13_image(image) && ctx.nodes) {
        std::vector<std::string> volta;
        int gpu_nodes = 0;
        const k8s::PodSpec ps = scheduling::detail::served_pod_spec(detail::pod_spec_of(rs));  // once, not once per node
        for (const auto& n : *ctx.nodes) {
          if (!scheduling::node_fit(ps, n).ok()) continue;
          if (detail::gpus_of(n) <= 0) continue;
          ++gpu_nodes;
          if (node_gpu_is_volta_or_older(n)) volta.push_back(n.metadata.name);
        }
        if (gpu_nodes > 0 && static_cast<int>(volta.size()) == gpu_nodes) {
          std::vector<std::string> ev = {type + " image: " + image};
          for (const auto& v : volta) ev.push_back("node " + v + ": Volta or older");
          out.push_back(detail::make("CudaImageUnsupportedOnNodes", type,
                                     type + " runs " + image + ", built on CUDA 13, but every GPU node it may use is Volta or "
                                     "older (compute capability < 7.5), which CUDA 13 no longer supports: kernels will not run",
                                     ev, "use a CUDA 12.x image (the last that targets sm_70)"));
        }
      }
    }
  }
  return out;
}

TFJOB_INLINE std::vector<Finding> lint(const nlohmann::json& job, const Context& ctx) {
  std::vector<Finding> out;
  auto add = [&](std::vector<Finding> v) { for (auto& f : v) out.push_back(std::move(f)); };
  add(gpu_requests_limits(job));
  add(gpus_on_ps(job));
  add(master_with_tf2(job));
  add(exit_code_policy(job));
  add(all_workers_with_evaluator(job));
  add(logs_deleted(job, ctx));
  add(shared_rwo_claims(job, ctx));
  add(request_fits_no_node(job, ctx));
  add(istio_sidecar(job, ctx));
  add(gpu_images(job, ctx));
  return dedupe(std::move(out));
}

TFJOB_INLINE std::vector<field_error> admission_errors(const nlohmann::json& job) {
  std::vector<field_error> errs;
  try {
    TFJob typed = tfjob::detail::from_json_of<TFJob>(job);
    errs = manifest_name_errors(typed);
    for (auto& fe : validate(with_defaults(std::move(typed)))) errs.push_back(std::move(fe));
  } catch (const validation_error& e) {
    errs = e.errors();
  }
  return errs;
}

TFJOB_INLINE std::vector<Finding> admission_findings(const nlohmann::json& job, FieldValidation validation) {
  std::vector<Finding> out;
  auto from_issue = [&](const schema::Issue& is, Finding::Severity sev) {
    Finding f(sev, is.message());
    f.code = schema::code(is.kind);
    f.replica = is.replica();
    f.fix = is.fix();
    if (!is.field().empty()) f.evidence.push_back(is.field());
    out.push_back(std::move(f));
  };
  auto type_issues = schema::check_type_meta(job);
  for (const auto& is : type_issues) from_issue(is, Finding::Severity::error);
  if (!type_issues.empty() || !job.is_object()) return out;
  bool refused = false;
  if (validation != FieldValidation::ignore)
    for (const auto& is : schema::tfjob_schema().validate(job)) {
      from_issue(is, validation == FieldValidation::strict ? Finding::Severity::error : Finding::Severity::warning);
      refused |= validation == FieldValidation::strict;
    }
  if (refused) return out;
  for (const auto& fe : admission_errors(job)) {
    Finding f(Finding::Severity::error, fe.to_string());
    f.code = "InvalidTFJob";
    const std::string specs = "spec.tfReplicaSpecs[";
    if (fe.field.rfind(specs, 0) == 0) f.replica = fe.field.substr(specs.size(), fe.field.find(']') - specs.size());
    f.evidence.push_back(fe.field);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace tfjob::lint
