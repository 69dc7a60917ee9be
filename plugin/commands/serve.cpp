// kubectl tfjob serve NAME | serve list | serve delete NAME: TensorFlow Serving as a
// Deployment + Service (server-side apply), the rollout waited for like `kubectl rollout
// status`, then the model waited for until TF Serving reports a version AVAILABLE.
#include "../common/command.hpp"
#include "../common/kube.hpp"
#include "../common/output.hpp"
#include "../common/workflow_cli.hpp"

#include <tfjob/serving/serving.hpp>
#include <tfjob/workflow/status.hpp>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace tfjob::cli {
namespace {

struct ServeOptions {
  std::string name;
  std::string model, model_url, pvc, model_name;
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
  // list / delete
  bool all_namespaces = false;
  std::string delete_name;
};

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
  int sources = !o.model.empty() + !o.model_url.empty() + !o.pvc.empty();
  if (sources != 1)
    throw CLI::ValidationError("--model", "give exactly one model source: --model resnet, --model-url URL or --pvc CLAIM[:PATH]");
  if (!o.model.empty()) {
    if (o.model != "resnet")
      throw CLI::ValidationError("--model", "\"" + o.model + "\" is not a built-in model (built in: resnet); use --model-url URL or --pvc CLAIM[:PATH]");
    s.source.kind = serving::ModelSource::Kind::resnet;
    s.source.url = serving::resnet_model_url;
  } else if (!o.model_url.empty()) {
    s.source.kind = serving::ModelSource::Kind::url;
    s.source.url = o.model_url;
  } else {
    s.source = serving::parse_pvc(o.pvc);
  }
  for (const auto& kv : o.selectors) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      throw CLI::ValidationError("--selector", "\"" + kv + "\": give KEY=VALUE (a node label), e.g. nvidia.com/gpu.present=true");
    s.node_selector[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& t : o.tolerations) s.tolerations.push_back(serving::parse_toleration(t));
  serving::validate(s);
  return s;
}

