#pragma once
/// \file `gpu-check` as an SDK workflow: the GPU inventory of a cluster's nodes, one probe
/// pod per GPU node (pinned to it, requesting its GPUs, tolerating nvidia.com/gpu taints,
/// bounded by activeDeadlineSeconds, labelled for cleanup), pods that stay Pending
/// explained from their events, the probe JSON read back from the pod logs and judged by
/// the verdict rules (verdict.hpp), and the pods deleted at the end or on cancel.
/// The inventory and the pod are pure functions; `run_gpu_check` does the I/O.

#include <tfjob/api/cluster_words.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>
#include <tfjob/gpu/probe_report.hpp>
#include <tfjob/gpu/verdict.hpp>
#include <tfjob/kube/api.hpp>
#include <tfjob/kube/client.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/logs.hpp>
#include <tfjob/kube/side_task.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <mutex>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace tfjob::gpu {

/// The probe image `gpu-check` runs by default (built from gpu/Dockerfile, CUDA 12.x).
inline constexpr const char* default_probe_image = "ghcr.io/kubectl-tfjob/gpu-probe:v0.1.0";
/// Resource name of NVIDIA GPUs (the NVIDIA device plugin's).
inline constexpr const char* gpu_resource = "nvidia.com/gpu";
/// Label on every probe pod: the run it belongs to (for cleanup with a selector).
inline constexpr const char* run_label = "kubectl-tfjob.kubeflow.org/gpu-check";
/// Label on every probe pod: what it is.
inline constexpr const char* component_label = "app.kubernetes.io/name";
inline constexpr const char* component_value = "tfjob-gpu-probe";
/// Annotation with the node a probe pod checks (node names may exceed label limits).
inline constexpr const char* node_annotation = "kubectl-tfjob.kubeflow.org/node";

/// One node as far as GPUs are concerned.
struct NodeGpuInfo {
  std::string name;
  std::string hostname;                     ///< kubernetes.io/hostname label (pinning), else the name
  std::int64_t capacity = 0;                ///< status.capacity[nvidia.com/gpu]
  std::int64_t allocatable = 0;             ///< status.allocatable[nvidia.com/gpu]
  std::map<std::string, std::string> gfd;   ///< GPU Feature Discovery / accelerator labels
  std::vector<nlohmann::json> taints;       ///< spec.taints
  bool ready = false;
  bool unschedulable = false;
  bool looks_like_gpu = false;              ///< capacity, GFD labels or an accelerator label
  std::string problem;                      ///< why it cannot be probed ("" = fine)
  int driver_major = 0;                     ///< from GPU feature discovery's labels (0 = unknown)
  std::string driver_version;               ///< nvidia.com/cuda.driver-version.full or major.minor.rev
  std::string architecture;                 ///< nvidia.com/gpu.family (volta, ampere, ...), "" unknown
  std::vector<std::string> notes;           ///< what the cluster says before any probe (warnings)
  std::int64_t requested = 0;               ///< nvidia.com/gpu held by the pods bound to it (read_gpu_use)
  int gpu_pods = 0;                         ///< how many pods hold them
  /// allocatable - requested: what a new pod may still ask for.
  std::int64_t free() const { return allocatable > requested ? allocatable - requested : 0; }
  /// capacity - allocatable: devices the device plugin reports unhealthy.
  std::int64_t unhealthy() const { return capacity > allocatable ? capacity - allocatable : 0; }
  /// nvidia.com/gpu.product (GFD), or the GKE/GCE accelerator label, or "".
  std::string product() const;
};

namespace detail {
std::int64_t count_of(const std::string& q);
std::string lower_ascii(std::string s);
bool gpu_label(const std::string& k);
}  // namespace detail

/// R580 is a long-term support branch (LTSB) and the last that drives Volta; NVIDIA's
/// Data Center driver lifecycle (docs.nvidia.com/datacenter/tesla/drivers) gives LTSBs
/// three years of fixes, so Volta nodes get none after about August 2028.
inline constexpr const char* volta_last_branch_end_of_life = "about August 2028";

/// GPU feature discovery's driver and architecture labels (pure): the driver major from
/// `nvidia.com/cuda.driver-version.major` (GFD >= 0.15) or `nvidia.com/cuda.driver.major`
/// (older), the architecture from `nvidia.com/gpu.family`, or from the compute capability
/// labels (`nvidia.com/gpu.compute.major/minor`: 7.0 is Volta).
void read_gfd(NodeGpuInfo& g);

/// The GPU view of one node (pure).
NodeGpuInfo inspect_node(const k8s::Node& n);

/// Labels of the NVIDIA device plugin's and the GPU Operator validator's pods.
const std::vector<std::string>& device_plugin_selectors();
inline constexpr const char* validator_selector = "app=nvidia-operator-validator";

namespace detail {
/// "Running", or the phase and the first waiting/terminated reason of a pod that is not.
std::string pod_state(const k8s::Pod& p, bool& ok);
}  // namespace detail

/// What the NVIDIA device plugin's and GPU Operator validator's pods say about each GPU
/// node (pure): a node whose plugin pod is not Running and Ready, or whose validator is not
/// Running (it stays in an init container while a component fails), gets a note. Returns
/// cluster-wide notes (e.g. no device plugin pods found).
std::vector<std::string> note_gpu_components(std::vector<NodeGpuInfo>& inv, const std::vector<k8s::Pod>& plugin_pods,
                                             const std::vector<k8s::Pod>& validator_pods);

/// The GPU inventory: every node that has GPUs or looks like a GPU node, by name (pure).
std::vector<NodeGpuInfo> gpu_inventory(const std::vector<k8s::Node>& nodes);

/// GPUs a pod asks for as the scheduler counts them: the larger of the sum over its
/// containers and the largest init container (k8s.io/component-helpers resource.PodRequests);
/// a limit without a request counts as the request (extended resources: request = limit).
std::int64_t pod_gpus(const k8s::Pod& p);

/// A pod holds its GPUs once bound to a node and until it ends.
bool holds_gpus(const k8s::Pod& p);

/// The GPUs the pods bound to one node hold.
struct NodeGpuUse {
  std::int64_t requested = 0;  ///< nvidia.com/gpu they ask for (pod_gpus)
  int pods = 0;                ///< pods holding GPUs there
};

/// GPUs held per node, summed in one pass over `pods` (pure; those that hold none are skipped).
void add_gpu_use(std::unordered_map<std::string, NodeGpuUse>& use, const k8s::Pod& p);

/// The GPUs held on each node: the pods in every namespace that have not ended, selected by
/// the server as kubectl describe node selects them (field selector
/// status.phase!=Succeeded,status.phase!=Failed: kubectl describe.go, describeNode), read page
/// by page and summed per node as each page arrives: linear in pods, memory in nodes.
std::unordered_map<std::string, NodeGpuUse> read_gpu_use(kube::Client& client);

/// The GPU inventory of the cluster: the nodes (selected by `label_selector`) read page by
/// page, each inspected (inspect_node) and kept only when it is a GPU node; `names`, when
/// given, receives every node's name (to check the ones a caller named).
std::vector<NodeGpuInfo> read_gpu_inventory(kube::Client& client, const std::string& label_selector = {},
                                            std::set<std::string>* names = nullptr);

