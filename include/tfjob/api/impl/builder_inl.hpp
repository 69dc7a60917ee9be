#pragma once
/// \file The bodies of <tfjob/api/builder.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_API` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/api/builder.hpp>, never this file.

namespace tfjob {

TFJOB_INLINE std::optional<Toleration> Toleration::try_parse(const std::string& spec, std::string* problem) {
  const std::string right = "; give KEY[=VALUE][:EFFECT], e.g. nvidia.com/gpu:NoSchedule or dedicated=gpu:NoExecute";
  auto bad = [&](const std::string& what) -> std::optional<Toleration> {
    if (problem) *problem = "\"" + spec + "\": " + what + right;
    return std::nullopt;
  };
  Toleration t;
  std::string rest = spec;
  auto colon = rest.rfind(':');
  if (colon != std::string::npos) {
    t.effect = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
    if (t.effect != "NoSchedule" && t.effect != "PreferNoSchedule" && t.effect != "NoExecute")
      return bad("the effect \"" + t.effect + "\" is none of NoSchedule, PreferNoSchedule, NoExecute");
  }
  auto eq = rest.find('=');
  if (eq != std::string::npos) {
    t.key = rest.substr(0, eq);
    t.value = rest.substr(eq + 1);
    t.operator_ = "Equal";
  } else {
    t.key = rest;
    t.operator_ = "Exists";
  }
  if (t.key.empty()) return bad("it has no key");
  // a taint's key and value (ValidateTaint): a qualified name, a label value
  if (auto e = detail::qualified_name_errors(t.key); !e.empty()) return bad("the key \"" + t.key + "\": " + e.front());
  if (auto e = detail::label_value_errors(t.value); !e.empty()) return bad("the value \"" + t.value + "\": " + e.front());
  return t;
}

TFJOB_INLINE Toleration Toleration::parse(const std::string& spec) {
  std::string problem;
  auto t = try_parse(spec, &problem);
  if (!t) throw error("toleration " + problem);
  return *t;
}

TFJOB_INLINE nlohmann::json Toleration::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  if (!key.empty()) j["key"] = key;
  if (!operator_.empty()) j["operator"] = operator_;
  if (!value.empty()) j["value"] = value;
  if (!effect.empty()) j["effect"] = effect;
  if (toleration_seconds) j["tolerationSeconds"] = *toleration_seconds;
  return j;
}

TFJOB_INLINE std::optional<PvcMount> PvcMount::try_parse(const std::string& spec, std::string* problem) {
  const std::string right = "; give CLAIM:/mount/path, with :ro for read-only (read-write is the default), e.g. tfjob-mnist:/train";
  auto bad = [&](const std::string& what, const std::string& r) -> std::optional<PvcMount> {
    if (problem) *problem = "\"" + spec + "\": " + what + r;
    return std::nullopt;
  };
  PvcMount m;
  auto colon = spec.find(':');
  if (colon == std::string::npos) return bad("it has no mount path", right);
  m.claim = spec.substr(0, colon);
  m.mount_path = spec.substr(colon + 1);
  if (m.claim.empty()) return bad("it has no claim name", right);
  if (!detail::is_dns1123_subdomain(m.claim))
    return bad("the claim name \"" + m.claim + "\" is not a valid name", "; give a claim's name: lower case letters, digits, '-' and '.'");
  if (m.mount_path.size() > 3 && m.mount_path.compare(m.mount_path.size() - 3, 3, ":ro") == 0) {
    m.read_only = true;
    m.mount_path.resize(m.mount_path.size() - 3);
  }
  if (auto c = m.mount_path.find(':'); c != std::string::npos) {
    const auto comma = m.mount_path.rfind(',', c);
    if (comma != std::string::npos)  // a:/a,b:/b
      return bad("it holds more than one mount", "; give one CLAIM:/mount/path per flag, repeated for each claim");
    return bad("\"" + m.mount_path.substr(c) + "\" is not a mode (only :ro is)", right);
  }
  if (m.mount_path.empty() || m.mount_path.front() != '/') return bad("the mount path \"" + m.mount_path + "\" is not absolute", right);
  return m;
}

