#pragma once
/// \file The bodies of <tfjob/serving/profile.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/profile.hpp>, never this file.

namespace tfjob::serving {

namespace detail {

inline constexpr std::int64_t mib = 1024 * 1024;

TFJOB_INLINE std::int64_t sum_cpu(const std::vector<BudgetLine>& v) {
  std::int64_t n = 0;
  for (const auto& l : v) n += l.cpu_milli;
  return n;
}

TFJOB_INLINE std::int64_t sum_memory(const std::vector<BudgetLine>& v) {
  std::int64_t n = 0;
  for (const auto& l : v) n += l.memory_bytes;
  return n;
}

/// A quantity's value in millis (CPU) or bytes (memory); 0 for "" or an unreadable one.
TFJOB_INLINE std::int64_t quantity_milli(const std::string& q) {
  auto v = Quantity::try_parse(q);
  return v ? static_cast<std::int64_t>(v->milli_value()) : 0;
}
TFJOB_INLINE std::int64_t quantity_bytes(const std::string& q) {
  auto v = Quantity::try_parse(q);
  return v ? static_cast<std::int64_t>(v->int_value()) : 0;
}

}  // namespace detail

TFJOB_INLINE std::int64_t NodeBudget::allocatable_cpu_milli() const { return capacity.cpu_milli - detail::sum_cpu(reserved); }
TFJOB_INLINE std::int64_t NodeBudget::allocatable_memory_bytes() const {
  return capacity.memory_bytes - detail::sum_memory(reserved);
}
TFJOB_INLINE std::int64_t NodeBudget::free_cpu_milli() const { return allocatable_cpu_milli() - detail::sum_cpu(system_pods); }
TFJOB_INLINE std::int64_t NodeBudget::free_memory_bytes() const {
  return allocatable_memory_bytes() - detail::sum_memory(system_pods);
}

TFJOB_INLINE std::vector<std::string> profile_names() { return {"edge"}; }

TFJOB_INLINE ServingProfile find_profile(const std::string& name) {
  if (name == "edge") return edge_profile();
  std::string known;
  for (const auto& n : profile_names()) known += (known.empty() ? "" : ", ") + n;
  throw detail::invalid_setting(setting::serving_profile, " \"" + name + "\" is not a serving profile (known: " + known + ")");
}

TFJOB_INLINE ServingProfile edge_profile() {
  using detail::mib;
  ServingProfile p;
  p.name = "edge";
  p.summary = "GDC bare metal's edge profile: a standalone cluster on one node of 2 vCPUs and 4 GiB (its documented minimum)";
  const std::string prereq =
      "GDC bare metal, node machine prerequisites, \"Resource requirements for standalone clusters using the edge profile\": "
      "https://cloud.google.com/kubernetes-engine/distributed-cloud/bare-metal/docs/installing/node-machine-prerequisites";
  const std::int64_t node_cpu = 2000, node_memory = 4096 * mib;
  p.node.capacity = {"node: the edge profile's minimum (Ubuntu; 4 vCPUs and 8 GiB recommended)", node_cpu, node_memory, prereq, false};
  // GDC publishes its reservations for its on-premises (VMware) nodes; its bare metal docs
  // publish none, so they are this profile's estimate for a bare metal node.
  const std::string reserved_src =
      "GDC's reservations for its on-premises nodes (80 millicores + 1% of the CPU, 330 MiB + 5% of the memory; eviction "
      "threshold 100 MiB): https://cloud.google.com/kubernetes-engine/distributed-cloud/vmware/docs/how-to/resources-available-pods";
  p.node.reserved = {
      {"kubelet --system-reserved/--kube-reserved: the OS, kubelet and container runtime", 80 + node_cpu / 100,
       330 * mib + node_memory / 20, reserved_src, true},
      {"kubelet --eviction-hard memory.available<100Mi (also the kubelet's own default)", 0, 100 * mib, reserved_src, true}};
  const std::string kubeadm = "kubeadm's static pod requests (cmd/kubeadm/app/phases/controlplane/manifests.go, etcd/local.go); "
                              "GDC runs the same components, its requests unpublished";
  p.node.system_pods = {
      {"kube-apiserver", 250, 0, kubeadm, true},
      {"kube-controller-manager", 200, 0, kubeadm, true},
      {"kube-scheduler", 100, 0, kubeadm, true},
      {"etcd", 100, 100 * mib, kubeadm, true},
      {"CoreDNS", 100, 70 * mib, "CoreDNS's Deployment in Kubernetes (cluster/addons/dns/coredns): requests 100m, 70Mi", true},
      {"GDC's add-ons: anetd (networking), the bundled load balancer, the Connect agent, logging and monitoring, the cluster "
       "operator",
       500, 1024 * mib,
       "an estimate: GDC publishes 200 millicores and 100 MiB as its add-ons' usual share of a worker node "
       "(resources-available-pods); a standalone node runs its control plane's add-ons too",
       true}};
  // The server: what is left after the system pods (650m, about 2.2 GiB on the minimum node).
  p.cpu_request = "500m";      // schedules with room for the download's 100m and a margin
  p.cpu_limit = "2";           // the node's vCPUs: idle CPU is used, and CPU is taken back under contention
  p.memory = "1536Mi";         // request = limit: TF Serving is not killed for memory another pod takes
  p.fetch_cpu = "100m";
  p.fetch_memory = "128Mi";    // curl and tar stream the tarball: small
  p.replicas = 1;
  // Intel's "Maximize TensorFlow Performance on CPU" (recommendations for inference): intra-op
  // threads = physical cores (the CPU limit), inter-op threads = sockets (1).
  p.intra_op_threads = 2;
  p.inter_op_threads = 1;
  // TF Serving's batching guide (tensorflow_serving/batching/README.md, "CPU-only: One
  // Approach"): num_batch_threads = CPU cores, batch_timeout_micros 0 to start with, and for
  // online serving max_enqueued_batches = num_batch_threads; max_batch_size is bounded by the
  // memory an image's activations take (per_image_bytes) instead of set "really high".
  p.batching.max_batch_size = 8;
  p.batching.batch_timeout_micros = 0;
  p.batching.num_batch_threads = 2;
  p.batching.max_enqueued_batches = 2;
  // The same guide: a synchronous BatchingSession wants about twice the largest batch in
  // client threads (the REST threads here); TF Serving's default is 4 x the host's CPUs.
  p.rest_api_threads = 16;
  p.runtime_bytes = 200 * mib;   // estimate: TF Serving's process with the TensorFlow runtime, no model
  p.per_image_bytes = 32 * mib;  // estimate: ResNet-50's live activations per 224 x 224 image (fp32)
  return p;
}

TFJOB_INLINE void apply_profile(ServeSpec& s, const ServingProfile& p, const ProfileKeep& keep) {
  if (keep.gpus && s.gpus > 0)
    throw detail::invalid_setting(setting::serve_gpus, " " + std::to_string(s.gpus) + ": the " + p.name +
                                                         " profile serves on CPUs (its nodes have no GPU); leave it out or give 0");
  s.gpus = 0;
  if (!keep.replicas) s.replicas = p.replicas;
  if (!keep.cpu) {
    s.cpu = p.cpu_request;
    s.cpu_limit = p.cpu_limit;
  }
  if (!keep.memory) s.memory = p.memory;
  s.fetch_cpu = p.fetch_cpu;
  s.fetch_memory = p.fetch_memory;
  if (!keep.batching) s.ops.batching = p.batching;
  s.no_surge = true;
  auto has_flag = [&](const std::string& flag) {
    for (const auto& a : s.extra_args)
      if (a == "--" + flag || a.rfind("--" + flag + "=", 0) == 0) return true;
    return false;
  };
  for (const auto& [flag, n] : {std::pair<const char*, int>{"tensorflow_intra_op_parallelism", p.intra_op_threads},
                                {"tensorflow_inter_op_parallelism", p.inter_op_threads},
                                {"rest_api_num_threads", p.rest_api_threads}})
    if (n > 0 && !has_flag(flag)) s.extra_args.push_back(std::string("--") + flag + "=" + std::to_string(n));
}

TFJOB_INLINE ProfileFit fit_to_node(const std::vector<nlohmann::json>& objects, const NodeBudget& node) {
  ProfileFit f;
  int hpa_max = 0;
  auto is = [](const nlohmann::json& o, const char* kind) {  // serve's objects, as built: several kinds
    return o.is_object() && o.value("kind", nlohmann::json()) == kind;
  };
  for (const auto& o : objects)
    if (is(o, "HorizontalPodAutoscaler"))
      hpa_max = std::max<int>(hpa_max, tfjob::detail::from_json_of<k8s::HorizontalPodAutoscaler>(o).spec.max_replicas.value_or(0));
  for (const auto& o : objects) {
    if (!is(o, "Deployment")) continue;
    const auto d = tfjob::detail::from_json_of<k8s::Deployment>(o);
    const auto req = scheduling::pod_requests(d.spec.template_.spec);
    auto at = [&](const char* k) { auto it = req.find(k); return it == req.end() ? 0.0 : it->second; };
    f.pod_cpu_milli = static_cast<std::int64_t>(at("cpu") * 1000 + 0.5);
    f.pod_memory_bytes = static_cast<std::int64_t>(at("memory") + 0.5);
    for (const auto& c : d.spec.template_.spec.containers)
      if (auto m = c.resources.limits.find("memory"); m != c.resources.limits.end()) f.limit_memory_bytes += detail::quantity_bytes(m->second);
    // With an HPA the replicas are its to set (spec.replicas is left out), up to maxReplicas.
    const int replicas = hpa_max > 0 ? hpa_max : d.spec.replicas.value_or(1);
    // A RollingUpdate starts new pods before the old ones go: maxSurge (25% by default, rounded
    // up: one pod) more at once (Kubernetes' Deployment docs, "Max Surge"); 0 adds none.
    const nlohmann::json surge = d.spec.strategy.rolling_update ? d.spec.strategy.rolling_update->max_surge : nlohmann::json();
    const std::string strategy = d.spec.strategy.type.empty() ? std::string("RollingUpdate") : d.spec.strategy.type;
    const bool no_surge = strategy == "Recreate" || (surge.is_number_integer() && surge.get<int>() == 0) ||
                          (surge.is_string() && surge.get<std::string>() == "0%");
    const int surge_pods = replicas > 0 && !no_surge ? 1 : 0;
    f.pods = replicas + surge_pods;
    const std::int64_t cpu = f.pod_cpu_milli * f.pods, mem = f.pod_memory_bytes * f.pods;
    const std::string how = std::to_string(replicas) + " replica" + (replicas == 1 ? "" : "s") + (hpa_max > 0 ? " (the autoscaler's maximum)" : "") +
                            (surge_pods ? " + 1 surge pod during a rollout" : "");
    const std::string left = " left on the node after what the cluster keeps for itself (allocatable " +
                             cpu_text(node.allocatable_cpu_milli()) + " CPU, " + mib_text(node.allocatable_memory_bytes()) +
                             " memory, less its own pods' requests)";
    if (cpu > node.free_cpu_milli())
      f.problems.push_back("the server's pods request " + cpu_text(cpu) + " CPU (" + how + " x " + cpu_text(f.pod_cpu_milli) +
                           ") but only " + cpu_text(node.free_cpu_milli()) + " is" + left);
    if (mem > node.free_memory_bytes())
      f.problems.push_back("the server's pods request " + mib_text(mem) + " of memory (" + how + " x " +
                           mib_text(f.pod_memory_bytes) + ") but only " + mib_text(node.free_memory_bytes()) + " is" + left);
    if (f.limit_memory_bytes > node.free_memory_bytes())
      f.problems.push_back("a server pod may use up to " + mib_text(f.limit_memory_bytes) + " of memory (its limit) but only " +
                           mib_text(node.free_memory_bytes()) + " is" + left);
    if (f.limit_memory_bytes == 0 && f.pod_memory_bytes == 0)
      f.problems.push_back("the server sets no memory request or limit, so nothing keeps it within the " +
                           mib_text(node.free_memory_bytes()) + left);
  }
  return f;
}

TFJOB_INLINE ModelSize resnet_model_size() {
  // Keras Applications (keras.io/api/applications): ResNet50V2, 98 MB, 25,613,800 parameters.
  return {98 * 1000 * 1000, "Keras Applications' published size of ResNet50V2: 98 MB, 25.6 million parameters"};
}

TFJOB_INLINE std::int64_t estimated_server_memory(const ServingProfile& p, std::int64_t model_bytes, std::int64_t max_batch) {
  return p.runtime_bytes + 2 * model_bytes + std::max<std::int64_t>(1, max_batch) * p.per_image_bytes;
}

TFJOB_INLINE std::optional<Text> model_fit(const ServeSpec& s, const ServingProfile& p, const ModelSize& m) {
  const std::int64_t limit = detail::quantity_bytes(s.memory);
  if (limit <= 0) return std::nullopt;
  const std::int64_t batch = s.ops.batching && s.ops.batching->max_batch_size ? *s.ops.batching->max_batch_size : 1;
  const std::int64_t need = estimated_server_memory(p, m.bytes, batch);
  if (need <= limit) return std::nullopt;
  return Text("the model is " + mib_text(m.bytes) + " (" + m.from + "); TF Serving would need about " + mib_text(need) +
         " to serve it in batches of up to " + std::to_string(batch) + " (an estimate: " + mib_text(p.runtime_bytes) +
         " for its runtime, twice the model while its weights are restored, " + mib_text(p.per_image_bytes) +
         " per image of a batch) but the server's memory limit is " + mib_text(limit) +
         ": serve a smaller model (a MobileNet V2 is 14 MB), batches of fewer images (") +
         setting::serve_batching + " max_batch_size=N), or give the server more memory (" + setting::serve_memory +
         ") on a node that has it";
}

TFJOB_INLINE std::string cpu_text(std::int64_t milli) {
  if (milli % 1000 == 0) return std::to_string(milli / 1000);
  return std::to_string(milli) + "m";
}

TFJOB_INLINE std::string mib_text(std::int64_t bytes) {
  const bool neg = bytes < 0;
  const std::int64_t v = (neg ? -bytes : bytes) / detail::mib;
  return std::string(neg ? "-" : "") + std::to_string(v) + "Mi";
}

TFJOB_INLINE std::string budget_text(const NodeBudget& node) {
  std::string out;
  auto line = [&](const std::string& sign, const BudgetLine& l) {
    out += "  " + sign + " " + cpu_text(l.cpu_milli) + " CPU, " + mib_text(l.memory_bytes) + ": " + l.what + (l.estimate ? " [estimate]" : "") +
           "\n      from " + l.source + "\n";
  };
  line(" ", node.capacity);
  for (const auto& l : node.reserved) line("-", l);
  out += "  = " + cpu_text(node.allocatable_cpu_milli()) + " CPU, " + mib_text(node.allocatable_memory_bytes()) +
         ": the node's allocatable\n";
  for (const auto& l : node.system_pods) line("-", l);
  out += "  = " + cpu_text(node.free_cpu_milli()) + " CPU, " + mib_text(node.free_memory_bytes()) +
         ": left for the model server\n";
  return out;
}

}  // namespace tfjob::serving