/// Records what `use` says of each inventory node (`requested`, `gpu_pods`).
void note_gpu_use(std::vector<NodeGpuInfo>& inv, const std::unordered_map<std::string, NodeGpuUse>& use);

/// Options for the probe pods and the run.
struct CheckOptions {
  std::string namespace_;                 ///< where the probe pods run ("" = the client's)
  std::string image = default_probe_image;
  std::string image_pull_policy = "IfNotPresent";
  std::string expect;                     ///< a known model family ("" = none)
  bool strict = false;                    ///< the probe's warnings fail (PCIe, throttling, NVLink, ...)
  int gpus = 0;                           ///< GPUs per probe pod; 0 = all the node allocates
  std::vector<std::string> nodes;         ///< only these nodes ("" = every GPU node)
  int deadline_seconds = 300;             ///< activeDeadlineSeconds of each pod, and the wait
  bool keep = false;                      ///< keep the probe pods (debugging)
  std::string run_id;                     ///< "" = random
  std::chrono::milliseconds poll{1000};   ///< how often Pending pods' events are looked at again
  std::chrono::milliseconds running_every{5000};  ///< how often a running probe's last log line is told
  const std::atomic<bool>* cancel = nullptr;    ///< raise to stop early (pods still deleted)
  /// One line per change (stderr); a line that names a setting (CheckOptions::gpus) names it by key.
  std::function<void(const Text&)> progress;
};

namespace detail {
/// Seconds the run waits beyond the pods' activeDeadlineSeconds (scheduling, log reading);
/// the probe's watchdog fires this much and 5 s more before that deadline.
int wait_slack_seconds(int deadline_seconds);
}  // namespace detail

/// The probe pod for one node (pure).
k8s::Pod probe_pod(const NodeGpuInfo& node, const CheckOptions& o, const std::string& run_id);

/// What gpu-check found on one node. The first four are the probe's own verdicts
/// (ProbeReport::status; no_result: its watchdog fired); pending/timeout: no result within
/// the deadline; failed: the probe pod failed or its output was unreadable; skipped: not
/// probed (--gpus above what the node allocates).
enum class NodeStatus { ready, not_ready, no_gpu, no_result, pending, failed, timeout, cancelled, skipped };

/// The spelling in output and JSON: "ready", "not-ready", "no-gpu", ...
const char* to_string(NodeStatus s);

/// A node's status from its probe's verdict (ProbeReport::status); a verdict the probe
/// schema does not name is a failed probe.
NodeStatus node_status_of_probe(const std::string& verdict);

/// The outcome on one node.
struct NodeResult {
  NodeGpuInfo node;
  std::string pod;                    ///< probe pod name ("" when not probed)
  std::string phase;                  ///< last pod phase seen
  NodeStatus status = NodeStatus::pending;
  std::string reason;                 ///< for failed: ImagePull when the probe image cannot be pulled
  Text message;                       ///< one line for people (it may name a setting by key)
  std::optional<ProbeReport> report;  ///< the probe's report, judged again here
  int exit_code = -1;                 ///< the probe container's exit code (-1 unknown)
  bool ready() const { return status == NodeStatus::ready; }
};

/// How a whole run ends, for scripts (the plugin's exit code).
enum class CheckOutcome { ready, not_ready, no_gpu, no_result };

/// The whole run.
struct CheckResult {
  std::string run_id;
  std::vector<NodeGpuInfo> inventory;
  std::vector<NodeResult> nodes;
  std::vector<std::string> cluster_notes;  ///< cluster-wide findings before any probe
  bool cancelled = false;
  bool timed_out = false;
  /// True when at least one node was probed and every probed node is ready.
  bool all_ready() const;
  /// Every probed node ready: ready. A node not ready (or a probe that failed) outweighs
  /// one without GPUs, which outweighs one that gave no result in time. No GPU node: no_gpu.
  CheckOutcome outcome() const;
};

/// The inventory alone, no probe: the GPU nodes (one paged pass over the nodes), the GPUs
/// the pods bound to each hold (one paged pass over the pods that have not ended), what the
/// device plugin's and validator's pods say; `o.progress` hears each node, `o.nodes` must
/// exist. What run_gpu_check does before its probes.
CheckResult read_inventory(kube::Client client, const CheckOptions& o);

/// Explains why a pod has not started from its status and events (pure): the scheduler's
/// FailedScheduling message, an image pull error, or the last Warning event.
std::string explain_pending(const k8s::Pod& pod, const std::vector<k8s::Event>& events);

/// The pull failure of a Pending pod's container (ErrImagePull, ImagePullBackOff,
/// InvalidImageName, ErrImageNeverPull) with the registry's message, or "" (pure). The
/// kubelet's reasons: kubelet/images/types.go.
std::string image_pull_failure(const k8s::Pod& pod, const std::vector<k8s::Event>& events);

/// Judges a finished probe pod from its exit code and log text (pure).
void judge_probe_output(NodeResult& r, const std::string& logs, const VerdictOptions& v);

namespace detail {
/// Says one progress line when the caller asked for them.
void tell(const CheckOptions& o, const Text& line);

/// Whether the caller raised its cancel token.
bool cancel_raised(const CheckOptions& o);

/// Five random characters of [a-z0-9]: the run id when the caller gave none.
std::string random_run_id();

/// The pods in all namespaces that match `sel`; a list that fails is a cluster note, and no pods.
std::vector<k8s::Pod> pods_with(kube::Client& client, const std::string& sel, std::vector<std::string>& notes);

/// Cluster-wide, before any probe: what the device plugin's and validator's pods say per node.
void note_cluster_components(kube::Client& client, CheckResult& res);

/// The progress lines of the cluster notes and of each GPU node's inventory and notes.
void tell_inventory(const CheckResult& res, const CheckOptions& o);

/// Throws when a node the caller named is not in the cluster (`known`: every node's name).
void require_nodes(const std::set<std::string>& known, const std::vector<std::string>& wanted);

/// One result per inventory node the run covers: not-ready (a known problem) and skipped
/// (fewer GPUs than asked for) at once, the rest with a probe pod's name; returns the
/// indices of those to probe.
std::vector<std::size_t> choose_targets(CheckResult& res, const CheckOptions& o);

/// Deletes the probe pods a run created when it leaves scope, whatever ended it (unless `keep`).
struct ProbeCleanup {
  kube::Api<k8s::Pod>& pods;
  std::vector<std::string>& created;
  bool keep;
  const std::function<void(const Text&)>& say;  // CheckOptions::progress itself (a reference: no copy of another type)
  ~ProbeCleanup();
};

/// Creates the chosen nodes' probe pods until all exist or the caller cancels; each name
/// goes to `created` as soon as its pod exists (for the cleanup).
void create_probe_pods(kube::Api<k8s::Pod>& pods, CheckResult& res, const std::vector<std::size_t>& probing,
                       const CheckOptions& o, const std::string& ns, std::vector<std::string>& created);

/// Follows a run's probe pods with a watch (each change judged when it arrives) until every
/// one has a result, the deadline passes or the caller cancels. A side task meanwhile
/// refreshes the explanation of pods still Pending from the events every `poll` (an event can
/// come after the pod's last change) and tells running probes' last line every
/// `running_every`. The state is guarded by `mu_`; reads from the server happen outside it
/// (what they need is copied under it first) and so do the progress lines (`told_`, said by
/// speak(); `say_mu_` only keeps the caller's callback to one line at a time).
class ProbeFollower {
 public:
  /// Follows `probing` (indices into `res.nodes`, whose pods exist in `ns`).
  ProbeFollower(kube::Client& client, std::string ns, const CheckOptions& o, const VerdictOptions& v, CheckResult& res,
                const std::vector<std::size_t>& probing);

