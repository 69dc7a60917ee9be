// kubectl tfjob serve NAME | serve list | serve delete NAME: TensorFlow Serving as a
// Deployment + Service (server-side apply), the rollout waited for like `kubectl rollout
// status`, then the model waited for until TF Serving reports a version AVAILABLE.
#include "commands.hpp"
#include "../common/context.hpp"
#include "../common/flag_values.hpp"
#include "../common/output.hpp"
#include "../common/signatures.hpp"
#include "../common/workflow_cli.hpp"

#include <tfjob/detail/json.hpp>
#include <tfjob/kube/api.hpp>
#include <tfjob/serving/export_check.hpp>
#include <tfjob/serving/kserve.hpp>
#include <tfjob/serving/model_config.hpp>
#include <tfjob/serving/model_versions.hpp>
#include <tfjob/serving/preflight.hpp>
#include <tfjob/serving/profile.hpp>
#include <tfjob/serving/serving.hpp>
#include <tfjob/workflow/status.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tfjob::cli {
namespace {

/// serve NAME's flags.
struct ServeOptions {
  std::string name;
  std::vector<std::string> models;  ///< --model: resnet, or NAME=SOURCE (repeatable: a model config)
  std::string model_url, pvc, model_name;
  std::string model_url_secret;  ///< --model-url-secret SECRET[:KEY]: a URL with credentials, from a Secret
  std::vector<std::string> version_policies, version_labels;
  int model_config_poll = serving::default_model_config_poll_seconds;
  std::string from_job, export_dir, wait_version;
  std::string job_image;  ///< --from-job: the training image (its tag names a TensorFlow release)
  bool no_export_check = false;
  int model_version = 1;
  int gpus = 1;
  int replicas = 1;
  std::string cpu, memory, image, serving_version = serving::default_serving_version;
  std::vector<std::string> selectors, tolerations, extra_args;
  std::string dry_run = "none";
  std::string output;
  std::string timeout = "10m";
  bool no_wait = false;
  bool force_conflicts = false;
  std::string batching, autoscale;
  bool monitoring = false;
  bool kserve = false;  ///< --kserve: an InferenceService (KServe's TensorFlow predictor)
  std::string profile;  ///< --profile: a serving profile (serving/profile.hpp), e.g. edge
  /// --gpus and --replicas as parsed (their defaults are not choices a profile must keep)
  const CLI::Option* gpus_flag = nullptr;
  const CLI::Option* replicas_flag = nullptr;
};

/// The serving profile --profile names, or nullopt.
std::optional<serving::ServingProfile> profile_of(const ServeOptions& o) {
  if (o.profile.empty()) return std::nullopt;
  return serving::find_profile(o.profile);  // one of profile_names(): the flag layer took no other
}

/// --model NAME=SOURCE (any of them with '='): several models through a model config file.
bool uses_model_config(const ServeOptions& o) {
  for (const auto& m : o.models)
    if (m.find('=') != std::string::npos) return true;
  return !o.version_policies.empty() || !o.version_labels.empty();
}

/// The model config from --model NAME=SOURCE, --version-policy and --version-label.
serving::ModelServerConfig model_config_from(const ServeOptions& o) {
  if (!o.model_url.empty() || !o.model_url_secret.empty() || !o.pvc.empty() || !o.model_name.empty())
    throw flag::usage("--model", "--model NAME=SOURCE names each model and its source",
                      "leave out --model-url, --model-url-secret, --pvc and --model-name (SOURCE is resnet, a URL, "
                      "secret:SECRET[:KEY] or pvc:CLAIM[:PATH])");
  serving::ModelServerConfig cfg;
  for (const auto& m : o.models) {
    if (m.find('=') == std::string::npos)
      throw flag::usage("--model", "\"" + m + "\" has no NAME= while there are several models or version policies",
                        "give each as NAME=SOURCE, e.g. " + m + "=" + (m == "resnet" ? "resnet" : "pvc:CLAIM"));
    cfg.models.push_back(serving::parse_model_flag(m));
  }
  auto which = [&](const std::string& model, const std::string& flag, const std::string& text) -> serving::ModelEntry& {
    if (model.empty()) {
      if (cfg.models.size() != 1)
        throw flag::usage(flag, "\"" + text + "\" names no model, and this server serves " + std::to_string(cfg.models.size()) + " models",
                          "name the model (MODEL=... or MODEL:...)");
      return cfg.models.front();
    }
    auto* e = cfg.find(model);
    if (!e) throw flag::usage(flag, "\"" + text + "\": no --model " + model + "=SOURCE was given", "give --model " + model + "=SOURCE too");
    return *e;
  };
  // a model's policy, or one of its labels, given twice with two values: which was meant is
  // not guessed (the same words as a KEY=VALUE flag's key given twice)
  std::map<std::string, std::pair<std::string, std::string>> given;  // what is set -> (the flag's text, its value)
  auto once = [&](const std::string& flag, const std::string& what, const std::string& key, const std::string& text,
                  const std::string& value) {
    if (auto [at, first] = given.emplace(key, std::make_pair(text, value)); !first && at->second.second != value)
      throw flag::usage(flag, what + " is given twice (\"" + at->second.first + "\", \"" + text + "\")", "give each once");
  };
  for (const auto& p : o.version_policies) {
    auto [model, policy] = serving::parse_version_policy_flag(p);
    auto& entry = which(model, "--version-policy", p);
    once("--version-policy", "the policy of model \"" + entry.name + "\"", "policy " + entry.name, p,
         model.empty() ? p : p.substr(model.size() + 1));
    entry.policy = policy;
  }
  for (const auto& l : o.version_labels) {
    auto a = serving::parse_label_assignment(l, "--version-label");
    auto& entry = which(a.model, "--version-label", l);
    once("--version-label", "the label \"" + a.label + "\" of model \"" + entry.name + "\"", "label " + entry.name + " " + a.label, l,
         std::to_string(a.version));
    entry.labels[a.label] = a.version;
  }
  serving::validate(cfg);
  return cfg;
}

serving::ServeSpec spec_from(const ServeOptions& o, const std::string& ns) {
  serving::ServeSpec s;
  s.name = o.name;
  s.namespace_ = ns;
  s.model_name = o.model_name;
  s.model_version = o.model_version;
  s.gpus = o.gpus;
  s.replicas = o.replicas;
  s.cpu = o.cpu;
  s.memory = o.memory;
  s.image = o.image;
  s.serving_version = o.serving_version;
  s.extra_args = o.extra_args;
  const bool config = uses_model_config(o);
  if (!config && o.models.size() > 1)
    throw flag::usage("--model", "several --model flags without NAME=", "give several models as --model NAME=SOURCE, one per model");
  const std::string model_flag = o.models.empty() ? "" : o.models.front();
  int sources = !o.models.empty() + !o.model_url.empty() + !o.model_url_secret.empty() + !o.pvc.empty();
  if (sources != 1 && !(config && o.model_url.empty() && o.model_url_secret.empty() && o.pvc.empty()))
    throw flag::usage("--model", std::to_string(sources) + " model sources given",
                      "give exactly one model source: --model resnet, --model-url URL, --model-url-secret SECRET[:KEY] or "
                      "--pvc CLAIM[:PATH] (or --model NAME=SOURCE, repeatable, for several models)");
  if (config) {  // the objects come from build_model_config_objects; the first model passes validate()
    auto cfg = model_config_from(o);
    s.model_name = cfg.models.front().name;
    s.source = cfg.models.front().source;
  } else if (!o.models.empty()) {
    if (model_flag != "resnet")
      throw flag::usage("--model", "\"" + model_flag + "\" is not a built-in model (built in: resnet)",
                        "use --model-url URL, --pvc CLAIM[:PATH] or --model NAME=SOURCE");
    s.source.kind = serving::ModelSource::Kind::resnet;
    s.source.url = serving::resnet_model_url;
  } else if (!o.model_url.empty()) {
    s.source.kind = serving::ModelSource::Kind::url;
    s.source.url = o.model_url;
  } else if (!o.model_url_secret.empty()) {
    s.source = serving::parse_url_secret(o.model_url_secret);
  } else {
    s.source = serving::parse_pvc(o.pvc);
  }
  for (const auto& kv : o.selectors) {  // KEY=VALUE, read by the flag layer
    const auto eq = kv.find('=');
    s.node_selector[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
  }
  for (const auto& t : o.tolerations) s.tolerations.push_back(serving::parse_toleration(t));
  if (!o.batching.empty()) s.ops.batching = serving::parse_batching(o.batching);  // read by the flag layer
  if (!o.autoscale.empty()) s.ops.autoscale = serving::parse_autoscale(o.autoscale);
  if (auto p = profile_of(o)) {  // what the user gave on purpose is kept, the rest is the profile's
    serving::ProfileKeep keep;
    keep.gpus = o.gpus_flag && o.gpus_flag->count() > 0;
    keep.replicas = o.replicas_flag && o.replicas_flag->count() > 0;
    keep.cpu = !o.cpu.empty();
    keep.memory = !o.memory.empty();
    keep.batching = !o.batching.empty();
    serving::apply_profile(s, *p, keep);
  }
  serving::validate_operations(s.ops, s.cpu);  // the message names --autoscale, --gpus
  s.ops.monitoring = o.monitoring;
  serving::validate(s);
  return s;
}

/// The objects to apply: one model by flags, or several through a model config ConfigMap.
std::vector<nlohmann::json> objects_of(const ServeOptions& o, const serving::ServeSpec& spec) {
  if (!uses_model_config(o)) return serving::build_objects(spec);
  return serving::build_model_config_objects(spec, model_config_from(o), o.model_config_poll);
}

/// --from-job JOB: the options with the job's export as one more --model NAME=pvc:CLAIM:PATH
/// (validate() stands a placeholder claim in for the export, run() the job's).
ServeOptions with_export(const ServeOptions& in, const std::string& claim, const std::string& path) {
  ServeOptions o = in;
  const std::string model = o.model_name.empty() ? o.name : o.model_name;
  o.model_name.clear();
  o.models.push_back(model + "=pvc:" + claim + ":" + path);
  return o;
}

/// --from-job JOB: the options with the export of the finished job, said on ctx.err.
ServeOptions with_job_model(Context& ctx, const ServeOptions& in) {
  auto& client = ctx.client();
  auto e = serving::finished_job_export(client, client.namespace_(), in.from_job, in.export_dir);
  ServeOptions o = with_export(in, e.claim, e.path);
  ctx.err << "tfjob/" << o.from_job << ": the " << e.replica << " exported to " << e.container_path << ", on claim " << e.claim
          << (e.path.empty() ? "" : " at " + e.path) << "\n";
  o.job_image = e.image;
  return o;
}

/// serve --kserve: what an InferenceService cannot carry (pure, before any request).
void check_kserve_flags(const ServeOptions& o) {
  if (uses_model_config(o) || !o.from_job.empty() || !o.models.empty() || !o.model_url.empty() || !o.model_url_secret.empty() ||
      o.pvc.empty())
    throw flag::usage("--kserve", "an InferenceService reads one model from a claim",
                      "give --pvc CLAIM[:PATH] (PATH holds NAME/<version>/saved_model.pb), not --model, --model-url, "
                      "--model-url-secret or --from-job");
  if (!o.model_name.empty() && o.model_name != o.name)
    throw flag::usage("--model-name", "KServe names the model after the InferenceService",
                      "leave --model-name out, or name the server \"" + o.model_name + "\"");
  if (!o.batching.empty() || o.monitoring || !o.extra_args.empty())
    throw flag::usage("--kserve", "--batching, --monitoring and --arg set TF Serving's flags, which KServe's TensorFlow runtime owns",
                      "leave them out with --kserve");
  if (!o.wait_version.empty()) throw flag::usage("--wait-version", "not available with --kserve", "leave it out with --kserve");
  if (!o.profile.empty())
    throw flag::usage("--profile", "a serving profile shapes serve's own Deployment", "leave --kserve out to use it");
}

/// serve --kserve: the InferenceService for these options in namespace `ns`.
k8s::InferenceService inference_service_of(const ServeOptions& o, const std::string& ns) {
  try {
    return serving::kserve::build_inference_service(spec_from(o, ns));
  } catch (const CLI::Error&) {
    throw;
  } catch (const tfjob::error& e) {
    throw flag::usage("--kserve", error_message(e), "see kubectl tfjob serve --help");  // e.g. --image outside tensorflow/serving
  }
}

/// The models the server is waited for, in order: the model config's, or the one model.
std::vector<serving::ModelEntry> served_models(const ServeOptions& o, const serving::ServeSpec& spec) {
  if (uses_model_config(o)) return model_config_from(o).models;
  serving::ModelEntry e;
  e.name = spec.effective_model_name();
  e.source = spec.source;
  return {e};
}

/// The TensorFlow release of the serving image: --serving-version's, or --image's tag.
std::string serving_release_of(const ServeOptions& o) {
  return o.image.empty() ? o.serving_version : serving::tf_release_of_image(o.image);
}

/// What --pvc CLAIM[:PATH] must hold for `model`.
std::string pvc_hint(const serving::ModelSource& source, const std::string& model) {
  return "--pvc names the claim that holds " + (source.path.empty() ? "" : source.path + "/") + model + "/<version>/saved_model.pb";
}

/// A model's claim must exist before anything is applied; `hint` says what it is for.
void require_claim(kube::Client& client, const std::string& ns, const std::string& claim, const std::string& hint) {
  if (!kube::Api<k8s::PersistentVolumeClaim>(client, ns).get_opt(claim))
    throw tfjob::error("persistentvolumeclaim \"" + claim + "\" not found in namespace \"" + ns + "\": " + hint);
}

/// A preflight's findings, before anything is applied: warnings on ctx.err, errors refused;
/// `skipped` is said when the check could not look (nodes not listable, 403).
void refuse_on(Context& ctx, std::optional<std::vector<Finding>> findings, const std::string& server, const std::string& skipped) {
  if (!findings) {
    ctx.err << "warning: " << skipped << "\n";
    return;
  }
  word_fixes(*findings);
  std::string errors;
  for (const auto& f : *findings) {
    const std::string fix = f.fix.empty() ? "" : "\nfix: " + f.fix.str();
    const std::string message = f.message.str();
    std::string evidence;  // the figures it was judged by (a node's allocatable and requests)
    for (const auto& e : f.evidence) evidence += "\n  " + e;
    if (f.is_error()) errors += (errors.empty() ? "" : "\n") + message + evidence + fix;
    else ctx.err << "warning: " << message << (message.empty() || message.back() == '\n' ? "" : "\n") << (fix.empty() ? "" : fix.substr(1) + "\n");
  }
  if (!errors.empty()) throw tfjob::error("refusing to serve \"" + server + "\": " + errors);
}

/// submit's GPU check on the server's pods (a Deployment, or an InferenceService's
/// preflight_view), before anything is applied: warnings on ctx.err, refusal thrown.
void require_gpus(Context& ctx, kube::Client& client, const k8s::Deployment& deployment, const std::string& server) {
  refuse_on(ctx, serving::gpu_preflight(client, deployment), server,
            "cannot list nodes (403), so the GPU check was skipped: make sure nodes expose nvidia.com/gpu");
}

/// The refusal of a server a profile's node cannot hold: the reasons, then the budget they
/// were judged against.
[[noreturn]] void refuse_for_profile(const serving::ServingProfile& p, const std::string& server, const std::vector<Text>& why) {
  Text all;
  for (const auto& w : why) all += "\n  " + w;
  throw tfjob::error("refusing to serve \"" + server + "\" with the " + p.name + " profile:" + all + "\nthe " + p.name +
                     " profile's node (" + p.summary + "):\n" + serving::budget_text(p.node));
}

/// serve --profile, from the flags alone (no request): the objects against the profile's node
/// (every pod's requests, init containers included, replicas and a rollout's surge pod), and
/// the model against the server's memory where its size is known before anything runs.
void check_profile(Context& ctx, const ServeOptions& o, const serving::ServeSpec& spec, const std::vector<nlohmann::json>& objs,
                   const std::vector<serving::ModelEntry>& served) {
  const auto p = profile_of(o);
  if (!p) return;
  std::vector<Text> why;
  if (served.size() > 1)
    why.push_back("it serves " + std::to_string(served.size()) + " models, and the profile sizes a server for one");
  for (auto& w : serving::fit_to_node(objs, p->node).problems) why.push_back(std::move(w));
  if (served.size() == 1 && served.front().source.kind == serving::ModelSource::Kind::resnet)
    if (auto w = serving::model_fit(spec, *p, serving::resnet_model_size())) why.push_back(*w);
  if (!why.empty()) refuse_for_profile(*p, spec.name, why);
  if (served.size() == 1 && served.front().source.kind == serving::ModelSource::Kind::url)
    ctx.err << "warning: the size of a downloaded model is not known before its download, so the " << p->name
            << " profile cannot check it against the server's memory (" << spec.memory
            << "): a model too large for it ends in OOMKilled\n";
}

/// serve --profile on the cluster: the server's requests against what each node has free now.
void require_room(Context& ctx, kube::Client& client, const k8s::Deployment& deployment, const std::string& server) {
  refuse_on(ctx, serving::capacity_preflight(client, deployment), server,
            "cannot list nodes (403), so whether the server's requests fit a node was not checked");
}

/// serve --profile after the export check: the model on the claim against the server's memory.
void check_model_size(Context& ctx, const ServeOptions& o, const serving::ServeSpec& spec, const serving::ExportVerdict& v) {
  const auto p = profile_of(o);
  if (!p || o.no_export_check || o.dry_run == "server") return;
  if (!v.model_bytes) {
    ctx.err << "warning: the export check found no variables/ beside saved_model.pb, so the model's size was not checked "
               "against the server's memory (" << spec.memory << ")\n";
    return;
  }
  if (auto w = serving::model_fit(spec, *p, {*v.model_bytes, v.model_from})) refuse_for_profile(*p, spec.name, {*w});
  ctx.err << "model: " << serving::mib_text(*v.model_bytes) << " (" << v.model_from << "), about "
          << serving::mib_text(serving::estimated_server_memory(
                 *p, *v.model_bytes, spec.ops.batching && spec.ops.batching->max_batch_size ? *spec.ops.batching->max_batch_size : 1))
          << " in TF Serving (an estimate) of the server's " << spec.memory << "\n";
}

/// Server-side apply with serve's word for a conflict; says each object applied on ctx.err.
template <class Apply>
std::vector<nlohmann::json> apply_saying(Context& ctx, const ServeOptions& o, Apply&& apply) {
  std::vector<nlohmann::json> applied;
  try {
    applied = apply();
  } catch (const api_error& e) {
    if (e.is_conflict())
      throw tfjob::error(std::string(e.what()) + "\nanother field manager owns these fields; rerun with --force-conflicts to take them over");
    throw;
  }
  for (const auto& a : applied)
    ctx.err << object_name(a) << " serverside-applied" << (o.dry_run == "server" ? " (server dry run)" : "") << "\n";
  return applied;
}

/// A wait until `timeout` from now, its progress on `progress`.
serving::WaitOptions wait_options(std::chrono::milliseconds timeout, wf::ProgressLine& progress) {
  serving::WaitOptions wo;
  wo.deadline = std::chrono::steady_clock::now() + timeout;
  wo.on_progress = [&progress](const std::string& m) { progress.show(m); };
  return wo;
}

/// How serve ends a rollout or InferenceService wait that did not get ready: the wait's
/// diagnosis; on a timeout what it waited for and the hints for what held each pod back
/// (`no_pod_hint` where none did). Returns exit_code::timeout; throws the failure.
int server_not_ready(Context& ctx, const serving::WaitReport& r, const ServeOptions& o, const std::string& waiting_for,
                     const std::string& model, const std::string& no_pod_hint = "") {
  if (!r.diagnosis.empty()) ctx.err << r.diagnosis;
  if (r.result != serving::WaitResult::timeout) throw tfjob::error(r.message);
  const std::string hints = worded(serving::blocker_hints(r.blockers, model));
  ctx.err << "error: timed out after " << o.timeout << " waiting for " << waiting_for << ": " << r.message << "\n"
          << (hints.empty() ? no_pod_hint : hints);
  return exit_code::timeout;
}

/// The same for a model's wait (wait_model, wait_model_version), whose diagnosis is one hint;
/// `waiting_for` "" when its message says what it waited for.
int model_not_ready(Context& ctx, const serving::WaitReport& m, const ServeOptions& o, const std::string& waiting_for) {
  if (!m.diagnosis.empty()) ctx.err << "hint: " << m.diagnosis << "\n";
  if (m.result != serving::WaitResult::timeout) throw tfjob::error(m.message);
  ctx.err << "error: timed out after " << o.timeout << (waiting_for.empty() ? "" : " waiting for " + waiting_for) << ": " << m.message
          << "\n";
  return exit_code::timeout;
}

/// The line that a model is AVAILABLE `where`, then the signatures a client calls; a server
/// that cannot say them is still served (a warning).
void say_available(Context& ctx, kube::Client& client, const std::string& ns, const std::string& service, const std::string& model,
                   const std::string& version, const std::string& where) {
  ctx.out << "model \"" << model << "\" version " << version << " is AVAILABLE on " << where << "\n";
  try {
    print_signatures(ctx.out, serving::get_model_metadata(client, ns, service, model, {version, ""}));
  } catch (const std::exception& e) {
    ctx.err << "warning: cannot read the signatures of model \"" << model << "\": " << error_message(e) << "\n";
  }
}

/// serve NAME: the server for the flags, applied and waited for (or printed with
/// --dry-run=client); with --kserve an InferenceService instead of a Deployment.
struct ServeCommand {
  ServeOptions flags;
  const CLI::App* sub = nullptr;  ///< its command, to tell which flags were given

  void validate() {
    const ServeOptions& o = flags;
    if (o.name.empty()) throw flag::usage("NAME", "no server named", "give the server's NAME (or use `serve list` / `serve delete NAME`)");
    if (!o.from_job.empty() && (!o.models.empty() || !o.model_url.empty() || !o.model_url_secret.empty() || !o.pvc.empty()))
      throw flag::usage("--from-job", "the job's export is the model", "leave out --model, --model-url, --model-url-secret and --pvc");
    if (o.from_job.empty()) flag::refuse_given(*sub, {"--export-dir"}, "without --from-job", "add --from-job JOB, or leave it out");
    if (o.from_job.empty() && !uses_model_config(o))  // one model by flags has no model config to re-read
      flag::refuse_given(*sub, {"--model-config-poll"}, "without a model config (--model NAME=SOURCE, --version-policy, --version-label or --from-job)",
                         "give the models as --model NAME=SOURCE, or leave it out");
    fmt = parse_output_format(o.output, {"json", "yaml", "name"});
    flags.dry_run = flag::dry_run_strategy(flags.dry_run, &dry_run_warning);
    if (o.dry_run != "none")  // what bounds or extends the wait, where nothing is waited for
      flag::refuse_given(*sub, {"--timeout", "--wait-version"}, "with --dry-run, which waits for nothing", "leave out one of them");
    else if (o.no_wait)
      flag::refuse_given(*sub, {"--timeout", "--wait-version"}, "with --no-wait, which returns after the apply", "leave out one of them");
    if (!o.autoscale.empty())
      flag::refuse_given(*sub, {"--replicas"}, "with --autoscale, whose MIN:MAX the autoscaler keeps the replicas within",
                         "leave out one of them");
    if (!o.image.empty())
      flag::refuse_given(*sub, {"--serving-version"}, "with --image, which names the whole image", "leave out one of them");
    if (o.kserve) check_kserve_flags(o);
    if (o.dry_run != "client") timeout_ms = wf::parse_duration(o.timeout, "--timeout");
    // every model flag, with a claim standing in for the export --from-job reads at run time
    const ServeOptions checked = o.from_job.empty() ? o : with_export(o, "CLAIM", "PATH");
    if (o.kserve) inference_service_of(checked, "");
    else objects_of(checked, spec_from(checked, ""));
  }
  int run(Context& ctx) const {
    if (!dry_run_warning.empty()) ctx.err << "warning: " << dry_run_warning << "\n";
    const ServeOptions o = flags.from_job.empty() ? flags : with_job_model(ctx, flags);
    return o.kserve ? run_kserve(ctx, o) : run_deployment(ctx, o);
  }

 private:
  /// serve --kserve: the same spec as a KServe InferenceService (TensorFlow predictor,
  /// storage from the claim), waited for until Ready and its model AVAILABLE, as serve waits.
  int run_kserve(Context& ctx, const ServeOptions& o) const;
  /// The Deployment, Service (and ConfigMap, PDB, HPA) applied, the rollout and each model
  /// waited for.
  int run_deployment(Context& ctx, const ServeOptions& o) const;
  /// The export check: each claim's version directories, before anything is applied;
  /// returns the first model's verdict (warned by the caller, with the training image).
  serving::ExportVerdict check_exports(Context& ctx, kube::Client& client, const ServeOptions& o, const serving::ServeSpec& spec,
                                       const std::vector<serving::ModelEntry>& served) const;
  /// The objects printed after --dry-run=server, --no-wait or a wait with -o; false with no -o.
  bool print_applied(Context& ctx, const std::vector<nlohmann::json>& applied) const {
    if (fmt == OutputFormat::table) return false;
    print_objects(ctx.out, applied, fmt);
    return true;
  }
  OutputFormat fmt = OutputFormat::table;
  std::chrono::milliseconds timeout_ms{0};
  std::string dry_run_warning;  ///< kubectl's words for a deprecated --dry-run form
};

int ServeCommand::run_kserve(Context& ctx, const ServeOptions& o) const {
  if (o.dry_run == "client") {
    print_objects(ctx.out, {nlohmann::json(inference_service_of(o, ctx.globals().conn.namespace_))},
                  fmt == OutputFormat::table ? OutputFormat::yaml : fmt);
    return exit_code::ok;
  }
  auto& client = ctx.client();
  const std::string ns = client.namespace_();
  auto isvc = inference_service_of(o, ns);
  if (!serving::kserve::served(client))
    throw tfjob::error(std::string("this cluster does not serve inferenceservices.") + serving::kserve::group + "/" +
                       serving::kserve::version + " (KServe's InferenceService), so --kserve cannot be used: install KServe "
                       "(its CRDs and controller, RawDeployment mode is enough), or drop --kserve to serve the model as a "
                       "Deployment and Service");
  const auto spec = spec_from(o, ns);
  require_claim(client, ns, spec.source.claim, pvc_hint(spec.source, spec.effective_model_name()));
  require_gpus(ctx, client, serving::kserve::preflight_view(isvc), spec.name);
  const auto applied = apply_saying(ctx, o, [&] {
    return std::vector<nlohmann::json>{serving::kserve::apply(client, ns, isvc, o.force_conflicts, o.dry_run == "server")};
  });
  if (o.dry_run == "server" || o.no_wait) {
    print_applied(ctx, applied);
    return exit_code::ok;
  }
  wf::ProgressLine progress(true, ctx.err);
  const auto wo = wait_options(timeout_ms, progress);
  auto r = serving::kserve::wait_ready(client, ns, spec.name, wo);
  progress.finish();
  if (r.result != serving::WaitResult::ready)
    return server_not_ready(ctx, r, o, "inferenceservice \"" + spec.name + "\" to be Ready", spec.name);
  const std::string endpoint = serving::kserve::predictor_endpoint(client, ns, spec.name);
  auto m = serving::wait_model(client, ns, endpoint, spec.name, wo);
  progress.finish();
  if (m.result != serving::WaitResult::ready) return model_not_ready(ctx, m, o, "model \"" + spec.name + "\" to be AVAILABLE");
  const auto now = serving::kserve::get(client, ns, spec.name);
  if (print_applied(ctx, {now ? nlohmann::json(*now) : applied.front()})) return exit_code::ok;
  auto st = now ? serving::kserve::read_state(*now) : serving::kserve::read_state(applied.front());
  say_available(ctx, client, ns, endpoint, spec.name, m.version,
                "inferenceservice " + ns + "/" + spec.name + " (predictor service " + endpoint + (st.url.empty() ? "" : ", URL " + st.url) + ")");
  return exit_code::ok;
}

serving::ExportVerdict ServeCommand::check_exports(Context& ctx, kube::Client& client, const ServeOptions& o,
                                                   const serving::ServeSpec& spec, const std::vector<serving::ModelEntry>& served) const {
  const bool config = uses_model_config(o);
  const std::string serving_image = spec.effective_image();
  const std::string serving_release = serving_release_of(o);
  serving::ExportVerdict first;
  for (const auto& m : served) {
    if (m.source.kind != serving::ModelSource::Kind::pvc) continue;
    // a model config's PATH is the model's base; --pvc CLAIM:PATH holds PATH/MODEL
    const std::string dir = config ? m.source.path : (m.source.path.empty() ? "" : m.source.path + "/") + m.name;
    serving::ExportCheckSpec cs;
    cs.server = spec.name;
    cs.namespace_ = spec.namespace_;
    cs.claim = m.source.claim;
    cs.path = dir;
    cs.image = serving_image;
    cs.node_selector = spec.node_selector;
    cs.tolerations = spec.tolerations;
    serving::ExportCheckOptions eo;
    eo.deadline = std::min(std::chrono::steady_clock::now() + timeout_ms, std::chrono::steady_clock::now() + std::chrono::minutes(5));
    eo.on_progress = [&ctx](const std::string& line) { ctx.err << line << "\n"; };
    serving::ExportListing listing;
    try {
      listing = serving::check_export(client, cs, eo);
    } catch (const tfjob::error& e) {
      throw tfjob::error(std::string(e.what()) + "\nhint: --no-export-check skips the check (TF Serving then reports a bad export itself)");
    }
    const std::string where = "model \"" + m.name + "\" (" + (dir.empty() ? "the root" : dir) + " on claim " + m.source.claim + ")";
    auto v = serving::judge_export(listing, dir, where);
    for (const auto& w : v.warnings) ctx.err << "warning: " << w << "\n";
    if (!v.ok()) {
      std::string all;
      for (const auto& e : v.errors) all += "\n  " + e;
      throw tfjob::error("refusing to serve \"" + spec.name + "\": the export check found" + all);
    }
    std::string versions;
    for (auto n : v.versions) versions += (versions.empty() ? "" : ",") + std::to_string(n);
    ctx.err << where << ": version" << (v.versions.size() == 1 ? " " : "s ") << versions << " hold a SavedModel"
            << (v.tensorflow_version.empty() ? "" : ", exported by TensorFlow " + v.tensorflow_version) << "\n";
    if (&m == &served.front()) first = v;  // warned by the caller, with the training image as the fallback
    else if (auto w = serving::export_tf_warning(v, "", serving_release, serving_image); !w.empty())
      ctx.err << "warning: " << worded(w) << "\n";
  }
  return first;
}

int ServeCommand::run_deployment(Context& ctx, const ServeOptions& o) const {
  if (o.dry_run == "client") {
    const auto spec = spec_from(o, ctx.globals().conn.namespace_);
    auto objs = objects_of(o, spec);
    check_profile(ctx, o, spec, objs, served_models(o, spec));
    print_objects(ctx.out, objs, fmt == OutputFormat::table ? OutputFormat::yaml : fmt);
    return exit_code::ok;
  }
  auto& client = ctx.client();
  const std::string ns = client.namespace_();
  const auto spec = spec_from(o, ns);
  auto objs = objects_of(o, spec);
  const auto served = served_models(o, spec);  // what to wait for, in order
  check_profile(ctx, o, spec, objs, served);
  for (const auto& m : served)
    if (m.source.kind == serving::ModelSource::Kind::pvc)
      require_claim(client, ns, m.source.claim,
                    uses_model_config(o) ? "--model " + m.name + "=pvc:CLAIM[:PATH] names the claim whose PATH holds <version>/saved_model.pb"
                                         : pvc_hint(m.source, m.name) + " (for the MNIST sample: --pvc tfjob-mnist:export)");
  for (const auto& obj : objs) {
    if (!obj.is_object() || obj.value("kind", nlohmann::json()) != "Deployment") continue;
    auto d = obj.get<k8s::Deployment>();  // as built; its pods judged as the server will get them
    d.metadata.namespace_ = ns;
    require_gpus(ctx, client, d, spec.name);
    if (!o.profile.empty()) require_room(ctx, client, d, spec.name);
  }
  // the export check after the GPU check: that one needs no pod
  const auto first = o.no_export_check || o.dry_run == "server" ? serving::ExportVerdict{} : check_exports(ctx, client, o, spec, served);
  if (served.size() == 1 && served.front().source.kind == serving::ModelSource::Kind::pvc) check_model_size(ctx, o, spec, first);
  {  // the first model's TF version: from its SavedModel when read, else from the training image's tag
    auto w = serving::export_tf_warning(first, o.job_image, serving_release_of(o), spec.effective_image());
    if (!w.empty()) ctx.err << "warning: " << worded(w) << "\n";
  }
  serving::use_served_versions(client, objs);  // policy/v1beta1, autoscaling/v2beta2 on older clusters
  const auto applied =
      apply_saying(ctx, o, [&] { return serving::apply_objects(client, ns, objs, o.force_conflicts, o.dry_run == "server"); });
  if (o.dry_run == "server" || o.no_wait) {
    print_applied(ctx, applied);
    return exit_code::ok;
  }
  wf::ProgressLine progress(true, ctx.err);
  const auto wo = wait_options(timeout_ms, progress);
  auto r = serving::wait_rollout(client, ns, spec.name, wo);
  progress.finish();
  if (r.result != serving::WaitResult::ready)
    return server_not_ready(ctx, r, o, "the rollout", spec.effective_model_name(),
                            "hint: no pod of the server exists yet: `kubectl get replicasets -l " + std::string(serving::keys::instance) +
                                "=" + spec.name + "` and its events say why\n");
  std::vector<std::pair<std::string, std::string>> ready;  // model, its AVAILABLE version
  for (const auto& sm : served) {
    auto m = serving::wait_model(client, ns, spec.name, sm.name, wo);
    progress.finish();
    if (m.result != serving::WaitResult::ready) return model_not_ready(ctx, m, o, "model \"" + sm.name + "\" to be AVAILABLE");
    ready.emplace_back(sm.name, m.version);
  }
  if (!o.wait_version.empty()) {  // a later export, picked up by TF Serving's file system poll
    auto wv = serving::wait_model_version(client, ns, spec.name, served.front().name, o.wait_version, wo);
    progress.finish();
    if (wv.result != serving::WaitResult::ready) return model_not_ready(ctx, wv, o, "");
    ready.front().second = o.wait_version;
  }
  if (print_applied(ctx, applied)) return exit_code::ok;
  for (const auto& [model, version] : ready)
    say_available(ctx, client, ns, spec.name, model, version,
                  "service " + ns + "/" + spec.name + " (gRPC " + std::to_string(serving::grpc_port) + ", REST " +
                      std::to_string(serving::rest_port) + ")");
  return exit_code::ok;
}

/// serve list: the model servers serve made (and the InferenceServices serve --kserve made).
struct ServeListCommand {
  bool all_namespaces = false;
  std::string output;

  void validate() { fmt = parse_output_format(output, {"json", "yaml", "name", "wide"}); }
  int run(Context& ctx) const;

 private:
  OutputFormat fmt = OutputFormat::table;
};

/// The servers listed, each with the models it serves (several with a model config).
struct ServerList {
  std::vector<std::pair<std::string, serving::ServerInfo>> servers;  ///< namespace, server
  std::map<std::string, std::vector<serving::ModelRow>> models;        ///< ns/name -> its models

  const std::vector<serving::ModelRow>& rows_of(const std::string& ns, const serving::ServerInfo& s) const {
    static const std::vector<serving::ModelRow> none;
    auto it = models.find(ns + "/" + s.name);
    return it == models.end() ? none : it->second;
  }
};

/// serve's Deployments and InferenceServices in `ns` ("" = all); with `with_models`, each one's
/// models as TF Serving answers (a server that cannot answer is listed with its error).
ServerList list_servers(kube::Client& client, const std::string& ns, bool with_models) {
  ServerList l;
  serving::ListOptions lo;
  lo.models = false;  // each server's models are asked below (several per server with a model config)
  l.servers = serving::list_servers(client, ns, lo);
  if (serving::kserve::served_or_hidden(client)) {  // InferenceServices serve --kserve made
    try {
      for (auto& row : serving::kserve::list(client, ns)) l.servers.push_back(std::move(row));
    } catch (const api_error& e) {
      if (!e.is_forbidden()) throw;  // may not list them: serve's own servers are still listed
    }
  }
  if (!with_models) return l;
  for (auto& [sns, s] : l.servers) {
    try {
      std::vector<serving::ModelRow> rows;
      if (s.kserve) {  // one model, named after the InferenceService, behind its predictor
        serving::ModelRow row{s.name, {}, {}, {}};
        auto p = serving::probe_model(client, sns, serving::kserve::predictor_endpoint(client, sns, s.name), s.name);
        row.state = p.message;
        row.available_versions = p.status.available_versions();
        rows.push_back(std::move(row));
      } else {
        rows = serving::server_models(client, sns, s.name);
      }
      if (!rows.empty()) {
        s.available_versions = rows.front().available_versions;
        s.model_state = rows.front().state;
      }
      l.models[sns + "/" + s.name] = std::move(rows);
    } catch (const std::exception& e) {
      s.model_state = error_message(e);  // a server that cannot answer is listed without versions
    }
  }
  return l;
}

/// The protocol a server port speaks, by its name ("" for another port).
std::string port_protocol(const serving::ServerPort& p) { return p.name == "http" ? "REST" : p.name == "grpc" ? "gRPC" : ""; }

/// -o json|yaml|name: the servers as objects, or their resource names.
void print_server_objects(std::ostream& out, const ServerList& l, OutputFormat fmt) {
  if (fmt == OutputFormat::name) {
    for (const auto& [sns, s] : l.servers) out << (s.kserve ? "inferenceservice.serving.kserve.io/" : "deployment.apps/") << s.name << "\n";
    return;
  }
  std::vector<nlohmann::json> items;
  for (const auto& [sns, s] : l.servers) {
    nlohmann::json ports = nlohmann::json::array();
    for (const auto& p : s.ports) ports.push_back({{"name", p.name}, {"port", p.port}, {"protocol", port_protocol(p)}});
    nlohmann::json ms = nlohmann::json::array();
    for (const auto& r : l.rows_of(sns, s))
      ms.push_back({{"name", r.name}, {"availableVersions", r.available_versions}, {"labels", r.labels}, {"state", r.state}});
    items.push_back({{"name", s.name}, {"namespace", sns}, {"model", s.model}, {"modelName", s.model_name}, {"models", ms},
                     {"availableVersions", s.available_versions}, {"modelState", s.model_state},
                     {"address", s.address}, {"ports", ports}, {"readyReplicas", s.ready},
                     {"replicas", s.desired}, {"gpusPerReplica", s.gpus}, {"creationTimestamp", s.age_timestamp}});
  }
  if (fmt == OutputFormat::json) out << nlohmann::json(items).dump(4) << "\n";
  else out << tfjob::to_yaml(nlohmann::json(items));
}

/// VERSIONS and LABELS: "1,2" and "stable=1" for one model, "a:1,2;b:3" with several.
template <class TextOf>
std::string per_model(const std::vector<serving::ModelRow>& rows, TextOf&& text_of) {
  std::string t;
  for (const auto& r : rows) {
    std::string one = text_of(r);
    if (rows.size() > 1) one = r.name + ":" + (one.empty() ? "<none>" : one);
    if (!one.empty()) t += (t.empty() ? "" : ";") + one;
  }
  return t.empty() ? std::string("<none>") : t;
}

/// The table (kubectl's printer), -o wide adding address, ports and the model name.
void print_server_table(std::ostream& out, const ServerList& l, bool wide, bool all_namespaces) {
  auto versions_of = [](const serving::ModelRow& r) {
    std::string t;
    for (const auto& v : r.available_versions) t += (t.empty() ? "" : ",") + v;
    return t;
  };
  auto labels_of = [](const serving::ModelRow& r) {
    std::string t;
    for (const auto& [k, v] : r.labels) t += (t.empty() ? "" : ",") + k + "=" + std::to_string(v);
    return t;
  };
  auto ports_text = [](const serving::ServerInfo& s) {
    std::string t;
    for (const auto& p : s.ports) {
      const std::string proto = port_protocol(p);
      t += (t.empty() ? "" : ",") + std::to_string(p.port) + "/" + (proto.empty() ? p.name : proto);
    }
    return t.empty() ? std::string("<none>") : t;
  };
  std::vector<std::string> headers = {"name", "model", "ready", "versions", "labels", "gpus", "age"};
  if (wide) headers.insert(headers.end(), {"address", "ports", "model-name"});
  if (all_namespaces) headers.insert(headers.begin(), "namespace");
  Table t(headers);
  for (const auto& [sns, s] : l.servers) {
    const auto& rows = l.rows_of(sns, s);
    std::vector<std::string> row = {s.name, s.model, std::to_string(s.ready) + "/" + std::to_string(s.desired),
                                    per_model(rows, versions_of), per_model(rows, labels_of), s.gpus, workflow::age(s.age_timestamp)};
    if (wide) row.insert(row.end(), {s.address.empty() ? "<none>" : s.address, ports_text(s), s.model_name});
    if (all_namespaces) row.insert(row.begin(), sns);
    t.add_row(row);
  }
  t.print(out);
}

int ServeListCommand::run(Context& ctx) const {
  auto& client = ctx.client();
  const std::string ns = all_namespaces ? "" : client.namespace_();
  const ServerList l = list_servers(client, ns, fmt != OutputFormat::name);
  if (fmt == OutputFormat::json || fmt == OutputFormat::yaml || fmt == OutputFormat::name) {
    print_server_objects(ctx.out, l, fmt);
    return exit_code::ok;
  }
  if (l.servers.empty()) {
    ctx.err << (ns.empty() ? std::string("No model servers found.\n") : "No model servers found in " + ns + " namespace.\n");
    return exit_code::ok;
  }
  print_server_table(ctx.out, l, fmt == OutputFormat::wide, all_namespaces);
  return exit_code::ok;
}

/// serve label NAME MODEL LABEL=VERSION: a version label moved in the server's model config,
/// waited for until TF Serving answers it.
struct ServeLabelCommand {
  std::string name, model, assignment;
  std::string timeout = "10m";
  bool no_wait = false;
  const CLI::App* sub = nullptr;  ///< its command, to tell which flags were given

  void validate() {
    if (no_wait) flag::refuse_given(*sub, {"--timeout"}, "with --no-wait, which returns once the label is written", "leave out one of them");
    a = serving::parse_label_assignment(assignment, "LABEL=VERSION");
    if (!a.model.empty()) throw flag::usage("ASSIGNMENT", "\"" + assignment + "\" names a model", "give LABEL=VERSION; the model is the argument before it");
    timeout_ms = wf::parse_duration(timeout, "--timeout");
  }
  int run(Context& ctx) const;

 private:
  serving::LabelAssignment a;
  std::chrono::milliseconds timeout_ms{0};
};

int ServeLabelCommand::run(Context& ctx) const {
  auto& client = ctx.client();
  const std::string ns = client.namespace_();
  wf::ProgressLine progress(true, ctx.err);
  auto wo = wait_options(timeout_ms, progress);
  wo.interval = std::chrono::milliseconds(1000);
  auto r = serving::move_version_label(client, ns, name, model, a.label, a.version, !no_wait, wo);
  progress.finish();
  ctx.err << "configmap/" << serving::model_config_map_name(name) << (r.changed ? " updated" : " unchanged") << "\n";
  if (r.result == serving::WaitResult::timeout) {
    ctx.err << "error: timed out after " << timeout << ": " << r.message
            << "\nhint: the kubelet refreshes a ConfigMap's files on its sync period (about a minute by default), then TF "
               "Serving reads them on its next poll (--model_config_file_poll_wait_seconds)\n";
    return exit_code::timeout;
  }
  ctx.out << "model \"" << model << "\" label \"" << a.label << "\": "
          << (r.previous ? "version " + std::to_string(*r.previous) : std::string("(new)")) << " -> version " << a.version
          << (no_wait ? " (written; TF Serving reads it on its next poll)" : "") << "\n";
  return exit_code::ok;
}

/// serve delete NAME: the server's objects (those carrying serve's labels), or its
/// InferenceService.
struct ServeDeleteCommand {
  std::string name;

  void validate() const {
    if (name.empty()) throw flag::usage("NAME", "no server named", "give the NAME of the model server to delete");
  }
  int run(Context& ctx) const;
};

int ServeDeleteCommand::run(Context& ctx) const {
  auto& client = ctx.client();
  const std::string ns = client.namespace_();
  auto rep = serving::delete_server_report(client, ns, name);
  auto gone = rep.deleted;
  for (const auto& k : rep.kept)
    ctx.err << k << " kept: it does not carry serve's labels (" << serving::keys::managed_by << "=kubectl-tfjob, "
              << serving::keys::instance << "=" << name << "), so it is not the server's; delete it yourself if it is\n";
  if (serving::kserve::served_or_hidden(client) && serving::kserve::remove(client, ns, name))
    gone.push_back("inferenceservice.serving.kserve.io/" + name);
  if (gone.empty()) {
    ctx.err << "Error from server (NotFound): model server \"" << name << "\" not found in namespace \"" << ns
              << "\" (no deployment or service of that name); `kubectl tfjob serve list` shows what is served\n";
    return exit_code::failure;
  }
  for (const auto& x : gone) ctx.out << x << " deleted\n";
  return exit_code::ok;
}

/// Microseconds as people read latency: 850us, 3.2ms, 1.25s.
std::string latency_text(std::optional<double> us) {
  if (!us) return "<none>";
  char buf[32];
  if (*us < 1000) std::snprintf(buf, sizeof buf, "%.0fus", *us);
  else if (*us < 1e6) std::snprintf(buf, sizeof buf, "%.3gms", *us / 1000);
  else std::snprintf(buf, sizeof buf, "%.3gs", *us / 1e6);
  return buf;
}

/// serve status NAME: a server's replicas, model state, autoscaler and request metrics.
struct ServeStatusCommand {
  std::string name, output;

  void validate() {
    if (name.empty()) throw flag::usage("NAME", "no server named", "give the NAME of the model server");
    fmt = parse_output_format(output, {"json", "yaml"});
  }
  int run(Context& ctx) const;

 private:
  OutputFormat fmt = OutputFormat::table;
};

int ServeStatusCommand::run(Context& ctx) const {
  auto& client = ctx.client();
  const std::string ns = client.namespace_();
  auto st = serving::server_status(client, ns, name);
  if (fmt == OutputFormat::json || fmt == OutputFormat::yaml) {
    nlohmann::json models = nlohmann::json::array();
    for (const auto& m : st.metrics) {
      nlohmann::json q = nlohmann::json::object();
      for (auto [k, v] : {std::pair<const char*, double>{"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}})
        if (auto x = m.latency.quantile(v)) q[k] = *x;
      models.push_back({{"model", m.model}, {"requests", m.requests()}, {"requestsByStatus", m.requests_by_status},
                        {"latencyMicros", {{"count", m.latency.count}, {"mean", m.latency.mean()}, {"quantiles", q}}}});
    }
    nlohmann::json j = {{"name", st.name}, {"namespace", ns}, {"model", st.model}, {"readyReplicas", st.ready},
                        {"replicas", st.desired}, {"modelState", st.model_state}, {"monitoring", st.monitoring},
                        {"metrics", models}};
    if (st.autoscaler) {
      const auto& a = *st.autoscaler;
      nlohmann::json conds = nlohmann::json::array();
      for (const auto& c : a.conditions)
        conds.push_back({{"type", c.type}, {"status", c.status}, {"reason", c.reason}, {"message", c.message}});
      auto opt = [](const std::optional<int>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
      j["autoscaler"] = {{"minReplicas", a.min}, {"maxReplicas", a.max}, {"targetCPUUtilizationPercentage", opt(a.target_cpu_percent)},
                         {"currentReplicas", opt(a.current_replicas)}, {"desiredReplicas", opt(a.desired_replicas)},
                         {"currentCPUUtilizationPercentage", opt(a.current_cpu_percent)}, {"conditions", conds}};
    }
    if (fmt == OutputFormat::json) ctx.out << j.dump(4) << "\n";
    else ctx.out << tfjob::to_yaml(j);
    return exit_code::ok;
  }
  ctx.out << "server " << ns << "/" << st.name << ": " << st.ready << "/" << st.desired << " replicas ready; " << st.model_state
            << "\n";
  if (st.autoscaler) {  // what the HPA controller wrote into the HPA's status, as it wrote it
    const auto& a = *st.autoscaler;
    ctx.out << "autoscaler: " << a.min << " to " << a.max << " replicas at "
              << (a.target_cpu_percent ? std::to_string(*a.target_cpu_percent) + "%" : std::string("<none>")) << " CPU; now "
              << (a.current_replicas ? std::to_string(*a.current_replicas) : std::string("<unknown>")) << " (desired "
              << (a.desired_replicas ? std::to_string(*a.desired_replicas) : std::string("<unknown>")) << "), CPU "
              << (a.current_cpu_percent ? std::to_string(*a.current_cpu_percent) + "% of the request" : std::string("<unknown>")) << "\n";
    if (a.conditions.empty()) ctx.out << "  (the HPA controller has not reported yet)\n";
    for (const auto& c : a.conditions)
      ctx.out << "  " << c.type << " " << c.status << (c.reason.empty() ? "" : " (" + c.reason + ")")
                << (c.message.empty() ? "" : ": " + c.message) << "\n";
    if (a.no_metrics())
      ctx.err << "note: the HPA cannot read the pods' CPU (ScalingActive False): no metrics API (metrics.k8s.io, e.g. "
                   "metrics-server) answers it, so it keeps the replicas as they are until one does\n";
  }
  if (!st.monitoring) {
    ctx.err << "no request metrics: the server was not started with --monitoring (TF Serving's Prometheus endpoint); "
                 "rerun `kubectl tfjob serve " << st.name << " ... --monitoring` to turn it on\n";
    return exit_code::ok;
  }
  if (st.metrics.empty()) {
    ctx.out << "no requests answered yet\n";
    return exit_code::ok;
  }
  Table t({"model", "requests", "by-status", "mean", "p50", "p90", "p99"});
  for (const auto& m : st.metrics) {
    std::string by;
    for (const auto& [k, v] : m.requests_by_status) by += (by.empty() ? "" : ",") + k + "=" + std::to_string(static_cast<long long>(v));
    t.add_row({m.model, std::to_string(static_cast<long long>(m.requests())), by.empty() ? "<none>" : by,
               latency_text(m.latency.count > 0 ? std::optional<double>(m.latency.mean()) : std::nullopt),
               latency_text(m.latency.quantile(0.5)), latency_text(m.latency.quantile(0.9)), latency_text(m.latency.quantile(0.99))});
  }
  t.print(ctx.out);
  if (st.desired > 1)
    ctx.err << "note: these are one pod's counters (the service proxy reaches one of the " << st.desired << " replicas)\n";
  return exit_code::ok;
}

/// serve NAME's flags: the model and its versions, the server's pods, TF Serving's options,
/// how it is applied and waited for.
void add_serve_flags(CLI::App* sub, ServeOptions* o) {
  flag::text(*sub, "name", o->name, "Name of the Deployment and Service (and, by default, of the model)", "NAME");
  flag::composite(*sub, "--model", o->models,
                  "Built-in model: resnet (ResNet-50 SavedModel taking JPEG bytes, downloaded by an init container); or NAME=SOURCE, "
                  "repeatable, several models in one server through TF Serving's model config file (SOURCE: resnet, a SavedModel "
                  "tarball URL, or pvc:CLAIM[:PATH] with PATH (default NAME) holding <version>/saved_model.pb)",
                  "resnet or NAME=SOURCE", "resnet", {"bogus", "a=", "=pvc:c", "a=ftp://x"},
                  [](const std::string& m) {
                    if (m.find('=') != std::string::npos) serving::parse_model_flag(m);
                    else if (m != "resnet")
                      throw flag::usage("--model", "\"" + m + "\" is not a built-in model (built in: resnet)",
                                        "use --model-url URL, --pvc CLAIM[:PATH] or --model NAME=SOURCE");
                  });
  flag::composite(*sub, "--version-policy", o->version_policies,
                  "[MODEL=]latest:N, all or specific:V[,V...]: which versions TF Serving serves (repeatable; default latest:1)",
                  "[MODEL=]latest:N, all or specific:V[,V...]", "latest:2", {"newest", "latest:0", "specific:x"},
                  [](const std::string& v) { serving::parse_version_policy_flag(v); });
  flag::composite(*sub, "--version-label", o->version_labels, "[MODEL:]LABEL=VERSION, e.g. stable=1 (repeatable); move it later with `serve label`",
                  "[MODEL:]LABEL=VERSION", "stable=1", {"stable", "stable=x", "=1"},
                  [](const std::string& v) { serving::parse_label_assignment(v, "--version-label"); });
  flag::text(*sub, "--from-job", o->from_job,
             "Serve the model a succeeded TFJob exported: its trainer's --export-dir on its claim (a model config, so new "
             "exports are picked up as new versions)", "JOB");
  flag::text(*sub, "--export-dir", o->export_dir, "With --from-job: the export directory in the trainer's container, when its args do not say",
             "DIR");
  flag::count(*sub, "--wait-version", o->wait_version, "Also wait until this version of the (first) model is AVAILABLE", 1,
              std::numeric_limits<std::int64_t>::max(), "VERSION");
  flag::boolean(*sub, "--no-export-check", o->no_export_check,
                "Do not run the short-lived pod that checks a claim's version directories (saved_model.pb, warmup file, "
                "the exporting TensorFlow's version) before the rollout");
  flag::count(*sub, "--model-config-poll", o->model_config_poll,
              "With --model NAME=SOURCE: seconds between TF Serving's re-reads of its model config (0 = never)", 0,
              std::numeric_limits<std::int32_t>::max(), "SECONDS")
      ->capture_default_str();
  flag::text(*sub, "--model-url", o->model_url,
             "A SavedModel tarball (.tar.gz) to download into a numbered version directory (one with a password or "
             "a signed query is refused: use --model-url-secret)",
             "URL");
  flag::composite(*sub, "--model-url-secret", o->model_url_secret,
                  "SECRET[:KEY]: the tarball's URL is in this Secret's KEY (default url), for a URL with credentials or a "
                  "signed query: it is never written into the Deployment, an annotation or a log",
                  "SECRET[:KEY]", "model-url:url", {"Bad_Name", "model-url:bad key"}, [](const std::string& v) { serving::parse_url_secret(v); });
  flag::composite(*sub, "--pvc", o->pvc,
                  "CLAIM[:PATH]: serve the model on a volume; PATH (inside the claim) must hold <model>/<version>/saved_model.pb",
                  "CLAIM[:PATH]", "tfjob-mnist:export", {":export", "c:../x"}, [](const std::string& v) { serving::parse_pvc(v); });
  flag::text(*sub, "--model-name", o->model_name, "TF Serving model name (default: NAME)", "NAME");
  flag::count(*sub, "--model-version", o->model_version, "Version directory a downloaded model is put in", 1)->capture_default_str();
  o->gpus_flag = flag::count(*sub, "--gpus", o->gpus, "nvidia.com/gpu per replica; 0 uses the CPU image", 0)->capture_default_str();
  // 1 or more: a server of no replicas never becomes AVAILABLE, so serve would wait out --timeout
  o->replicas_flag = flag::count(*sub, "--replicas", o->replicas, "Number of replicas", 1)->capture_default_str();
  flag::choice(*sub, "--profile", o->profile,
               "Shape the server for a kind of node: edge (GDC bare metal's edge profile, one node of 2 vCPUs and 4 GiB): "
               "TF Serving's CPU image, 1 replica, 500m CPU (limit 2) and 1536Mi, thread and batching settings for 2 vCPUs, "
               "no surge pod; refused before anything is applied when it does not fit what the node has left "
               "(flags given with it are kept and judged)",
               serving::profile_names());
  flag::quantity(*sub, "--cpu", o->cpu, "CPU request and limit per replica (e.g. 4, 500m)");
  flag::quantity(*sub, "--memory", o->memory, "Memory request and limit per replica (e.g. 8Gi)");
  flag::key_values(*sub, "--selector", o->selectors, "Node selector KEY=VALUE, a node label (repeatable)", flag::Key::label,
                   flag::Value::label);
  flag::tolerations(*sub, "--toleration", o->tolerations, "Toleration KEY[=VALUE][:EFFECT] (repeatable), e.g. nvidia.com/gpu:NoSchedule");
  flag::text(*sub, "--image", o->image, "TF Serving image (default: tensorflow/serving:<version>[-gpu])", "IMAGE");
  flag::text(*sub, "--serving-version", o->serving_version, "TF Serving release for the default image", "VERSION")->capture_default_str();
  flag::composite(*sub, "--batching", o->batching,
                  "Request batching: KEY=VALUE,... of TF Serving's BatchingParameters (max_batch_size, batch_timeout_micros, "
                  "max_enqueued_batches, num_batch_threads, thread_pool_name, allowed_batch_sizes=A:B:C, "
                  "pad_variable_length_inputs=true|false), written to the server's ConfigMap",
                  "KEY=VALUE[,KEY=VALUE...] of BatchingParameters", "max_batch_size=32", {"max_batch_size=0", "batch_timeout=5"},
                  [](const std::string& v) { serving::parse_batching(v); });
  flag::boolean(*sub, "--monitoring", o->monitoring,
                "Turn on TF Serving's Prometheus endpoint (/monitoring/prometheus/metrics); `serve status NAME` reads it");
  flag::composite(*sub, "--autoscale", o->autoscale,
                  "MIN:MAX:CPU%: a HorizontalPodAutoscaler on the Deployment (needs --cpu: utilisation is a share of the request)",
                  "MIN:MAX:CPU%", "2:10:70%", {"10:2:70%", "2:10"}, [](const std::string& v) { serving::parse_autoscale(v); });
  flag::text(*sub, "--arg", o->extra_args, "Extra tensorflow_model_server flag (repeatable), e.g. --arg=--enable_batching", "FLAG");
  flag::dry_run(*sub, o->dry_run, "none, client (print the objects, touch nothing) or server (the server's dry run)")
      ->capture_default_str();
  flag::choice(*sub, "-o,--output", o->output, "Print the objects as yaml, json or name (with --dry-run=client: yaml by default)",
               {"yaml", "json", "name"});
  flag::duration(*sub, "--timeout", o->timeout, "Give up waiting after this long (rollout and model together)")->capture_default_str();
  flag::boolean(*sub, "--no-wait", o->no_wait, "Apply and return without waiting for the rollout and the model");
  flag::boolean(*sub, "--kserve", o->kserve,
                "Serve as a KServe InferenceService (TensorFlow predictor, RawDeployment, storage pvc://CLAIM/PATH/NAME from "
                "--pvc) on a cluster that serves KServe; predict, models, serve list and delete find it by NAME");
  flag::boolean(*sub, "--force-conflicts", o->force_conflicts, "Take over fields another field manager owns (server-side apply force)");
}

/// serve list, status, label and delete, each with its own options and action.
void add_serve_subcommands(CLI::App* sub, Globals& g);

}  // namespace

void setup_serve(CLI::App& app, Globals& g) {
  auto cmd = std::make_shared<ServeCommand>();
  auto* sub = app.add_subcommand("serve", "Serve a model with TensorFlow Serving (Deployment + Service) and wait until it is AVAILABLE");
  cmd->sub = sub;
  add_serve_flags(sub, &cmd->flags);
  sub->footer(R"(Examples:
  kubectl tfjob serve resnet --model resnet
  kubectl tfjob serve mnist --pvc tfjob-mnist:export           # serves export/mnist/<version>/ on the claim
  kubectl tfjob serve resnet-cpu --model resnet --gpus 0 --replicas 2 --cpu 4 --memory 8Gi
  kubectl tfjob serve resnet --model resnet --dry-run=client -o yaml
  kubectl tfjob serve resnet --model resnet --batching max_batch_size=32,batch_timeout_micros=5000 --monitoring
  kubectl tfjob serve resnet-cpu --model resnet --gpus 0 --cpu 4 --autoscale 2:10:70%
  kubectl tfjob serve status resnet                             # request counts and latency (with --monitoring)
  kubectl tfjob serve list
  kubectl tfjob serve delete resnet
  kubectl tfjob serve mnist --pvc tfjob-mnist:export --kserve    # an InferenceService (KServe)
  kubectl tfjob serve resnet --model resnet --profile edge     # one small node (docs/edge.md)
  # a signed or password-protected URL: kept in a Secret, never in the Deployment or a log
  kubectl create secret generic mnist-url --from-literal=url='https://bucket.s3.amazonaws.com/m.tar.gz?X-Amz-Signature=...'
  kubectl tfjob serve mnist --model-url-secret mnist-url

TF Serving loads <base>/<model>/<numeric version>/saved_model.pb: with --pvc CLAIM:PATH the
claim must hold PATH/<model>/1/saved_model.pb (and variables/).

Exit codes: 0 the model is AVAILABLE (or printed/applied with --dry-run/--no-wait), 1 the
rollout or the model failed (pods crash-looping, ProgressDeadlineExceeded, a load error) or
a request failed, 2 timed out, 64 usage error (a flag, or a server spec that cannot be
served: nothing was applied). The table for every command: kubectl tfjob --help.)");
  set_action(*sub, g, cmd);  // serve NAME; a subcommand chosen below (serve list) keeps its own
  add_serve_subcommands(sub, g);
}

namespace {

void add_serve_subcommands(CLI::App* sub, Globals& g) {
  auto* list = sub->add_subcommand("list", "List the model servers serve created (name, model, ready/desired, AVAILABLE versions, GPUs, age)");
  auto ls = std::make_shared<ServeListCommand>();
  flag::boolean(*list, "-A,--all-namespaces", ls->all_namespaces, "List across all namespaces");
  flag::choice(*list, "-o,--output", ls->output, "wide (adds the address, ports and TF Serving model name), json, yaml or name",
               {"wide", "json", "yaml", "name"});
  set_action(*list, g, ls);

  auto* status = sub->add_subcommand("status", "A model server's replicas, model state and, with serve --monitoring, "
                                                "TF Serving's request counts and latency (p50/p90/p99)");
  auto st = std::make_shared<ServeStatusCommand>();
  flag::text(*status, "name", st->name, "Name given to serve", "NAME");
  flag::choice(*status, "-o,--output", st->output, "json or yaml", {"json", "yaml"});
  set_action(*status, g, st);

  auto* lab = sub->add_subcommand("label", "Set or move a version label (stable, canary) of a model, without restarting the server");
  auto lc = std::make_shared<ServeLabelCommand>();
  lc->sub = lab;
  flag::text(*lab, "name", lc->name, "Name given to serve", "NAME")->required();
  flag::text(*lab, "model", lc->model, "The model (one of the server's --model NAME=SOURCE)", "MODEL")->required();
  flag::composite(*lab, "assignment", lc->assignment, "LABEL=VERSION, e.g. canary=2", "LABEL=VERSION", "canary=2", {"stable", "stable=x"},
                  [](const std::string& v) { serving::parse_label_assignment(v, "LABEL=VERSION"); })
      ->required();
  flag::duration(*lab, "--timeout", lc->timeout, "Give up waiting for TF Serving to answer the label with the version")
      ->capture_default_str();
  flag::boolean(*lab, "--no-wait", lc->no_wait, "Update the model config and return without waiting for TF Serving to re-read it");
  lab->footer(R"(Examples:
  kubectl tfjob serve label mnist mnist canary=2
  kubectl tfjob predict mnist --label canary --json req.json

The label is written into the server's model config (ConfigMap NAME-models); TF Serving
re-reads it every --model-config-poll seconds after the kubelet refreshed the file (its
sync period, about a minute by default), so no pod restarts. TF Serving only lets a label
name a version that is AVAILABLE (unless it runs with
--allow_version_labels_for_unavailable_models): any other version is refused here.

Exit codes: 0 TF Serving answers the label with the version, 1 refused or failed, 2 timed
out waiting, 64 usage error.)");
  set_action(*lab, g, lc);

  auto* del = sub->add_subcommand("delete", "Delete a model server's Deployment and Service (and its ConfigMap, "
                                            "PodDisruptionBudget and HorizontalPodAutoscaler)");
  auto dc = std::make_shared<ServeDeleteCommand>();
  flag::text(*del, "name", dc->name, "Name given to serve", "NAME");
  set_action(*del, g, dc);
}

}  // namespace
}  // namespace tfjob::cli
