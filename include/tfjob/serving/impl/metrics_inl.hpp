#pragma once
/// \file The bodies of <tfjob/serving/metrics.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/metrics.hpp>, never this file.

namespace tfjob::serving {

namespace detail {

/// A sample value: a float, "+Inf", "-Inf" or "NaN" (the exposition format's words).
TFJOB_INLINE std::optional<double> parse_metric_value(const std::string& s) {
  if (s == "+Inf" || s == "Inf") return std::numeric_limits<double>::infinity();
  if (s == "-Inf") return -std::numeric_limits<double>::infinity();
  if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (s.empty() || s.size() > 64) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

}  // namespace detail

TFJOB_INLINE std::vector<MetricSample> parse_prometheus_text(const std::string& text, const PrometheusLimits& lim) {
  if (text.size() > lim.max_bytes)
    throw tfjob::error("the metrics answer is larger than " + std::to_string(lim.max_bytes) + " bytes");
  std::vector<MetricSample> out;
  std::size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos || line[i] == '#') continue;
    auto bad = [&](const std::string& why) {
      return tfjob::error("metrics line " + std::to_string(line_no) + " (\"" + line.substr(0, 80) + "\"): " + why);
    };
    MetricSample m;
    while (i < line.size() && line[i] != '{' && line[i] != ' ' && line[i] != '\t') m.name += line[i++];
    if (m.name.empty()) throw bad("no metric name");
    if (i < line.size() && line[i] == '{') {
      ++i;
      for (;;) {
        while (i < line.size() && (line[i] == ' ' || line[i] == ',')) ++i;
        if (i >= line.size()) throw bad("unterminated label set");
        if (line[i] == '}') {
          ++i;
          break;
        }
        std::string key;
        while (i < line.size() && line[i] != '=' && line[i] != '}') key += line[i++];
        if (i + 1 >= line.size() || line[i] != '=' || line[i + 1] != '"') throw bad("a label is not KEY=\"VALUE\"");
        i += 2;
        std::string value;
        bool closed = false;
        while (i < line.size()) {
          char c = line[i++];
          if (c == '"') {
            closed = true;
            break;
          }
          if (c == '\\' && i < line.size()) {
            char e = line[i++];
            value += e == 'n' ? '\n' : e;
          } else {
            value += c;
          }
        }
        if (!closed) throw bad("unterminated label value");
        if (m.labels.size() >= lim.max_labels) throw bad("more than " + std::to_string(lim.max_labels) + " labels");
        m.labels[key] = value;
      }
    }
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::string value;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') value += line[i++];
    auto v = detail::parse_metric_value(value);
    if (!v) throw bad("the value \"" + value.substr(0, 40) + "\" is not a number");
    m.value = *v;
    if (out.size() >= lim.max_samples) throw bad("more than " + std::to_string(lim.max_samples) + " samples");
    out.push_back(std::move(m));
  }
  return out;
}

TFJOB_INLINE std::optional<double> LatencyHistogram::quantile(double q) const {
  if (buckets.empty() || count <= 0 || q < 0 || q > 1) return std::nullopt;
  const double total = buckets.back().second;
  if (total <= 0) return std::nullopt;
  const double rank = q * total;
  double prev_le = 0, prev_count = 0;
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    const auto& [le, c] = buckets[i];
    if (c >= rank) {
      if (std::isinf(le)) return i > 0 ? buckets[i - 1].first : std::optional<double>();
      if (c == prev_count) return le;
      return prev_le + (le - prev_le) * (rank - prev_count) / (c - prev_count);
    }
    prev_le = le;
    prev_count = c;
  }
  return buckets.back().first;
}

TFJOB_INLINE double ModelRequestMetrics::requests() const {
  double n = 0;
  for (const auto& [k, v] : requests_by_status) n += v;
  return n;
}

TFJOB_INLINE double ModelRequestMetrics::errors() const {
  auto it = requests_by_status.find("OK");
  return requests() - (it == requests_by_status.end() ? 0 : it->second);
}

TFJOB_INLINE std::vector<ModelRequestMetrics> request_metrics(const std::vector<MetricSample>& samples) {
  std::map<std::string, ModelRequestMetrics> by;
  std::map<std::string, std::map<double, double>> buckets;  // model → le → count (summed over labels)
  const std::string lat = request_latency_metric;
  for (const auto& s : samples) {
    auto it = s.labels.find("model_name");
    if (it == s.labels.end() || !std::isfinite(s.value)) continue;
    const std::string& model = it->second;
    if (s.name == request_count_metric) {
      auto& m = by[model];
      m.model = model;
      m.requests_by_status[s.labels.count("status") ? s.labels.at("status") : ""] += s.value;
    } else if (s.name == lat + "_bucket" && s.labels.count("le")) {
      auto le = detail::parse_metric_value(s.labels.at("le"));
      if (!le || std::isnan(*le)) continue;
      by[model].model = model;
      buckets[model][*le] += s.value;
    } else if (s.name == lat + "_sum") {
      by[model].model = model;
      by[model].latency.sum += s.value;
    } else if (s.name == lat + "_count") {
      by[model].model = model;
      by[model].latency.count += s.value;
    }
  }
  std::vector<ModelRequestMetrics> out;
  for (auto& [model, m] : by) {
    for (const auto& [le, c] : buckets[model]) m.latency.buckets.emplace_back(le, c);
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace tfjob::serving