  /// Follows the pods until done, then ends those still open as cancelled or timed out.
  void run(kube::Api<k8s::Pod>& pods);

 private:
  using Clock = std::chrono::steady_clock;
  /// What judging one change of a pod needs from the server (read without `mu_`).
  struct Fetched {
    std::string logs, log_error;
    std::vector<k8s::Event> events;
  };

  /// Says the lines told so far (takes `mu_` only to take them).
  void speak();

  /// Records why node `i`'s pod is Pending, told when it changes (`mu_` held).
  void note_pending(std::size_t i, const k8s::Pod& p, const std::vector<k8s::Event>& events);

  /// The events about probe pod `p` (kubectl describe's field selector), or none when they
  /// cannot be listed (an explanation, not a requirement).
  std::vector<k8s::Event> pod_events(kube::Client& cl, const k8s::Pod& p) const;

  /// Reads what a change needs: the probe's log once the pod ended, the events while it is Pending.
  Fetched fetch(const k8s::Pod& p);

  /// Judges one change of node `i`'s pod (`mu_` held).
  void look(std::size_t i, const k8s::Pod& p, const Fetched& f);

  /// Node `i`'s probe pod ended: its result from the exit code and log (`mu_` held).
  void look_ended(std::size_t i, const k8s::Pod& p, const Fetched& f);

  /// Node `i`'s probe pod is Pending: failed at once when its image cannot be pulled, else
  /// explained (`mu_` held).
  void look_pending(std::size_t i, const k8s::Pod& p, const Fetched& f);

  /// Explains pods still Pending again from their events (read without `mu_`): each pod's
  /// by its own field selector, at most `refresh_batch` pods a call, taking turns, so a run
  /// over many nodes asks a bounded number of requests per `poll`.
  void refresh_pending(kube::Client& ec);
  static constexpr std::size_t refresh_batch = 8;

  /// Tells each running probe's time so far and last log line (read without `mu_`).
  void tell_running(kube::Client& ec);

  /// One watch event: a deleted pod fails its node, any other change is fetched (without
  /// `mu_`) and judged. Returns whether any pod is still open.
  bool on_event(const kube::WatchEvent<k8s::Pod>& ev);

  /// Ends the nodes still open once the watch is over: cancelled, or Pending/timeout at the deadline.
  void finish();

  kube::Client& client_;
  const std::string ns_;
  const CheckOptions& o_;
  const VerdictOptions& v_;
  CheckResult& res_;
  std::mutex mu_;
  std::set<std::size_t> open_;
  std::map<std::size_t, std::string> last_note_;
  std::map<std::string, std::size_t> index_of_;  // pod name -> its node's result
  std::map<std::size_t, k8s::Pod> pending_;     // the last state of pods still Pending
  std::size_t refresh_next_ = 0;                 // refresh_pending's turn: the first index it looks at
  std::map<std::size_t, Clock::time_point> running_since_;
  std::vector<std::string> told_;  // lines to say once `mu_` is released
  std::mutex say_mu_;              // one line at a time, from either thread
  const Clock::time_point deadline_;
};
}  // namespace detail

/// Runs the check: inventory, probe pods, results, cleanup. Throws tfjob errors for
/// problems that stop the whole run (cannot list nodes, cannot create pods); per-node
/// problems end up in that node's result.
CheckResult run_gpu_check(kube::Client client, const CheckOptions& o);

namespace detail {
nlohmann::json finding_list(const std::vector<Finding>& fs);
}  // namespace detail

/// The result as JSON (`-o json|yaml`).
nlohmann::json check_result_json(const CheckResult& r);

}  // namespace tfjob::gpu

