#pragma once
/// \file The bodies of <tfjob/gpu/top.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_GPU` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/gpu/top.hpp>, never this file.

namespace tfjob::gpu {

namespace detail {
TFJOB_INLINE std::map<std::string, std::string> prom_labels(std::string_view s) {
  std::map<std::string, std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ',' || s[i] == ' ')) ++i;
    std::size_t eq = s.find('=', i);
    if (eq == std::string_view::npos || eq + 1 >= s.size() || s[eq + 1] != '"') break;
    std::string key(s.substr(i, eq - i));
    std::string val;
    std::size_t j = eq + 2;
    for (; j < s.size() && s[j] != '"'; ++j) {
      if (s[j] == '\\' && j + 1 < s.size()) {
        ++j;
        val += s[j] == 'n' ? '\n' : s[j];
      } else {
        val += s[j];
      }
    }
    out[key] = val;
    i = j + 1;
  }
  return out;
}
}  // namespace detail

TFJOB_INLINE std::vector<GpuMetric> parse_dcgm_metrics(std::string_view text, const std::string& node,
                                                       std::size_t max_gpus) {
  std::vector<GpuMetric> out;
  std::map<std::string, std::size_t> index;  // node/gpu/uuid -> out
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (line.empty() || line[0] == '#') continue;
    std::size_t brace = line.find('{');
    std::size_t name_end = brace == std::string_view::npos ? line.find(' ') : brace;
    if (name_end == std::string_view::npos) continue;
    std::string_view name = line.substr(0, name_end);
    enum { util, used, free_ } which;
    if (name == "DCGM_FI_DEV_GPU_UTIL") which = util;
    else if (name == "DCGM_FI_DEV_FB_USED") which = used;
    else if (name == "DCGM_FI_DEV_FB_FREE") which = free_;
    else continue;
    std::map<std::string, std::string> labels;
    std::size_t rest = name_end;
    if (brace != std::string_view::npos) {
      // the closing brace outside quoted label values (a value may hold '}')
      std::size_t close = std::string_view::npos;
      bool quoted = false;
      for (std::size_t k = brace + 1; k < line.size(); ++k) {
        if (quoted && line[k] == '\\') ++k;
        else if (line[k] == '"') quoted = !quoted;
        else if (!quoted && line[k] == '}') { close = k; break; }
      }
      if (close == std::string_view::npos) continue;
      labels = detail::prom_labels(line.substr(brace + 1, close - brace - 1));
      rest = close + 1;
    }
    std::string value(line.substr(rest));
    double v = 0;
    try {
      std::size_t used_chars = 0;
      v = std::stod(value, &used_chars);
    } catch (const std::exception&) {
      continue;
    }
    std::string n = node.empty() ? labels["Hostname"] : node;
    std::string key = n + "/" + labels["gpu"] + "/" + labels["UUID"];
    auto it = index.find(key);
    if (it == index.end()) {
      if (out.size() >= max_gpus) continue;
      GpuMetric m;
      m.node = n;
      m.gpu = labels["gpu"];
      m.uuid = labels["UUID"];
      m.model = labels["modelName"];
      it = index.emplace(key, out.size()).first;
      out.push_back(std::move(m));
    }
    GpuMetric& m = out[it->second];
    if (!labels["pod"].empty()) {
      m.pod = labels["pod"];
      m.pod_namespace = labels["namespace"];
    }
    (which == util ? m.util_percent : which == used ? m.fb_used_mib : m.fb_free_mib) = v;
  }
  return out;
}

TFJOB_INLINE void GpuLoad::add(const GpuMetric& m) {
  ++gpus;
  if (m.util_percent) util_percent = (util_percent.value_or(0) * (gpus - 1) + *m.util_percent) / gpus;
  if (m.fb_used_mib) mem_used_mib = mem_used_mib.value_or(0) + *m.fb_used_mib;
  if (m.fb_used_mib && m.fb_free_mib) mem_total_mib = mem_total_mib.value_or(0) + *m.fb_used_mib + *m.fb_free_mib;
}

TFJOB_INLINE std::int64_t JobTop::gpus() const {
  std::int64_t n = 0;
  for (const auto& r : replicas) n += r.gpus;
  return n;
}

TFJOB_INLINE std::vector<NodeTop> top_nodes(const std::vector<NodeGpuInfo>& inventory,
                                            const std::unordered_map<std::string, NodeGpuUse>& use,
                                            const std::vector<GpuMetric>& metrics) {
  std::unordered_map<std::string, std::vector<const GpuMetric*>> by_node;
  for (const auto& m : metrics) by_node[m.node].push_back(&m);
  std::vector<NodeTop> out;
  out.reserve(inventory.size());
  for (const auto& g : inventory) {
    NodeTop t;
    t.name = g.name;
    t.model = g.product();
    t.driver = g.driver_version;
    t.capacity = g.capacity;
    t.allocatable = g.allocatable;
    if (auto u = use.find(g.name); u != use.end()) {
      t.requested = u->second.requested;
      t.pods = u->second.pods;
    }
    if (auto m = by_node.find(g.name); m != by_node.end())
      for (const GpuMetric* x : m->second) {
        t.load.add(*x);
        if (t.model.empty()) t.model = x->model;
      }
    out.push_back(std::move(t));
  }
  return out;
}

