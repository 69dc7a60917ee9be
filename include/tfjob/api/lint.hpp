#pragma once
/// \file Lint: the known mistakes in a TFJob, caught before it is submitted. Pure rules over
/// the TFJob as JSON (what the user wrote, wrong types included), optionally with what the
/// cluster says, as typed objects (nodes, the namespace, the claims the job mounts); each finding has a stable code (docs/explain.md), the replica it
/// concerns, the facts it was read from and a one-line fix. Runs on `submit` (flags, `-f`,
/// `--dry-run`), in the preflight and as `kubectl tfjob lint -f FILE...`.

#include <tfjob/api/defaults.hpp>
#include <tfjob/api/operator_rules.hpp>
#include <tfjob/api/findings.hpp>
#include <tfjob/api/k8s/node.hpp>
#include <tfjob/api/k8s/objects.hpp>
#include <tfjob/api/quantity.hpp>
#include <tfjob/api/scheduling.hpp>
#include <tfjob/api/schema.hpp>
#include <tfjob/api/validation.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tfjob::lint {

/// The GPU resource the rules look at.
inline constexpr const char* gpu_resource = "nvidia.com/gpu";

/// What the cluster says, when known. Rules that need a part that is absent do not run. The
/// namespace and claims are the typed objects a client decodes (leniently, as served).
struct Context {
  std::optional<std::vector<k8s::Node>> nodes;             ///< every node, decoded as served
  std::optional<k8s::Namespace> namespace_object;          ///< the job's namespace
  std::map<std::string, k8s::PersistentVolumeClaim> claims;  ///< claims the job mounts, by name
  bool logs_kept = false;        ///< the caller saves the logs (submit --follow --save): cleanPodPolicy All / a TTL lose nothing
  bool skip_gpu_fit = false;     ///< the GPU preflight reports GPU fit itself (RequestFitsNoNode skips nvidia.com/gpu)
};

namespace detail {
std::string lower(std::string s);
/// The parts of a job the rules read, by reference into it (an empty object or array, shared,
/// where the part is missing or of another type): a rule copies none of a job's templates.
const nlohmann::json& empty_object();
const nlohmann::json& object_at(const nlohmann::json& j, const nlohmann::json::json_pointer& p);
const nlohmann::json& specs_of(const nlohmann::json& job);
const nlohmann::json& pod_spec_of(const nlohmann::json& rs);
int replicas_of(const nlohmann::json& rs);
const nlohmann::json& containers_of(const nlohmann::json& rs);
/// A quantity as a number (0 when absent or malformed).
double amount(const nlohmann::json& m, const std::string& key);
/// The node's allocatable GPUs (0 when absent or malformed).
double gpus_of(const k8s::Node& n);
std::string num(double v);
/// The replica's GPUs per pod as the scheduler counts them (limits, else requests).
long long gpus_per_pod(const nlohmann::json& rs);
/// Image repository (lower case, no registry for Docker Hub's library) and tag.
std::pair<std::string, std::string> split_image(std::string img);
Finding make(const char* code, const std::string& replica, std::string message, std::vector<std::string> evidence,
             Text fix);

// The image-name rules below match by hand, not with <regex>: std::regex cost every
// includer about a second of compile time, and several at -O2 where it is called.
bool lower_alnum(char c);
bool digit(char c);
/// Whether `word` starts at `p` of `s` after a boundary: `(^|[^a-z0-9])word`.
bool word_at(const std::string& s, std::size_t p, const char* word);
/// Whether `s` is at its end or at a non-digit from `p`: `([^0-9]|$)`.
bool digit_boundary(const std::string& s, std::size_t p);
/// `(^|[^a-z0-9])tf-?2([^0-9]|$)` somewhere in `s`.
bool has_tf2_word(const std::string& s);
/// `^v?2\.[0-9]+`: a tag that starts with 2.x or v2.x.
bool is_v2_tag(const std::string& tag);
/// `(^|[^a-z0-9])(cuda-?13|cu13[0-9]?)([^0-9]|$)` somewhere in `s`.
bool has_cuda13_word(const std::string& s);
}  // namespace detail

