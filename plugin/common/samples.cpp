// The bodies of samples.hpp (compiled once, not in every command that includes it).
#include "samples.hpp"

#include "flag_values.hpp"  // flag::usage

namespace tfjob::cli {

std::vector<Sample>& sample_registry() {
  static std::vector<Sample> r;
  return r;
}

const Sample* find_sample(const std::string& name) {
  for (const auto& s : sample_registry())
    if (name == s.name) return &s;
  return nullptr;
}

std::vector<Sample> samples_sorted() {
  auto v = sample_registry();
  std::sort(v.begin(), v.end(), [](const Sample& a, const Sample& b) { return std::string(a.name) < b.name; });
  return v;
}

std::string sample_names() {
  std::string s;
  for (const auto& x : samples_sorted()) s += (s.empty() ? "" : ", ") + std::string(x.name);
  return s.empty() ? "(none)" : s;
}

CLI::ValidationError unknown_sample(const std::string& word) {
  std::vector<std::string> names;
  for (const auto& s : samples_sorted()) names.emplace_back(s.name);
  std::string what = "\"" + word + "\" is not a built-in sample";
  if (auto c = closest(word, names); !c.empty()) what += " (did you mean " + c + "?)";
  return flag::usage("SAMPLE", what,
                     "give one of " + sample_names() +
                         " (submit --list-samples); a job from flags takes --name and --image, and its args after --");
}

void mount_sample_files(TFJob& job, const Sample& s) {
  if (!s.files.mount_path || s.files.files.empty()) return;
  const std::string cm = sample_configmap_name(job.metadata.name);
  for (auto& [type, rs] : job.spec.tf_replica_specs) {
    auto& spec = rs.template_["spec"];
    spec["volumes"].push_back({{"name", "trainer"}, {"configMap", {{"name", cm}}}});
    for (auto& c : spec["containers"])
      if (tfjob::detail::value_at(c, "name", "") == "tensorflow")
        c["volumeMounts"].push_back({{"name", "trainer"}, {"mountPath", s.files.mount_path}, {"readOnly", true}});
  }
}

nlohmann::json sample_configmap(const Sample& s, const std::string& job, const std::string& ns) {
  nlohmann::json data = nlohmann::json::object();
  for (const auto& [k, v] : s.files.files) data[k] = v;
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata",
           {{"name", sample_configmap_name(job)},
            {"namespace", ns},
            {"labels", {{"app.kubernetes.io/name", s.name}, {"app.kubernetes.io/part-of", "kubectl-tfjob"},
                        {"training.kubeflow.org/job-name", job}}}}},
          {"data", data}};
}

}  // namespace tfjob::cli
