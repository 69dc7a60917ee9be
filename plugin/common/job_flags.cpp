// The bodies of job_flags.hpp (compiled once, not in every command that includes it).
#include "job_flags.hpp"

namespace tfjob::cli {

const std::vector<std::pair<std::string, std::string>>& role_flag_prefixes() {
  static const std::vector<std::pair<std::string, std::string>> r = {
      {replica_type::Chief, "chief"}, {replica_type::Worker, "worker"}, {replica_type::PS, "ps"},
      {replica_type::Evaluator, "evaluator"}};
  return r;
}

namespace detail {

void add_source_flags(CLI::App& sub, JobFlags& f) {
  const char* g_in = "Job source";
  flag::file(sub, "-f,--filename", f.files, "TFJob manifest(s): a YAML/JSON file, a directory, or - for stdin",
             flag::Content::text, true, true)->group(g_in);
  add_validate_flag(sub, f.validate)->group(g_in);
  std::vector<std::string> samples;
  for (const auto& x : samples_sorted()) samples.emplace_back(x.name);
  flag::choice(sub, "--sample", f.sample, "Start from a built-in sample (" + sample_names() + ")", samples)->group(g_in);
  // Two positionals: CLI11 hands words after `--` to the parent once every positional
  // has its minimum, so a sample name and then `-- ARGS` need a second one.
  f.first_option = flag::text(sub, "first", f.first_word,
             "A built-in sample name, and/or (after --) the container's args (or its command with --command)",
             "[SAMPLE] [-- ARGS...]")->group(g_in);
  flag::text(sub, "rest", f.rest_words, "")->group("");
}

void add_shape_flags(CLI::App& sub, JobFlags& f) {
  const char* g_job = "Job (from flags)";
  auto& b = f.builder_options;
  b.push_back(flag::text(sub, "--name", f.name, "Job name (a DNS-1035 label)", "NAME")->group(g_job));
  b.push_back(flag::text(sub, "--image", f.image, "Container image of every replica", "IMAGE")->group(g_job));
  b.push_back(flag::boolean(sub, "--command", f.command, "Treat the words after -- as the command instead of args")->group(g_job));
  b.push_back(flag::boolean(sub, "--chief", f.chief, "Add one Chief replica")->group(g_job));
  b.push_back(flag::boolean(sub, "--master", f.master, "Add one Master replica (TF1-era; prefer --chief)")->group(g_job));
  b.push_back(flag::count(sub, "--workers", f.workers, "Number of Worker replicas (default 1 when no other replica is given)", 0)
                  ->group(g_job));
  b.push_back(flag::count(sub, "--ps", f.ps, "Number of parameter-server (PS) replicas", 0)->group(g_job));
  b.push_back(flag::boolean(sub, "--evaluator", f.evaluator, "Add one Evaluator replica")->group(g_job));
  b.push_back(flag::count(sub, "--gpus", f.gpus, "nvidia.com/gpu per Chief/Master/Worker/Evaluator replica (0 = CPU only)", 0)
                  ->group(g_job));
  b.push_back(flag::quantity(sub, "--cpu", f.cpu, "CPU request and limit per replica, e.g. 4 or 500m")->group(g_job));
  b.push_back(flag::quantity(sub, "--memory", f.memory, "Memory request and limit per replica, e.g. 8Gi")->group(g_job));
  b.push_back(flag::key_values(sub, "--env", f.env, "Environment variable NAME=VALUE (repeatable)", flag::Key::env)->group(g_job));
  b.push_back(flag::volumes(sub, "--pvc", f.pvc,
                            "Mount a PersistentVolumeClaim: CLAIM:/mount/path[:ro] (repeatable); with a sample, a bare CLAIM "
                            "replaces the sample's claim at its mount path")
                  ->group(g_job));
  b.push_back(flag::key_values(sub, "--selector", f.selector, "Node selector KEY=VALUE, a node label (repeatable)", flag::Key::label,
                               flag::Value::label)
                  ->group(g_job));
  b.push_back(flag::tolerations(sub, "--toleration", f.toleration, "Toleration KEY[=VALUE][:EFFECT] (repeatable)")->group(g_job));
  b.push_back(flag::key_values(sub, "--label", f.labels, "Label on the TFJob KEY=VALUE (repeatable)", flag::Key::label,
                               flag::Value::label)
                  ->group(g_job));
}

void add_policy_flags(CLI::App& sub, JobFlags& f) {
  const char* g_pol = "Policies";
  auto& b = f.builder_options;
  b.push_back(flag::choice(sub, "--restart-policy", f.restart_policy, "Always, OnFailure, Never (default) or ExitCode",
                           {"Always", "OnFailure", "Never", "ExitCode"})
                  ->group(g_pol));
  b.push_back(flag::choice(sub, "--clean-pod-policy", f.clean_pod_policy, "Pods to delete when the job ends: All, Running, None (default)",
                           {"All", "Running", "None"})
                  ->group(g_pol));
  b.push_back(flag::count(sub, "--ttl", f.ttl, "Seconds after the job finishes before it is deleted", 0, INT32_MAX, "SECONDS")
                  ->group(g_pol));
  b.push_back(flag::count(sub, "--active-deadline", f.active_deadline, "Seconds the job may run before it is failed", 1,
                          std::numeric_limits<std::int64_t>::max(), "SECONDS")
                  ->group(g_pol));
  b.push_back(flag::count(sub, "--backoff-limit", f.backoff_limit, "Retries before the job is marked failed", 0)->group(g_pol));
  b.push_back(flag::choice(sub, "--success-policy", f.success_policy,
                           "\"\" (chief or worker 0 decides, default) or AllWorkers", {"", "AllWorkers"})
                  ->group(g_pol));
  b.push_back(flag::boolean(sub, "--dynamic-worker", f.dynamic_worker, "Set enableDynamicWorker (sparse TF_CONFIG)")->group(g_pol));
}

void add_pod_flags(CLI::App& sub, JobFlags& f) {
  auto& b = f.builder_options;
  const char* g_pod = "Pods (every replica)";
  b.push_back(flag::key_values(sub, "--annotation", f.annotations, "Annotation on every replica's pod KEY=VALUE (repeatable)",
                               flag::Key::label)
                  ->group(g_pod));
  b.push_back(flag::choice(sub, "--image-pull-policy", f.image_pull_policy, "Always, IfNotPresent or Never",
                           {"Always", "IfNotPresent", "Never"})
                  ->group(g_pod));
  b.push_back(flag::text(sub, "--image-pull-secret", f.image_pull_secrets, "Secret to pull images with (repeatable)", "NAME")
                  ->group(g_pod));
  b.push_back(flag::text(sub, "--service-account", f.service_account, "Service account the pods run as", "NAME")->group(g_pod));
  b.push_back(flag::quantity(sub, "--shm-size", f.shm_size, "Size of /dev/shm (an in-memory emptyDir), e.g. 2Gi")->group(g_pod));
  const char* g_role = "Per replica type (override --image/--cpu/--memory/--gpus)";
  f.roles.clear();
  for (const auto& [type, prefix] : role_flag_prefixes()) {
    auto& r = f.roles[type];
    const std::string who = type == replica_type::PS ? "PS" : type;
    b.push_back(flag::text(sub, "--" + prefix + "-image", r.image, "Image of the " + who + " replicas", "IMAGE")->group(g_role));
    b.push_back(flag::quantity(sub, "--" + prefix + "-cpu", r.cpu, "CPU request and limit of each " + who + " replica")->group(g_role));
    b.push_back(flag::quantity(sub, "--" + prefix + "-memory", r.memory, "Memory request and limit of each " + who + " replica")
                    ->group(g_role));
    b.push_back(flag::count(sub, "--" + prefix + "-gpus", r.gpus, "nvidia.com/gpu of each " + who + " replica", 0)->group(g_role));
  }
}

void add_scheduling_flags(CLI::App& sub, JobFlags& f) {
  auto& b = f.builder_options;
  const char* g_sch = "Scheduling (gang scheduling, queues)";
  b.push_back(flag::text(sub, "--queue", f.queue, "Volcano queue of the job's PodGroup (runPolicy.schedulingPolicy.queue)", "NAME")
                  ->group(g_sch));
  auto* min_available = flag::count(sub, "--min-available", f.min_available,
                                    "Pods the gang scheduler starts together (schedulingPolicy.minAvailable; not with --gang)", 1)
                            ->group(g_sch);
  b.push_back(min_available);
  b.push_back(flag::boolean(sub, "--gang", f.gang, "Start the whole job or nothing: minAvailable = every replica (not with --min-available)")
                  ->excludes(min_available)->group(g_sch));
  b.push_back(flag::text(sub, "--priority-class", f.priority_class, "PriorityClass of the job's PodGroup (schedulingPolicy.priorityClass)",
                         "NAME")
                  ->group(g_sch));
  b.push_back(flag::key_values(sub, "--min-resources", f.min_resources,
                               "The PodGroup's minimum resources NAME=QTY[,NAME=QTY] (repeatable), e.g. nvidia.com/gpu=4",
                               flag::Key::label, flag::Value::quantity, true, "NAME=QTY[,...]")
                  ->group(g_sch));
  b.push_back(flag::count(sub, "--schedule-timeout", f.schedule_timeout,
                          "Seconds the PodGroup may wait to be scheduled whole (schedulingPolicy.scheduleTimeoutSeconds)", 1,
                          INT32_MAX, "SECONDS")
                  ->group(g_sch));
  b.push_back(flag::text(sub, "--scheduler-name", f.scheduler_name, "schedulerName of every replica's pod, e.g. volcano", "NAME")
                  ->group(g_sch));
  b.push_back(flag::text(sub, "--local-queue", f.local_queue,
                         "Kueue LocalQueue: label kueue.x-k8s.io/queue-name and create the job suspended for Kueue to admit", "NAME")
                  ->group(g_sch));
  b.push_back(flag::choice(sub, "--managed-by", f.managed_by, "runPolicy.managedBy (default: the training operator)",
                           {managed_by_kubeflow, managed_by_multikueue})
                  ->group(g_sch));
  b.push_back(flag::boolean(sub, "--suspend", f.suspend, "Create the job suspended (runPolicy.suspend; kubectl tfjob resume starts it)")
                  ->group(g_sch));
}

}  // namespace detail

void add_job_flags(CLI::App& sub, JobFlags& f) {
  detail::add_source_flags(sub, f);
  detail::add_shape_flags(sub, f);
  detail::add_policy_flags(sub, f);
  detail::add_pod_flags(sub, f);
  detail::add_scheduling_flags(sub, f);
}

std::optional<std::pair<std::string, std::string>> split_key_value(const std::string& kv) {
  auto eq = kv.find('=');
  if (eq == std::string::npos || eq == 0) return std::nullopt;
  return std::make_pair(kv.substr(0, eq), kv.substr(eq + 1));
}

std::vector<std::string> source_files(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path == "-" || !fs::is_directory(path, ec)) return {path};
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(path, ec)) {
    auto ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json")) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw error("the path \"" + path + "\" holds no .yaml, .yml or .json files");
  return files;
}

