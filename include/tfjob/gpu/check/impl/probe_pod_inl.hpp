#pragma once
/// \file The bodies of <tfjob/gpu/check/probe_pod.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_GPU` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/gpu/check/probe_pod.hpp>, never this file.

namespace tfjob::gpu {

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
  return tfjob::detail::from_json_of<k8s::Pod>(pod);
}

}  // namespace tfjob::gpu
