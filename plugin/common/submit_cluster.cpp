// The bodies of submit_cluster.hpp (compiled once, not in every command that includes it).
#include "submit_cluster.hpp"

namespace tfjob::cli {

void add_submit_cluster_flags(CLI::App& sub, SubmitClusterFlags& f) {
  const char* grp = "Cluster";
  flag::boolean(sub, "--replace", f.replace, "If the job exists with a different spec, delete it (and its pods) and submit this one")
      ->group(grp);
  flag::boolean(sub, "--rerun", f.rerun,
                "If the job exists, even with the same spec (a finished run), delete it and its pods and submit it "
                "again; claims are kept (MNIST resumes from its checkpoints)")->group(grp);
  flag::boolean(sub, "--wait", f.wait, "Wait until the job Succeeds or Fails, with a progress line on stderr")->group(grp);
  flag::boolean(sub, "--follow", f.follow, "Wait as --wait and stream the chief's log to stdout")->group(grp);
  flag::text(sub, "--save", f.save, "With --follow: also write every replica's log to this directory as it streams", "DIR")->group(grp);
  flag::duration(sub, "--timeout", f.timeout, "With --wait/--follow: give up after this long (e.g. 30m; 0 = no limit)")->group(grp);
  flag::quantity(sub, "--pvc-size", f.pvc_size, "Create missing PersistentVolumeClaims with this size (samples: always)")
      ->capture_default_str()->group(grp)->each([&f](const std::string&) { f.create_pvcs = true; });
  flag::text(sub, "--storage-class", f.storage_class, "StorageClass of a created claim (default: the cluster's default)", "NAME")
      ->group(grp)->each([&f](const std::string&) { f.create_pvcs = true; });
  flag::choice(sub, "--pvc-access-mode", f.pvc_access_mode,
               "Access mode of a created claim (replicas on different nodes share it: ReadWriteMany)",
               {"ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"})
      ->capture_default_str()->group(grp);
  flag::boolean(sub, "--skip-gpu-check", f.skip_gpu_check, "Do not check the cluster's nvidia.com/gpu capacity before submitting")
      ->group(grp);
}

void print_warnings(const std::vector<tfjob::Finding>& findings, std::set<std::string>& noted, std::ostream& err,
                    const std::string& subject) {
  for (const auto& fd : findings) {
    const bool note = fd.severity == tfjob::Finding::Severity::info;
    if (note ? !noted.insert(fd.code).second : fd.severity != tfjob::Finding::Severity::warning) continue;
    err << (note ? "note: " : "warning: ") << (subject.empty() || note ? "" : subject + ": ") << fd.message
        << (fd.code.empty() ? "" : " [" + fd.code + "]") << "\n";
    if (!fd.fix.empty()) err << "  fix: " << fd.fix << "\n";
  }
}

void refuse_on_warnings(const std::vector<tfjob::Finding>& findings) {
  std::size_t n = 0;
  for (const auto& fd : findings) n += fd.severity == tfjob::Finding::Severity::warning;
  if (n) throw tfjob::error("--strict: " + std::to_string(n) + " warning(s) above; nothing was submitted");
}

std::chrono::milliseconds check_submit_cluster_flags(const SubmitClusterFlags& f, std::size_t jobs, bool dry_run_server) {
  if ((f.wait || f.follow) && dry_run_server)
    throw flag::exclusive(f.follow ? "--follow" : "--wait", "--dry-run=server");
  if ((f.wait || f.follow) && jobs != 1)
    throw flag::usage("--wait", "--wait/--follow need exactly one job (got " + std::to_string(jobs) + ")",
                      "submit one job at a time to wait for it");
  return wf::parse_duration(f.timeout, "--timeout");
}

void ensure_claims(Context& ctx, const std::string& ns, const std::set<std::string>& claims, const SubmitClusterFlags& f,
                   bool dry_run_server) {
  auto& client = ctx.client();
  for (const auto& claim : claims) {
    if (workflow::get_opt(client, workflow::resources::pvcs(), ns, claim)) {
      ctx.err << "persistentvolumeclaim/" << claim << " exists (left as it is)\n";
      continue;
    }
    if (!f.create_pvcs)
      throw tfjob::error("PersistentVolumeClaim \"" + claim + "\" does not exist in namespace \"" + ns +
                         "\": create it, or pass --pvc-size (and --storage-class) to have it created");
    auto created = workflow::ensure_pvc(client, ns, claim, f.pvc_size, f.storage_class, dry_run_server, f.pvc_access_mode).second;
    if (created)
      ctx.err << "persistentvolumeclaim/" << claim << " created (" << f.pvc_size << ", " << f.pvc_access_mode
              << (f.storage_class.empty() ? ", default storage class" : ", storage class " + f.storage_class)
              << (dry_run_server ? ", server dry run" : "") << ")\n";
  }
}

void apply_owned_objects(Context& ctx, const std::string& ns, const std::string& name, const nlohmann::json& applied,
                         const SubmitClusterFlags& f, const workflow::SubmitOptions& so, bool dry_run_server) {
  auto it = f.owned.find(name);
  if (it == f.owned.end()) return;
  for (const auto& obj : it->second) {
    const auto kind = obj.is_object() ? obj.get<k8s::ConfigMap>().kind : std::string();
    if (kind != "ConfigMap") throw tfjob::error("cannot create a " + kind + " with the job");
    auto got = workflow::apply_owned(ctx.client(), workflow::resources::configmaps(), ns, obj, applied, so);
    ctx.err << "configmap/" << metadata_of(got).name
            << " applied (owned by tfjob.kubeflow.org/" << name << ", deleted with it"
            << (dry_run_server ? "; server dry run" : "") << ")\n";
  }
}

void warn_unbound_claims(Context& ctx, const std::string& ns, const std::set<std::string>& claims) {
  auto& client = ctx.client();
  for (const auto& claim : claims) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    for (;;) {
      auto pvc = workflow::get_opt(client, workflow::resources::pvcs(), ns, claim);
      if (!pvc) break;
      k8s::PersistentVolumeClaim typed;
      if (pvc->is_object()) typed = pvc->get<k8s::PersistentVolumeClaim>();
      if (typed.status.phase == "Bound") break;
      if (std::chrono::steady_clock::now() > deadline) {
        auto why = workflow::pvc_pending_reason(
            typed, workflow::object_events(client, ns, "PersistentVolumeClaim", claim, typed.metadata.uid));
        if (!why.empty())
          ctx.err << "warning: persistentvolumeclaim/" << claim << " is Pending: " << why
                  << "; the job's pods will wait for it (kubectl describe pvc " << claim << " -n " << ns << ")\n";
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
  }
}

nlohmann::json submit_one(Context& ctx, nlohmann::json job, const SubmitClusterFlags& f, bool dry_run_server,
                          OutputFormat fmt, NotedCodes& noted, const std::string& subject,
                          workflow::PreflightShared* shared) {
  auto& client = ctx.client();
  TFJob typed = workflow::decode_tfjob(job);  // the manifest's fields, read once: preflight and the queue check take it
  std::string ns = typed.metadata.namespace_;
  if (ns.empty()) ns = client.namespace_();
  job["metadata"]["namespace"] = ns;
  typed.metadata.namespace_ = ns;
  const std::string& name = typed.metadata.name;
  const std::set<std::string> claims = workflow::claims_of(typed);

  // --follow --save keeps every replica's log: cleanPodPolicy All or a TTL then loses nothing
  // one of several with nothing to create before it (no claim, no ConfigMap): its apply is
  // the server's answer, so the dry run of it is not sent first (kubectl apply sends none)
  const bool creates_first = !claims.empty() || f.owned.count(name) > 0;
  auto report = workflow::preflight_submit(client, ns, job, !f.skip_gpu_check, f.follow && !f.save.empty(), f.field_validation,
                                           shared, shared == nullptr || creates_first, &typed);
  // where it would wait: Kueue's LocalQueue, Volcano's Queue, a gang scheduler not asked for
  if (report.ok())
    for (auto& q : workflow::check_queues(client, ns, typed)) report.findings.push_back(std::move(q));
  word_fixes(report.findings);
  {
    std::lock_guard<std::mutex> lk(noted.mu);
    print_warnings(report.findings, noted.codes, ctx.err, subject);
  }
  if (!report.ok()) throw tfjob::error(report.errors());
  if (f.strict) refuse_on_warnings(report.findings);

  ensure_claims(ctx, ns, claims, f, dry_run_server);

  workflow::SubmitOptions so;
  so.replace = f.replace;
  so.rerun = f.rerun;
  so.dry_run = dry_run_server;
  so.field_validation = f.field_validation;
  so.progress = [&ctx](const std::string& m) { ctx.err << m << "\n"; };
  auto res = workflow::submit_job(client, ns, std::move(job), so);  // the request body: moved, not copied
  if (fmt == OutputFormat::table)
    ctx.out << "tfjob.kubeflow.org/" << name << " " << workflow::to_string(res.outcome)
            << (dry_run_server ? " (server dry run)" : "") << "\n" << std::flush;
  apply_owned_objects(ctx, ns, name, res.object, f, so, dry_run_server);

  if (!dry_run_server) warn_unbound_claims(ctx, ns, claims);
  return res.object;
}

std::optional<int> follow_submitted(Context& ctx, const std::string& ns, const std::string& name,
                                    const SubmitClusterFlags& f, std::chrono::milliseconds timeout,
                                    wf::ProgressLine& line, workflow::JobSummary& final_state) {
  auto& client = ctx.client();
  workflow::JobLogOptions lo;
  lo.follow = true;
  if (timeout.count() > 0) lo.deadline = std::chrono::steady_clock::now() + timeout;  // the follow ends there
  lo.on_progress = [&](const workflow::Progress& p) { line.show(p); };
  lo.on_note = [&](const std::string& n) { line.finish(); ctx.err << n << "\n"; };
  workflow::JobLogResult r;
  std::string err;
  std::unique_ptr<workflow::LogSaveTask> saving;
  if (!f.save.empty()) saving = std::make_unique<workflow::LogSaveTask>(client, ns, name, f.save);
  try {
    r = workflow::replica_logs(client, ns, name, "", 0, lo, [&](const std::string&, std::string_view l) {
      line.finish();
      ctx.out << l << "\n" << std::flush;
      return true;
    });
  } catch (const std::exception& e) {
    err = e.what();
  }
  const bool timed_out = std::chrono::steady_clock::now() >= lo.deadline;
  if (saving) {
    std::string serr = saving->finish(!timed_out && err.empty());
    if (!serr.empty()) ctx.err << "warning: saving logs in " << f.save << ": " << serr << "\n";
  }
  if (!err.empty()) throw tfjob::error(err);
  line.finish();
  if (timed_out && r.job_state.empty()) {
    ctx.err << "error: timed out after " << f.timeout << " following TFJob " << name << "\n";
    return exit_code::timeout;
  }
  final_state.state = r.job_state;
  final_state.message = r.job_message;
  return std::nullopt;
}

std::optional<int> wait_submitted(Context& ctx, const std::string& ns, const std::string& name,
                                  const SubmitClusterFlags& f, std::chrono::milliseconds timeout,
                                  wf::ProgressLine& line, workflow::JobSummary& final_state) {
  workflow::WaitOptions wo;
  wo.condition = "Succeeded";
  wo.timeout = timeout;
  wo.on_progress = [&](const workflow::Progress& p) { line.show(p); };
  wo.stop_when_stuck = true;
  auto rep = workflow::wait_for_job(ctx.client(), ns, name, wo);
  line.finish();
  if (rep.result == workflow::WaitResult::stuck) {
    ctx.err << "error: TFJob " << name << " cannot run as it is: a pod cannot start\n" << wf::stuck_lines(rep.waiting);
    return exit_code::failure;
  }
  if (rep.result == workflow::WaitResult::timeout) {
    ctx.err << "error: timed out after " << f.timeout << " waiting for TFJob " << name << " (now "
            << (rep.summary.state.empty() ? "without conditions" : rep.summary.state) << ")\n"
            << wf::waiting_lines(rep.waiting);
    return exit_code::timeout;
  }
  if (rep.result == workflow::WaitResult::deleted || rep.result == workflow::WaitResult::not_found) {
    ctx.err << "error: TFJob " << name << " was deleted while waiting\n";
    return exit_code::failure;
  }
  final_state = rep.summary;
  return std::nullopt;
}

int say_how_it_ended(Context& ctx, const std::string& ns, const std::string& name, const workflow::JobSummary& final_state) {
  if (final_state.state == "Succeeded") {
    ctx.err << "TFJob " << name << " Succeeded\n";
    return exit_code::ok;
  }
  workflow::JobLogResult why;
  workflow::explain_failure(ctx.client(), ns, name, why);
  ctx.err << "error: TFJob " << name << " " << (final_state.state.empty() ? "ended" : final_state.state);
  if (!why.failed_pod.empty()) {
    ctx.err << ": pod " << why.failed_pod;
    if (why.failed_exit_code) ctx.err << " exited with code " << *why.failed_exit_code;
  }
  if (!final_state.message.empty()) ctx.err << " (" << final_state.message << ")";
  ctx.err << "\n  see: kubectl tfjob logs " << name << " -n " << ns << "\n";
  return exit_code::failure;
}

int submit_to_cluster_path(Context& ctx, std::size_t count, const std::function<nlohmann::json(std::size_t)>& job,
                           const SubmitClusterFlags& f, bool dry_run_server, OutputFormat fmt,
                           std::chrono::milliseconds timeout) {
  NotedCodes noted;  // info findings said once for all the jobs
  std::optional<ObjectPrinter> printer;
  if (fmt != OutputFormat::table) printer.emplace(ctx.out, fmt, count > 1);
  ObjectMeta first;  // --wait/--follow: the one job
  if (count == 1) {
    // one job: its lines live (the replace's "deleting ..."), its error the command's
    nlohmann::json j = job(0);
    first = metadata_of(j);
    auto applied = submit_one(ctx, std::move(j), f, dry_run_server, fmt, noted);
    if (printer) printer->add(applied);
  } else {
    // what is the same for every job is asked once: discovery (as kubectl's cached discovery
    // client does for a run), the namespace, the access review, the nodes
    ctx.client().cache_discovery();
    ctx.tfjobs();  // no operator: said once, not once per job
    workflow::PreflightShared shared;
    struct Done {
      detail::HeldLines lines;
      bool ok = false;
      std::optional<nlohmann::json> applied;  ///< kept to be printed (-o json|yaml|name) only
    };
    std::vector<Done> done(count);
    std::size_t failed = 0;
    kube::for_each_bounded(
        count, workflow::apply_concurrency,
        [&](std::size_t i) {
          detail::HeldLines::Buf out_buf(done[i].lines, false), err_buf(done[i].lines, true);
          std::ostream out(&out_buf), err(&err_buf);
          Context mine = ctx.redirected(out, err);
          try {
            nlohmann::json j = job(i);
            const std::string subject = "TFJob " + metadata_of(j).name;
            auto applied = submit_one(mine, std::move(j), f, dry_run_server, fmt, noted, subject, &shared);
            if (printer) done[i].applied = std::move(applied);
            done[i].ok = true;
          } catch (const std::exception& e) {
            err << failure_line(e) << "\n";
          }
        },
        [&](std::size_t i) {
          auto lk = ctx.lock_streams();
          done[i].lines.say(ctx.out, ctx.err);
          if (!done[i].ok) ++failed;
          else if (printer) printer->add(*done[i].applied);
          done[i] = Done();  // what was said is not kept
        });
    if (printer) printer->finish();
    ctx.out << std::flush;
    if (failed) {
      ctx.err << "error: " << failed << " of " << count << " TFJobs failed (their errors above); the others were "
              << (dry_run_server ? "accepted (server dry run)" : "applied") << "\n";
      return exit_code::failure;
    }
    return exit_code::ok;
  }
  if (printer) printer->finish();
  ctx.out << std::flush;
  if (!(f.wait || f.follow)) return exit_code::ok;


  // 5. --wait / --follow
  const std::string ns = first.namespace_.empty() ? ctx.namespace_() : first.namespace_;
  const std::string& name = first.name;
  wf::ProgressLine line(true, ctx.err);
  workflow::JobSummary final_state;
  auto rc = f.follow ? follow_submitted(ctx, ns, name, f, timeout, line, final_state)
                     : wait_submitted(ctx, ns, name, f, timeout, line, final_state);
  if (rc) return *rc;
  return say_how_it_ended(ctx, ns, name, final_state);
}

}  // namespace tfjob::cli