void for_each_source(const std::string& path, const std::function<void(const std::string&, std::istream&)>& each) {
  for (const auto& f : source_files(path)) {
    if (f == "-") {
      each("stdin", std::cin);
      continue;
    }
    std::ifstream in(f, std::ios::binary);
    if (!in) throw error("the path \"" + f + "\" does not exist or cannot be read");
    each(f, in);
  }
}

void for_each_object(const std::string& path,
                     const std::function<void(const std::string& source, nlohmann::json&& object, std::size_t index)>& each) {
  for_each_source(path, [&](const std::string& source, std::istream& in) {
    ManifestReader reader(in, source);
    reader.each([&](nlohmann::json&& o, const ObjectPlace&) { each(source, std::move(o), reader.count() - 1); });
  });
}

namespace detail {

void shape_from_flags(FlagsBuild& x, const std::vector<std::string>& words, const std::string& ns) {
  const JobFlags& f = x.f;
  TFJobBuilder& b = x.b;
  if (!f.name.empty()) b.name(f.name);
  if (!ns.empty()) b.namespace_(ns);
  if (!f.image.empty()) b.image(f.image);
  if (!words.empty()) {
    if (f.command) b.command(words);
    else b.args(words);
  }
  if (f.chief) b.chief();
  if (f.master) b.master();
  if (f.evaluator) b.evaluator();
  if (f.workers >= 0) b.workers(f.workers);
  if (f.ps >= 0) b.ps(f.ps);
  if (f.gpus >= 0) b.gpus(f.gpus);
  if (!f.cpu.empty()) x.attempt("--cpu", f.cpu, [&] { b.cpu(f.cpu); });
  if (!f.memory.empty()) x.attempt("--memory", f.memory, [&] { b.memory(f.memory); });
  for (const auto& e : f.env) x.attempt("--env", e, [&] { b.env(e); });
  for (const auto& p : f.pvc) x.attempt("--pvc", p, [&] { b.pvc(p); });
  for (const auto& s : f.selector) x.attempt("--selector", s, [&] { b.node_selector(s); });
  for (const auto& t : f.toleration) x.attempt("--toleration", t, [&] { b.toleration(t); });
  for (const auto& l : f.labels)  // KEY=VALUE, read by the flag layer
    if (auto kv = split_key_value(l)) b.label(kv->first, kv->second);
}

void policies_from_flags(FlagsBuild& x) {
  const JobFlags& f = x.f;
  TFJobBuilder& b = x.b;
  if (!f.restart_policy.empty()) b.restart_policy(f.restart_policy);
  if (!f.clean_pod_policy.empty()) b.clean_pod_policy(f.clean_pod_policy);
  if (f.ttl >= 0) {
    if (f.ttl > INT32_MAX) x.errs.push_back({"--ttl", "Invalid value", std::to_string(f.ttl) + ": must fit in int32"});
    else b.ttl_seconds_after_finished(static_cast<std::int32_t>(f.ttl));
  }
  if (f.active_deadline >= 0) b.active_deadline_seconds(f.active_deadline);
  if (f.backoff_limit >= 0) b.backoff_limit(f.backoff_limit);
  bool success_given = false;
  for (const auto* o : f.builder_options)
    if (o->get_name() == "--success-policy" && o->count() > 0) success_given = true;
  if (success_given) b.success_policy(f.success_policy);
  if (f.dynamic_worker) b.enable_dynamic_worker();
}

void pods_from_flags(FlagsBuild& x) {
  const JobFlags& f = x.f;
  TFJobBuilder& b = x.b;
  for (const auto& a : f.annotations)  // KEY=VALUE with a qualified name, read by the flag layer
    if (auto kv = split_key_value(a)) b.pod_annotation(kv->first, kv->second);
  if (!f.image_pull_policy.empty()) x.attempt("--image-pull-policy", f.image_pull_policy, [&] { b.image_pull_policy(f.image_pull_policy); });
  for (const auto& s : f.image_pull_secrets) b.image_pull_secret(s);
  if (!f.service_account.empty()) b.service_account(f.service_account);
  if (!f.shm_size.empty()) x.attempt("--shm-size", f.shm_size, [&] { b.shm_size(f.shm_size); });
}

field_error named_by_flag(field_error fe, const JobFlags& f) {
  // the name and the image are the two a job from flags must be given: say their flags
  if (fe.field == "metadata.name") {
    if (fe.type == "Required value") return {"--name", fe.type, "a job from flags is named by --name NAME (a DNS-1035 label)"};
    if (!f.name.empty()) fe.field = "--name";
    return fe;
  }
  static const std::string pre = "spec.tfReplicaSpecs[", post = "].template.spec.containers[0].image";
  const auto& x = fe.field;
  if (fe.type != "Required value" || x.size() <= pre.size() + post.size() || x.compare(0, pre.size(), pre) != 0 ||
      x.compare(x.size() - post.size(), post.size(), post) != 0)
    return fe;
  const std::string type = x.substr(pre.size(), x.size() - pre.size() - post.size());
  std::string own;
  for (const auto& [t, prefix] : role_flag_prefixes())
    if (t == type) own = ", or --" + prefix + "-image IMAGE for them alone";
  return {"--image", fe.type, "the " + type + " replicas have no image; give --image IMAGE" + own};
}

bool no_replica_type(const TFJobBuilder& b) {
  for (const auto& t : {replica_type::Chief, replica_type::Master, replica_type::Worker, replica_type::PS, replica_type::Evaluator})
    if (b.replicas_of(t) > 0) return false;
  return true;
}

void roles_from_flags(FlagsBuild& x) {
  const JobFlags& f = x.f;
  TFJobBuilder& b = x.b;
  // per replica type: only for a type the job has (a flag for a missing one is a mistake);
  // a job given no replica type is one Worker (build_unchecked)
  const bool defaults_to_one_worker = no_replica_type(b);
  for (const auto& [type, prefix] : role_flag_prefixes()) {
    auto it = f.roles.find(type);
    if (it == f.roles.end()) continue;
    const auto& r = it->second;
    const std::string flag = "--" + prefix + "-";
    std::string given;
    for (const auto& [v, what] : {std::pair{!r.image.empty(), "image"}, {!r.cpu.empty(), "cpu"},
                                  {!r.memory.empty(), "memory"}, {r.gpus >= 0, "gpus"}})
      if (v) given += (given.empty() ? "" : ", ") + flag + what;
    if (given.empty()) continue;
    if (b.replicas_of(type) == 0 && !(type == replica_type::Worker && defaults_to_one_worker)) {
      const std::string add = type == replica_type::PS ? "--ps N" : type == replica_type::Worker ? "--workers N" : "--" + prefix;
      x.errs.push_back({given, "Invalid value", "the job has no " + (type == replica_type::PS ? std::string("PS") : type) +
                                                    " replica: add " + add + " or drop " + given});
      continue;
    }
    if (!r.image.empty()) b.image(type, r.image);
    if (!r.cpu.empty()) x.attempt(flag + "cpu", r.cpu, [&] { b.cpu(type, r.cpu); });
    if (!r.memory.empty()) x.attempt(flag + "memory", r.memory, [&] { b.memory(type, r.memory); });
    if (r.gpus >= 0) b.gpus(type, r.gpus);
  }
}

void scheduling_from_flags(FlagsBuild& x) {
  const JobFlags& f = x.f;
  TFJobBuilder& b = x.b;
  if (!f.queue.empty()) b.queue(f.queue);
  if (f.min_available > 0) b.min_available(f.min_available);
  if (f.gang) b.gang();
  if (!f.priority_class.empty()) b.priority_class(f.priority_class);
  for (const auto& list : f.min_resources) {  // NAME=QTY[,NAME=QTY], read by the flag layer
    std::stringstream ss(list);
    for (std::string item; std::getline(ss, item, ',');)
      if (auto kv = split_key_value(item)) x.attempt("--min-resources", item, [&] { b.min_resource(kv->first, kv->second); });
  }
  if (f.schedule_timeout > 0) {
    if (f.schedule_timeout > INT32_MAX) x.errs.push_back({"--schedule-timeout", "Invalid value", std::to_string(f.schedule_timeout) + ": must fit in int32"});
    else b.schedule_timeout_seconds(static_cast<std::int32_t>(f.schedule_timeout));
  }
  if (!f.scheduler_name.empty()) b.scheduler_name(f.scheduler_name);
  if (!f.local_queue.empty()) b.local_queue(f.local_queue);
  if (!f.managed_by.empty()) b.managed_by(f.managed_by);
  if (f.suspend) b.suspend();
}

}  // namespace detail

