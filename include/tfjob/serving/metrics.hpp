#pragma once
/// \file TF Serving's request metrics from its Prometheus endpoint (`serve --monitoring`):
/// the text exposition format parsed (bounded), TF Serving's request counter and latency
/// histogram summed per model, and quantiles estimated from the buckets as PromQL's
/// histogram_quantile does. Metric names: tensorflow_serving/servables/tensorflow/util.cc
/// (/tensorflow/serving/request_count {model_name, status}; request_latency {model_name,
/// API, entrypoint}, microseconds), exported by TF's Prometheus exporter with '/' as ':'.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tfjob::serving {

/// One sample line: `name{label="value",...} value`.
struct MetricSample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

/// The limits parse_prometheus_text keeps to (outside input).
struct PrometheusLimits {
  std::size_t max_bytes = 16u << 20;
  std::size_t max_samples = 200000;
  std::size_t max_labels = 64;
};

/// Parses the Prometheus text exposition format (version 0.0.4): comments and blank lines
/// skipped, label values unescaped (\\, \", \n), an optional timestamp ignored. Throws
/// tfjob::error naming the line for a malformed one, or when a limit is passed.
std::vector<MetricSample> parse_prometheus_text(const std::string& text, const PrometheusLimits& lim = {});

/// A latency histogram: cumulative bucket counts by upper bound (microseconds).
struct LatencyHistogram {
  std::vector<std::pair<double, double>> buckets;  ///< (le, cumulative count), sorted by le
  double count = 0, sum = 0;
  double mean() const { return count > 0 ? sum / count : 0; }
  /// PromQL's histogram_quantile (promql/quantile.go bucketQuantile): linear interpolation
  /// inside the bucket holding the rank; the +Inf bucket answers the largest finite bound.
  std::optional<double> quantile(double q) const;
};

/// One model's requests and latency as TF Serving counts them.
struct ModelRequestMetrics {
  std::string model;
  std::map<std::string, double> requests_by_status;  ///< "OK" → 12, "INVALID_ARGUMENT" → 1
  LatencyHistogram latency;                          ///< all APIs and entrypoints summed
  double requests() const;
  double errors() const;
};

inline constexpr const char* request_count_metric = ":tensorflow:serving:request_count";
inline constexpr const char* request_latency_metric = ":tensorflow:serving:request_latency";

/// TF Serving's request count and latency per model, from parsed samples (sorted by model).
std::vector<ModelRequestMetrics> request_metrics(const std::vector<MetricSample>& samples);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
#include <tfjob/serving/impl/metrics_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_SERVING
