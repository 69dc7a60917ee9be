#pragma once
/// \file TF_CONFIG both ways: what the training operator v1.9 injects into each replica
/// (`genTFConfigJSONStr`, `genClusterSpec`, `isDistributed` in
/// `pkg/controller.v1/tensorflow/{tensorflow,util}.go`), byte for byte, and parsing it
/// inside a C++ trainer (role, index, cluster addresses, "am I the chief").

#include <tfjob/api/labels.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>

#include <tfjob/detail/input.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tfjob {

/// The operator's environment variable for a custom cluster domain.
inline constexpr const char* env_custom_cluster_domain = "CUSTOM_CLUSTER_DOMAIN";
/// The variable the operator sets in the `tensorflow` container.
inline constexpr const char* env_tf_config = "TF_CONFIG";

/// How to render hosts.
struct TFConfigOptions {
  /// The operator's CUSTOM_CLUSTER_DOMAIN (e.g. `cluster.local`): hosts become
  /// `{pod}.{ns}.svc.{domain}:{port}`. Empty: `{pod}.{ns}.svc:{port}`.
  std::string cluster_domain;
  /// When set, overrides the whole `host:port` of every replica (the local runner passes
  /// `127.0.0.1:<free port>`). Called with the lower-case type and the index.
  std::function<std::string(const std::string& lower_type, int index)> address;
};

/// The cluster spec: lower-case type -> addresses, for every replica type of the job.
using ClusterSpec = std::map<std::string, std::vector<std::string>>;

namespace detail {

/// Go's encoding/json string encoding (HTML-safe: <, >, & escaped; U+2028/2029 escaped;
/// invalid UTF-8 replaced by U+FFFD), so the output is byte-identical to json.Marshal.
void go_json_string(std::string& out, std::string_view s);
void go_json_string_list(std::string& out, const std::vector<std::string>& v);

}  // namespace detail

/// `GetPortFromTFJob`: the `tfjob-port` of the container named `tensorflow`, else 2222.
int tf_port(const TFJob& job, std::string_view rtype);

/// `isDistributed`: more than one replica in total over the five known types (an unset
/// `replicas` counts as 1). The operator injects no TF_CONFIG otherwise.
bool is_distributed(const TFJob& job);

/// `genClusterSpec`: every replica type of the job, lower-case, each with its hosts.
ClusterSpec gen_cluster_spec(const TFJob& job, const TFConfigOptions& opts = {});

/// The TF_CONFIG the operator injects into replica `index` of `rtype` (any case), exactly
/// as `json.Marshal` writes it; std::nullopt when it injects none (one replica in total).
/// With `spec.enableDynamicWorker` it is the sparse form: a worker sees itself and every
/// PS (`{"cluster":{"worker":{"1":"..."},"ps":[...]},"task":{...}}`), a PS sees itself.
/// Throws `tfjob::error` when the job has no such replica.
std::optional<std::string> gen_tf_config(const TFJob& job, const std::string& rtype,
                                         int index, const TFConfigOptions& opts = {});

/// One replica of a job and its TF_CONFIG.
struct ReplicaTFConfig {
  std::string type;   ///< canonical key as in the spec, e.g. "Worker"
  int index = 0;
  std::string name;   ///< `{job}-{lower type}-{index}`
  std::optional<std::string> tf_config;
  /// `worker-0`: the operator's lower-case type and the index, as TF_CONFIG's task names
  /// the replica (what tf-config and describe key each TF_CONFIG by).
  std::string id() const;
};

/// TF_CONFIG of every replica, by type (sorted by lower-case type) then index.
std::vector<ReplicaTFConfig> gen_all_tf_configs(const TFJob& job,
                                                const TFConfigOptions& opts = {});

// ---- the other direction: a trainer reading its TF_CONFIG --------------------------------

/// A parsed TF_CONFIG.
struct TFConfig {
  /// Dense cluster: lower-case type -> addresses by index.
  std::map<std::string, std::vector<std::string>> cluster;
  /// Sparse cluster (enableDynamicWorker): type -> index -> address, for entries given
  /// as objects (`"worker":{"1":"host:port"}`).
  std::map<std::string, std::map<int, std::string>> sparse_cluster;
  std::string task_type;  ///< lower-case: chief, master, worker, ps, evaluator
  int task_index = 0;
  std::string environment;  ///< "cloud" from the operator; "" in the sparse form

  /// The chief decides success and writes checkpoints: task type chief or master, or
  /// worker 0 when the cluster has neither (the operator's `IsMasterRole`).
  bool is_chief() const;
  bool is_worker() const { return task_type == "worker"; }
  bool is_ps() const { return task_type == "ps"; }
  bool is_evaluator() const { return task_type == "evaluator"; }

  /// Whether the cluster lists this type (dense or sparse).
  bool has_type(std::string_view type) const;
  /// Number of replicas of a type known to this task (dense: all; sparse: those listed).
  int count(std::string_view type) const;
  /// Address of replica `index` of `type`, or std::nullopt.
  std::optional<std::string> address(std::string_view type, int index) const;
  /// This task's own address (from the cluster), or "" when not listed.
  std::string self_address() const;
  /// The port of this task's own address (the one to listen on), or 0.
  int self_port() const;
  /// Total replicas listed over all types.
  int size() const;
};

namespace detail {
std::pair<int, int> line_col(std::string_view text, std::size_t byte);
}  // namespace detail

/// Parses a TF_CONFIG value. Throws `parse_error` (with line/column for bad JSON) when it
/// is not JSON or lacks `task.type`; addresses must be strings.
TFConfig parse_tf_config(std::string_view text);

/// The TF_CONFIG of this process (`$TF_CONFIG`), or std::nullopt when unset or empty
/// (a single-replica job: the operator injects none). Throws `parse_error` when invalid.
std::optional<TFConfig> tf_config_from_env();

}  // namespace tfjob

#if TFJOB_SDK_DEFINE_API
#include <tfjob/api/impl/tf_config_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_API