TFJobBuilder builder_from_flags(const JobFlags& f, const std::string& sample,
                                const std::vector<std::string>& words, const std::string& ns,
                                std::vector<field_error>& errs) {
  TFJobBuilder b;
  if (!sample.empty()) {
    const Sample* s = find_sample(sample);
    if (!s) throw unknown_sample(sample);
    b = s->make();
  }
  detail::FlagsBuild x{f, b, errs};
  detail::shape_from_flags(x, words, ns);
  detail::policies_from_flags(x);
  detail::pods_from_flags(x);
  detail::roles_from_flags(x);
  detail::scheduling_from_flags(x);
  return b;
}

std::vector<std::string> positional_words(const JobFlags& f) {
  const bool first = !f.first_word.empty() || (f.first_option && f.first_option->count() > 0);  // `submit ''` is a word
  if (!first && f.rest_words.empty()) return f.words;
  std::vector<std::string> w;
  if (first) w.push_back(f.first_word);
  w.insert(w.end(), f.rest_words.begin(), f.rest_words.end());
  return w;
}

Positionals read_positionals(const JobFlags& f) {
  const std::vector<std::string> w = positional_words(f);
  const std::size_t before = w.size() > f.after_dashes ? w.size() - f.after_dashes : 0;
  Positionals p;
  p.args.assign(w.begin() + static_cast<std::ptrdiff_t>(before), w.end());
  if (before == 0) return p;
  if (!f.sample.empty())
    throw find_sample(w[0]) ? flag::usage("--sample", "\"" + f.sample + "\" and \"" + w[0] + "\" both name a sample", "give one of them")
                            : flag::usage("ARGS", "\"" + w[0] + "\" comes before --", "give the container's args after --, e.g. submit --sample " +
                                                                                          f.sample + " -- " + w[0]);
  if (!find_sample(w[0])) throw unknown_sample(w[0]);
  if (before > 1) {
    std::string rest;
    for (std::size_t i = 1; i < before; ++i) rest += " " + w[i];
    throw flag::usage("ARGS", "\"" + w[1] + "\" comes before --, where only a sample's name goes",
                      "give the container's args after --, e.g. submit " + w[0] + " --" + rest);
  }
  p.sample = w[0];
  return p;
}