int run_serve(const ServeOptions& o, const Globals& g) {
  if (o.name.empty()) throw CLI::ValidationError("name", "give the server's NAME (or use `serve list` / `serve delete NAME`)");
  OutputFormat fmt = parse_output_format(o.output, {"json", "yaml", "name"});
  if (o.dry_run == "client") {
    auto objs = serving::build_objects(spec_from(o, g.conn.namespace_));
    print_objects(std::cout, objs, fmt == OutputFormat::table ? OutputFormat::yaml : fmt);
    return exit_code::ok;
  }
  auto timeout = wf::parse_duration(o.timeout, "--timeout");
  auto client = make_client(g);
  const std::string ns = client.namespace_();
  auto spec = spec_from(o, ns);
  auto objs = serving::build_objects(spec);
  if (spec.source.kind == serving::ModelSource::Kind::pvc) {
    try {
      client.request_json(kube::RequestBuilder({"", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true}, ns).get(spec.source.claim));
    } catch (const api_error& e) {
      if (!e.is_not_found()) throw;
      throw tfjob::error("persistentvolumeclaim \"" + spec.source.claim + "\" not found in namespace \"" + ns +
                         "\": --pvc names the claim that holds " +
                         (spec.source.path.empty() ? "" : spec.source.path + "/") + spec.effective_model_name() +
                         "/<version>/saved_model.pb (for the MNIST sample: --pvc tfjob-mnist:export)");
    }
  }
  std::vector<nlohmann::json> applied;
  try {
    applied = serving::apply_objects(client, ns, objs, o.force_conflicts, o.dry_run == "server");
  } catch (const api_error& e) {
    if (e.is_conflict())
      throw tfjob::error(std::string(e.what()) + "\nanother field manager owns these fields; rerun with --force-conflicts to take them over");
    throw;
  }
  for (const auto& a : applied)
    std::cerr << object_name(a) << " serverside-applied" << (o.dry_run == "server" ? " (server dry run)" : "") << "\n";
  if (o.dry_run == "server" || o.no_wait) {
    if (fmt != OutputFormat::table) print_objects(std::cout, applied, fmt);
    return exit_code::ok;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  wf::ProgressLine progress;
  serving::WaitOptions wo;
  wo.deadline = deadline;
  wo.on_progress = [&](const std::string& m) { progress.show(m); };
  auto r = serving::wait_rollout(client, ns, spec.name, wo);
  progress.finish();
  if (r.result != serving::WaitResult::ready) {
    if (!r.diagnosis.empty()) std::cerr << r.diagnosis;
    if (r.result == serving::WaitResult::timeout) {
      std::cerr << "error: timed out after " << o.timeout << " waiting for the rollout: " << r.message << "\n"
                << "hint: a readiness probe failing with 404 means TF Serving found no model version; "
                << serving::layout_hint(spec.effective_model_name()) << "\n";
      return exit_code::timeout;
    }
    throw tfjob::error(r.message);
  }
  const std::string model = spec.effective_model_name();
  auto m = serving::wait_model(client, ns, spec.name, model, wo);
  progress.finish();
  if (m.result != serving::WaitResult::ready) {
    if (!m.diagnosis.empty()) std::cerr << "hint: " << m.diagnosis << "\n";
    if (m.result == serving::WaitResult::timeout) {
      std::cerr << "error: timed out after " << o.timeout << " waiting for model \"" << model << "\" to be AVAILABLE: " << m.message << "\n";
      return exit_code::timeout;
    }
    throw tfjob::error(m.message);
  }
  if (fmt != OutputFormat::table) {
    print_objects(std::cout, applied, fmt);
  } else {
    std::cout << "model \"" << model << "\" version " << m.version << " is AVAILABLE on service " << ns << "/" << spec.name
              << " (gRPC " << serving::grpc_port << ", REST " << serving::rest_port << ")\n";
  }
  return exit_code::ok;
}

int run_serve_list(const ServeOptions& o, const Globals& g) {
  OutputFormat fmt = parse_output_format(o.output, {"json", "yaml", "name"});
  auto client = make_client(g);
  const std::string ns = o.all_namespaces ? "" : client.namespace_();
  auto servers = serving::list_servers(client, ns);
  if (fmt != OutputFormat::table) {
    std::vector<nlohmann::json> items;
    for (const auto& [sns, s] : servers)
      items.push_back({{"name", s.name}, {"namespace", sns}, {"model", s.model}, {"readyReplicas", s.ready},
                       {"replicas", s.desired}, {"gpusPerReplica", s.gpus}, {"creationTimestamp", s.age_timestamp}});
    if (fmt == OutputFormat::json) std::cout << nlohmann::json(items).dump(4) << "\n";
    else if (fmt == OutputFormat::yaml) std::cout << tfjob::to_yaml(nlohmann::json(items));
    else
      for (const auto& [sns, s] : servers) std::cout << "deployment.apps/" << s.name << "\n";
    return exit_code::ok;
  }
  if (servers.empty()) {
    std::cerr << (ns.empty() ? std::string("No model servers found.\n") : "No model servers found in " + ns + " namespace.\n");
    return exit_code::ok;
  }
  std::vector<std::string> headers = {"name", "model", "ready", "gpus", "age"};
  if (o.all_namespaces) headers.insert(headers.begin(), "namespace");
  Table t(headers);
  for (const auto& [sns, s] : servers) {
    std::vector<std::string> row = {s.name, s.model, std::to_string(s.ready) + "/" + std::to_string(s.desired), s.gpus,
                                    workflow::age(s.age_timestamp)};
    if (o.all_namespaces) row.insert(row.begin(), sns);
    t.add_row(row);
  }
  t.print(std::cout);
  return exit_code::ok;
}

int run_serve_delete(const ServeOptions& o, const Globals& g) {
  if (o.delete_name.empty()) throw CLI::ValidationError("name", "give the NAME of the model server to delete");
  auto client = make_client(g);
  const std::string ns = client.namespace_();
  auto gone = serving::delete_server(client, ns, o.delete_name);
  if (gone.empty()) {
    std::cerr << "Error from server (NotFound): model server \"" << o.delete_name << "\" not found in namespace \"" << ns
              << "\" (no deployment or service of that name); `kubectl tfjob serve list` shows what is served\n";
    return exit_code::failure;
  }
  for (const auto& x : gone) std::cout << x << " deleted\n";
  return exit_code::ok;
}

void setup_serve(CLI::App& app, Globals& g) {
  auto o = std::make_shared<ServeOptions>();
  auto* sub = app.add_subcommand("serve", "Serve a model with TensorFlow Serving (Deployment + Service) and wait until it is AVAILABLE");
  sub->add_option("name", o->name, "Name of the Deployment and Service (and, by default, of the model)");
  sub->add_option("--model", o->model, "Built-in model: resnet (ResNet-50 SavedModel taking JPEG bytes, downloaded by an init container)");
  sub->add_option("--model-url", o->model_url, "A SavedModel tarball (.tar.gz) to download into a numbered version directory");
  sub->add_option("--pvc", o->pvc,
                  "CLAIM[:PATH]: serve the model on a volume; PATH (inside the claim) must hold <model>/<version>/saved_model.pb");
  sub->add_option("--model-name", o->model_name, "TF Serving model name (default: NAME)");
  sub->add_option("--model-version", o->model_version, "Version directory a downloaded model is put in")->capture_default_str();
  sub->add_option("--gpus", o->gpus, "nvidia.com/gpu per replica; 0 uses the CPU image")->capture_default_str();
  sub->add_option("--replicas", o->replicas, "Number of replicas")->capture_default_str();
  sub->add_option("--cpu", o->cpu, "CPU request and limit per replica (e.g. 4, 500m)");
  sub->add_option("--memory", o->memory, "Memory request and limit per replica (e.g. 8Gi)");
  sub->add_option("--selector", o->selectors, "Node selector KEY=VALUE (repeatable)");
  sub->add_option("--toleration", o->tolerations, "Toleration KEY[=VALUE][:EFFECT] (repeatable), e.g. nvidia.com/gpu:NoSchedule");
  sub->add_option("--image", o->image, "TF Serving image (default: tensorflow/serving:<version>[-gpu])");
  sub->add_option("--serving-version", o->serving_version, "TF Serving release for the default image")->capture_default_str();
  sub->add_option("--arg", o->extra_args, "Extra tensorflow_model_server flag (repeatable), e.g. --arg=--enable_batching");
  sub->add_option("--dry-run", o->dry_run, "none, client (print the objects, touch nothing) or server (the server's dry run)")
      ->check(CLI::IsMember({"none", "client", "server"}))->capture_default_str();
  sub->add_option("-o,--output", o->output, "Print the objects as yaml, json or name (with --dry-run=client: yaml by default)");
  sub->add_option("--timeout", o->timeout, "Give up waiting after this long (rollout and model together)")->capture_default_str();
  sub->add_flag("--no-wait", o->no_wait, "Apply and return without waiting for the rollout and the model");
  sub->add_flag("--force-conflicts", o->force_conflicts, "Take over fields another field manager owns (server-side apply force)");
  sub->footer(R"(Examples:
  kubectl tfjob serve resnet --model resnet
  kubectl tfjob serve mnist --pvc tfjob-mnist:export           # serves export/mnist/<version>/ on the claim
  kubectl tfjob serve resnet-cpu --model resnet --gpus 0 --replicas 2 --cpu 4 --memory 8Gi
  kubectl tfjob serve resnet --model resnet --dry-run=client -o yaml
  kubectl tfjob serve list
  kubectl tfjob serve delete resnet

TF Serving loads <base>/<model>/<numeric version>/saved_model.pb: with --pvc CLAIM:PATH the
claim must hold PATH/<model>/1/saved_model.pb (and variables/).

Exit codes: 0 the model is AVAILABLE (or printed/applied with --dry-run/--no-wait), 1 the
rollout or the model failed (pods crash-looping, ProgressDeadlineExceeded, a load error) or
a request failed, 2 timed out, 64 usage error.)");
  sub->callback([o, &g, sub] {
    if (sub->get_subcommands().empty()) g.run = [o, &g] { return run_serve(*o, g); };
  });

  auto* list = sub->add_subcommand("list", "List the model servers serve created (name, model, ready/desired, GPUs, age)");
  list->add_flag("-A,--all-namespaces", o->all_namespaces, "List across all namespaces");
  list->add_option("-o,--output", o->output, "json, yaml or name");
  list->callback([o, &g] { g.run = [o, &g] { return run_serve_list(*o, g); }; });

  auto* del = sub->add_subcommand("delete", "Delete a model server's Deployment and Service");
  del->add_option("name", o->delete_name, "Name given to serve");
  del->callback([o, &g] { g.run = [o, &g] { return run_serve_delete(*o, g); }; });
}

}  // namespace
TFJOB_REGISTER_COMMAND("serve", 300, setup_serve);
}  // namespace tfjob::cli
