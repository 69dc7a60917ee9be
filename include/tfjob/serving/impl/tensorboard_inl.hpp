#pragma once
/// \file The bodies of <tfjob/serving/tensorboard.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/tensorboard.hpp>, never this file.

namespace tfjob::serving {

namespace detail {

TFJOB_INLINE std::string log_dir_flag(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    for (const char* f : {"--log-dir", "--log_dir", "--logdir"}) {
      const std::string flag = f;
      if (args[i] == flag && i + 1 < args.size()) return args[i + 1];
      if (args[i].rfind(flag + "=", 0) == 0) return args[i].substr(flag.size() + 1);
    }
  }
  return "";
}

}  // namespace detail

TFJOB_INLINE JobLogDir find_job_log_dir(const TFJob& tfjob, const std::string& override_dir) {
  const std::string& job = tfjob.metadata.name;
  std::vector<std::string> order = {"Chief", "Master", "Worker"};
  for (const auto& [k, v] : tfjob.spec.tf_replica_specs)
    if (k != "Chief" && k != "Master" && k != "Worker") order.push_back(k);
  std::string seen_dir;
  for (const auto& type : order) {
    const ReplicaSpec* r = tfjob.replica(type);
    if (!r) continue;
    const k8s::PodSpec pod = pod_template(*r).spec;
    for (const auto& c : pod.containers) {
      std::vector<std::string> args = c.command;
      args.insert(args.end(), c.args.begin(), c.args.end());
      std::string dir = override_dir.empty() ? detail::log_dir_flag(args) : override_dir;
      if (dir.empty() || dir[0] != '/') continue;
      seen_dir = dir;
      // the longest mount path at or above DIR that is a claim volume
      JobLogDir best;
      std::size_t best_len = 0;
      for (const auto& m : c.volume_mounts) {
        std::string mp = m.mount_path;
        while (mp.size() > 1 && mp.back() == '/') mp.pop_back();
        if (mp.empty() || !(dir == mp || dir.rfind(mp + "/", 0) == 0 || mp == "/")) continue;
        std::string claim;
        for (const auto& v : pod.volumes)
          if (v.name == m.name && v.persistent_volume_claim) claim = v.persistent_volume_claim->claim_name;
        if (claim.empty() || mp.size() < best_len) continue;
        best_len = mp.size();
        best.claim = claim;
        std::string rest = dir.size() > mp.size() ? dir.substr(mp == "/" ? 1 : mp.size() + 1) : "";
        const std::string& sub = m.sub_path;
        best.sub_path = sub.empty() ? rest : (rest.empty() ? sub : sub + "/" + rest);
      }
      if (!best.claim.empty()) {
        best.container_path = dir;
        best.replica = type;
        if (best.sub_path.find("..") != std::string::npos)
          throw tfjob::error("the log directory \"" + dir + "\" leaves its claim (\"..\")");
        return best;
      }
    }
  }
  if (seen_dir.empty())
    throw tfjob::error("tfjob \"" + job + "\" names no log directory: none of its containers has --log-dir, --log_dir or --logdir "
                       "with an absolute path; give it (" + setting::log_dir + " DIR, the path inside the job's containers)");
  throw tfjob::error("tfjob \"" + job + "\" writes its logs to \"" + seen_dir +
                     "\", which is not on a PersistentVolumeClaim (TensorBoard's pod cannot read a pod's own disk): "
                     "mount a claim there (e.g. " + setting::builder_pvc + " CLAIM:" + seen_dir + ")");
}

TFJOB_INLINE nlohmann::json tensorboard_labels(const std::string& name) {
  return {{"app.kubernetes.io/name", "tensorboard"}, {"app.kubernetes.io/instance", name}};
}

TFJOB_INLINE std::vector<nlohmann::json> build_tensorboard(const std::string& name, const std::string& ns, const JobLogDir& log,
                                                           const std::string& image) {
  using nlohmann::json;
  const auto labels = tensorboard_labels(name).get<std::map<std::string, std::string>>();
  auto all = labels;
  all["app.kubernetes.io/managed-by"] = "kubectl-tfjob";
  ObjectMeta meta;
  meta.name = name;
  meta.namespace_ = ns;
  meta.labels = all;

  k8s::Container c;
  c.name = "tensorboard";
  c.image = image;
  c.command = {"tensorboard"};
  // --bind_all: listen beyond localhost, so the service proxy reaches it
  c.args = {"--logdir=/logs", "--port=" + std::to_string(tensorboard_port), "--bind_all"};
  c.ports = {k8s::ContainerPort{"http", tensorboard_port, "TCP", json::object()}};
  c.other["readinessProbe"] = {{"httpGet", {{"path", "/"}, {"port", "http"}}}, {"periodSeconds", 5}};  // (probes are not modeled)
  k8s::VolumeMount mount;
  mount.name = "logs";
  mount.mount_path = "/logs";
  mount.sub_path = log.sub_path;
  mount.read_only = true;
  c.volume_mounts = {mount};
  k8s::Volume logs;
  logs.name = "logs";
  logs.persistent_volume_claim = k8s::ClaimVolumeSource{log.claim, true, json::object()};

  k8s::Deployment d;
  d.api_version = "apps/v1";
  d.kind = "Deployment";
  d.metadata = meta;
  d.spec.replicas = 1;
  d.spec.selector = {{"matchLabels", labels}};
  d.spec.template_.metadata.labels = all;
  d.spec.template_.spec.containers = {c};
  d.spec.template_.spec.volumes = {logs};

  k8s::Service s;
  s.api_version = "v1";
  s.kind = "Service";
  s.metadata = meta;
  s.spec.selector = labels;
  s.spec.ports = {k8s::ServicePort{"http", "TCP", tensorboard_port, "http", 0, json::object()}};
  return {json(d), json(s)};
}

TFJOB_INLINE std::string tensorboard_proxy_prefix(const std::string& ns, const std::string& name) {
  return "/api/v1/namespaces/" + kube::detail::path_segment(ns, "namespace") + "/services/" + kube::detail::path_segment(name, "resource name") + ":" + std::to_string(tensorboard_port) + "/proxy";
}

}  // namespace tfjob::serving