TFJOB_INLINE PvcMount PvcMount::parse(const std::string& spec) {
  std::string problem;
  auto m = try_parse(spec, &problem);
  if (!m) throw error("PVC mount " + problem);
  return *m;
}

TFJOB_INLINE std::string PvcMount::volume_name() const {
  if (!volume.empty()) return volume;
  std::string n;
  for (char c : claim) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    n += ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') ? c : '-';
  }
  if (n.size() > 63) n.resize(63);
  while (!n.empty() && n.back() == '-') n.pop_back();
  return n.empty() ? "data" : n;
}

TFJOB_INLINE TFJobBuilder::TFJobBuilder(std::string name) { job_.metadata.name = std::move(name); }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::name(std::string n) { job_.metadata.name = std::move(n); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::generate_name(std::string n) { job_.metadata.generate_name = std::move(n); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::namespace_(std::string ns) { job_.metadata.namespace_ = std::move(ns); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::label(const std::string& k, std::string v) { job_.metadata.labels[k] = std::move(v); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::annotation(const std::string& k, std::string v) { job_.metadata.annotations[k] = std::move(v); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::image(std::string img) { common_.image = std::move(img); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::image(const std::string& type, std::string img) { per(type).image = std::move(img); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::image_pull_policy(std::string p) {
  if (p != "Always" && p != "IfNotPresent" && p != "Never")
    throw error("image pull policy \"" + p + "\": must be Always, IfNotPresent or Never");
  common_.image_pull_policy = std::move(p);
  return *this;
}

TFJOB_INLINE TFJobBuilder& TFJobBuilder::command(std::vector<std::string> c) { common_.command = std::move(c); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::args(std::vector<std::string> a) { common_.args = std::move(a); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::args(const std::string& type, std::vector<std::string> a) { per(type).args = std::move(a); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::working_dir(std::string d) { common_.working_dir = std::move(d); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::env(const std::string& k, std::string v) { set_env(common_.env, k, std::move(v)); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::env(const std::string& type, const std::string& k, std::string v) { set_env(per(type).env, k, std::move(v)); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::env(const std::string& kv) {
  auto eq = kv.find('=');
  if (eq == std::string::npos || eq == 0)
    throw error("environment variable \"" + kv + "\": expected NAME=VALUE");
  return env(kv.substr(0, eq), kv.substr(eq + 1));
}

TFJOB_INLINE TFJobBuilder& TFJobBuilder::cpu(const std::string& q) { Quantity::parse(q); common_.cpu = q; return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::cpu(const std::string& type, const std::string& q) { Quantity::parse(q); per(type).cpu = q; return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::memory(const std::string& q) { Quantity::parse(q); common_.memory = q; return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::memory(const std::string& type, const std::string& q) { Quantity::parse(q); per(type).memory = q; return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::gpus(int n) { gpus_ = n; return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::gpus(const std::string& type, int n) { per(type).gpus = n; return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::resource(const std::string& name, const std::string& q) { Quantity::parse(q); common_.extra[name] = q; return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::pvc(const std::string& spec) { pvcs_.push_back(PvcMount::parse(spec)); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::pvc(std::string claim, std::string mount_path, bool read_only,
                                             std::string volume_name) {
  pvcs_.push_back({std::move(claim), std::move(mount_path), read_only, std::move(volume_name)});
  return *this;
}

TFJOB_INLINE TFJobBuilder& TFJobBuilder::node_selector(const std::string& k, std::string v) { node_selector_[k] = std::move(v); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::node_selector(const std::string& kv) {
  auto eq = kv.find('=');
  if (eq == std::string::npos || eq == 0) throw error("node selector \"" + kv + "\": expected KEY=VALUE");
  return node_selector(kv.substr(0, eq), kv.substr(eq + 1));
}

TFJOB_INLINE TFJobBuilder& TFJobBuilder::toleration(Toleration t) { tolerations_.push_back(std::move(t)); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::toleration(const std::string& spec) { return toleration(Toleration::parse(spec)); }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::service_account(std::string sa) { service_account_ = std::move(sa); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::image_pull_secret(std::string name) {
  if (std::find(pull_secrets_.begin(), pull_secrets_.end(), name) == pull_secrets_.end()) pull_secrets_.push_back(std::move(name));
  return *this;
}

TFJOB_INLINE TFJobBuilder& TFJobBuilder::pod_annotation(const std::string& k, std::string v) { pod_annotations_[k] = std::move(v); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::shm_size(const std::string& q) { Quantity::parse(q); shm_size_ = q; return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::scheduler_name(std::string n) { scheduler_name_ = std::move(n); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::priority_class_name(std::string p) { priority_class_name_ = std::move(p); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::template_(const std::string& type, nlohmann::json t) { per(type).template_ = std::move(t); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::replicas(const std::string& type, int n) {
  auto c = canonical_replica_type(type);
  if (!c) throw error("unknown replica type \"" + type + "\" (Chief, Master, PS, Worker, Evaluator)");
  if (n <= 0) replicas_.erase(*c);
  else replicas_[*c] = n;
  return *this;
}

TFJOB_INLINE TFJobBuilder& TFJobBuilder::chief(bool on) { return replicas(replica_type::Chief, on ? 1 : 0); }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::master(bool on) { return replicas(replica_type::Master, on ? 1 : 0); }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::workers(int n) { return replicas(replica_type::Worker, n); }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::ps(int n) { return replicas(replica_type::PS, n); }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::evaluator(bool on) { return replicas(replica_type::Evaluator, on ? 1 : 0); }

TFJOB_INLINE int TFJobBuilder::replicas_of(const std::string& type) const {
  auto c = canonical_replica_type(type);
  auto it = c ? replicas_.find(*c) : replicas_.end();
  return it == replicas_.end() ? 0 : it->second;
}

TFJOB_INLINE TFJobBuilder& TFJobBuilder::restart_policy(std::string p) { restart_policy_ = std::move(p); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::restart_policy(const std::string& type, std::string p) { per(type).restart_policy = std::move(p); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::clean_pod_policy(std::string p) { job_.spec.run_policy.clean_pod_policy = std::move(p); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::ttl_seconds_after_finished(std::int32_t s) { job_.spec.run_policy.ttl_seconds_after_finished = s; return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::active_deadline_seconds(std::int64_t s) { job_.spec.run_policy.active_deadline_seconds = s; return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::backoff_limit(std::int32_t n) { job_.spec.run_policy.backoff_limit = n; return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::suspend(bool s) { job_.spec.run_policy.suspend = s; return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::managed_by(std::string m) { job_.spec.run_policy.managed_by = std::move(m); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::scheduling_policy(SchedulingPolicy p) { job_.spec.run_policy.scheduling_policy = std::move(p); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::queue(std::string q) { sched().queue = std::move(q); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::min_available(std::int32_t n) { sched().min_available = n; return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::priority_class(std::string p) { sched().priority_class = std::move(p); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::min_resource(const std::string& name, const std::string& q) {
  if (name.empty()) throw error("minimum resource \"=" + q + "\": expected NAME=QUANTITY, e.g. nvidia.com/gpu=4");
  Quantity::parse(q);
  auto& mr = sched().min_resources;
  if (!mr.is_object()) mr = nlohmann::json::object();
  mr[name] = q;
  return *this;
}

TFJOB_INLINE TFJobBuilder& TFJobBuilder::schedule_timeout_seconds(std::int32_t s) { sched().schedule_timeout_seconds = s; return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::gang(bool on) { gang_ = on; if (on) sched(); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::local_queue(const std::string& q) {
  job_.metadata.labels[kueue_queue_name_label] = q;
  return suspend(true);
}

TFJOB_INLINE TFJobBuilder& TFJobBuilder::success_policy(std::string p) { job_.spec.success_policy = std::move(p); return *this; }

TFJOB_INLINE TFJobBuilder& TFJobBuilder::enable_dynamic_worker(bool on) { job_.spec.enable_dynamic_worker = on; return *this; }

TFJOB_INLINE TFJob TFJobBuilder::build_unchecked() const {
  TFJob job = job_;
  auto reps = replicas_;
  if (reps.empty()) reps[replica_type::Worker] = 1;
  for (const auto& [type, n] : reps) {
    ReplicaSpec r;
    r.replicas = n;
    r.template_ = make_template(type);
    std::string rp = restart_policy_;
    if (auto it = per_.find(type); it != per_.end() && !it->second.restart_policy.empty())
      rp = it->second.restart_policy;
    r.restart_policy = rp;
    job.spec.tf_replica_specs[type] = std::move(r);
  }
  if (gang_) {
    auto& sp = job.spec.run_policy.scheduling_policy;
    if (!sp) sp = SchedulingPolicy{};
    sp->min_available = job.total_replicas();
  }
  return job;
}

TFJOB_INLINE TFJob TFJobBuilder::build() const {
  TFJob job = build_unchecked();
  set_defaults(job);
  validate_or_throw(job);
  return job;
}

TFJOB_INLINE void TFJobBuilder::set_env(std::vector<std::pair<std::string, std::string>>& env, const std::string& k,
                                        std::string v) {
  for (auto& [name, value] : env)
    if (name == k) {
      value = std::move(v);
      return;
    }
  env.emplace_back(k, std::move(v));
}

TFJOB_INLINE TFJobBuilder::ContainerSettings& TFJobBuilder::per(const std::string& type) {
  auto c = canonical_replica_type(type);
  if (!c) throw error("unknown replica type \"" + type + "\" (Chief, Master, PS, Worker, Evaluator)");
  return per_[*c];
}

TFJOB_INLINE SchedulingPolicy& TFJobBuilder::sched() {
  if (!job_.spec.run_policy.scheduling_policy) job_.spec.run_policy.scheduling_policy = SchedulingPolicy{};
  return *job_.spec.run_policy.scheduling_policy;
}

TFJOB_INLINE nlohmann::json TFJobBuilder::make_template(const std::string& type) const {
  const ContainerSettings* p = nullptr;
  if (auto it = per_.find(type); it != per_.end()) p = &it->second;
  nlohmann::json t = p && !p->template_.is_null() ? p->template_ : nlohmann::json::object();
  auto& spec = t["spec"];
  if (!spec.is_object()) spec = nlohmann::json::object();
  nlohmann::json* c = tensorflow_container_in(spec);
  apply_container(c, p);
  apply_resources(c, p, type);
  apply_pvcs(spec, c);
  apply_pod_spec(spec);
  for (const auto& [k, v] : pod_annotations_) t["metadata"]["annotations"][k] = v;
  apply_shm_size(spec, c);
  return t;
}

TFJOB_INLINE nlohmann::json* TFJobBuilder::tensorflow_container_in(nlohmann::json& spec) {
  auto& cs = spec["containers"];
  if (!cs.is_array()) cs = nlohmann::json::array();
  nlohmann::json* c = nullptr;
  for (auto& x : cs)
    if (x.is_object() && tfjob::detail::value_at(x, "name", std::string()) == default_container_name) c = &x;
  if (!c) {
    cs.push_back({{"name", default_container_name}});
    c = &cs.back();
  }
  return c;
}

TFJOB_INLINE const std::string& TFJobBuilder::pick(const ContainerSettings* p, std::string ContainerSettings::*member) const {
  return (p && !(p->*member).empty()) ? p->*member : common_.*member;
}

TFJOB_INLINE void TFJobBuilder::apply_container(nlohmann::json* c, const ContainerSettings* p) const {
  if (auto img = pick(p, &ContainerSettings::image); !img.empty()) (*c)["image"] = img;
  if (auto ipp = pick(p, &ContainerSettings::image_pull_policy); !ipp.empty()) (*c)["imagePullPolicy"] = ipp;
  if (auto wd = pick(p, &ContainerSettings::working_dir); !wd.empty()) (*c)["workingDir"] = wd;
  const auto& command = p && p->command ? p->command : common_.command;
  if (command) (*c)["command"] = *command;
  const auto& args = p && p->args ? p->args : common_.args;
  if (args) (*c)["args"] = *args;
  auto env = common_.env;
  if (p)
    for (const auto& [k, v] : p->env) set_env(env, k, v);
  if (!env.empty()) {
    auto& e = (*c)["env"];
    if (!e.is_array()) e = nlohmann::json::array();
    for (const auto& [k, v] : env) e.push_back({{"name", k}, {"value", v}});
  }
}

TFJOB_INLINE void TFJobBuilder::apply_resources(nlohmann::json* c, const ContainerSettings* p, const std::string& type) const {
  std::map<std::string, std::string> limits = common_.extra, requests;
  if (p)
    for (const auto& [k, v] : p->extra) limits[k] = v;
  if (auto cpu = pick(p, &ContainerSettings::cpu); !cpu.empty()) limits["cpu"] = requests["cpu"] = cpu;
  if (auto mem = pick(p, &ContainerSettings::memory); !mem.empty()) limits["memory"] = requests["memory"] = mem;
  int gpus = 0;
  if (p && p->gpus) gpus = *p->gpus;
  else if (gpus_ && type != replica_type::PS) gpus = *gpus_;
  if (gpus > 0) limits[nvidia_gpu_resource] = std::to_string(gpus);
  if (!limits.empty() || !requests.empty()) {
    auto& res = (*c)["resources"];
    for (const auto& [k, v] : limits) res["limits"][k] = v;
    for (const auto& [k, v] : requests) res["requests"][k] = v;
  }
}

TFJOB_INLINE void TFJobBuilder::apply_pvcs(nlohmann::json& spec, nlohmann::json* c) const {
  if (!pvcs_.empty()) {
    auto& vols = spec["volumes"];
    auto& mounts = (*c)["volumeMounts"];
    for (const auto& m : pvcs_) {
      nlohmann::json vol = {{"name", m.volume_name()}, {"persistentVolumeClaim", {{"claimName", m.claim}}}};
      if (m.read_only) vol["persistentVolumeClaim"]["readOnly"] = true;
      bool have = false;
      if (vols.is_array())
        for (const auto& v : vols)
          if (tfjob::detail::value_at(v, "name", std::string()) == m.volume_name()) have = true;
      if (!have) vols.push_back(vol);
      nlohmann::json mount = {{"name", m.volume_name()}, {"mountPath", m.mount_path}};
      if (m.read_only) mount["readOnly"] = true;
      mounts.push_back(mount);
    }
  }
}

TFJOB_INLINE void TFJobBuilder::apply_pod_spec(nlohmann::json& spec) const {
  for (const auto& [k, v] : node_selector_) spec["nodeSelector"][k] = v;
  for (const auto& t : tolerations_) spec["tolerations"].push_back(t.to_json());
  if (!service_account_.empty()) spec["serviceAccountName"] = service_account_;
  if (!priority_class_name_.empty()) spec["priorityClassName"] = priority_class_name_;
  if (!scheduler_name_.empty()) spec["schedulerName"] = scheduler_name_;
  for (const auto& name : pull_secrets_) {
    auto& ps = spec["imagePullSecrets"];
    bool have = false;
    if (ps.is_array())
      for (const auto& x : ps) have = have || (x.is_object() && tfjob::detail::value_at(x, "name", std::string()) == name);
    if (!have) ps.push_back({{"name", name}});
  }
}

TFJOB_INLINE void TFJobBuilder::apply_shm_size(nlohmann::json& spec, nlohmann::json* c) const {
  if (!shm_size_.empty()) {
    // the volume is named dshm, as in the Kubeflow and Arena examples; a template that
    // already mounts /dev/shm keeps its own
    bool mounted = false;
    if (auto m = c->find("volumeMounts"); m != c->end() && m->is_array())
      for (const auto& x : *m) mounted = mounted || (x.is_object() && tfjob::detail::value_at(x, "mountPath", std::string()) == "/dev/shm");
    if (!mounted) {
      spec["volumes"].push_back({{"name", "dshm"}, {"emptyDir", {{"medium", "Memory"}, {"sizeLimit", shm_size_}}}});
      (*c)["volumeMounts"].push_back({{"name", "dshm"}, {"mountPath", "/dev/shm"}});
    }
  }
}

}  // namespace tfjob
