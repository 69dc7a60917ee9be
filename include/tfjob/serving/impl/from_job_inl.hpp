#pragma once
/// \file The bodies of <tfjob/serving/from_job.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/from_job.hpp>, never this file.

namespace tfjob::serving {

namespace detail {

TFJOB_INLINE std::string export_dir_arg(const std::vector<std::string>& argv) {
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    for (const char* flag : {"--export-dir", "--export_dir"}) {
      const std::string f = flag;
      if (a.rfind(f + "=", 0) == 0) return a.substr(f.size() + 1);
      if (a == f && i + 1 < argv.size()) return argv[i + 1];
    }
  }
  return {};
}

TFJOB_INLINE std::string clean_path(const std::string& p, bool* escaped) {
  std::vector<std::string> parts;
  std::string cur;
  for (char ch : p + "/") {
    if (ch != '/') {
      cur += ch;
      continue;
    }
    if (cur == "..") {
      if (parts.empty()) *escaped = true;
      else parts.pop_back();
    } else if (!cur.empty() && cur != ".") {
      parts.push_back(cur);
    }
    cur.clear();
  }
  std::string out;
  for (const auto& s : parts) out += "/" + s;
  return out.empty() ? "/" : out;
}

}  // namespace detail

TFJOB_INLINE JobExport job_export(const TFJob& job, const std::string& export_dir) {
  const std::string& name = job.metadata.name;
  if (job.spec.tf_replica_specs.empty()) throw tfjob::error("tfjob \"" + name + "\" has no spec.tfReplicaSpecs");
  std::string searched;
  for (const char* type : {"Chief", "Master", "Worker"}) {
    const ReplicaSpec* r = job.replica(type);
    if (!r) continue;
    const k8s::PodSpec pod = pod_template(*r).spec;
    for (const auto& ct : pod.containers) {
      std::string dir = export_dir;
      if (dir.empty()) dir = detail::export_dir_arg(ct.args);
      if (dir.empty()) dir = detail::export_dir_arg(ct.command);
      if (dir.empty()) continue;
      bool escaped = false;
      if (dir.front() != '/') throw tfjob::error("tfjob \"" + name + "\": export directory \"" + dir + "\" is not an absolute path");
      const std::string want = detail::clean_path(dir, &escaped);
      if (escaped) throw tfjob::error("tfjob \"" + name + "\": export directory \"" + dir + "\" climbs above /");
      // the longest mount holding it, and that mount's claim
      std::string best_mount, best_volume, best_sub;
      for (const auto& m : ct.volume_mounts) {
        if (m.mount_path.empty()) continue;  // (absent, or not a string)
        bool esc2 = false;
        const std::string mp = detail::clean_path(m.mount_path, &esc2);
        const bool under = want == mp || mp == "/" || want.rfind(mp + "/", 0) == 0;
        if (esc2 || !under || mp.size() <= best_mount.size()) continue;
        best_mount = mp;
        best_volume = m.name;
        best_sub = m.sub_path;
      }
      std::string claim;
      for (const auto& v : pod.volumes)
        if (v.name == best_volume && v.persistent_volume_claim) claim = v.persistent_volume_claim->claim_name;
      if (best_volume.empty() || claim.empty())
        throw tfjob::error("tfjob \"" + name + "\": the " + type + "'s export directory " + want +
                           " is on no persistent volume claim (no volumeMount of a persistentVolumeClaim volume holds it): the model "
                           "is gone with the pod; mount a claim there, or name a directory on one (" + setting::export_dir + ")");
      JobExport e;
      e.replica = type;
      e.container_path = want;
      e.claim = claim;
      std::string rel = want == best_mount ? "" : want.substr(best_mount == "/" ? 1 : best_mount.size() + 1);
      e.path = best_sub.empty() ? rel : rel.empty() ? best_sub : best_sub + "/" + rel;
      e.image = ct.image;
      return e;
    }
    searched += (searched.empty() ? "" : ", ") + std::string(type);
  }
  throw tfjob::error("tfjob \"" + name + "\": no --export-dir in the args of its " + (searched.empty() ? "replicas" : searched) +
                     " containers, so where it exported its model is unknown: name it (" + setting::export_dir + " DIR, the directory "
                     "in the trainer's container holding <version>/saved_model.pb)");
}

TFJOB_INLINE ModelEntry model_from_export(const std::string& model, const JobExport& e) {
  ModelEntry m = parse_model_flag(model + "=pvc:" + e.claim + ":" + e.path);
  return m;
}

TFJOB_INLINE std::string tf_release_of_image(const std::string& image) {
  const auto slash = image.rfind('/');
  const auto colon = image.rfind(':');
  if (colon == std::string::npos || (slash != std::string::npos && colon < slash)) return {};
  std::string tag = image.substr(colon + 1);
  std::string out;
  int dots = 0;
  for (char ch : tag) {
    if (std::isdigit(static_cast<unsigned char>(ch))) out += ch;
    else if (ch == '.' && dots < 2 && !out.empty() && out.back() != '.') out += ch, ++dots;
    else break;
  }
  if (dots == 0 || out.back() == '.') return {};
  return out;
}

TFJOB_INLINE std::optional<std::pair<int, int>> tf_major_minor(const std::string& release) {
  auto dot = release.find('.');
  if (dot == std::string::npos || dot == 0 || dot > 6) return std::nullopt;
  auto rest = release.substr(dot + 1);
  auto dot2 = rest.find('.');
  std::string minor = rest.substr(0, dot2);
  if (minor.empty() || minor.size() > 6 || minor.find_first_not_of("0123456789") != std::string::npos ||
      release.substr(0, dot).find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::make_pair(std::stoi(release.substr(0, dot)), std::stoi(minor));
}

TFJOB_INLINE Text tf_version_warning(const std::string& trained_release, const std::string& trained_from,
                                            const std::string& serving_release, const std::string& serving_image) {
  auto t = tf_major_minor(trained_release), s = tf_major_minor(serving_release);
  if (!t || !s || *t <= *s) return {};
  const std::string version = std::to_string(t->first) + "." + std::to_string(t->second) + ".0";
  return "the model was exported by TensorFlow " + trained_release + " (" + trained_from + ") and is served by TF Serving " +
         serving_release + " (" + serving_image + "): a SavedModel from a newer TensorFlow may use ops this server does not "
         "know (\"Op type not registered\"); serve it with TF Serving " + version + " or newer (" + setting::serve_serving_version + " " +
         version + ")";
}

}  // namespace tfjob::serving
