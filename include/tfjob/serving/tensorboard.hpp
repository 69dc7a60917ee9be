#pragma once
/// \file TensorBoard for a TFJob, as pure data (no I/O): the job's log directory found in its
/// containers' flags (--log-dir, --log_dir, --logdir; `--flag=DIR` or `--flag DIR`) and the
/// claim mounted there, then a Deployment + Service running `tensorboard --logdir` on that
/// claim (read-only). `kubectl tfjob tensorboard JOB` applies them and reaches the Service
/// through a local proxy (kube/local_proxy.hpp) to the API server's service proxy.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/error.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tfjob::serving {

inline constexpr int tensorboard_port = 6006;  ///< TensorBoard's default --port
/// TensorFlow's CPU image of the guide's release (serving::default_serving_version): its
/// TensorBoard reads the event files that release's trainer writes.
inline constexpr const char* default_tensorboard_image = "tensorflow/tensorflow:2.20.0";

/// Where a job writes its TensorBoard logs.
struct JobLogDir {
  std::string container_path;  ///< as the job's flag names it, e.g. /data/logs
  std::string claim;           ///< the PersistentVolumeClaim mounted over it
  std::string sub_path;        ///< the directory inside the claim ("" = its root)
  std::string replica;         ///< the replica type whose container said so ("Chief")
};

namespace detail {

/// The value of --log-dir/--log_dir/--logdir in ARGS ("" when none).
std::string log_dir_flag(const std::vector<std::string>& args);

std::vector<std::string> strings_of(const nlohmann::json& a);

}  // namespace detail

/// The job's log directory on a claim: the first replica (Chief, Master, Worker, then the
/// rest) whose container names one, and the claim volume mounted at or above it. Throws
/// tfjob::error saying what is missing and what to give instead.
JobLogDir find_job_log_dir(const nlohmann::json& tfjob, const std::string& override_dir = "");

/// The labels of a job's TensorBoard.
nlohmann::json tensorboard_labels(const std::string& name);

/// TensorBoard's Deployment (apps/v1) and Service (v1, port 6006) named NAME, reading
/// LOG's directory of its claim read-only.
std::vector<nlohmann::json> build_tensorboard(const std::string& name, const std::string& ns, const JobLogDir& log,
                                              const std::string& image = default_tensorboard_image);

/// The API server path that reaches TensorBoard's Service (its service proxy).
std::string tensorboard_proxy_prefix(const std::string& ns, const std::string& name);

}  // namespace tfjob::serving

#if TFJOB_SDK_DEFINE_SERVING
namespace tfjob::serving {

namespace detail {

TFJOB_INLINE std::string log_dir_flag(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    for (const char* f : {"--log-dir", "--log_dir", "--logdir"}) {
      const std::string flag = f;
      if (args[i] == flag && i + 1 < args.size()) return args[i + 1];
      if (args[i].rfind(flag + "=", 0) == 0) return args[i].substr(flag.size() + 1);
    }
  }
  return "";
}

TFJOB_INLINE std::vector<std::string> strings_of(const nlohmann::json& a) {
  std::vector<std::string> out;
  if (a.is_array())
    for (const auto& x : a)
      if (x.is_string()) out.push_back(x.get<std::string>());
  return out;
}

}  // namespace detail