#if TFJOB_SDK_DEFINE_GPU
namespace tfjob::gpu {

TFJOB_INLINE std::string NodeGpuInfo::product() const {
  for (const char* k : {"nvidia.com/gpu.product", "cloud.google.com/gke-accelerator", "cloud.google.com/gce-accelerator"}) {
    auto it = gfd.find(k);
    if (it != gfd.end()) return it->second;
  }
  return {};
}

namespace detail {
TFJOB_INLINE std::int64_t count_of(const std::string& q) {
  if (q.empty()) return 0;
  try {
    std::size_t used = 0;
    long long v = std::stoll(q, &used);
    return used == q.size() && v > 0 ? v : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

TFJOB_INLINE std::string lower_ascii(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

TFJOB_INLINE bool gpu_label(const std::string& k) {
  return k.rfind("nvidia.com/", 0) == 0 || k == "cloud.google.com/gke-accelerator" ||
         k == "cloud.google.com/gce-accelerator" || k == "feature.node.kubernetes.io/pci-10de.present";
}
}  // namespace detail

TFJOB_INLINE void read_gfd(NodeGpuInfo& g) {
  auto get = [&](const char* k) {
    auto it = g.gfd.find(k);
    return it == g.gfd.end() ? std::string() : it->second;
  };
  std::string major = get("nvidia.com/cuda.driver-version.major");
  std::string minor = get("nvidia.com/cuda.driver-version.minor");
  std::string rev = get("nvidia.com/cuda.driver-version.revision");
  if (major.empty()) {
    major = get("nvidia.com/cuda.driver.major");
    minor = get("nvidia.com/cuda.driver.minor");
    rev = get("nvidia.com/cuda.driver.rev");
  }
  g.driver_major = static_cast<int>(detail::count_of(major));
  g.driver_version = get("nvidia.com/cuda.driver-version.full");
  if (g.driver_version.empty() && !major.empty())
    g.driver_version = major + (minor.empty() ? "" : "." + minor) + (rev.empty() ? "" : "." + rev);
  g.architecture = detail::lower_ascii(get("nvidia.com/gpu.family"));
  if (g.architecture.empty() && get("nvidia.com/gpu.compute.major") == "7" && get("nvidia.com/gpu.compute.minor") == "0")
    g.architecture = "volta";
}

TFJOB_INLINE NodeGpuInfo inspect_node(const k8s::Node& n) {
  NodeGpuInfo g;
  g.name = n.metadata.name;
  g.hostname = n.metadata.label("kubernetes.io/hostname");
  if (g.hostname.empty()) g.hostname = g.name;
  g.capacity = detail::count_of(n.capacity(gpu_resource));
  g.allocatable = detail::count_of(n.allocatable(gpu_resource));
  for (const auto& [k, v] : n.metadata.labels)
    if (detail::gpu_label(k)) g.gfd[k] = v;
  for (const auto& t : n.spec.taints) g.taints.push_back(t);
  g.ready = n.ready();
  g.unschedulable = n.spec.unschedulable;
  g.looks_like_gpu = g.capacity > 0 || !g.gfd.empty();
  if (g.looks_like_gpu && g.allocatable == 0) {
    if (g.capacity > 0)
      g.problem = "all " + std::to_string(g.capacity) + " GPUs are unhealthy (capacity " + std::to_string(g.capacity) +
                  ", allocatable 0): see the NVIDIA device plugin's logs and nvidia-smi on the node";
    else
      g.problem = "looks like a GPU node (" + g.gfd.begin()->first + "=" + g.gfd.begin()->second +
                  ") but allocates no nvidia.com/gpu: the NVIDIA device plugin is missing or broken on this node";
  } else if (g.allocatable > 0 && !g.ready) {
    g.problem = "the node is not Ready";
  }
  read_gfd(g);
  if (g.architecture == "volta" && g.driver_major > last_volta_driver_branch && g.problem.empty())
    g.problem = "driver " + (g.driver_version.empty() ? "R" + std::to_string(g.driver_major) : g.driver_version) +
                " (GPU feature discovery) does not drive Volta: R" + std::to_string(last_volta_driver_branch) +
                " is the last branch that does (an LTSB, fixed until " + volta_last_branch_end_of_life +
                "); pin the driver to R580, e.g. the GPU Operator's driver.version";
  const std::string drv = g.driver_version.empty() ? "R" + std::to_string(g.driver_major) : g.driver_version;
  if (g.architecture == "volta" && g.driver_major > 0 && g.driver_major <= last_volta_driver_branch)
    g.notes.push_back("Volta under driver " + drv + ": R" + std::to_string(last_volta_driver_branch) +
                      " is the last branch that drives it (an LTSB, fixed until " + volta_last_branch_end_of_life +
                      "); keep the driver pinned to R580 through GPU Operator upgrades");
  // CUDA's release notes, table 3: a CUDA 12.x runtime (the probe image's, and TensorFlow's)
  // needs driver R525 or newer.
  if (g.driver_major > 0 && g.driver_major < min_cuda12_driver_branch)
    g.notes.push_back("driver " + drv + " is older than R" + std::to_string(min_cuda12_driver_branch) +
                      ", the oldest a CUDA 12 image (the probe's, TensorFlow's) runs on: upgrade the driver");
  if (g.capacity > 0 && g.allocatable > 0 && g.allocatable < g.capacity)
    g.notes.push_back(std::to_string(g.unhealthy()) + " of " + std::to_string(g.capacity) +
                      " GPUs unhealthy (nvidia.com/gpu allocatable " + std::to_string(g.allocatable) +
                      " < capacity): the device plugin withdrew them; see its log and nvidia-smi on the node");
  if (g.capacity > 0 && g.gfd.count("nvidia.com/gpu.product") == 0 && g.gfd.count("nvidia.com/gpu.family") == 0)
    g.notes.push_back("no GPU feature discovery labels (nvidia.com/gpu.product, nvidia.com/cuda.driver-version.*): "
                      "the model and driver are unknown until the probe runs; deploy GFD (the GPU Operator does)");
  return g;
}

TFJOB_INLINE const std::vector<std::string>& device_plugin_selectors() {
  static const std::vector<std::string> s = {"app=nvidia-device-plugin-daemonset",       // GPU Operator
                                             "app.kubernetes.io/name=nvidia-device-plugin"};  // its own chart
  return s;
}

namespace detail {
TFJOB_INLINE std::string pod_state(const k8s::Pod& p, bool& ok) {
  const std::string& phase = p.status.phase;
  ok = phase == "Running";
  if (const auto* c = p.status.condition("Ready"); ok && c && c->status != "True") ok = false;
  if (ok) return "Running";
  for (const auto* cs : {&p.status.init_container_statuses, &p.status.container_statuses})
    for (const auto& c : *cs) {
      auto said = [&](const std::string& reason, const std::string& message) {
        return phase + " (" + c.name + ": " + reason + (message.empty() ? "" : ": " + message) + ")";
      };
      if (c.state.waiting && !c.state.waiting->reason.empty())
        return said(c.state.waiting->reason, c.state.waiting->message);
      if (c.state.terminated && !c.state.terminated->reason.empty() && c.state.terminated->reason != "Completed")
        return said(c.state.terminated->reason, c.state.terminated->message);
    }
  return phase.empty() ? "unknown" : phase + (ok ? "" : " (not Ready)");
}
}  // namespace detail

TFJOB_INLINE std::vector<std::string> note_gpu_components(std::vector<NodeGpuInfo>& inv, const std::vector<k8s::Pod>& plugin_pods,
                                                          const std::vector<k8s::Pod>& validator_pods) {
  std::vector<std::string> cluster;
  if (plugin_pods.empty() && !inv.empty())
    cluster.push_back("no NVIDIA device plugin pods found (labels " + device_plugin_selectors()[0] + " or " +
                      device_plugin_selectors()[1] + "): installed another way, or missing");
  for (auto& g : inv) {
    auto judge = [&](const std::vector<k8s::Pod>& pods, const char* what) {
      if (pods.empty()) return;
      bool found = false;
      for (const auto& p : pods) {
        if (p.spec.node_name != g.name) continue;
        found = true;
        bool ok = false;
        std::string st = detail::pod_state(p, ok);
        if (!ok) g.notes.push_back(std::string(what) + " " + p.metadata.namespace_ + "/" + p.metadata.name + " is " + st);
      }
      if (!found && g.capacity > 0) g.notes.push_back(std::string(what) + ": no pod on this node");
    };
    judge(plugin_pods, "NVIDIA device plugin");
    judge(validator_pods, "GPU Operator validator");
  }
  return cluster;
}

TFJOB_INLINE std::vector<NodeGpuInfo> gpu_inventory(const std::vector<k8s::Node>& nodes) {
  std::vector<NodeGpuInfo> out;
  for (const auto& n : nodes) {
    auto g = inspect_node(n);
    if (g.looks_like_gpu) out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end(), [](const NodeGpuInfo& a, const NodeGpuInfo& b) { return a.name < b.name; });
  return out;
}

TFJOB_INLINE std::int64_t pod_gpus(const k8s::Pod& p) {
  auto of = [](const k8s::Container& c) -> std::int64_t {
    for (const auto* m : {&c.resources.requests, &c.resources.limits})
      if (auto it = m->find(gpu_resource); it != m->end()) return detail::count_of(it->second);
    return 0;
  };
  // the scheduler's rule (resource.PodRequests): the sum of the containers, or the largest
  // init container when that is more
  std::int64_t sum = 0, init = 0;
  for (const auto& c : p.spec.containers) sum += of(c);
  for (const auto& c : p.spec.init_containers) init = std::max(init, of(c));
  return std::max(sum, init);
}

TFJOB_INLINE bool holds_gpus(const k8s::Pod& p) {
  const std::string& ph = p.status.phase;
  return !p.spec.node_name.empty() && ph != "Succeeded" && ph != "Failed";
}

TFJOB_INLINE void add_gpu_use(std::unordered_map<std::string, NodeGpuUse>& use, const k8s::Pod& p) {
  if (!holds_gpus(p)) return;
  const std::int64_t n = pod_gpus(p);
  if (n <= 0) return;
  auto& u = use[p.spec.node_name];
  u.requested += n;
  ++u.pods;
}

TFJOB_INLINE std::unordered_map<std::string, NodeGpuUse> read_gpu_use(kube::Client& client) {
  std::unordered_map<std::string, NodeGpuUse> use;
  kube::ListParams lp;
  lp.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
  kube::Api<k8s::Pod>::all(client).list_pages(lp, [&](kube::ObjectList<k8s::Pod>& page) {
    for (const auto& p : page.items) add_gpu_use(use, p);
    return true;
  });
  return use;
}

TFJOB_INLINE std::vector<NodeGpuInfo> read_gpu_inventory(kube::Client& client, const std::string& label_selector,
                                                         std::set<std::string>* names) {
  std::vector<NodeGpuInfo> out;
  kube::ListParams lp;
  lp.label_selector = label_selector;
  kube::Api<k8s::Node>::all(client).list_pages(lp, [&](kube::ObjectList<k8s::Node>& page) {
    for (const auto& n : page.items) {
      if (names) names->insert(n.metadata.name);
      auto g = inspect_node(n);
      if (g.looks_like_gpu) out.push_back(std::move(g));
    }
    return true;
  });
  std::sort(out.begin(), out.end(), [](const NodeGpuInfo& a, const NodeGpuInfo& b) { return a.name < b.name; });
  return out;
}

TFJOB_INLINE void note_gpu_use(std::vector<NodeGpuInfo>& inv, const std::unordered_map<std::string, NodeGpuUse>& use) {
  for (auto& g : inv) {
    auto it = use.find(g.name);
    if (it == use.end()) continue;
    g.requested = it->second.requested;
    g.gpu_pods = it->second.pods;
  }
}

namespace detail {
TFJOB_INLINE int wait_slack_seconds(int deadline_seconds) { return std::min(15, 2 + deadline_seconds / 10); }
}  // namespace detail

TFJOB_INLINE k8s::Pod probe_pod(const NodeGpuInfo& node, const CheckOptions& o, const std::string& run_id) {
  std::int64_t gpus = o.gpus > 0 ? o.gpus : node.allocatable;
  // Pod names: DNS-1123 label-ish, at most 63 characters; keep the node recognisable.
  std::string n;
  for (char c : node.name) n += (std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(static_cast<unsigned char>(c))) : '-');
  std::string name = "tfjob-gpu-probe-" + run_id + "-";
  if (name.size() + n.size() > 63) n = n.substr(n.size() - (63 - name.size()));
  while (!n.empty() && n.front() == '-') n.erase(0, 1);
  name += n;
  while (!name.empty() && name.back() == '-') name.pop_back();
  nlohmann::json args = nlohmann::json::array();
  if (!o.expect.empty()) args = {"--expect", o.expect};
  if (o.strict) args.push_back("--strict");
  // The probe's own watchdog answers "no result" before the pod's deadline kills it.
  args.push_back("--watchdog");
  args.push_back(std::to_string(std::max(10, o.deadline_seconds - detail::wait_slack_seconds(o.deadline_seconds) - 5)));
  nlohmann::json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", name},
        {"labels", {{run_label, run_id}, {component_label, component_value}, {"app.kubernetes.io/managed-by", "kubectl-tfjob"}}},
        {"annotations", {{node_annotation, node.name}}}}},
      {"spec",
       {{"restartPolicy", "Never"},
        // Through the scheduler (not spec.nodeName), so that a node whose GPUs are all in
        // use leaves the pod Pending with a FailedScheduling event that says so.
        {"nodeSelector", {{"kubernetes.io/hostname", node.hostname}}},
        {"tolerations", nlohmann::json::array({{{"key", gpu_resource}, {"operator", "Exists"}}})},
        {"activeDeadlineSeconds", o.deadline_seconds},
        {"terminationGracePeriodSeconds", 5},
        {"automountServiceAccountToken", false},
        {"containers",
         nlohmann::json::array({{{"name", "probe"},
                                 {"image", o.image},
                                 {"imagePullPolicy", o.image_pull_policy},
                                 {"args", args},
                                 {"env", nlohmann::json::array({{{"name", "NODE_NAME"},
                                                                 {"valueFrom", {{"fieldRef", {{"fieldPath", "spec.nodeName"}}}}}}})},
                                 {"resources",
                                  {{"limits", {{gpu_resource, std::to_string(gpus)}}},
                                   {"requests", {{gpu_resource, std::to_string(gpus)}}}}}}})}}}};
  return pod.get<k8s::Pod>();
}

