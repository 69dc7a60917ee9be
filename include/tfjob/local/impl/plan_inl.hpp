#pragma once
/// \file The bodies of <tfjob/local/plan.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_LOCAL` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/local/plan.hpp>, never this file.

namespace tfjob::local {

TFJOB_INLINE std::string mount_env_name(const std::string& mount_path) {
  std::string s;
  for (char c : mount_path) {
    char u = (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A') : c;
    bool alnum = (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9');
    if (alnum) s += u;
    else if (!s.empty() && s.back() != '_') s += '_';
  }
  while (!s.empty() && s.back() == '_') s.pop_back();
  return "TFJOB_MOUNT_" + (s.empty() ? std::string("ROOT") : s);
}

namespace detail {
TFJOB_INLINE bool path_start_boundary(char c) {
  return c == '=' || c == ':' || c == ',' || c == ' ' || c == '\t' || c == '"' || c == '\'' || c == '(';
}
TFJOB_INLINE bool path_end_boundary(char c) { return c == '/' || path_start_boundary(c) || c == ')' || c == ';'; }
}  // namespace detail

TFJOB_INLINE std::string rewrite_mount_paths(const std::string& s, const std::vector<Mount>& mounts) {
  std::vector<const Mount*> order;
  for (const auto& m : mounts)
    if (!m.mount_path.empty()) order.push_back(&m);
  std::sort(order.begin(), order.end(),
            [](const Mount* a, const Mount* b) { return a->mount_path.size() > b->mount_path.size(); });
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    bool replaced = false;
    if (i == 0 || detail::path_start_boundary(s[i - 1])) {
      for (const Mount* m : order) {
        std::string mp = m->mount_path;
        while (mp.size() > 1 && mp.back() == '/') mp.pop_back();
        if (s.compare(i, mp.size(), mp) != 0) continue;
        size_t end = i + mp.size();
        if (end != s.size() && !detail::path_end_boundary(s[end]) && mp != "/") continue;
        out += m->local_dir;
        i = end;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += s[i++];
  }
  return out;
}

TFJOB_INLINE std::string expand_vars(const std::string& s, const std::map<std::string, std::string>& vars) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '$' || i + 1 >= s.size()) {
      out += s[i];
      continue;
    }
    if (s[i + 1] == '$') {
      out += '$';
      ++i;
    } else if (s[i + 1] == '(') {
      auto close = s.find(')', i + 2);
      if (close == std::string::npos) {
        out += s.substr(i);
        break;
      }
      std::string name = s.substr(i + 2, close - i - 2);
      auto it = vars.find(name);
      out += it != vars.end() ? it->second : s.substr(i, close - i + 1);
      i = close;
    } else {
      out += s[i];
    }
  }
  return out;
}

TFJOB_INLINE std::vector<Mount> plan_mounts(const ReplicaSpec& spec, const nlohmann::json& container,
                                            const std::string& replica, const PlanInputs& in, Plan& plan) {
  std::vector<Mount> out;
  const nlohmann::json* volumes = nullptr;
  if (auto s = spec.template_.find("spec"); s != spec.template_.end() && s->is_object())
    if (auto v = s->find("volumes"); v != s->end() && v->is_array()) volumes = &*v;
  auto vm = container.find("volumeMounts");
  if (vm == container.end() || !vm->is_array()) return out;
  for (const auto& m : *vm) {
    Mount mount;
    mount.volume = tfjob::detail::value_at(m, "name", "");
    mount.mount_path = tfjob::detail::value_at(m, "mountPath", "");
    mount.read_only = tfjob::detail::value_at(m, "readOnly", false);
    const nlohmann::json* vol = nullptr;
    if (volumes)
      for (const auto& v : *volumes)
        if (tfjob::detail::value_at(v, "name", "") == mount.volume) vol = &v;
    auto mapped = [&](const std::string& key) -> std::optional<std::string> {
      auto it = in.volumes.find(key);
      if (key.empty() || it == in.volumes.end()) return std::nullopt;
      return it->second;
    };
    std::string where = "replica " + replica + ", volume \"" + mount.volume + "\" (mountPath " + mount.mount_path + ")";
    if (!vol) throw config_error(where + ": the pod template has no volume of that name");
    if (auto pvc = vol->find("persistentVolumeClaim"); pvc != vol->end()) {
      mount.claim = tfjob::detail::value_at(*pvc, "claimName", "");
      // names from the manifest: each one path part below the state folder
      mount.local_dir = mapped(mount.claim).value_or(mapped(mount.volume).value_or(
          in.state_dir + "/volumes/" + tfjob::detail::path_part(mount.claim.empty() ? mount.volume : mount.claim)));
    } else if (vol->contains("emptyDir")) {
      mount.local_dir = mapped(mount.volume).value_or(in.state_dir + "/replicas/" + tfjob::detail::path_part(replica) + "/" +
                                                      tfjob::detail::path_part(mount.volume));
    } else if (auto hp = vol->find("hostPath"); hp != vol->end()) {
      mount.local_dir = mapped(mount.volume).value_or(tfjob::detail::value_at(*hp, "path", ""));
    } else if (auto d = mapped(mount.volume)) {
      mount.local_dir = *d;
    } else {
      std::string kind = "unknown";
      for (auto it = vol->begin(); it != vol->end(); ++it)
        if (it.key() != "name") kind = it.key();
      throw config_error(where + ": a " + kind + " volume has no local counterpart; map it to a directory (" + setting::run_volumes + " " +
                         mount.volume + "=DIR)");
    }
    if (m.contains("subPath") && m["subPath"].is_string() && !m["subPath"].get<std::string>().empty())
      mount.local_dir += "/" + m["subPath"].get<std::string>();
    if (m.contains("subPathExpr"))
      plan.warnings.push_back(where + ": subPathExpr is ignored locally (the whole volume is mounted)");
    out.push_back(mount);
  }
  return out;
}

namespace detail {
/// What the scheduler and the kubelet would apply to a replica's pod and a process here does
/// not: the container's resources (by name) and where the pod may run; "" when none is set.
TFJOB_INLINE std::string unapplied_here(const nlohmann::json& pod_template, const nlohmann::json& container) {
  std::set<std::string> resources;
  if (auto r = container.find("resources"); r != container.end() && r->is_object())
    for (const char* kind : {"limits", "requests"})
      if (auto k = r->find(kind); k != r->end() && k->is_object())
        for (const auto& [name, qty] : k->items()) resources.insert(name);
  std::string out;
  if (!resources.empty()) {
    out = "resources (";
    for (const auto& n : resources) out += (out.back() == '(' ? "" : ", ") + n;
    out += ")";
  }
  if (auto s = pod_template.find("spec"); s != pod_template.end() && s->is_object())
    for (const char* field : {"nodeSelector", "affinity", "tolerations", "nodeName", "schedulerName", "serviceAccountName",
                              "imagePullSecrets"})
      if (s->contains(field)) out += (out.empty() ? "" : ", ") + std::string(field);
  return out;
}
}  // namespace detail

TFJOB_INLINE Plan make_plan(const TFJob& job, const PlanInputs& in) {
  Plan plan;
  TFConfigOptions tfo;
  tfo.address = [&](const std::string& lower_type, int index) {
    std::string type = lower_type;
    for (const auto& [t, s] : job.spec.tf_replica_specs)
      if (to_lower(t) == lower_type) type = t;
    return in.host + ":" + std::to_string(in.port(type, index));
  };
  const std::string ns = job.metadata.namespace_.empty() ? "default" : job.metadata.namespace_;
  const RunPolicy& policy = job.spec.run_policy;
  if (policy.suspend.value_or(false))
    throw config_error("TFJob " + job.metadata.name + " is suspended (runPolicy.suspend: true): a local run would start it; "
                       "leave out runPolicy.suspend (--suspend, --local-queue) to run it here, or submit it to a cluster");
  {
    std::string cluster_only;  // what only a cluster's scheduler or another controller reads
    if (policy.scheduling_policy) cluster_only = "runPolicy.schedulingPolicy (gang scheduling, queue, priority)";
    if (policy.managed_by) cluster_only += (cluster_only.empty() ? "" : ", ") + std::string("runPolicy.managedBy");
    if (!cluster_only.empty())
      plan.warnings.push_back("TFJob " + job.metadata.name + ": not applied locally: " + cluster_only +
                              " (the replicas start here at once, each a process)");
  }
  for (const auto& [type, spec] : job.spec.tf_replica_specs) {
    const nlohmann::json* c = tensorflow_container(spec);
    if (!c) throw config_error("replica type " + type + " has no container named \"tensorflow\"");
    if (const auto* all = containers(spec); all && all->size() > 1)
      plan.warnings.push_back(type + ": only the \"tensorflow\" container runs locally; " +
                              std::to_string(all->size() - 1) + " other container(s) ignored");
    if (spec.template_.contains("spec") && spec.template_["spec"].contains("initContainers"))
      plan.warnings.push_back(type + ": init containers are not run locally");
    if (std::string what = detail::unapplied_here(spec.template_, *c); !what.empty())
      plan.warnings.push_back(type + ": not applied locally: " + what +
                              " (each replica is a process with this machine's CPUs, memory and GPUs)");
    std::vector<std::string> command, args;
    if (auto it = c->find("command"); it != c->end() && it->is_array()) command = it->get<std::vector<std::string>>();
    if (auto it = c->find("args"); it != c->end() && it->is_array()) args = it->get<std::vector<std::string>>();
    if (command.empty())
      throw config_error("replica type " + type + ": the tensorflow container has no command (its image's ENTRYPOINT "
                         "cannot be known without a container runtime); set command: [...] in the pod template");
    for (int i = 0; i < spec.replicas_or_default(); ++i) {
      LaunchSpec ls;
      ls.type = type;
      ls.index = i;
      ls.name = to_lower(type) + "-" + std::to_string(i);
      ls.pod_name = job.metadata.name + "-" + ls.name;
      ls.port = in.port(type, i);
      ls.mounts = plan_mounts(spec, *c, ls.name, in, plan);
      std::map<std::string, std::string> vars;
      auto set_env = [&](const std::string& k, const std::string& v) {
        for (auto& kv : ls.env)
          if (kv.first == k) {
            kv.second = v;
            vars[k] = v;
            return;
          }
        ls.env.emplace_back(k, v);
        vars[k] = v;
      };
      if (auto env = c->find("env"); env != c->end() && env->is_array()) {
        for (const auto& e : *env) {
          std::string name = tfjob::detail::value_at(e, "name", "");
          if (name.empty()) continue;
          if (e.contains("value") && e["value"].is_string()) {
            set_env(name, rewrite_mount_paths(expand_vars(e["value"].get<std::string>(), vars), ls.mounts));
          } else if (e.contains("valueFrom")) {
            const auto& vf = e["valueFrom"];
            std::string field = vf.contains("fieldRef") ? tfjob::detail::value_at(vf["fieldRef"], "fieldPath", "") : "";
            if (field == "metadata.name") set_env(name, ls.pod_name);
            else if (field == "metadata.namespace") set_env(name, ns);
            else if (field == "status.podIP" || field == "status.hostIP") set_env(name, in.host);
            else if (field == "spec.nodeName") set_env(name, "localhost");
            else
              plan.warnings.push_back(ls.name + ": env " + name + " (valueFrom " +
                                      (field.empty() ? vf.begin().key() : field) + ") is not available locally; left unset");
          } else {
            set_env(name, "");
          }
        }
      }
      if (c->contains("envFrom")) plan.warnings.push_back(ls.name + ": envFrom (ConfigMaps, Secrets) is not available locally");
      for (const auto& m : ls.mounts) set_env(mount_env_name(m.mount_path), m.local_dir);
      for (const auto& a : command) ls.argv.push_back(rewrite_mount_paths(expand_vars(a, vars), ls.mounts));
      for (const auto& a : args) ls.argv.push_back(rewrite_mount_paths(expand_vars(a, vars), ls.mounts));
      if (auto wd = c->find("workingDir"); wd != c->end() && wd->is_string())
        ls.working_dir = rewrite_mount_paths(wd->get<std::string>(), ls.mounts);
      ls.tf_config = gen_tf_config(job, type, i, tfo);
      if (ls.tf_config) set_env(env_tf_config, *ls.tf_config);
      plan.replicas.push_back(std::move(ls));
    }
  }
  return plan;
}

}  // namespace tfjob::local