TFJOB_INLINE JobLogDir find_job_log_dir(const nlohmann::json& tfjob, const std::string& override_dir) {
  const std::string job = tfjob::detail::value_at(tfjob, "/metadata/name"_json_pointer, std::string());
  const auto specs = tfjob::detail::value_at(tfjob, "/spec/tfReplicaSpecs"_json_pointer, nlohmann::json::object());
  std::vector<std::string> order = {"Chief", "Master", "Worker"};
  for (const auto& [k, v] : specs.items())
    if (k != "Chief" && k != "Master" && k != "Worker") order.push_back(k);
  std::string seen_dir;
  for (const auto& type : order) {
    if (!specs.contains(type) || !specs[type].is_object()) continue;
    const auto pod = tfjob::detail::value_at(specs[type], "/template/spec"_json_pointer, nlohmann::json::object());
    for (const auto& c : tfjob::detail::value_at(pod, "containers", nlohmann::json::array())) {
      if (!c.is_object()) continue;
      std::vector<std::string> args = detail::strings_of(tfjob::detail::value_at(c, "command", nlohmann::json::array()));
      for (auto& a : detail::strings_of(tfjob::detail::value_at(c, "args", nlohmann::json::array()))) args.push_back(a);
      std::string dir = override_dir.empty() ? detail::log_dir_flag(args) : override_dir;
      if (dir.empty() || dir[0] != '/') continue;
      seen_dir = dir;
      // the longest mount path at or above DIR that is a claim volume
      JobLogDir best;
      std::size_t best_len = 0;
      for (const auto& m : tfjob::detail::value_at(c, "volumeMounts", nlohmann::json::array())) {
        std::string mp = tfjob::detail::value_at(m, "mountPath", "");
        while (mp.size() > 1 && mp.back() == '/') mp.pop_back();
        if (mp.empty() || !(dir == mp || dir.rfind(mp + "/", 0) == 0 || mp == "/")) continue;
        std::string claim;
        for (const auto& v : tfjob::detail::value_at(pod, "volumes", nlohmann::json::array()))
          if (tfjob::detail::value_at(v, "name", "") == tfjob::detail::value_at(m, "name", "") && v.contains("persistentVolumeClaim"))
            claim = tfjob::detail::value_at(v["persistentVolumeClaim"], "claimName", "");
        if (claim.empty() || mp.size() < best_len) continue;
        best_len = mp.size();
        best.claim = claim;
        std::string rest = dir.size() > mp.size() ? dir.substr(mp == "/" ? 1 : mp.size() + 1) : "";
        std::string sub = tfjob::detail::value_at(m, "subPath", "");
        best.sub_path = sub.empty() ? rest : (rest.empty() ? sub : sub + "/" + rest);
      }
      if (!best.claim.empty()) {
        best.container_path = dir;
        best.replica = type;
        if (best.sub_path.find("..") != std::string::npos)
          throw tfjob::error("the log directory \"" + dir + "\" leaves its claim (\"..\")");
        return best;
      }
    }
  }
  if (seen_dir.empty())
    throw tfjob::error("tfjob \"" + job + "\" names no log directory: none of its containers has --log-dir, --log_dir or --logdir "
                       "with an absolute path; give it (" + setting::log_dir + " DIR, the path inside the job's containers)");
  throw tfjob::error("tfjob \"" + job + "\" writes its logs to \"" + seen_dir +
                     "\", which is not on a PersistentVolumeClaim (TensorBoard's pod cannot read a pod's own disk): "
                     "mount a claim there (e.g. " + setting::builder_pvc + " CLAIM:" + seen_dir + ")");
}

TFJOB_INLINE nlohmann::json tensorboard_labels(const std::string& name) {
  return {{"app.kubernetes.io/name", "tensorboard"}, {"app.kubernetes.io/instance", name}};
}

TFJOB_INLINE std::vector<nlohmann::json> build_tensorboard(const std::string& name, const std::string& ns, const JobLogDir& log,
                                                           const std::string& image) {
  using nlohmann::json;
  json labels = tensorboard_labels(name);
  json all = labels;
  all["app.kubernetes.io/managed-by"] = "kubectl-tfjob";
  json meta = {{"name", name}, {"labels", all}};
  if (!ns.empty()) meta["namespace"] = ns;
  json mount = {{"name", "logs"}, {"mountPath", "/logs"}, {"readOnly", true}};
  if (!log.sub_path.empty()) mount["subPath"] = log.sub_path;
  json container = {
      {"name", "tensorboard"},
      {"image", image},
      {"command", json::array({"tensorboard"})},
      // --bind_all: listen beyond localhost, so the service proxy reaches it
      {"args", json::array({"--logdir=/logs", "--port=" + std::to_string(tensorboard_port), "--bind_all"})},
      {"ports", json::array({{{"name", "http"}, {"containerPort", tensorboard_port}, {"protocol", "TCP"}}})},
      {"readinessProbe", {{"httpGet", {{"path", "/"}, {"port", "http"}}}, {"periodSeconds", 5}}},
      {"volumeMounts", json::array({mount})}};
  json deployment = {
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata", meta},
      {"spec",
       {{"replicas", 1},
        {"selector", {{"matchLabels", labels}}},
        {"template",
         {{"metadata", {{"labels", all}}},
          {"spec",
           {{"containers", json::array({container})},
            {"volumes", json::array({{{"name", "logs"},
                                      {"persistentVolumeClaim", {{"claimName", log.claim}, {"readOnly", true}}}}})}}}}}}}};
  json service = {{"apiVersion", "v1"},
                  {"kind", "Service"},
                  {"metadata", meta},
                  {"spec",
                   {{"selector", labels},
                    {"ports", json::array({{{"name", "http"}, {"port", tensorboard_port}, {"targetPort", "http"}, {"protocol", "TCP"}}})}}}};
  return {deployment, service};
}

TFJOB_INLINE std::string tensorboard_proxy_prefix(const std::string& ns, const std::string& name) {
  return "/api/v1/namespaces/" + ns + "/services/" + name + ":" + std::to_string(tensorboard_port) + "/proxy";
}

}  // namespace tfjob::serving
#endif  // TFJOB_SDK_DEFINE_SERVING
