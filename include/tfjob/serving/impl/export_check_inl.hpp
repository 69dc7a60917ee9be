#pragma once
/// \file The bodies of <tfjob/serving/export_check.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_SERVING` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/serving/export_check.hpp>, never this file.

namespace tfjob::serving {

TFJOB_INLINE std::string export_check_script() {
  return std::string(R"SH(d="/export/${EXPORT_DIR}"
echo "tfjob-export-check v1"
if [ ! -d "$d" ]; then echo nodir; echo end; exit 0; fi
cd "$d" || exit 3
n=0; h=0
for e in * .[!.]*; do
  [ -e "$e" ] || continue
  n=$((n+1))
  if [ "$n" -gt )SH") + std::to_string(export_check_max_entries) + R"SH( ]; then echo truncated; break; fi
  if [ ! -d "$e" ]; then printf 'file %s\n' "$e"; continue; fi
  printf 'dir %s\n' "$e"
  case "$e" in ''|*[!0-9]*) continue;; esac
  if [ -f "$e/saved_model.pb" ]; then
    printf 'pb %s %s\n' "$(wc -c <"$e/saved_model.pb")" "$e"
    h=$((h+1))
    if [ "$h" -le )SH" + std::to_string(export_check_max_heads) + R"SH( ]; then
      printf 'head %s\n' "$e"; head -c )SH" + std::to_string(export_check_head_bytes) + R"SH( "$e/saved_model.pb" | base64; echo endhead
    fi
  fi
  if [ -f "$e/saved_model.pbtxt" ]; then printf 'pbtxt %s\n' "$e"; fi
  if [ -d "$e/variables" ]; then
    s=0
    for f in "$e"/variables/*; do [ -f "$f" ] && s=$((s + $(wc -c <"$f"))); done
    printf 'vars %s %s\n' "$s" "$e"
  fi
  if [ -f "$e/assets.extra/tf_serving_warmup_requests" ]; then printf 'warmup %s\n' "$e"; fi
done
echo end
)SH";
}

TFJOB_INLINE nlohmann::json build_export_check_pod(const ExportCheckSpec& s) {
  using nlohmann::json;
  if (s.claim.empty()) throw tfjob::error("the export check needs a claim");
  if (s.image.empty()) throw tfjob::error("the export check needs an image");
  json labels = {{"app.kubernetes.io/name", export_check_component},
                 {"app.kubernetes.io/instance", s.server},
                 {"app.kubernetes.io/managed-by", "kubectl-tfjob"}};
  json meta = {{"name", s.pod_name.empty() ? "export-check-" + s.server : s.pod_name}, {"labels", labels}};
  if (!s.namespace_.empty()) meta["namespace"] = s.namespace_;
  json limits = {{"cpu", "100m"}, {"memory", "64Mi"}};
  json container = {{"name", "check"},
                    {"image", s.image},
                    {"imagePullPolicy", "IfNotPresent"},
                    {"command", json::array({"/bin/sh", "-c", export_check_script()})},
                    {"env", json::array({{{"name", "EXPORT_DIR"}, {"value", s.path}}})},
                    {"resources", {{"requests", limits}, {"limits", limits}}},
                    {"volumeMounts", json::array({{{"name", "export"}, {"mountPath", export_check_mount}, {"readOnly", true}}})}};
  json spec = {{"restartPolicy", "Never"},
               {"activeDeadlineSeconds", 300},
               {"terminationGracePeriodSeconds", 0},
               {"automountServiceAccountToken", false},
               {"containers", json::array({container})},
               {"volumes", json::array({{{"name", "export"},
                                         {"persistentVolumeClaim", {{"claimName", s.claim}, {"readOnly", true}}}}})}};
  if (!s.node_selector.empty()) spec["nodeSelector"] = s.node_selector;
  if (!s.tolerations.empty()) spec["tolerations"] = s.tolerations;
  return json{{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", meta}, {"spec", spec}};
}

namespace detail {

/// TF Serving's version directory rule: a child whose whole name parses as an int64
/// (file_system_storage_path_source.cc, GetVersionNumber: absl::SimpleAtoi); digits only here,
/// at most 18 so it fits.
TFJOB_INLINE std::optional<std::int64_t> version_number(const std::string& name) {
  if (name.empty() || name.size() > 18 || name.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  std::int64_t v = 0;
  for (char c : name) v = v * 10 + (c - '0');
  return v;
}

}  // namespace detail

TFJOB_INLINE ExportListing parse_export_check_log(std::string_view log) {
  ExportListing out;
  bool header = false;
  std::map<std::string, ExportVersion> by_dir;
  auto version = [&](const std::string& dir) -> ExportVersion* {
    auto n = detail::version_number(dir);
    if (!n) return nullptr;
    auto it = by_dir.find(dir);
    if (it == by_dir.end()) {
      if (by_dir.size() >= export_check_max_entries) return nullptr;
      ExportVersion v;
      v.dir = dir;
      v.number = *n;
      it = by_dir.emplace(dir, v).first;
    }
    return &it->second;
  };
  std::string head_of, head_b64;
  bool in_head = false;
  std::size_t heads = 0;
  std::size_t pos = 0;
  while (pos < log.size()) {
    auto nl = log.find('\n', pos);
    std::string_view line = log.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? log.size() : nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (in_head) {
      if (line == "endhead") {
        in_head = false;
        auto* v = version(head_of);
        if (v && heads < export_check_max_heads) {
          if (auto bytes = kube::detail::base64_decode(head_b64)) {
            v->head = bytes->substr(0, export_check_head_bytes);
            ++heads;
          }
        }
        head_b64.clear();
      } else if (head_b64.size() + line.size() <= export_check_head_bytes / 3 * 4 + 8) {
        head_b64.append(line);
      }
      continue;
    }
    auto sp = line.find(' ');
    const std::string_view word = line.substr(0, sp);
    const std::string rest = sp == std::string_view::npos ? std::string() : std::string(line.substr(sp + 1));
    if (word == "tfjob-export-check") header = true;
    if (!header) continue;  // whatever the image printed first
    if (word == "end") out.complete = true;
    else if (word == "nodir") out.exists = false;
    else if (word == "truncated") out.truncated = true;
    else if (word == "file") {
      if (out.files.size() < export_check_max_entries) out.files.push_back(rest);
    } else if (word == "dir") {
      if (!version(rest) && !detail::version_number(rest) && out.other_dirs.size() < export_check_max_entries)
        out.other_dirs.push_back(rest);
    } else if (word == "pb") {
      // "pb SIZE NAME" (some wc pad SIZE with spaces)
      const auto start = rest.find_first_not_of(' ');
      if (start == std::string::npos) continue;
      const auto sp2 = rest.find(' ', start);
      if (sp2 == std::string::npos) continue;
      if (auto* v = version(rest.substr(sp2 + 1))) {
        v->saved_model_pb = true;
        v->pb_size = detail::parse_int64(rest.substr(start, sp2 - start), 0, std::numeric_limits<std::int64_t>::max());
      }
    } else if (word == "vars") {
      // "vars SIZE NAME", as "pb"
      const auto start = rest.find_first_not_of(' ');
      if (start == std::string::npos) continue;
      const auto sp2 = rest.find(' ', start);
      if (sp2 == std::string::npos) continue;
      if (auto* v = version(rest.substr(sp2 + 1)))
        v->variables_size = detail::parse_int64(rest.substr(start, sp2 - start), 0, std::numeric_limits<std::int64_t>::max());
    } else if (word == "pbtxt") {
      if (auto* v = version(rest)) v->saved_model_pbtxt = true;
    } else if (word == "warmup") {
      if (auto* v = version(rest)) v->warmup = true;
    } else if (word == "head") {
      in_head = true;
      head_of = rest;
      head_b64.clear();
    }
  }
  for (auto& [d, v] : by_dir) out.versions.push_back(std::move(v));
  std::sort(out.versions.begin(), out.versions.end(), [](const ExportVersion& a, const ExportVersion& b) { return a.number < b.number; });
  if (!header) out.complete = false;
  return out;
}

TFJOB_INLINE ExportVerdict judge_export(const ExportListing& l, const std::string& dir, const std::string& where) {
  ExportVerdict v;
  const std::string shown = dir.empty() ? std::string("the claim's root") : dir;
  if (!l.complete) {
    v.errors.push_back("the export check of " + where + " did not finish its listing (the check pod's log ended early)");
    return v;
  }
  if (!l.exists) {
    v.errors.push_back(where + ": the directory " + shown + " does not exist on the claim; the trainer exports " +
                       "<version>/saved_model.pb there (check the path, or the claim the job wrote to)");
    return v;
  }
  const std::string prefix = dir.empty() ? "" : dir + "/";
  if (l.versions.empty()) {
    std::string found;
    for (const auto& f : l.files) found += (found.empty() ? "" : ", ") + f;
    for (const auto& d : l.other_dirs) found += (found.empty() ? "" : ", ") + d + "/";
    const bool flat = std::find(l.files.begin(), l.files.end(), "saved_model.pb") != l.files.end();
    v.errors.push_back(where + ": no version directory in " + shown + " (" + (found.empty() ? "it is empty" : "it holds " + found) +
                       "): TF Serving serves " + prefix + "<number>/saved_model.pb" +
                       (flat ? "; a SavedModel written straight into " + shown + " is never found: move it into " + prefix + "1/" : ""));
    return v;
  }
  for (const auto& ver : l.versions) {
    if (!ver.saved_model_pb && !ver.saved_model_pbtxt) {
      v.errors.push_back(where + ": version directory " + prefix + ver.dir + " has no saved_model.pb, so TF Serving cannot load version " +
                         ver.dir + " (an export still being written, or one that failed: remove the directory or export again)");
      continue;
    }
    if (ver.saved_model_pb && ver.pb_size && *ver.pb_size == 0) {
      v.errors.push_back(where + ": " + prefix + ver.dir + "/saved_model.pb is empty (0 bytes): an export that did not finish");
      continue;
    }
    v.versions.push_back(ver.number);
    if (!ver.warmup)
      v.warnings.push_back(where + ": version " + ver.dir + " has no warmup file (" + prefix + ver.dir + "/" + warmup_file +
                           "): the first requests will be slow");
  }
  for (auto it = l.versions.rbegin(); it != l.versions.rend(); ++it) {
    if (!it->saved_model_pb || !it->pb_size || *it->pb_size == 0) continue;
    if (it->variables_size) {  // a SavedModel without variables/ holds its constants in the graph
      v.model_bytes = *it->pb_size + *it->variables_size;
      v.model_from = "the export check: saved_model.pb and variables/ of version " + it->dir + " (" + prefix + it->dir + ")";
    }
    break;  // TF Serving serves the highest version (latest:1)
  }
  for (auto it = l.versions.rbegin(); it != l.versions.rend(); ++it) {
    if (it->head.empty()) continue;
    auto info = saved_model_info(it->head);
    if (!info.tensorflow_version.empty()) {
      v.tensorflow_version = info.tensorflow_version;
      v.tensorflow_from = "saved_model.pb of version " + it->dir + " (" + prefix + it->dir + ")";
    }
    break;  // the highest version read decides; an older one says nothing about it
  }
  return v;
}

TFJOB_INLINE ExportListing check_export(kube::Client& c, ExportCheckSpec s, const ExportCheckOptions& o) {
  const std::string ns = s.namespace_.empty() ? c.namespace_() : s.namespace_;
  s.namespace_ = ns;
  if (s.pod_name.empty()) {
    std::random_device rd;
    const char* alnum = "bcdfghjklmnpqrstvwxz2456789";  // the apiserver's generateName alphabet
    std::string suffix;
    for (int i = 0; i < 5; ++i) suffix += alnum[rd() % 27];
    s.pod_name = "export-check-" + s.server.substr(0, 40) + "-" + suffix;
  }
  kube::ResourceInfo pods{"", "v1", "pods", "Pod", true};
  c.request_json(kube::RequestBuilder(pods, ns).create(build_export_check_pod(s)));
  struct Remove {
    kube::Client& c;
    kube::ResourceInfo pods;
    std::string ns, name;
    ~Remove() {
      try {
        kube::DeleteParams dp;
        dp.grace_period_seconds = 0;
        c.request_json(kube::RequestBuilder(pods, ns).remove(name, dp));
      } catch (const std::exception&) {
        // a pod left behind ends by its activeDeadlineSeconds; nothing to do here
      }
    }
  } remove{c, pods, ns, s.pod_name};
  if (o.on_progress) o.on_progress("pod/" + s.pod_name + ": checking " + (s.path.empty() ? "the root" : s.path) + " on claim " + s.claim);

  std::string phase, problem;
  k8s::Pod last;
  kube::Api<kube::DynamicObject> api(c, pods, ns);
  kube::WatchParams wp;
  wp.field_selector = "metadata.name=" + s.pod_name;
  kube::StreamOptions so;
  so.cancel = o.cancel;
  so.deadline = o.deadline;
  api.watch(wp, [&](const kube::WatchEvent<kube::DynamicObject>& ev) {
    if (ev.type == kube::EventType::deleted) {
      problem = "pod " + s.pod_name + " was deleted before it finished";
      return false;
    }
    last = tfjob::detail::decoded<k8s::Pod>(ev.object.json);
    phase = last.status.phase;
    if (phase == "Succeeded" || phase == "Failed") return false;
    for (const auto& p : pod_problems(last, 1)) {
      problem = "container " + p.container + ": " + p.reason + (p.message.empty() ? "" : ": " + p.message);
      return false;
    }
    return true;
  }, so);
  if (!problem.empty()) throw tfjob::error("the export check pod " + s.pod_name + " could not run (" + problem + ")");
  if (phase != "Succeeded" && phase != "Failed") {
    if (o.cancel && o.cancel->load()) throw tfjob::error("the export check was interrupted");
    std::string why;
    try {
      auto b = pod_blockers({last});
      if (!b.empty()) why = ": " + b.front().detail;
    } catch (const std::exception&) {
    }
    throw tfjob::error("the export check pod " + s.pod_name + " did not finish in time (" + (phase.empty() ? "not created" : phase) + why +
                       "); a claim another node holds (ReadWriteOnce) or no node that can mount it keeps it Pending");
  }
  kube::LogParams lp;
  lp.limit_bytes = export_check_log_limit;
  const std::string log = kube::get_logs(c, ns, s.pod_name, lp);
  if (phase == "Failed")
    throw tfjob::error("the export check pod " + s.pod_name + " failed (it mounts claim " + s.claim + " read-only and lists " +
                       (s.path.empty() ? "its root" : s.path) + " with sh, ls, wc, head and base64 of image " + s.image + "): " +
                       (log.empty() ? "no log" : log.substr(0, 2000)));
  return parse_export_check_log(log);
}

TFJOB_INLINE Text export_tf_warning(const ExportVerdict& v, const std::string& training_image, const std::string& serving_release,
                                           const std::string& serving_image) {
  if (!v.tensorflow_version.empty())
    return tf_version_warning(v.tensorflow_version, v.tensorflow_from, serving_release, serving_image);
  if (training_image.empty()) return {};
  return tf_version_warning(tf_release_of_image(training_image), "training image " + training_image, serving_release, serving_image);
}

}  // namespace tfjob::serving