std::string sample_name(const JobFlags& f) { return f.sample.empty() ? read_positionals(f).sample : f.sample; }

std::string take_sample_claim(std::vector<std::string>& pvc) {
  std::string name;
  std::vector<std::string> rest;
  for (auto& p : pvc) {
    if (p.find(':') != std::string::npos) {
      rest.push_back(p);
      continue;
    }
    if (!name.empty())
      throw flag::usage("--pvc", "\"" + name + "\" and \"" + p + "\" both name the sample's claim",
                        "give one bare CLAIM, and CLAIM:/mount/path[:ro] for any other");
    name = p;
  }
  pvc = rest;
  return name;
}

int rename_claims(TFJob& job, const std::string& claim) {
  int n = 0;
  for (auto& [t, rs] : job.spec.tf_replica_specs) {
    // look, never create: operator[] would add `volumes: null` to a template without volumes
    if (!rs.template_.is_object()) continue;
    auto spec = rs.template_.find("spec");
    if (spec == rs.template_.end() || !spec->is_object()) continue;
    auto vols = spec->find("volumes");
    if (vols == spec->end() || !vols->is_array()) continue;
    for (auto& v : *vols)
      if (v.contains("persistentVolumeClaim")) {
        v["persistentVolumeClaim"]["claimName"] = claim;
        ++n;
      }
  }
  return n;
}