/// Whether an image is TensorFlow 2: a `tensorflow`/`tf` image tagged `2.x`, `latest` or
/// `nightly` (TF2 since 2019), or any image whose name or tag says `tf2`.
bool is_tf2_image(const std::string& image);

/// Whether an image is built on CUDA 13 (`nvidia/cuda:13.*`, or a tag naming cuda13/cu13).
bool is_cuda13_image(const std::string& image);

/// Whether a node's GPUs are Volta or older (compute capability below 7.5, which CUDA 13
/// no longer builds for), from NVIDIA GPU feature discovery's labels or a product name.
bool node_gpu_is_volta_or_older(const k8s::Node& node);

/// Each rule, callable alone. All take the TFJob as JSON.

/// GPUs in `requests` without `limits`, or with a different value: Kubernetes only
/// overcommits nothing for extended resources (pkg/apis/core/validation: requests must
/// equal limits), so the operator's pods are refused and no GPU is given (kubeflow #1042).
std::vector<Finding> gpu_requests_limits(const nlohmann::json& job);

/// GPUs on PS replicas: parameter servers hold and update variables on the CPU; a GPU there sits idle.
std::vector<Finding> gpus_on_ps(const nlohmann::json& job);

/// A Master replica with a TF2 image: TF2's MultiWorkerMirroredStrategy reads `chief` from
/// TF_CONFIG and does not treat a `master` task as the chief.
std::vector<Finding> master_with_tf2(const nlohmann::json& job);

/// restartPolicy ExitCode: said once per job, since it retries only signals.
std::vector<Finding> exit_code_policy(const nlohmann::json& job);

/// successPolicy AllWorkers with an Evaluator: the job ends on the Workers alone (#1658).
std::vector<Finding> all_workers_with_evaluator(const nlohmann::json& job);

/// cleanPodPolicy All or a TTL: the pods (and their logs) go when the job ends.
std::vector<Finding> logs_deleted(const nlohmann::json& job, const Context& ctx = {});

/// A ReadWriteOnce claim mounted by several pods that may (or will) land on different nodes.
std::vector<Finding> shared_rwo_claims(const nlohmann::json& job, const Context& ctx);

/// A pod request larger than every node it may use (after nodeSelector, affinity and taints).
std::vector<Finding> request_fits_no_node(const nlohmann::json& job, const Context& ctx);

/// Istio sidecar injection on the namespace without an opt-out on the templates: the sidecar
/// keeps the pod Running after the trainer exits, so the job never completes (kubeflow #3935).
std::vector<Finding> istio_sidecar(const nlohmann::json& job, const Context& ctx);

/// Adds `sidecar.istio.io/inject: "false"` to every replica template's annotations.
void add_istio_opt_out(nlohmann::json& job);

/// Images that cannot use the GPUs the job asks for: a `tensorflow/tensorflow` tag without
/// `-gpu` on a GPU replica; a CUDA 13 image where every node the replica may use is Volta or older.
std::vector<Finding> gpu_images(const nlohmann::json& job, const Context& ctx);

/// Every rule. Findings in a stable order (rule, then replica type as the spec's map orders them).
std::vector<Finding> lint(const nlohmann::json& job, const Context& ctx = {});

/// What submit refuses before any rule runs, as findings, so that lint is at least as strict:
/// the kind and apiVersion (errors `WrongKind`, `WrongApiVersion`), then the CRD's schema
/// (schema::check_tfjob; codes from schema::code: errors under `strict`, warnings under
/// `warn`, nothing under `ignore`), then the operator's validation after its defaults
/// (errors `InvalidTFJob`, validation.hpp; also a field that cannot be decoded). Under strict,
/// a job the schema refuses is not decoded (its type errors are the schema's).
std::vector<Finding> admission_findings(const nlohmann::json& job, FieldValidation validation = FieldValidation::strict);

/// The last step of admission_findings as errors: what the operator's validation refuses in
/// `job` after its defaults, a field that cannot be decoded, and a job without a name
/// (manifest_name_errors). Every command that reads a TFJob manifest refuses these.
std::vector<field_error> admission_errors(const nlohmann::json& job);

}  // namespace tfjob::lint

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/impl/lint_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
