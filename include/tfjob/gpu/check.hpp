#pragma once
/// \file `gpu-check` as an SDK workflow: the GPU inventory of a cluster's nodes, one probe
/// pod per GPU node (pinned to it, requesting its GPUs, tolerating nvidia.com/gpu taints,
/// bounded by activeDeadlineSeconds, labelled for cleanup), pods that stay Pending
/// explained from their events, the probe JSON read back from the pod logs and judged by
/// the verdict rules (verdict.hpp), and the pods deleted at the end or on cancel.
/// The inventory and the pod are pure functions; `run_gpu_check` does the I/O.

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
NodeGpuInfo inspect_node(const kube::Node& n);

/// Labels of the NVIDIA device plugin's and the GPU Operator validator's pods.
const std::vector<std::string>& device_plugin_selectors();
inline constexpr const char* validator_selector = "app=nvidia-operator-validator";

namespace detail {
/// "Running", or the phase and the first waiting/terminated reason of a pod that is not.
std::string pod_state(const kube::Pod& p, bool& ok);
}  // namespace detail

/// What the NVIDIA device plugin's and GPU Operator validator's pods say about each GPU
/// node (pure): a node whose plugin pod is not Running and Ready, or whose validator is not
/// Running (it stays in an init container while a component fails), gets a note. Returns
/// cluster-wide notes (e.g. no device plugin pods found).
std::vector<std::string> note_gpu_components(std::vector<NodeGpuInfo>& inv, const std::vector<kube::Pod>& plugin_pods,
                                             const std::vector<kube::Pod>& validator_pods);

/// The GPU inventory: every node that has GPUs or looks like a GPU node, by name (pure).
std::vector<NodeGpuInfo> gpu_inventory(const std::vector<kube::Node>& nodes);

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
  std::function<void(const std::string&)> progress;  ///< one line per change (stderr)
};

namespace detail {
/// Seconds the run waits beyond the pods' activeDeadlineSeconds (scheduling, log reading);
/// the probe's watchdog fires this much and 5 s more before that deadline.
int wait_slack_seconds(int deadline_seconds);
}  // namespace detail

/// The probe pod for one node (pure).
kube::Pod probe_pod(const NodeGpuInfo& node, const CheckOptions& o, const std::string& run_id);

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

/// Explains why a pod has not started from its status and events (pure): the scheduler's
/// FailedScheduling message, an image pull error, or the last Warning event.
std::string explain_pending(const kube::Pod& pod, const std::vector<kube::Event>& events);

/// The pull failure of a Pending pod's container (ErrImagePull, ImagePullBackOff,
/// InvalidImageName, ErrImageNeverPull) with the registry's message, or "" (pure). The
/// kubelet's reasons: kubelet/images/types.go.
std::string image_pull_failure(const kube::Pod& pod, const std::vector<kube::Event>& events);

/// Judges a finished probe pod from its exit code and log text (pure).
void judge_probe_output(NodeResult& r, const std::string& logs, const VerdictOptions& v);