TFJOB_INLINE std::vector<NodeTop> top_nodes(const std::vector<k8s::Node>& nodes, const std::vector<k8s::Pod>& pods,
                                            const std::vector<GpuMetric>& metrics) {
  std::unordered_map<std::string, NodeGpuUse> use;
  for (const auto& p : pods) add_gpu_use(use, p);
  return top_nodes(gpu_inventory(nodes), use, metrics);
}

TFJOB_INLINE void JobTopCounter::add(const k8s::Pod& p) {
  std::string job = p.metadata.label("training.kubeflow.org/job-name");
  if (job.empty()) job = p.metadata.label("job-name");  // operators before v1.3
  if (job.empty()) return;
  const std::string& ph = p.status.phase;
  if (ph == "Succeeded" || ph == "Failed") return;
  const auto n = pod_gpus(p);
  std::string type = p.metadata.label("training.kubeflow.org/replica-type");
  if (type.empty()) type = p.metadata.label("tf-replica-type");
  const auto key = std::make_pair(p.metadata.namespace_, job);
  JobTop& j = jobs_[key];
  j.namespace_ = p.metadata.namespace_;
  j.name = job;
  job_of_pod_[p.metadata.namespace_ + "/" + p.metadata.name] = key;
  auto it = std::find_if(j.replicas.begin(), j.replicas.end(), [&](const ReplicaTop& r) { return r.type == type; });
  if (it == j.replicas.end()) {
    j.replicas.push_back({type, 0, 0, 0, {}});
    it = j.replicas.end() - 1;
  }
  ++it->pods;
  if (holds_gpus(p)) {
    it->gpus += n;
    if (n > 0 && std::find(it->nodes.begin(), it->nodes.end(), p.spec.node_name) == it->nodes.end())
      it->nodes.push_back(p.spec.node_name);
  } else if (n > 0) {
    ++it->pending;
  }
}

TFJOB_INLINE std::vector<JobTop> JobTopCounter::finish(const std::vector<GpuMetric>& metrics) {
  for (const auto& m : metrics) {
    if (m.pod.empty()) continue;
    auto it = job_of_pod_.find(m.pod_namespace + "/" + m.pod);
    if (it != job_of_pod_.end()) jobs_[it->second].load.add(m);
  }
  std::vector<JobTop> out;
  for (auto& [k, j] : jobs_) {
    std::sort(j.replicas.begin(), j.replicas.end(), [](const ReplicaTop& a, const ReplicaTop& b) { return a.type < b.type; });
    for (auto& r : j.replicas) std::sort(r.nodes.begin(), r.nodes.end());
    out.push_back(std::move(j));
  }
  jobs_.clear();
  job_of_pod_.clear();
  return out;
}

TFJOB_INLINE std::vector<JobTop> top_jobs(const std::vector<k8s::Pod>& pods, const std::vector<GpuMetric>& metrics) {
  JobTopCounter c;
  for (const auto& p : pods) c.add(p);
  return c.finish(metrics);
}

TFJOB_INLINE const std::vector<std::string>& dcgm_exporter_selectors() {
  static const std::vector<std::string> s = {"app=nvidia-dcgm-exporter", "app.kubernetes.io/name=dcgm-exporter"};
  return s;
}

TFJOB_INLINE std::vector<GpuMetric> read_dcgm(kube::Client& client, std::vector<std::string>& sources, std::string& note) {
  std::vector<k8s::Pod> exporters;
  std::set<std::string> seen;
  for (const auto& sel : dcgm_exporter_selectors()) {
    try {
      kube::ListParams lp;
      lp.label_selector = sel;
      for (auto& p : kube::Api<k8s::Pod>::all(client).list(lp).items)
        if (seen.insert(p.metadata.namespace_ + "/" + p.metadata.name).second) exporters.push_back(std::move(p));
    } catch (const tfjob::error& e) {
      note = std::string("cannot list DCGM exporter pods: ") + e.what();
      return {};
    }
  }
  if (exporters.empty()) {
    note = "NVIDIA's DCGM exporter is not installed (no pods labelled " + dcgm_exporter_selectors()[0] + " or " +
           dcgm_exporter_selectors()[1] + "): no utilisation or memory figures";
    return {};
  }
  std::vector<GpuMetric> out;
  std::vector<std::string> failed;
  for (const auto& p : exporters) {
    const std::string who = p.metadata.namespace_ + "/" + p.metadata.name;
    if (p.status.phase != "Running") {
      failed.push_back(who + " is " + (p.status.phase.empty() ? "not running" : p.status.phase));
      continue;
    }
    int port = dcgm_exporter_port;
    for (const auto& c : p.spec.containers)
      for (const auto& cp : c.ports)
        if (cp.name == "metrics" || cp.name == "gpu-metrics") port = cp.container_port;
    kube::Request r;
    r.path = "/api/v1/namespaces/" + kube::detail::path_segment(p.metadata.namespace_, "namespace") + "/pods/" + kube::detail::path_segment(p.metadata.name, "resource name") + ":" + std::to_string(port) + "/proxy/metrics";
    r.accept = "text/plain";
    r.what = "get the DCGM exporter's metrics from pod " + who;
    try {
      std::string body = client.request_text(r);
      if (body.size() > (std::size_t(16) << 20)) body.resize(std::size_t(16) << 20);  // bounded
      auto ms = parse_dcgm_metrics(body, p.spec.node_name);
      sources.push_back(who);
      for (auto& m : ms) out.push_back(std::move(m));
    } catch (const tfjob::error& e) {
      failed.push_back(e.what());
    }
  }
  if (!failed.empty()) {
    note = "DCGM exporter: ";
    for (std::size_t i = 0; i < failed.size(); ++i) note += (i ? "; " : "") + failed[i];
  }
  return out;
}