namespace detail {

std::size_t jobs_from_files(const JobFlags& f, const std::string& ns, std::vector<field_error>* warnings,
                            const std::function<void(TFJob&)>& each) {
  std::vector<field_error> schema_errs;                    // every source's
  std::vector<std::pair<std::string, field_error>> invalid;  // (job name, problem) of sources judged well
  std::string mismatch;                                     // the first, said once every source is read
  std::size_t count = 0;
  for (const auto& path : f.files) {
    for_each_source(
        path,
        [&](const std::string& source, std::istream& in) {
          std::vector<std::pair<std::string, field_error>> src_invalid;
          std::string src_mismatch;
          std::size_t src_count = 0;
          std::size_t read = 0;
          try {
            // each field_error's `where` names the source, the document and the job
            read = for_each_tfjob(in, source, validation_mode(f.validate), warnings, [&](TFJob&& j) {
              ++src_count;
              if (j.api_version.empty()) j.api_version = api_version;  // kind was checked as TFJob
              if (!ns.empty()) {
                if (j.metadata.namespace_.empty()) j.metadata.namespace_ = ns;
                else if (j.metadata.namespace_ != ns && src_mismatch.empty())
                  src_mismatch = "the namespace from the provided object \"" + j.metadata.namespace_ +
                                 "\" does not match the namespace \"" + ns + "\". You must pass '--namespace=" +
                                 j.metadata.namespace_ + "' to perform this operation.";
              }
              set_defaults(j);
              auto problems = validate(j);
              for (auto& fe : problems) src_invalid.emplace_back(j.metadata.name, std::move(fe));
              if (problems.empty() && src_mismatch.empty()) each(j);
            });
          } catch (const validation_error& e) {
            for (const auto& fe : e.errors()) schema_errs.push_back(fe);
            return;
          }
          if (read == 0) throw error(source + ": no TFJob found (the input is empty)");
          count += src_count;
          for (auto& x : src_invalid) invalid.push_back(std::move(x));
          if (mismatch.empty()) mismatch = src_mismatch;
        });
  }
  if (!mismatch.empty()) throw error(mismatch);
  for (auto& [name, fe] : invalid) {
    if (count > 1) fe.field = "TFJob " + (name.empty() ? std::string("<unnamed>") : name) + ": " + fe.field;
    schema_errs.push_back(std::move(fe));
  }
  if (!schema_errs.empty()) throw validation_error(std::move(schema_errs));
  return count;
}

}  // namespace detail