namespace detail {
/// Says one progress line when the caller asked for them.
void tell(const CheckOptions& o, const std::string& line);

/// Whether the caller raised its cancel token.
bool cancel_raised(const CheckOptions& o);

/// Five random characters of [a-z0-9]: the run id when the caller gave none.
std::string random_run_id();

/// The pods in all namespaces that match `sel`; a list that fails is a cluster note, and no pods.
std::vector<kube::Pod> pods_with(kube::Client& client, const std::string& sel, std::vector<std::string>& notes);

/// Cluster-wide, before any probe: what the device plugin's and validator's pods say per node.
void note_cluster_components(kube::Client& client, CheckResult& res);

/// The progress lines of the cluster notes and of each GPU node's inventory and notes.
void tell_inventory(const CheckResult& res, const CheckOptions& o);

/// Throws when a node the caller named is not in the cluster.
void require_nodes(const std::vector<kube::Node>& nodes, const std::vector<std::string>& wanted);

/// One result per inventory node the run covers: not-ready (a known problem) and skipped
/// (fewer GPUs than asked for) at once, the rest with a probe pod's name; returns the
/// indices of those to probe.
std::vector<std::size_t> choose_targets(CheckResult& res, const CheckOptions& o);

/// Deletes the probe pods a run created when it leaves scope, whatever ended it (unless `keep`).
struct ProbeCleanup {
  kube::Api<kube::Pod>& pods;
  std::vector<std::string>& created;
  bool keep;
  const std::function<void(const std::string&)>& say;
  ~ProbeCleanup();
};

/// Creates the chosen nodes' probe pods until all exist or the caller cancels; each name
/// goes to `created` as soon as its pod exists (for the cleanup).
void create_probe_pods(kube::Api<kube::Pod>& pods, CheckResult& res, const std::vector<std::size_t>& probing,
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
  void run(kube::Api<kube::Pod>& pods);

 private:
  using Clock = std::chrono::steady_clock;
  /// What judging one change of a pod needs from the server (read without `mu_`).
  struct Fetched {
    std::string logs, log_error;
    std::vector<kube::Event> events;
  };

  /// Says the lines told so far (takes `mu_` only to take them).
  void speak();

  /// Records why node `i`'s pod is Pending, told when it changes (`mu_` held).
  void note_pending(std::size_t i, const kube::Pod& p, const std::vector<kube::Event>& events);

  /// The namespace's events, or none when they cannot be listed (an explanation, not a requirement).
  std::vector<kube::Event> namespace_events(kube::Client& cl) const;

  /// Reads what a change needs: the probe's log once the pod ended, the events while it is Pending.
  Fetched fetch(const kube::Pod& p);

  /// Judges one change of node `i`'s pod (`mu_` held).
  void look(std::size_t i, const kube::Pod& p, const Fetched& f);

  /// Node `i`'s probe pod ended: its result from the exit code and log (`mu_` held).
  void look_ended(std::size_t i, const kube::Pod& p, const Fetched& f);

  /// Node `i`'s probe pod is Pending: failed at once when its image cannot be pulled, else
  /// explained (`mu_` held).
  void look_pending(std::size_t i, const kube::Pod& p, const Fetched& f);

  /// Explains the pods still Pending again from the namespace's events (listed without `mu_`).
  void refresh_pending(kube::Client& ec);

  /// Tells each running probe's time so far and last log line (read without `mu_`).
  void tell_running(kube::Client& ec);

  /// One watch event: a deleted pod fails its node, any other change is fetched (without
  /// `mu_`) and judged. Returns whether any pod is still open.
  bool on_event(const kube::WatchEvent<kube::Pod>& ev);

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
  std::map<std::size_t, kube::Pod> pending_;     // the last state of pods still Pending
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

TFJOB_INLINE NodeGpuInfo inspect_node(const kube::Node& n) {
  NodeGpuInfo g;
  g.name = n.name();
  g.hostname = n.label("kubernetes.io/hostname");
  if (g.hostname.empty()) g.hostname = g.name;
  g.capacity = detail::count_of(n.capacity(gpu_resource));
  g.allocatable = detail::count_of(n.allocatable(gpu_resource));
  for (const auto& [k, v] : n.labels())
    if (detail::gpu_label(k)) g.gfd[k] = v;
  const auto& taints = n.at_or_null("/spec/taints");
  if (taints.is_array())
    for (const auto& t : taints) g.taints.push_back(t);
  g.ready = n.ready();
  g.unschedulable = n.unschedulable();
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
TFJOB_INLINE std::string pod_state(const kube::Pod& p, bool& ok) {
  std::string phase = p.phase();
  ok = phase == "Running";
  const auto& conds = p.at_or_null("/status/conditions");
  if (ok && conds.is_array())
    for (const auto& c : conds)
      if (tfjob::detail::value_at(c, "type", "") == "Ready" && tfjob::detail::value_at(c, "status", "") != "True") ok = false;
  if (ok) return "Running";
  for (const char* key : {"/status/initContainerStatuses", "/status/containerStatuses"}) {
    const auto& cs = p.at_or_null(key);
    if (!cs.is_array()) continue;
    for (const auto& c : cs) {
      const auto& st = tfjob::detail::value_at(c, "state", nlohmann::json::object());
      for (const char* s : {"waiting", "terminated"})
        if (st.contains(s) && !tfjob::detail::value_at(st[s], "reason", "").empty() && tfjob::detail::value_at(st[s], "reason", "") != "Completed")
          return phase + " (" + tfjob::detail::value_at(c, "name", "") + ": " + tfjob::detail::value_at(st[s], "reason", "") +
                 (tfjob::detail::value_at(st[s], "message", "").empty() ? "" : ": " + tfjob::detail::value_at(st[s], "message", "")) + ")";
    }
  }
  return phase.empty() ? "unknown" : phase + (ok ? "" : " (not Ready)");
}
}  // namespace detail

TFJOB_INLINE std::vector<std::string> note_gpu_components(std::vector<NodeGpuInfo>& inv, const std::vector<kube::Pod>& plugin_pods,
                                                          const std::vector<kube::Pod>& validator_pods) {
  std::vector<std::string> cluster;
  if (plugin_pods.empty() && !inv.empty())
    cluster.push_back("no NVIDIA device plugin pods found (labels " + device_plugin_selectors()[0] + " or " +
                      device_plugin_selectors()[1] + "): installed another way, or missing");
  for (auto& g : inv) {
    auto judge = [&](const std::vector<kube::Pod>& pods, const char* what) {
      if (pods.empty()) return;
      bool found = false;
      for (const auto& p : pods) {
        if (p.node_name() != g.name) continue;
        found = true;
        bool ok = false;
        std::string st = detail::pod_state(p, ok);
        if (!ok) g.notes.push_back(std::string(what) + " " + p.namespace_() + "/" + p.name() + " is " + st);
      }
      if (!found && g.capacity > 0) g.notes.push_back(std::string(what) + ": no pod on this node");
    };
    judge(plugin_pods, "NVIDIA device plugin");
    judge(validator_pods, "GPU Operator validator");
  }
  return cluster;
}

TFJOB_INLINE std::vector<NodeGpuInfo> gpu_inventory(const std::vector<kube::Node>& nodes) {
  std::vector<NodeGpuInfo> out;
  for (const auto& n : nodes) {
    auto g = inspect_node(n);
    if (g.looks_like_gpu) out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end(), [](const NodeGpuInfo& a, const NodeGpuInfo& b) { return a.name < b.name; });
  return out;
}

namespace detail {
TFJOB_INLINE int wait_slack_seconds(int deadline_seconds) { return std::min(15, 2 + deadline_seconds / 10); }
}  // namespace detail

TFJOB_INLINE kube::Pod probe_pod(const NodeGpuInfo& node, const CheckOptions& o, const std::string& run_id) {
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
  return kube::Pod(std::move(pod));
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

TFJOB_INLINE std::string explain_pending(const kube::Pod& pod, const std::vector<kube::Event>& events) {
  const auto& cs = pod.at_or_null("/status/containerStatuses");
  if (cs.is_array())
    for (const auto& c : cs) {
      const auto& w = tfjob::detail::obj_at(c, "/state/waiting"_json_pointer);
      std::string reason = tfjob::detail::value_at(w, "reason", "");
      if (!reason.empty() && reason != "ContainerCreating" && reason != "PodInitializing")
        return reason + (tfjob::detail::value_at(w, "message", "").empty() ? "" : ": " + tfjob::detail::value_at(w, "message", ""));
    }
  std::string last;
  for (const auto& e : events) {
    if (e.involved_name() != pod.name()) continue;
    if (e.reason() == "FailedScheduling") last = "FailedScheduling: " + e.message();
    else if (e.type() == "Warning") last = e.reason() + ": " + e.message();
    else if (e.reason() == "Pulling") last = "pulling the probe image: " + e.message();
    else if (e.reason() == "Pulled" || e.reason() == "Scheduled") last.clear();
  }
  if (!last.empty()) {
    if (last.find("Insufficient nvidia.com/gpu") != std::string::npos)
      last += " (all of the node's GPUs are in use, or fewer than requested are healthy)";
    return last;
  }
  const auto& conds = pod.at_or_null("/status/conditions");
  if (conds.is_array())
    for (const auto& c : conds)
      if (tfjob::detail::value_at(c, "type", "") == "PodScheduled" && tfjob::detail::value_at(c, "status", "") == "False")
        return tfjob::detail::value_at(c, "reason", "") + ": " + tfjob::detail::value_at(c, "message", "");
  return "waiting to be scheduled";
}

TFJOB_INLINE std::string image_pull_failure(const kube::Pod& pod, const std::vector<kube::Event>& events) {
  const auto& cs = pod.at_or_null("/status/containerStatuses");
  if (!cs.is_array()) return {};
  for (const auto& c : cs) {
    const auto& w = tfjob::detail::obj_at(c, "/state/waiting"_json_pointer);
    std::string reason = tfjob::detail::value_at(w, "reason", "");
    if (reason != "ErrImagePull" && reason != "ImagePullBackOff" && reason != "InvalidImageName" &&
        reason != "ErrImageNeverPull")
      continue;
    std::string msg = tfjob::detail::value_at(w, "message", "");
    // The back-off message only says "Back-off pulling image"; the registry's words are in
    // the kubelet's Failed event.
    for (const auto& e : events)
      if (e.involved_name() == pod.name() && e.reason() == "Failed" && e.message().find("ull") != std::string::npos)
        msg = e.message();
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
TFJOB_INLINE void tell(const CheckOptions& o, const std::string& line) {
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

TFJOB_INLINE std::vector<kube::Pod> pods_with(kube::Client& client, const std::string& sel, std::vector<std::string>& notes) {
  try {
    kube::ListParams lp;
    lp.label_selector = sel;
    return kube::Api<kube::Pod>::all(client).list(lp).items;
  } catch (const tfjob::error& e) {
    notes.push_back("cannot list pods " + sel + " in all namespaces: " + e.what());
    return {};
  }
}

TFJOB_INLINE void note_cluster_components(kube::Client& client, CheckResult& res) {
  std::vector<kube::Pod> plugin;
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
                (g.product().empty() ? "model unknown" : g.product()) + ", " + drv +
                (g.architecture.empty() ? "" : " (" + g.architecture + ")"));
    for (const auto& n : g.notes) tell(o, g.name + ": " + n);
  }
}

TFJOB_INLINE void require_nodes(const std::vector<kube::Node>& nodes, const std::vector<std::string>& wanted) {
  std::set<std::string> known;
  for (const auto& n : nodes) known.insert(n.name());
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
      tell(o, g.name + ": skipped: " + r.message.str());
    } else {
      r.pod = probe_pod(g, o, res.run_id).name();
      probing.push_back(res.nodes.size());
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

TFJOB_INLINE void create_probe_pods(kube::Api<kube::Pod>& pods, CheckResult& res, const std::vector<std::size_t>& probing,
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

TFJOB_INLINE void ProbeFollower::run(kube::Api<kube::Pod>& pods) {
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
    pods.watch(wp, [&](const kube::WatchEvent<kube::Pod>& ev) { return on_event(ev); }, so);
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

TFJOB_INLINE void ProbeFollower::note_pending(std::size_t i, const kube::Pod& p, const std::vector<kube::Event>& events) {
  auto& r = res_.nodes[i];
  std::string note = "Pending: " + explain_pending(p, events);
  r.message = note;
  if (last_note_[i] != note) {
    last_note_[i] = note;
    told_.push_back(r.node.name + ": " + note);
  }
}

TFJOB_INLINE std::vector<kube::Event> ProbeFollower::namespace_events(kube::Client& cl) const {
  try {
    return kube::Api<kube::Event>(cl, ns_).list().items;
  } catch (const tfjob::error&) {
    return {};
  }
}

TFJOB_INLINE ProbeFollower::Fetched ProbeFollower::fetch(const kube::Pod& p) {
  Fetched f;
  const std::string phase = p.phase();
  if (phase == "Succeeded" || phase == "Failed") {
    try {
      kube::LogParams lp;
      lp.container = "probe";
      f.logs = kube::get_logs(client_, ns_, p.name(), lp);
    } catch (const tfjob::error& e) {
      f.log_error = std::string("cannot read the probe's log: ") + e.what();
    }
  } else if (phase == "Pending") {
    f.events = namespace_events(client_);
  }
  return f;
}

TFJOB_INLINE void ProbeFollower::look(std::size_t i, const kube::Pod& p, const Fetched& f) {
  auto& r = res_.nodes[i];
  r.phase = p.phase();
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

TFJOB_INLINE void ProbeFollower::look_ended(std::size_t i, const kube::Pod& p, const Fetched& f) {
  auto& r = res_.nodes[i];
  pending_.erase(i);
  const nlohmann::json* probe = kube::container_status(p.json, "probe");
  r.exit_code = probe ? tfjob::detail::value_at(*probe, "/state/terminated/exitCode"_json_pointer, -1) : -1;
  if (!f.log_error.empty()) r.message = f.log_error;
  if (r.phase == "Failed" && f.logs.find('{') == std::string::npos) {
    r.status = NodeStatus::failed;
    std::string why = p.str("/status/reason");
    std::string msg = p.str("/status/message");
    r.message = "probe pod failed" + (why.empty() ? std::string() : ": " + why) + (msg.empty() ? "" : ": " + msg) +
                (r.exit_code >= 0 ? " (exit code " + std::to_string(r.exit_code) + ")" : "") +
                (r.message.empty() ? "" : "; " + r.message);
  } else {
    judge_probe_output(r, f.logs, v_);
  }
  told_.push_back(r.node.name + ": " + to_string(r.status) + (r.message.empty() ? "" : ": " + r.message.str()));
  open_.erase(i);
}

TFJOB_INLINE void ProbeFollower::look_pending(std::size_t i, const kube::Pod& p, const Fetched& f) {
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
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (pending_.empty()) return;
  }
  auto events = namespace_events(ec);
  std::lock_guard<std::mutex> lk(mu_);
  for (const auto& [i, p] : pending_)
    if (open_.count(i)) note_pending(i, p, events);
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

TFJOB_INLINE bool ProbeFollower::on_event(const kube::WatchEvent<kube::Pod>& ev) {
  std::size_t i = 0;
  {
    std::lock_guard<std::mutex> lk(mu_);
    auto it = index_of_.find(ev.object.name());
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

TFJOB_INLINE CheckResult run_gpu_check(kube::Client client, const CheckOptions& o) {
  CheckResult res;
  res.run_id = o.run_id.empty() ? detail::random_run_id() : o.run_id;
  const std::string ns = o.namespace_.empty() ? client.namespace_() : o.namespace_;
  VerdictOptions vopt;
  if (!o.expect.empty()) vopt.expect = normalize_expect(o.expect);
  vopt.strict = o.strict;
  CheckOptions po = o;  // the probe pods' options: the expected family normalised
  po.expect = vopt.expect;

  auto nodes = kube::Api<kube::Node>::all(client).list().items;
  res.inventory = gpu_inventory(nodes);
  if (!res.inventory.empty()) {
    detail::note_cluster_components(client, res);
    detail::tell_inventory(res, o);
  }
  if (!o.nodes.empty()) detail::require_nodes(nodes, o.nodes);
  const std::vector<std::size_t> probing = detail::choose_targets(res, po);
  if (res.inventory.empty()) detail::tell(o, "no node offers nvidia.com/gpu or looks like a GPU node");

  kube::Api<kube::Pod> pods(client, ns);
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