TFJOB_INLINE const char* to_string(NodeStatus s) {
  switch (s) {
    case NodeStatus::ready: return "ready";
    case NodeStatus::not_ready: return "not-ready";
    case NodeStatus::no_gpu: return "no-gpu";
    case NodeStatus::no_result: return "no-result";
    case NodeStatus::pending: return "pending";
    case NodeStatus::failed: return "failed";
    case NodeStatus::timeout: return "timeout";
    case NodeStatus::cancelled: return "cancelled";
    case NodeStatus::skipped: return "skipped";
  }
  return "unknown";
}

TFJOB_INLINE NodeStatus node_status_of_probe(const std::string& verdict) {
  if (verdict == "ready") return NodeStatus::ready;
  if (verdict == "not-ready") return NodeStatus::not_ready;
  if (verdict == "no-gpu") return NodeStatus::no_gpu;
  if (verdict == "no-result") return NodeStatus::no_result;
  return NodeStatus::failed;
}

TFJOB_INLINE bool CheckResult::all_ready() const {
  bool any = false;
  for (const auto& n : nodes) {
    if (n.status == NodeStatus::skipped) continue;
    any = true;
    if (!n.ready()) return false;
  }
  return any;
}

TFJOB_INLINE CheckOutcome CheckResult::outcome() const {
  if (all_ready()) return CheckOutcome::ready;
  bool no_gpu = false, no_result = false, any = false;
  for (const auto& n : nodes) {
    if (n.status == NodeStatus::skipped || n.status == NodeStatus::ready) continue;
    any = true;
    if (n.status == NodeStatus::no_gpu) no_gpu = true;
    else if (n.status == NodeStatus::pending || n.status == NodeStatus::timeout || n.status == NodeStatus::no_result ||
             n.status == NodeStatus::cancelled)
      no_result = true;
    else return CheckOutcome::not_ready;
  }
  if (!any || no_gpu) return CheckOutcome::no_gpu;
  return no_result ? CheckOutcome::no_result : CheckOutcome::not_ready;
}

TFJOB_INLINE std::string explain_pending(const k8s::Pod& pod, const std::vector<k8s::Event>& events) {
  for (const auto& c : pod.status.container_statuses)
    if (const auto& w = c.state.waiting; w && !w->reason.empty() && w->reason != "ContainerCreating" && w->reason != "PodInitializing")
      return w->reason + (w->message.empty() ? "" : ": " + w->message);
  std::string last;
  for (const auto& e : events) {
    if (e.involved_object.name != pod.metadata.name) continue;
    if (e.reason == "FailedScheduling") last = "FailedScheduling: " + e.message;
    else if (e.type == "Warning") last = e.reason + ": " + e.message;
    else if (e.reason == "Pulling") last = "pulling the probe image: " + e.message;
    else if (e.reason == "Pulled" || e.reason == "Scheduled") last.clear();
  }
  if (!last.empty()) {
    if (words::says_insufficient(last, "nvidia.com/gpu"))
      last += " (all of the node's GPUs are in use, or fewer than requested are healthy)";
    return last;
  }
  if (const auto* c = pod.status.condition("PodScheduled"); c && c->status == "False") return c->reason + ": " + c->message;
  return "waiting to be scheduled";
}

