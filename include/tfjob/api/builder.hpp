#pragma once
/// \file A fluent builder for TFJobs:
/// ```
///   auto job = tfjob::TFJobBuilder("mnist").namespace_("team-a")
///                  .image("ghcr.io/kubectl-tfjob/mnist:v0.1.0")
///                  .command({"python", "/opt/mnist/mnist.py"})
///                  .chief().workers(2).gpus(1).pvc("tfjob-mnist:/train")
///                  .build();   // defaulted and validated, throws validation_error
/// ```
/// Every replica gets the same pod template (a container named `tensorflow`) unless a
/// per-type setting or a whole template is given for that type.

#include <tfjob/api/defaults.hpp>
#include <tfjob/api/quantity.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/api/validation.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>  // std::find
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tfjob {

/// A toleration (`core/v1 Toleration`).
struct Toleration {
  std::string key;
  std::string operator_;  ///< "Equal" or "Exists" ("" = Equal)
  std::string value;
  std::string effect;     ///< NoSchedule, PreferNoSchedule, NoExecute, or "" (all)
  std::optional<std::int64_t> toleration_seconds;

  /// Parses kubectl taint syntax: `key=value:Effect`, `key:Effect`, `key` (Exists),
  /// `key=value`, `:Effect`/`*` is not accepted (say `key` explicitly); the key a qualified
  /// name and the value a label value, as a taint's (ValidateTaint). Throws `tfjob::error`.
  static Toleration parse(const std::string& spec);
  /// parse() without the exception: nullopt, with `problem` set to `"SPEC": what is wrong;
  /// what would be right`.
  static std::optional<Toleration> try_parse(const std::string& spec, std::string* problem = nullptr);
  nlohmann::json to_json() const;
};

/// A PersistentVolumeClaim mounted into the `tensorflow` container.
struct PvcMount {
  std::string claim;
  std::string mount_path;
  bool read_only = false;
  std::string volume;  ///< pod volume name; "" = derived from the claim

  /// Parses `claim:/mount/path[:ro]`: the claim a DNS-1123 subdomain, the path absolute
  /// and without ':' (one mount per spec; `:ro` the only mode). Nothing is truncated or
  /// dropped: `data:/data:rw` and `a:/a,b:/b` are refused. Throws `tfjob::error`.
  static PvcMount parse(const std::string& spec);
  /// parse() without the exception: nullopt, with `problem` set to `"SPEC": what is wrong;
  /// what would be right`.
  static std::optional<PvcMount> try_parse(const std::string& spec, std::string* problem = nullptr);
  /// The pod volume name: `volume`, else the claim name made a DNS-1123 label.
  std::string volume_name() const;
};

/// The label that sends a job to a Kueue LocalQueue (kueue `constants.QueueLabel`).
inline constexpr const char* kueue_queue_name_label = "kueue.x-k8s.io/queue-name";

/// The GPU resource name on NVIDIA nodes (device plugin / GPU operator).
inline constexpr const char* nvidia_gpu_resource = "nvidia.com/gpu";

/// Fluent TFJob construction; `build()` returns a defaulted, validated TFJob.
class TFJobBuilder {
 public:
  TFJobBuilder() = default;
  explicit TFJobBuilder(std::string name);

  // ---- metadata
  TFJobBuilder& name(std::string n);
  TFJobBuilder& generate_name(std::string n);
  TFJobBuilder& namespace_(std::string ns);
  TFJobBuilder& label(const std::string& k, std::string v);
  TFJobBuilder& annotation(const std::string& k, std::string v);

  // ---- the container (every replica type unless `for_type` is given)
  TFJobBuilder& image(std::string img);
  TFJobBuilder& image(const std::string& type, std::string img);
  /// `imagePullPolicy` of every replica's `tensorflow` container: Always, IfNotPresent or
  /// Never (core/v1 PullPolicy). Throws `tfjob::error` for another value.
  TFJobBuilder& image_pull_policy(std::string p);
  TFJobBuilder& command(std::vector<std::string> c);
  TFJobBuilder& args(std::vector<std::string> a);
  TFJobBuilder& args(const std::string& type, std::vector<std::string> a);
  TFJobBuilder& working_dir(std::string d);
  TFJobBuilder& env(const std::string& k, std::string v);
  TFJobBuilder& env(const std::string& type, const std::string& k, std::string v);
  /// `K=V` as on the command line. Throws `tfjob::error` without `=`.
  TFJobBuilder& env(const std::string& kv);
  /// CPU request and limit (a quantity: `4`, `500m`). Throws `tfjob::error` when invalid.
  TFJobBuilder& cpu(const std::string& q);
  /// CPU request and limit of one replica type (Arena's `--worker-cpu`, `--ps-cpu`, ...).
  TFJobBuilder& cpu(const std::string& type, const std::string& q);
  /// Memory request and limit (`8Gi`). Throws `tfjob::error` when invalid.
  TFJobBuilder& memory(const std::string& q);
  /// Memory request and limit of one replica type (Arena's `--worker-memory`, `--ps-memory`, ...).
  TFJobBuilder& memory(const std::string& type, const std::string& q);
  /// `nvidia.com/gpu` limit on each Chief, Master, Worker and Evaluator replica (not PS);
  /// 0 = CPU only.
  TFJobBuilder& gpus(int n);
  /// GPUs for one replica type (PS included when asked for explicitly).
  TFJobBuilder& gpus(const std::string& type, int n);
  /// Any other resource limit (request = limit), e.g. `("example.com/fpga", "1")`.
  TFJobBuilder& resource(const std::string& name, const std::string& q);
  /// Mount a PVC into every replica (`claim:/mount/path`).
  TFJobBuilder& pvc(const std::string& spec);
  TFJobBuilder& pvc(std::string claim, std::string mount_path, bool read_only = false,
                    std::string volume_name = {});
  TFJobBuilder& node_selector(const std::string& k, std::string v);
  /// `key=value` form. Throws `tfjob::error` without `=`.
  TFJobBuilder& node_selector(const std::string& kv);
  TFJobBuilder& toleration(Toleration t);
  TFJobBuilder& toleration(const std::string& spec);
  TFJobBuilder& service_account(std::string sa);
  /// A Secret every replica's pod pulls its images with (`spec.imagePullSecrets`).
  TFJobBuilder& image_pull_secret(std::string name);
  /// An annotation on every replica's pod (the pod template's metadata), e.g.
  /// `sidecar.istio.io/inject=false`; `annotation()` annotates the TFJob itself.
  TFJobBuilder& pod_annotation(const std::string& k, std::string v);
  /// `/dev/shm` of this size in every replica (an emptyDir with medium Memory; a
  /// container's own /dev/shm is 64Mi, too small for TF input pipelines and NCCL).
  /// Throws `tfjob::error` when the quantity is invalid.
  TFJobBuilder& shm_size(const std::string& q);
  /// `spec.schedulerName` of every replica's pod (e.g. `volcano`, a scheduler-plugins
  /// scheduler); with gang scheduling the operator keeps a name that is set.
  TFJobBuilder& scheduler_name(std::string n);
  TFJobBuilder& priority_class_name(std::string p);
  /// A whole pod template for one type (used as is, except that the image, command, ...
  /// set on the builder are applied to its `tensorflow` container when given).
  TFJobBuilder& template_(const std::string& type, nlohmann::json t);

  // ---- replicas
  TFJobBuilder& replicas(const std::string& type, int n);
  TFJobBuilder& chief(bool on = true);
  TFJobBuilder& master(bool on = true);
  TFJobBuilder& workers(int n);
  TFJobBuilder& ps(int n);
  TFJobBuilder& evaluator(bool on = true);
  /// Replicas currently set for a type (0 when none).
  int replicas_of(const std::string& type) const;

  // ---- policies
  TFJobBuilder& restart_policy(std::string p);
  TFJobBuilder& restart_policy(const std::string& type, std::string p);
  TFJobBuilder& clean_pod_policy(std::string p);
  TFJobBuilder& ttl_seconds_after_finished(std::int32_t s);
  TFJobBuilder& active_deadline_seconds(std::int64_t s);
  TFJobBuilder& backoff_limit(std::int32_t n);
  TFJobBuilder& suspend(bool s = true);
  TFJobBuilder& managed_by(std::string m);
  TFJobBuilder& scheduling_policy(SchedulingPolicy p);
  TFJobBuilder& queue(std::string q);
  TFJobBuilder& min_available(std::int32_t n);
  /// `schedulingPolicy.priorityClass`: the PodGroup's priority class (the operator v1.9
  /// copies it to a Volcano PodGroup's priorityClassName; pods keep their own).
  TFJobBuilder& priority_class(std::string p);
  /// One `schedulingPolicy.minResources` entry (the PodGroup's; the operator computes it
  /// from minAvailable's replicas when unset). Throws `tfjob::error` when `q` is invalid.
  TFJobBuilder& min_resource(const std::string& name, const std::string& q);
  /// `schedulingPolicy.scheduleTimeoutSeconds` (scheduler-plugins' PodGroup).
  TFJobBuilder& schedule_timeout_seconds(std::int32_t s);
  /// Gang scheduling of the whole job: minAvailable = every replica, computed at build
  /// (the operator's own default for minMember is the same sum, GetTotalReplicas).
  TFJobBuilder& gang(bool on = true);
  /// Kueue: the job goes to LocalQueue `q` (label kueue.x-k8s.io/queue-name) and is
  /// created suspended, as Kueue expects; Kueue unsuspends it once admitted.
  TFJobBuilder& local_queue(const std::string& q);
  TFJobBuilder& success_policy(std::string p);
  TFJobBuilder& enable_dynamic_worker(bool on = true);

  /// The TFJob without defaults or validation (for inspection or further edits).
  TFJob build_unchecked() const;
  /// Defaulted (as the operator would) and validated; throws `validation_error` listing
  /// every problem.
  TFJob build() const;

 private:
  struct ContainerSettings {
    std::string image, image_pull_policy, working_dir, restart_policy;
    std::optional<std::vector<std::string>> command, args;
    std::vector<std::pair<std::string, std::string>> env;
    std::string cpu, memory;
    std::map<std::string, std::string> extra;
    std::optional<int> gpus;
    nlohmann::json template_;
  };

  static void set_env(std::vector<std::pair<std::string, std::string>>& env, const std::string& k,
                      std::string v);
  ContainerSettings& per(const std::string& type);
  SchedulingPolicy& sched();

  /// The pod template of one replica type: the type's own template (or an empty one) with
  /// the builder's settings applied to its `tensorflow` container and its pod spec.
  nlohmann::json make_template(const std::string& type) const;

  /// The container named `tensorflow` in `spec.containers`, added (and the array made) when absent.
  static nlohmann::json* tensorflow_container_in(nlohmann::json& spec);

  /// A string setting of the type (`p`) when set there, else the builder's common one.
  const std::string& pick(const ContainerSettings* p, std::string ContainerSettings::*member) const;

  /// The container's image, imagePullPolicy, workingDir, command, args and env.
  void apply_container(nlohmann::json* c, const ContainerSettings* p) const;

  /// The container's resources: requests = limits for cpu/memory, GPUs as limits (extended
  /// resources default their request to the limit).
  void apply_resources(nlohmann::json* c, const ContainerSettings* p, const std::string& type) const;

  /// The PVCs: a volume in the pod spec (unless one of that name is there) and a mount in the container.
  void apply_pvcs(nlohmann::json& spec, nlohmann::json* c) const;

  /// The pod spec's nodeSelector, tolerations, serviceAccountName, priorityClassName,
  /// schedulerName and imagePullSecrets.
  void apply_pod_spec(nlohmann::json& spec) const;

  /// `/dev/shm` of `shm_size_`: an emptyDir volume in the pod spec, mounted in the container.
  void apply_shm_size(nlohmann::json& spec, nlohmann::json* c) const;

  TFJob job_;
  ContainerSettings common_;
  std::map<std::string, ContainerSettings> per_;
  std::map<std::string, int> replicas_;
  std::optional<int> gpus_;
  std::string restart_policy_;
  std::vector<PvcMount> pvcs_;
  std::map<std::string, std::string> node_selector_;
  std::vector<Toleration> tolerations_;
  std::string service_account_, priority_class_name_, scheduler_name_, shm_size_;
  std::vector<std::string> pull_secrets_;
  std::map<std::string, std::string> pod_annotations_;
  bool gang_ = false;
};

}  // namespace tfjob

#if TFJOB_SDK_DEFINE_API
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
#endif  // TFJOB_SDK_DEFINE_API