std::size_t for_each_job(const JobFlags& flags, const std::string& ns, std::vector<field_error>* warnings,
                         const std::function<void(TFJob&)>& each) {
  JobFlags f = flags;
  f.words = positional_words(flags);
  const std::string sample_claim = take_sample_claim(f.pvc);
  std::vector<field_error> errs;
  if (!f.files.empty()) {
    if (!f.sample.empty() || !f.words.empty())
      throw flag::usage("--filename", "cannot be combined with a sample or arguments (got \"" +
                                          (f.sample.empty() ? f.words.front() : f.sample) + "\")",
                        "give -f alone, or a sample (or arguments) without -f");
    std::string conflicting;
    for (const auto* o : f.builder_options)
      if (detail::given(o)) conflicting += (conflicting.empty() ? "" : ", ") + o->get_name();
    if (!conflicting.empty())
      throw flag::usage("--filename", "cannot be combined with job flags (" + conflicting + ")",
                        "edit the manifest, or build the job from flags alone");
    return detail::jobs_from_files(f, ns, warnings, each);
  }
  Positionals pos = read_positionals(flags);
  if (f.command && pos.args.empty())
    throw flag::usage("--command", "has no effect without words after --", "give the command after --, e.g. -- python train.py");
  const std::string sample = f.sample.empty() ? pos.sample : f.sample;
  const std::vector<std::string>& words = pos.args;
  auto b = builder_from_flags(f, sample, words, ns, errs);
  // `--workers 0` and no other replica: the builder's default of one Worker is not what was typed
  if (f.workers == 0 && detail::no_replica_type(b))
    errs.push_back({"--workers", "Invalid value",
                    "0 leaves the job without a replica: give --workers 1 or more, or add --chief, --master, --ps N or --evaluator"});
  TFJob job = b.build_unchecked();
  // a gang larger than the job never starts: the PodGroup waits for pods never created
  if (const auto& sp = job.spec.run_policy.scheduling_policy; sp && sp->min_available &&
      *sp->min_available > job.total_replicas())
    errs.push_back({"--min-available", "Invalid value",
                    std::to_string(*sp->min_available) + ": more than the job's " + std::to_string(job.total_replicas()) +
                        " replicas, so the gang would never start (use --gang for all of them)"});
  // the sample's trainer files ride in a ConfigMap unless --image brings its own
  if (const Sample* s = sample.empty() ? nullptr : find_sample(sample); s && f.image.empty())
    mount_sample_files(job, *s);
  // a bare --pvc CLAIM is mounted where the sample mounts its claim; a job from flags has
  // no such place, so it needs a mount path
  if (!sample_claim.empty() && (sample.empty() || rename_claims(job, sample_claim) == 0))
    throw flag::usage("--pvc", "\"" + sample_claim + "\" has no mount path" +
                                   (sample.empty() ? std::string() : " and the sample " + sample + " mounts no claim"),
                      "give CLAIM:/mount/path[:ro], e.g. " + sample_claim + ":/data (a bare CLAIM replaces the claim of a "
                      "built-in sample: submit mnist --pvc " + sample_claim + ")");
  set_defaults(job);
  for (auto fe : validate(job)) errs.push_back(detail::named_by_flag(std::move(fe), f));
  if (!errs.empty()) throw validation_error(std::move(errs));
  each(job);
  return 1;
}

std::vector<TFJob> build_jobs(const JobFlags& flags, const std::string& ns,
                              std::vector<field_error>* warnings) {
  std::vector<TFJob> jobs;
  for_each_job(flags, ns, warnings, [&](TFJob& j) { jobs.push_back(std::move(j)); });
  return jobs;
}

}  // namespace tfjob::cli
