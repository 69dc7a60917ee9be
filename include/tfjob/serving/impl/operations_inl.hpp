#pragma once
/// \file The bodies of <tfjob/serving/operations.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/operations.hpp>, never this file.

namespace tfjob::serving {

namespace detail {

TFJOB_INLINE std::optional<std::int64_t> parse_int64(const std::string& s, std::int64_t lo, std::int64_t hi) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  std::size_t i = 0;
  bool neg = false;
  if (s[0] == '-') {
    neg = true;
    i = 1;
    if (s.size() == 1) return std::nullopt;
  }
  std::int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
    const int d = s[i] - '0';
    if (v > (std::numeric_limits<std::int64_t>::max() - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  if (neg) v = -v;
  if (v < lo || v > hi) return std::nullopt;
  return v;
}

TFJOB_INLINE std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

TFJOB_INLINE tfjob::error invalid_setting(tfjob::setting about, const Text& rest) {
  return tfjob::error(reasons::invalid_setting, about + rest, "", about);
}

}  // namespace detail

TFJOB_INLINE Batching parse_batching(const std::string& text) {
  static const char* known =
      "max_batch_size, batch_timeout_micros, max_enqueued_batches, num_batch_threads, thread_pool_name, "
      "allowed_batch_sizes (A:B:C), pad_variable_length_inputs (true|false)";
  if (text.size() > 4096) throw detail::invalid_setting(setting::serve_batching, ": the value is longer than 4096 characters");
  Batching b;
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  auto positive = [&](const std::string& key, const std::string& v, std::int64_t lo) {
    auto n = detail::parse_int64(v, lo, big);
    if (!n)
      throw detail::invalid_setting(setting::serve_batching, " " + key + "=" + v + ": \"" + v + "\" is not an integer " +
                                    (lo > 0 ? ">= 1" : ">= 0") + "; give one, e.g. " + key + "=" +
                                    (key == "batch_timeout_micros" ? "5000" : "8"));
    return *n;
  };
  std::map<std::string, std::string> given;  // key -> its pair: one key twice with two values is not guessed at
  for (const auto& item : detail::split(text, ',')) {
    if (item.empty()) continue;  // "a=1,,b=2" and a trailing comma are harmless
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw detail::invalid_setting(setting::serve_batching, " \"" + item + "\" is not KEY=VALUE; give KEY=VALUE pairs separated by ',', e.g. "
                                    "max_batch_size=32,batch_timeout_micros=5000; keys: " + known);
    const std::string key = item.substr(0, eq), v = item.substr(eq + 1);
    if (auto [at, first] = given.emplace(key, item); !first && at->second != item)
      throw detail::invalid_setting(setting::serve_batching, " the key \"" + key + "\" is given twice (\"" + at->second + "\", \"" + item +
                                                                 "\"); give each key once");
    if (key == "max_batch_size") b.max_batch_size = positive(key, v, 1);
    else if (key == "batch_timeout_micros") b.batch_timeout_micros = positive(key, v, 0);
    else if (key == "max_enqueued_batches") b.max_enqueued_batches = positive(key, v, 1);
    else if (key == "num_batch_threads") b.num_batch_threads = positive(key, v, 1);  // proto: "Must be >= 1"
    else if (key == "thread_pool_name") {
      for (char c : v)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
          throw detail::invalid_setting(setting::serve_batching, " thread_pool_name=" + v + ": use letters, digits, '_' or '-'");
      if (v.empty()) throw detail::invalid_setting(setting::serve_batching, " thread_pool_name= is empty; give a name of letters, digits, '_' or '-'");
      b.thread_pool_name = v;
    } else if (key == "allowed_batch_sizes") {
      b.allowed_batch_sizes.clear();
      for (const auto& part : detail::split(v, ':')) b.allowed_batch_sizes.push_back(positive(key, part, 1));
    } else if (key == "pad_variable_length_inputs") {
      if (v != "true" && v != "false")
        throw detail::invalid_setting(setting::serve_batching, " pad_variable_length_inputs=" + v + ": \"" + v + "\" is not a boolean; give true or false");
      b.pad_variable_length_inputs = v == "true";
    } else {
      throw detail::invalid_setting(setting::serve_batching,
                                    ": unknown key \"" + key + "\" (TF Serving's BatchingParameters has: " + known + ")");
    }
  }
  // session_bundle_config.proto: allowed_batch_sizes "must be in increasing order" and "the
  // final entry must equal 'max_batch_size'".
  const auto& a = b.allowed_batch_sizes;
  for (std::size_t i = 1; i < a.size(); ++i)
    if (a[i] <= a[i - 1])
      throw detail::invalid_setting(setting::serve_batching, " allowed_batch_sizes: the sizes must increase (" +
                                                                     std::to_string(a[i - 1]) + " then " + std::to_string(a[i]) + ")");
  if (!a.empty()) {
    if (!b.max_batch_size)
      throw detail::invalid_setting(setting::serve_batching, " allowed_batch_sizes needs max_batch_size too (its last entry must equal it)");
    if (a.back() != *b.max_batch_size)
      throw detail::invalid_setting(setting::serve_batching, " allowed_batch_sizes: the last size (" + std::to_string(a.back()) +
                                    ") must equal max_batch_size (" + std::to_string(*b.max_batch_size) + ")");
  }
  return b;
}

TFJOB_INLINE std::string batching_parameters_text(const Batching& b) {
  std::string t;
  auto wrapped = [&](const char* key, const std::optional<std::int64_t>& v) {
    if (v) t += std::string(key) + " { value: " + std::to_string(*v) + " }\n";
  };
  wrapped("max_batch_size", b.max_batch_size);
  wrapped("batch_timeout_micros", b.batch_timeout_micros);
  wrapped("max_enqueued_batches", b.max_enqueued_batches);
  wrapped("num_batch_threads", b.num_batch_threads);
  if (b.thread_pool_name) t += "thread_pool_name { value: \"" + *b.thread_pool_name + "\" }\n";
  for (auto s : b.allowed_batch_sizes) t += "allowed_batch_sizes: " + std::to_string(s) + "\n";
  if (b.pad_variable_length_inputs) t += std::string("pad_variable_length_inputs: ") + (*b.pad_variable_length_inputs ? "true" : "false") + "\n";
  return t;
}

TFJOB_INLINE std::string monitoring_config_text() {
  return std::string("prometheus_config {\n  enable: true\n  path: \"") + prometheus_path + "\"\n}\n";
}

TFJOB_INLINE Autoscale parse_autoscale(const std::string& text) {
  const std::string right = "; give MIN:MAX:CPU%, e.g. 2:10:70%";
  auto parts = detail::split(text, ':');
  if (parts.size() != 3)
    throw detail::invalid_setting(setting::serve_autoscale, " \"" + text + "\" has " + std::to_string(parts.size()) +
                                                                " part" + (parts.size() == 1 ? "" : "s") + " separated by ':', not 3" + right);
  std::string cpu = parts[2];
  if (!cpu.empty() && cpu.back() == '%') cpu.pop_back();
  auto mn = detail::parse_int64(parts[0], 1, 100000), mx = detail::parse_int64(parts[1], 1, 100000);
  auto pc = detail::parse_int64(cpu, 1, 1000);
  if (!mn || !mx || !pc)
    throw detail::invalid_setting(setting::serve_autoscale, " \"" + text + "\": MIN and MAX are replica counts from 1 to 100000, CPU% a "
                                                            "whole percentage from 1 to 1000" + right);
  // HPA validation (pkg/apis/autoscaling/validation): maxReplicas must not be less than minReplicas.
  if (*mx < *mn)
    throw detail::invalid_setting(setting::serve_autoscale,
                                  " \"" + text + "\": MAX (" + parts[1] + ") must be at least MIN (" + parts[0] + ")");
  return {static_cast<int>(*mn), static_cast<int>(*mx), static_cast<int>(*pc)};
}

TFJOB_INLINE std::optional<nlohmann::json> build_config_map(const std::string& name, const std::string& ns, const nlohmann::json& labels,
                                                            const ServeOperations& ops) {
  if (!ops.any_config_file()) return std::nullopt;
  nlohmann::json data = nlohmann::json::object();
  if (ops.batching) data[batching_file] = batching_parameters_text(*ops.batching);
  if (ops.monitoring) data[monitoring_file] = monitoring_config_text();
  nlohmann::json meta = {{"name", name}, {"labels", labels}};
  if (!ns.empty()) meta["namespace"] = ns;
  return nlohmann::json{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", meta}, {"data", data}};
}

TFJOB_INLINE void add_operations_to_deployment(nlohmann::json& deployment, const std::string& config_map, const ServeOperations& ops) {
  if (ops.autoscale) deployment["spec"].erase("replicas");
  if (!ops.any_config_file()) return;
  auto& pod = deployment["spec"]["template"]["spec"];
  pod["volumes"].push_back({{"name", "serving-config"}, {"configMap", {{"name", config_map}}}});
  auto& c = pod["containers"][0];
  c["volumeMounts"].push_back({{"name", "serving-config"}, {"mountPath", config_dir}, {"readOnly", true}});
  if (ops.batching) {
    c["args"].push_back("--enable_batching=true");
    c["args"].push_back(std::string("--batching_parameters_file=") + config_dir + "/" + batching_file);
  }
  if (ops.monitoring) c["args"].push_back(std::string("--monitoring_config_file=") + config_dir + "/" + monitoring_file);
}

TFJOB_INLINE std::optional<nlohmann::json> build_pdb(const std::string& name, const std::string& ns, const nlohmann::json& labels,
                                                     const nlohmann::json& selector, int replicas, const ServeOperations& ops) {
  const int most = ops.autoscale ? ops.autoscale->max : replicas;
  if (most <= 1) return std::nullopt;
  nlohmann::json meta = {{"name", name}, {"labels", labels}};
  if (!ns.empty()) meta["namespace"] = ns;
  return nlohmann::json{{"apiVersion", "policy/v1"},
                        {"kind", "PodDisruptionBudget"},
                        {"metadata", meta},
                        {"spec", {{"maxUnavailable", 1}, {"selector", {{"matchLabels", selector}}}}}};
}

TFJOB_INLINE std::optional<nlohmann::json> build_hpa(const std::string& name, const std::string& ns, const nlohmann::json& labels,
                                                     const ServeOperations& ops) {
  if (!ops.autoscale) return std::nullopt;
  const auto& a = *ops.autoscale;
  k8s::HorizontalPodAutoscaler hpa;
  hpa.api_version = "autoscaling/v2";
  hpa.kind = "HorizontalPodAutoscaler";
  hpa.metadata.name = name;
  hpa.metadata.namespace_ = ns;
  hpa.metadata.labels = labels.get<std::map<std::string, std::string>>();
  hpa.spec.scale_target_ref = {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", name}};
  hpa.spec.min_replicas = a.min;
  hpa.spec.max_replicas = a.max;
  k8s::Metric cpu;
  cpu.type = "Resource";
  cpu.resource.emplace();
  cpu.resource->name = "cpu";
  cpu.resource->target = k8s::MetricValue{"Utilization", a.cpu_percent, nlohmann::json::object()};
  hpa.spec.metrics.push_back(std::move(cpu));
  return nlohmann::json(hpa);
}

TFJOB_INLINE bool AutoscalerStatus::no_metrics() const {
  for (const auto& c : conditions)
    if (c.type == "ScalingActive" && c.status == "False") return true;
  return false;
}

namespace detail {

/// A count a server sent, bounded: replicas and percentages outside 0..1000000 are not believed.
TFJOB_INLINE std::optional<int> bounded(const std::optional<std::int32_t>& n) {
  if (!n || *n < 0 || *n > 1000000) return std::nullopt;
  return static_cast<int>(*n);
}

/// The CPU utilisation of the Resource metric "cpu" among `metrics` (the spec's target or
/// the status's current value), if one is there.
TFJOB_INLINE std::optional<int> cpu_utilization(const std::vector<k8s::Metric>& metrics, bool current) {
  std::optional<int> out;
  for (const auto& m : metrics)
    if (m.resource && m.resource->name == "cpu") {
      const auto& v = current ? m.resource->current : m.resource->target;
      out = bounded(v ? v->average_utilization : std::optional<std::int32_t>());
    }
  return out;
}

}  // namespace detail

TFJOB_INLINE AutoscalerStatus autoscaler_status(const k8s::HorizontalPodAutoscaler& hpa) {
  AutoscalerStatus a;
  a.min = detail::bounded(hpa.spec.min_replicas).value_or(1);
  a.max = detail::bounded(hpa.spec.max_replicas).value_or(a.min);
  a.target_cpu_percent = detail::cpu_utilization(hpa.spec.metrics, false);
  a.current_replicas = detail::bounded(hpa.status.current_replicas);
  a.desired_replicas = detail::bounded(hpa.status.desired_replicas);
  a.current_cpu_percent = detail::cpu_utilization(hpa.status.current_metrics, true);
  for (const auto& c : hpa.status.conditions) {
    if (a.conditions.size() >= 16) break;
    AutoscalerStatus::Condition k{c.type, c.status, c.reason, c.message.substr(0, 1000)};
    if (!k.type.empty()) a.conditions.push_back(std::move(k));
  }
  return a;
}

TFJOB_INLINE AutoscalerStatus autoscaler_status(const nlohmann::json& hpa) {
  if (!hpa.is_object()) return {};
  k8s::HorizontalPodAutoscaler h;
  tfjob::detail::decode_lenient(hpa, "HorizontalPodAutoscaler", h);
  return autoscaler_status(h);
}

TFJOB_INLINE void validate_operations(const ServeOperations& ops, const std::string& cpu_request) {
  // a request of 0 is none to take a percentage of (the HPA controller reports it missing)
  bool none = cpu_request.empty();
  if (!none) {
    try {
      none = Quantity::parse(cpu_request).value() <= 0;
    } catch (const std::exception&) {  // not a quantity: the --cpu check says so
    }
  }
  if (ops.autoscale && none)
    throw detail::invalid_setting(setting::serve_autoscale,
                                  " scales on CPU utilisation, a percentage of each pod's CPU request, and the pods have "
                                  "none: give them a CPU request too (" + setting::serve_cpu + " 2)");
}

}  // namespace tfjob::serving