TFJOB_INLINE std::string image_pull_failure(const k8s::Pod& pod, const std::vector<k8s::Event>& events) {
  for (const auto& c : pod.status.container_statuses) {
    if (!c.state.waiting) continue;
    const std::string& reason = c.state.waiting->reason;
    if (!words::image_pull_problem(reason)) continue;
    std::string msg = c.state.waiting->message;
    // Up to 1.31 the back-off message only says `Back-off pulling image "IMG"`: the registry's
    // words are in the kubelet's Failed event (1.32 and later put them in the message too).
    if (reason != "ImagePullBackOff" || !words::pull_backoff_names_error(msg))
      for (const auto& e : events)
        if (e.involved_object.name == pod.metadata.name && e.reason == "Failed" && e.message.find("ull") != std::string::npos)
          msg = e.message;
    return reason + (msg.empty() ? "" : ": " + msg);
  }
  return {};
}

TFJOB_INLINE void judge_probe_output(NodeResult& r, const std::string& logs, const VerdictOptions& v) {
  try {
    ProbeReport rep = parse_probe_report(logs);
    if (rep.status != "no-gpu") evaluate(rep, v);
    else rep.expect = v.expect;
    r.status = node_status_of_probe(rep.status);
    r.message = rep.message;
    r.report = std::move(rep);
  } catch (const tfjob::error& e) {
    r.status = NodeStatus::failed;
    r.message = std::string("probe output unreadable (exit code ") + std::to_string(r.exit_code) + "): " + e.what();
  }
}