TFJOB_INLINE TopResult run_top(kube::Client client, const TopOptions& o) {
  TopResult res;
  std::vector<GpuMetric> metrics;
  if (o.metrics) metrics = read_dcgm(client, res.metrics_sources, res.metrics_note);
  if (o.nodes) {
    // one paged pass over the nodes, one over the pods that have not ended (GPUs on a node
    // come from every namespace), each page counted as it arrives
    auto inventory = read_gpu_inventory(client, o.label_selector);
    res.nodes = top_nodes(inventory, inventory.empty() ? std::unordered_map<std::string, NodeGpuUse>{} : read_gpu_use(client),
                          metrics);
  }
  if (o.jobs) {
    const std::string ns = o.all_namespaces ? "" : (o.namespace_.empty() ? client.namespace_() : o.namespace_);
    JobTopCounter counter;
    // one job: its pods by the operator's job-name label (then the label operators before
    // v1.3 wrote), never the namespace's
    std::vector<std::string> selectors = {o.job.empty() ? std::string("training.kubeflow.org/job-name")
                                                        : "training.kubeflow.org/job-name=" + o.job};
    if (!o.job.empty()) selectors.push_back("job-name=" + o.job);
    for (const auto& sel : selectors) {
      kube::ListParams lp;
      lp.label_selector = sel + (o.label_selector.empty() ? "" : "," + o.label_selector);
      std::size_t seen = 0;
      kube::Api<k8s::Pod>(client, ns).list_pages(lp, [&](kube::ObjectList<k8s::Pod>& page) {
        for (const auto& p : page.items) counter.add(p);
        seen += page.items.size();
        return true;
      });
      if (seen > 0) break;
    }
    res.jobs = counter.finish(metrics);
    // one job without pods: said apart from one that is not there (kubectl top pod NAME's NotFound)
    if (!o.job.empty() && res.jobs.empty() && !kube::Api<kube::DynamicObject>(client, kube::resource_info<TFJob>(), ns).get_opt(o.job))
      throw tfjob::no_such_job(ns, o.job);
  }
  return res;
}

namespace detail {
TFJOB_INLINE nlohmann::json load_json(const GpuLoad& l) {
  return {{"gpusReporting", l.gpus},
          {"utilizationPercent", l.util_percent ? nlohmann::json(*l.util_percent) : nlohmann::json(nullptr)},
          {"memoryUsedMiB", l.mem_used_mib ? nlohmann::json(*l.mem_used_mib) : nlohmann::json(nullptr)},
          {"memoryTotalMiB", l.mem_total_mib ? nlohmann::json(*l.mem_total_mib) : nlohmann::json(nullptr)}};
}
}  // namespace detail

TFJOB_INLINE nlohmann::json top_result_json(const TopResult& r) {
  nlohmann::json nodes = nlohmann::json::array(), jobs = nlohmann::json::array();
  for (const auto& n : r.nodes)
    nodes.push_back({{"node", n.name}, {"model", n.model}, {"driver", n.driver}, {"capacity", n.capacity},
                     {"allocatable", n.allocatable}, {"requested", n.requested}, {"free", n.free()}, {"pods", n.pods},
                     {"metrics", detail::load_json(n.load)}});
  for (const auto& j : r.jobs) {
    nlohmann::json reps = nlohmann::json::array();
    for (const auto& rp : j.replicas)
      reps.push_back({{"type", rp.type}, {"gpus", rp.gpus}, {"pods", rp.pods}, {"pending", rp.pending}, {"nodes", rp.nodes}});
    jobs.push_back({{"namespace", j.namespace_}, {"name", j.name}, {"gpus", j.gpus()}, {"replicas", reps},
                    {"metrics", detail::load_json(j.load)}});
  }
  return {{"apiVersion", "kubectl-tfjob/v1"}, {"kind", "GpuTop"}, {"nodes", nodes}, {"jobs", jobs},
          {"metricsSources", r.metrics_sources}, {"metricsNote", r.metrics_note}};
}

}  // namespace tfjob::gpu
