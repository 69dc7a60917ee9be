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
#include <tfjob/api/impl/builder_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