namespace detail {
TFJOB_INLINE void tell(const CheckOptions& o, const Text& line) {
  if (o.progress) o.progress(line);
}

TFJOB_INLINE bool cancel_raised(const CheckOptions& o) { return o.cancel && o.cancel->load(); }

TFJOB_INLINE std::string random_run_id() {
  std::random_device rd;
  const char* alnum = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string id;
  for (int i = 0; i < 5; ++i) id += alnum[rd() % 36];
  return id;
}

TFJOB_INLINE std::vector<k8s::Pod> pods_with(kube::Client& client, const std::string& sel, std::vector<std::string>& notes) {
  try {
    kube::ListParams lp;
    lp.label_selector = sel;
    return kube::Api<k8s::Pod>::all(client).list(lp).items;
  } catch (const tfjob::error& e) {
    notes.push_back("cannot list pods " + sel + " in all namespaces: " + e.what());
    return {};
  }
}

TFJOB_INLINE void note_cluster_components(kube::Client& client, CheckResult& res) {
  std::vector<k8s::Pod> plugin;
  for (const auto& sel : device_plugin_selectors())
    for (auto& p : pods_with(client, sel, res.cluster_notes)) plugin.push_back(std::move(p));
  auto validators = pods_with(client, validator_selector, res.cluster_notes);
  for (auto& n : note_gpu_components(res.inventory, plugin, validators)) res.cluster_notes.push_back(std::move(n));
}

TFJOB_INLINE void tell_inventory(const CheckResult& res, const CheckOptions& o) {
  for (const auto& n : res.cluster_notes) tell(o, "cluster: " + n);
  for (const auto& g : res.inventory) {
    std::string drv = g.driver_version.empty() ? "driver unknown" : "driver " + g.driver_version;
    tell(o, g.name + ": " + std::to_string(g.allocatable) + "/" + std::to_string(g.capacity) + " GPUs allocatable, " +
                (g.requested > 0 ? std::to_string(g.requested) + " held by " + std::to_string(g.gpu_pods) + " pod" +
                                       (g.gpu_pods == 1 ? "" : "s") + ", "
                                 : std::string()) +
                (g.product().empty() ? "model unknown" : g.product()) + ", " + drv +
                (g.architecture.empty() ? "" : " (" + g.architecture + ")"));
    for (const auto& n : g.notes) tell(o, g.name + ": " + n);
  }
}

TFJOB_INLINE void require_nodes(const std::set<std::string>& known, const std::vector<std::string>& wanted) {
  for (const auto& want : wanted)
    if (!known.count(want)) throw tfjob::error("node \"" + want + "\" not found");
}

TFJOB_INLINE std::vector<std::size_t> choose_targets(CheckResult& res, const CheckOptions& o) {
  std::vector<std::size_t> probing;  // indices into res.nodes
  for (const auto& g : res.inventory) {
    if (!o.nodes.empty() && std::find(o.nodes.begin(), o.nodes.end(), g.name) == o.nodes.end()) continue;
    NodeResult r;
    r.node = g;
    if (!g.problem.empty()) {
      r.status = NodeStatus::not_ready;
      r.message = g.problem;
      tell(o, g.name + ": not probed: " + g.problem);
    } else if (o.gpus > 0 && o.gpus > g.allocatable) {
      r.status = NodeStatus::skipped;
      r.message = setting::check_gpus + " " + std::to_string(o.gpus) + " but the node allocates " + std::to_string(g.allocatable);
      tell(o, g.name + ": skipped: " + r.message);
    } else {
      r.pod = probe_pod(g, o, res.run_id).metadata.name;
      probing.push_back(res.nodes.size());
      const std::int64_t asks = o.gpus > 0 ? o.gpus : g.allocatable;
      if (g.requested > 0 && asks > g.free())
        tell(o, g.name + ": the probe asks for " + std::to_string(asks) + " GPUs and " + std::to_string(g.free()) +
                    " are free: it waits until pods holding GPUs there end (or probe fewer: " + setting::check_gpus + ")");
    }
    res.nodes.push_back(std::move(r));
  }
  return probing;
}

TFJOB_INLINE ProbeCleanup::~ProbeCleanup() {
  if (keep || created.empty()) return;
  for (const auto& name : created) {
    try {
      kube::DeleteParams dp;
      dp.grace_period_seconds = 0;
      dp.propagation_policy = "Background";
      pods.remove_opt(name, dp);
    } catch (const std::exception& e) {
      if (say) say("could not delete pod " + name + ": " + e.what());
    }
  }
  if (say) say("deleted " + std::to_string(created.size()) + " probe pod" + (created.size() == 1 ? "" : "s"));
}

TFJOB_INLINE void create_probe_pods(kube::Api<k8s::Pod>& pods, CheckResult& res, const std::vector<std::size_t>& probing,
                                    const CheckOptions& o, const std::string& ns, std::vector<std::string>& created) {
  for (std::size_t i : probing) {
    if (cancel_raised(o)) break;
    auto& r = res.nodes[i];
    pods.create(probe_pod(r.node, o, res.run_id));
    created.push_back(r.pod);
    r.phase = "Pending";
    tell(o, r.node.name + ": created probe pod " + ns + "/" + r.pod);
  }
}

TFJOB_INLINE ProbeFollower::ProbeFollower(kube::Client& client, std::string ns, const CheckOptions& o, const VerdictOptions& v, CheckResult& res,
                                            const std::vector<std::size_t>& probing)
    : client_(client), ns_(std::move(ns)), o_(o), v_(v), res_(res), open_(probing.begin(), probing.end()),
      // The pods' own activeDeadlineSeconds plus a little for scheduling and log reading.
      deadline_(Clock::now() + std::chrono::seconds(o.deadline_seconds) + std::chrono::seconds(wait_slack_seconds(o.deadline_seconds))) {
  for (std::size_t i : probing) index_of_[res.nodes[i].pod] = i;
}

TFJOB_INLINE void ProbeFollower::run(kube::Api<k8s::Pod>& pods) {
  kube::Client ec = client_;  // the side task's own connection
  auto next_refresh = Clock::now() + o_.poll;
  auto next_running = Clock::now() + o_.running_every;
  kube::SideTask side(std::chrono::milliseconds(20), [&](const std::atomic<bool>&) {
    if (cancel_raised(o_) || Clock::now() > deadline_) return false;
    if (Clock::now() >= next_refresh) {
      refresh_pending(ec);
      next_refresh = Clock::now() + o_.poll;
    }
    // Never silent: a running probe is told every `running_every` with its last line.
    if (Clock::now() >= next_running) {
      tell_running(ec);
      next_running = Clock::now() + o_.running_every;
    }
    speak();
    return true;
  });
  if (!open_.empty()) {
    kube::WatchParams wp;
    wp.label_selector = std::string(run_label) + "=" + res_.run_id;
    kube::StreamOptions so;  // the watch itself ends at the deadline or on cancel
    so.cancel = o_.cancel;
    so.deadline = deadline_;
    pods.watch(wp, [&](const kube::WatchEvent<k8s::Pod>& ev) { return on_event(ev); }, so);
  }
  side.stop();
  speak();
  finish();
}

TFJOB_INLINE void ProbeFollower::speak() {
  std::vector<std::string> lines;
  {
    std::lock_guard<std::mutex> lk(mu_);
    lines.swap(told_);
  }
  std::lock_guard<std::mutex> lk(say_mu_);
  for (const auto& l : lines) tell(o_, l);
}

TFJOB_INLINE void ProbeFollower::note_pending(std::size_t i, const k8s::Pod& p, const std::vector<k8s::Event>& events) {
  auto& r = res_.nodes[i];
  std::string note = "Pending: " + explain_pending(p, events);
  r.message = note;
  if (last_note_[i] != note) {
    last_note_[i] = note;
    told_.push_back(r.node.name + ": " + note);
  }
}

TFJOB_INLINE std::vector<k8s::Event> ProbeFollower::pod_events(kube::Client& cl, const k8s::Pod& p) const {
  try {
    return kube::Api<k8s::Event>(cl, ns_).list(kube::events_about("Pod", p.metadata.name, ns_, p.metadata.uid)).items;
  } catch (const tfjob::error&) {
    return {};
  }
}

TFJOB_INLINE ProbeFollower::Fetched ProbeFollower::fetch(const k8s::Pod& p) {
  Fetched f;
  const std::string& phase = p.status.phase;
  if (phase == "Succeeded" || phase == "Failed") {
    try {
      kube::LogParams lp;
      lp.container = "probe";
      f.logs = kube::get_logs(client_, ns_, p.metadata.name, lp);
    } catch (const tfjob::error& e) {
      f.log_error = std::string("cannot read the probe's log: ") + e.what();
    }
  } else if (phase == "Pending") {
    f.events = pod_events(client_, p);
  }
  return f;
}

TFJOB_INLINE void ProbeFollower::look(std::size_t i, const k8s::Pod& p, const Fetched& f) {
  auto& r = res_.nodes[i];
  r.phase = p.status.phase;
  if (r.phase == "Succeeded" || r.phase == "Failed") return look_ended(i, p, f);
  if (r.phase == "Pending") return look_pending(i, p, f);
  pending_.erase(i);
  r.message = Text();
  if (r.phase == "Running" && !running_since_.count(i)) running_since_[i] = Clock::now();
  if (last_note_[i] != r.phase) {
    last_note_[i] = r.phase;
    told_.push_back(r.node.name + ": " + r.phase);
  }
}

TFJOB_INLINE void ProbeFollower::look_ended(std::size_t i, const k8s::Pod& p, const Fetched& f) {
  auto& r = res_.nodes[i];
  pending_.erase(i);
  const auto* probe = p.container_status("probe");
  r.exit_code = probe && probe->state.terminated ? probe->state.terminated->exit_code : -1;
  if (!f.log_error.empty()) r.message = f.log_error;
  if (r.phase == "Failed" && f.logs.find('{') == std::string::npos) {
    r.status = NodeStatus::failed;
    const std::string& why = p.status.reason;
    const std::string& msg = p.status.message;
    r.message = "probe pod failed" + (why.empty() ? std::string() : ": " + why) + (msg.empty() ? "" : ": " + msg) +
                (r.exit_code >= 0 ? " (exit code " + std::to_string(r.exit_code) + ")" : "") +
                (r.message.empty() ? "" : "; " + r.message);
  } else {
    judge_probe_output(r, f.logs, v_);
  }
  told_.push_back(r.node.name + ": " + to_string(r.status) + (r.message.empty() ? "" : ": " + r.message.str()));
  open_.erase(i);
}

TFJOB_INLINE void ProbeFollower::look_pending(std::size_t i, const k8s::Pod& p, const Fetched& f) {
  auto& r = res_.nodes[i];
  std::string pull = image_pull_failure(p, f.events);
  if (pull.empty()) {
    pending_[i] = p;
    return note_pending(i, p, f.events);
  }
  // Waiting out the deadline would not help: the node cannot get the image.
  pending_.erase(i);
  r.status = NodeStatus::failed;
  r.reason = "ImagePull";
  r.message = "cannot pull the probe image " + o_.image + ": " + pull +
              "; build the image from gpu/Dockerfile, push it to a registry the nodes can pull from, and use that image";
  told_.push_back(r.node.name + ": failed: " + r.message.str());
  open_.erase(i);
}

TFJOB_INLINE void ProbeFollower::refresh_pending(kube::Client& ec) {
  std::map<std::size_t, k8s::Pod> pending;
  {
    std::lock_guard<std::mutex> lk(mu_);
    for (auto it = pending_.lower_bound(refresh_next_); it != pending_.end() && pending.size() < refresh_batch; ++it)
      pending.insert(*it);
    for (auto it = pending_.begin(); it != pending_.end() && pending.size() < refresh_batch; ++it) pending.insert(*it);
    refresh_next_ = pending.empty() ? 0 : pending.rbegin()->first + 1;
  }
  std::map<std::size_t, std::vector<k8s::Event>> events;  // each pending pod's own, read without mu_
  for (const auto& [i, p] : pending) events[i] = pod_events(ec, p);
  std::lock_guard<std::mutex> lk(mu_);
  for (const auto& [i, p] : pending_)
    if (open_.count(i) && events.count(i)) note_pending(i, p, events[i]);
}

TFJOB_INLINE void ProbeFollower::tell_running(kube::Client& ec) {
  std::vector<std::tuple<Clock::time_point, std::string, std::string>> running;  // since, node, pod
  {
    std::lock_guard<std::mutex> lk(mu_);
    for (const auto& [i, t] : running_since_)
      if (open_.count(i) && res_.nodes[i].phase == "Running") running.emplace_back(t, res_.nodes[i].node.name, res_.nodes[i].pod);
  }
  std::vector<std::string> lines;
  for (const auto& [t, node, pod] : running) {
    std::string last;
    try {
      kube::LogParams lp;
      lp.container = "probe";
      lp.tail_lines = 1;
      last = kube::get_logs(ec, ns_, pod, lp);
    } catch (const tfjob::error&) {
    }
    while (!last.empty() && (last.back() == '\n' || last.back() == '\r')) last.pop_back();
    if (last.size() > 160) last = last.substr(0, 157) + "...";
    const auto secs = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - t).count();
    lines.push_back(node + ": running for " + std::to_string(secs) + " s" + (last.empty() ? "" : ": " + last));
  }
  std::lock_guard<std::mutex> lk(mu_);
  told_.insert(told_.end(), lines.begin(), lines.end());
}

TFJOB_INLINE bool ProbeFollower::on_event(const kube::WatchEvent<k8s::Pod>& ev) {
  std::size_t i = 0;
  {
    std::lock_guard<std::mutex> lk(mu_);
    auto it = index_of_.find(ev.object.metadata.name);
    if (it == index_of_.end() || !open_.count(it->second)) return !open_.empty();
    i = it->second;
    if (ev.type == kube::EventType::deleted) {
      auto& r = res_.nodes[i];
      r.status = NodeStatus::failed;
      r.message = "the probe pod disappeared (deleted by someone else?)";
      told_.push_back(r.node.name + ": " + r.message.str());
      open_.erase(i);
      pending_.erase(i);
    }
  }
  if (ev.type != kube::EventType::deleted) {
    const Fetched f = fetch(ev.object);
    std::lock_guard<std::mutex> lk(mu_);
    if (open_.count(i)) look(i, ev.object, f);
  }
  speak();
  std::lock_guard<std::mutex> lk(mu_);
  return !open_.empty();
}

TFJOB_INLINE void ProbeFollower::finish() {
  if (!open_.empty() && cancel_raised(o_)) {
    res_.cancelled = true;
    for (std::size_t i : open_) {
      res_.nodes[i].status = NodeStatus::cancelled;
      res_.nodes[i].message = "interrupted while the probe was " + res_.nodes[i].phase;
    }
    open_.clear();
  } else if (!open_.empty()) {
    res_.timed_out = true;  // the watch ended at the deadline
  }
  if (!res_.timed_out) return;
  for (std::size_t i : open_) {
    auto& r = res_.nodes[i];
    r.status = r.phase == "Pending" ? NodeStatus::pending : NodeStatus::timeout;
    r.message = "no result within " + std::to_string(o_.deadline_seconds) + "s" + (r.message.empty() ? "" : " (" + r.message + ")");
  }
}
}  // namespace detail

TFJOB_INLINE CheckResult read_inventory(kube::Client client, const CheckOptions& o) {
  CheckResult res;
  // the nodes in one paged pass, then the pods holding GPUs in another (each page summed per
  // node as it arrives): what the inventory costs is linear in the cluster, its memory in nodes
  std::set<std::string> names;
  res.inventory = read_gpu_inventory(client, {}, o.nodes.empty() ? nullptr : &names);
  if (!res.inventory.empty()) {
    try {
      note_gpu_use(res.inventory, read_gpu_use(client));
    } catch (const api_error& e) {
      if (!e.is_forbidden()) throw;
      res.cluster_notes.push_back("cannot list pods in all namespaces (403): GPUs already held by pods are not known");
    }
    detail::note_cluster_components(client, res);
    detail::tell_inventory(res, o);
  }
  if (!o.nodes.empty()) detail::require_nodes(names, o.nodes);
  return res;
}

TFJOB_INLINE CheckResult run_gpu_check(kube::Client client, const CheckOptions& o) {
  CheckResult res = read_inventory(client, o);
  res.run_id = o.run_id.empty() ? detail::random_run_id() : o.run_id;
  const std::string ns = o.namespace_.empty() ? client.namespace_() : o.namespace_;
  VerdictOptions vopt;
  if (!o.expect.empty()) vopt.expect = normalize_expect(o.expect);
  vopt.strict = o.strict;
  CheckOptions po = o;  // the probe pods' options: the expected family normalised
  po.expect = vopt.expect;

  const std::vector<std::size_t> probing = detail::choose_targets(res, po);
  if (res.inventory.empty()) detail::tell(o, "no node offers nvidia.com/gpu or looks like a GPU node");

  kube::Api<k8s::Pod> pods(client, ns);
  std::vector<std::string> created;
  detail::ProbeCleanup cleanup{pods, created, o.keep, o.progress};  // whatever happens next
  detail::create_probe_pods(pods, res, probing, po, ns, created);
  detail::ProbeFollower(client, ns, o, vopt, res, probing).run(pods);
  return res;
}

namespace detail {
TFJOB_INLINE nlohmann::json finding_list(const std::vector<Finding>& fs) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& f : fs) a.push_back(f);
  return a;
}
}  // namespace detail

TFJOB_INLINE nlohmann::json check_result_json(const CheckResult& r) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& n : r.nodes) {
    nlohmann::json j = {{"node", n.node.name},
                        {"status", to_string(n.status)},
                        {"ready", n.ready()},
                        {"message", n.message.str()},
                        {"pod", n.pod},
                        {"phase", n.phase},
                        {"exitCode", n.exit_code},
                        {"gpuCapacity", n.node.capacity},
                        {"gpuAllocatable", n.node.allocatable},
                        {"gpuUnhealthy", n.node.unhealthy()},
                        {"product", n.node.product()},
                        {"reason", n.reason},
                        {"notes", n.node.notes},
                        {"report", n.report ? nlohmann::json(*n.report) : nlohmann::json(nullptr)}};
    nodes.push_back(std::move(j));
  }
  nlohmann::json inv = nlohmann::json::array();
  for (const auto& g : r.inventory)
    inv.push_back({{"node", g.name},
                   {"capacity", g.capacity},
                   {"allocatable", g.allocatable},
                   {"requested", g.requested},
                   {"gpuPods", g.gpu_pods},
                   {"unhealthy", g.unhealthy()},
                   {"ready", g.ready},
                   {"unschedulable", g.unschedulable},
                   {"labels", g.gfd},
                   {"taints", g.taints},
                   {"problem", g.problem},
                   {"driverVersion", g.driver_version},
                   {"architecture", g.architecture},
                   {"notes", g.notes}});
  return {{"apiVersion", "kubectl-tfjob/v1"},
          {"kind", "GpuCheck"},
          {"runId", r.run_id},
          {"ready", r.all_ready()},
          {"cancelled", r.cancelled},
          {"timedOut", r.timed_out},
          {"inventory", inv},
          {"clusterNotes", r.cluster_notes},
          {"nodes", nodes}};
}

}  // namespace tfjob::gpu
#endif  // TFJOB_SDK_DEFINE_GPU
