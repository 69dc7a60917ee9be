// Controllers of the fake API server: a training-operator (v1.9 rules) for TFJobs, a
// kubelet (scheduling, pod phases, container statuses, scripted logs, restarts), a
// deployment controller (ReplicaSets, rollout status fields) and a small Job controller.
// All run on one thread every FakeApiServerOptions::controller_interval, with the store
// lock held; the kubelet's lock is taken inside it (never the other way round).
#include <sstream>

#include "support/fake_server_impl.hpp"
#include "support/operator/reconcile.hpp"

namespace tfjob::test {

using fake::Clock;
using fake::json;
using fake::ResourceInfo;

namespace {

const ResourceInfo& R(const char* group, const char* plural) { return *fake::find_resource(group, "v1", plural); }

std::string rand5() {
  static const char chars[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string u = fake::new_uid(), out;
  for (int i = 0; i < 5; ++i) out += chars[static_cast<unsigned char>(u[static_cast<size_t>(i) * 3]) % 27];
  return out;
}

/// Modifies a stored object in place (spec and status alike); bumps rv only on change.
bool mutate(FakeApiServer::Impl& s, const ResourceInfo& ri, const std::string& ns, const std::string& name,
            const std::function<void(json&)>& fn) {
  json* cur = s.find_locked(ri, ns, name);
  if (!cur) return false;
  json upd = *cur;
  fn(upd);
  if (upd == *cur) return false;
  if (ri.has_generation) {
    auto spec_of = [](json o) {
      o.erase("metadata");
      o.erase("status");
      return o;
    };
    if (spec_of(upd) != spec_of(*cur)) upd["metadata"]["generation"] = (*cur)["metadata"].value("generation", 0) + 1;
  }
  upd["metadata"]["resourceVersion"] = std::to_string(++s.rv);
  *cur = upd;
  s.emit_locked("MODIFIED", ri, upd);
  return true;
}

json owner_ref(const json& owner, bool controller = true) {
  return {{"apiVersion", owner.value("apiVersion", "")}, {"kind", owner.value("kind", "")}, {"name", owner["metadata"]["name"]},
          {"uid", owner["metadata"]["uid"]}, {"controller", controller}, {"blockOwnerDeletion", true}};
}

bool owned_by(const json& o, const json& owner) {
  for (const auto& r : o["metadata"].value("ownerReferences", json::array()))
    if (r.value("uid", "") == owner["metadata"].value("uid", "")) return true;
  return false;
}

void event_locked(FakeApiServer::Impl& s, const json& about, const std::string& type, const std::string& reason,
                  const std::string& message, const std::string& component) {
  const std::string ns = about["metadata"].value("namespace", "default");
  std::string now = fake::now_rfc3339();
  json e = {{"apiVersion", "v1"}, {"kind", "Event"},
            {"metadata", {{"name", about["metadata"].value("name", "") + "." + fake::new_uid().substr(0, 8)}, {"namespace", ns}}},
            {"involvedObject", {{"apiVersion", about.value("apiVersion", "")}, {"kind", about.value("kind", "")}, {"name", about["metadata"]["name"]},
                                {"namespace", ns}, {"uid", about["metadata"]["uid"]}, {"resourceVersion", about["metadata"].value("resourceVersion", "")}}},
            {"reason", reason}, {"message", message}, {"type", type}, {"source", {{"component", component}}},
            {"firstTimestamp", now}, {"lastTimestamp", now}, {"count", 1}, {"reportingComponent", component}, {"reportingInstance", ""}};
  s.create_locked(R("", "events"), e);
}

std::string phase_of(const json& pod) {
  auto it = pod.find("status");
  return it != pod.end() && it->is_object() ? it->value("phase", "") : "";
}

bool pod_ready(const json& pod) {
  for (const auto& c : pod.value("status", json::object()).value("conditions", json::array()))
    if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
  return false;
}

std::int64_t gpu_request(const json& pod) {
  std::int64_t n = 0;
  for (const auto& c : pod["spec"].value("containers", json::array())) {
    const json& res = c.value("resources", json::object());
    json v = res.value("limits", json::object()).value("nvidia.com/gpu", json());
    if (v.is_null()) v = res.value("requests", json::object()).value("nvidia.com/gpu", json());
    if (v.is_number_integer()) n += v.get<std::int64_t>();
    else if (v.is_string()) n += std::atoll(v.get<std::string>().c_str());
  }
  return n;
}

std::int64_t node_gpus(const json& node) {
  json v = node.value("status", json::object()).value("allocatable", json::object()).value("nvidia.com/gpu", json());
  if (v.is_string()) return std::atoll(v.get<std::string>().c_str());
  if (v.is_number_integer()) return v.get<std::int64_t>();
  return 0;
}

std::uint32_t fnv32(const std::string& s) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : s) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

}  // namespace

// ---- the kubelet ------------------------------------------------------------------------

namespace {

ContainerScript pick_script(Kubelet::Impl& k, const json& pod, const std::string& container, const FakeApiServerOptions& opts) {
  const std::string name = pod["metadata"]["name"];
  for (auto it = k.scripts.rbegin(); it != k.scripts.rend(); ++it)
    if (fake::glob_match(it->glob, name) && (it->container.empty() || it->container == container)) return it->script;
  const json& labels = pod["metadata"].value("labels", json::object());
  if (labels.contains("training.kubeflow.org/job-name")) {
    if (k.default_job) return *k.default_job;
    ContainerScript s;
    std::string rtype = labels.value("training.kubeflow.org/replica-type", "");
    std::string idx = labels.value("training.kubeflow.org/replica-index", "0");
    s.lines = {"fake-kubelet: starting " + container + " in " + name,
               "fake-kubelet: replica " + rtype + " " + idx + " of TFJob " + labels.value("training.kubeflow.org/job-name", ""),
               "fake-kubelet: training done"};
    s.exit_code = 0;
    s.run_for = opts.default_job_pod_runtime;
    return s;
  }
  if (labels.contains("batch.kubernetes.io/job-name") || labels.contains("job-name")) {
    ContainerScript s;  // a Job's pod: a line, then exit 0
    s.lines = {"fake-kubelet: job pod " + name + " ran"};
    s.exit_code = 0;
    s.run_for = std::chrono::milliseconds(200);
    return s;
  }
  ContainerScript s;  // anything else (deployments, bare pods) runs until told otherwise
  s.exit_code = std::nullopt;
  return s;
}

/// Advances one container: emits due lines, terminates when its script says so.
void step_container(fake::ContainerState& c, Clock::time_point now) {
  if (!c.running()) return;
  auto& run = c.runs.back();
  const bool crash_attempt = c.global_attempt < static_cast<int>(c.script.restart_exit_codes.size());
  if (c.finish_code) {
    run.terminated = true;
    run.exit_code = *c.finish_code;
    run.finished_at = now;
    c.finish_code.reset();
    return;
  }
  if (!c.lines_done) {
    if (c.next_line == 0 && !c.script.output.empty() && run.log.empty()) fake::append_output(run.log, now, c.script.output);
    while (c.next_line < c.script.lines.size() && (c.script.line_interval.count() == 0 || now >= c.next_due)) {
      run.log.push_back({now, c.script.lines[c.next_line], 0, 0});
      ++c.next_line;
      c.next_due = (c.script.line_interval.count() == 0 ? now : c.next_due) + c.script.line_interval;
    }
    if (c.next_line >= c.script.lines.size() && !c.generated_done) {
      if (c.script.generated_lines > 0)
        run.log.push_back({now, "", c.script.generated_lines, c.script.generated_line_bytes});
      c.generated_done = true;
    }
    if (c.next_line >= c.script.lines.size() && c.generated_done) {
      c.lines_done = true;
      c.lines_done_at = now;
    }
  }
  if (!c.lines_done) return;
  std::optional<int> code = crash_attempt ? std::optional<int>(c.script.restart_exit_codes[static_cast<size_t>(c.global_attempt)]) : c.script.exit_code;
  if (!code) return;
  if (now < c.lines_done_at + c.script.run_for) return;
  run.terminated = true;
  run.exit_code = *code;
  run.finished_at = now;
}

void start_run(fake::ContainerState& c, Clock::time_point now) {
  fake::ContainerRun r;
  r.started_at = now;
  c.runs.push_back(std::move(r));
  c.next_line = 0;
  c.generated_done = false;
  c.lines_done = false;
  c.next_due = now;
  c.restart_pending = false;
}

}  // namespace

void FakeApiServer::Impl::reconcile_pods_locked() {
  const ResourceInfo& pods = R("", "pods");
  const ResourceInfo& nodes_ri = R("", "nodes");
  auto& k = kubelet_impl;
  std::lock_guard<std::mutex> klk(k.mu);
  const auto now = Clock::now();
  bool notify = false;
  std::set<std::string> live_uids;
  std::vector<json> all = list_locked(pods, "");
  std::vector<json> nodes = list_locked(nodes_ri, "");
  for (size_t pod_i = 0; pod_i < all.size(); ++pod_i) {
    const json pod0 = all[pod_i];
    const std::string ns = pod0["metadata"].value("namespace", "");
    const std::string name = pod0["metadata"]["name"];
    const std::string uid = pod0["metadata"].value("uid", "");
    live_uids.insert(uid);
    json pod = pod0;
    // 1. scheduling
    if (pod["spec"].value("nodeName", "").empty()) {
      const std::string preemption = " preemption: 0/" + std::to_string(nodes.size()) + " nodes are available: " +
                                     std::to_string(nodes.size()) + " Preemption is not helpful for scheduling.";
      auto unschedulable = [&](const std::string& msg) {
        bool changed = mutate(*this, pods, ns, name, [&](json& p) {
          p["status"]["phase"] = "Pending";
          p["status"]["conditions"] = json::array({{{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}, {"message", msg},
                                                    {"lastProbeTime", nullptr},
                                                    {"lastTransitionTime", p["status"].value("conditions", json::array()).empty()
                                                                               ? fake::now_rfc3339()
                                                                               : p["status"]["conditions"][0].value("lastTransitionTime", fake::now_rfc3339())}}});
        });
        if (changed) event_locked(*this, *find_locked(pods, ns, name), "Warning", "FailedScheduling", msg, "default-scheduler");
      };
      // the VolumeBinding filter comes first: every claim the pod mounts must exist and be Bound
      std::string claims;
      for (const auto& v : pod["spec"].value("volumes", json::array())) {
        if (!v.contains("persistentVolumeClaim")) continue;
        const std::string cn = v["persistentVolumeClaim"].value("claimName", "");
        const json* pvc = find_locked(R("", "persistentvolumeclaims"), ns, cn);
        if (!pvc) {
          claims = "persistentvolumeclaim \"" + cn + "\" not found.";
          break;
        }
        if (pvc->value("status", json::object()).value("phase", "") != "Bound") claims = "pod has unbound immediate PersistentVolumeClaims.";
      }
      if (!claims.empty()) {
        unschedulable("0/" + std::to_string(nodes.size()) + " nodes are available: " + claims + preemption);
        continue;
      }
      std::int64_t want = gpu_request(pod);
      const json& sel = pod["spec"].value("nodeSelector", json::object());
      std::string chosen;
      int gpu_short = 0, sel_miss = 0;
      std::vector<const json*> fits;
      for (const auto& n : nodes) {
        const json& labels = n["metadata"].value("labels", json::object());
        bool ok = true;
        for (auto it = sel.begin(); it != sel.end(); ++it)
          if (!labels.contains(it.key()) || labels[it.key()] != it.value()) ok = false;
        if (!ok) {
          ++sel_miss;
          continue;
        }
        if (want > 0) {
          std::int64_t used = 0;
          for (const auto& p : all)
            if (p["spec"].value("nodeName", "") == n["metadata"]["name"] && phase_of(p) != "Succeeded" && phase_of(p) != "Failed")
              used += gpu_request(p);
          if (node_gpus(n) - used < want) {
            ++gpu_short;
            continue;
          }
        }
        fits.push_back(&n);
      }
      if (!fits.empty()) {
        // spread: the node with the fewest pods
        size_t best = 0, best_count = SIZE_MAX;
        for (size_t i = 0; i < fits.size(); ++i) {
          size_t cnt = 0;
          for (const auto& p : all)
            if (p["spec"].value("nodeName", "") == (*fits[i])["metadata"]["name"]) ++cnt;
          if (cnt < best_count) {
            best = i;
            best_count = cnt;
          }
        }
        chosen = (*fits[best])["metadata"]["name"];
      }
      if (chosen.empty()) {
        std::string msg = "0/" + std::to_string(nodes.size()) + " nodes are available:";
        if (gpu_short) msg += " " + std::to_string(gpu_short) + " Insufficient nvidia.com/gpu.";
        if (sel_miss) msg += " " + std::to_string(sel_miss) + " node(s) didn't match Pod's node affinity/selector.";
        unschedulable(msg + preemption);
        continue;
      }
      std::string host_ip;
      for (const auto& n : nodes)
        if (n["metadata"]["name"] == chosen)
          for (const auto& a : n["status"].value("addresses", json::array()))
            if (a.value("type", "") == "InternalIP") host_ip = a.value("address", "");
      mutate(*this, pods, ns, name, [&](json& p) {
        p["spec"]["nodeName"] = chosen;
        p["status"]["phase"] = "Pending";
        p["status"]["hostIP"] = host_ip;
        p["status"]["hostIPs"] = json::array({{{"ip", host_ip}}});
        p["status"]["startTime"] = fake::now_rfc3339();
        p["status"]["conditions"] = json::array({{{"type", "PodScheduled"}, {"status", "True"}, {"lastProbeTime", nullptr}, {"lastTransitionTime", fake::now_rfc3339()}}});
        json css = json::array();
        for (const auto& c : p["spec"].value("containers", json::array()))
          css.push_back({{"name", c.value("name", "")}, {"image", c.value("image", "")}, {"imageID", ""}, {"ready", false}, {"restartCount", 0},
                         {"started", false}, {"state", {{"waiting", {{"reason", "ContainerCreating"}}}}}, {"lastState", json::object()}});
        p["status"]["containerStatuses"] = css;
      });
      // the scheduler's cache assumes the pod on its node at once: the next pod of this
      // pass must see the GPUs it took (else N pods land on a node with fewer GPUs)
      all[pod_i]["spec"]["nodeName"] = chosen;
      event_locked(*this, *find_locked(pods, ns, name), "Normal", "Scheduled",
                   "Successfully assigned " + ns + "/" + name + " to " + chosen, "default-scheduler");
      continue;
    }
    // 2. containers
    const std::string phase = phase_of(pod);
    if (phase == "Succeeded" || phase == "Failed") continue;
    Clock::time_point created;
    fake::parse_rfc3339(pod["metadata"].value("creationTimestamp", ""), created);
    const json containers = pod["spec"].value("containers", json::array());
    // native sidecars: init containers with restartPolicy Always (KEP-753; 1.28 alpha, 1.29
    // beta, 1.33 GA): started before the containers and restarted whatever the pod's
    // restartPolicy, reported in initContainerStatuses, stopped by the kubelet once every
    // container has ended; they do not decide the pod's phase
    json sidecars = json::array();
    for (const auto& ic : pod["spec"].value("initContainers", json::array()))
      if (ic.value("restartPolicy", "") == "Always") sidecars.push_back(ic);
    json everyone = sidecars;
    for (const auto& c : containers) everyone.push_back(c);
    bool first_start = false;
    if (!k.containers.count(uid + "/" + containers[0].value("name", ""))) {
      if (now < created + opts.pod_start_delay) continue;
      first_start = true;
      for (const auto& c : everyone) {
        fake::ContainerState st;
        st.ns = ns;
        st.pod = name;
        st.container = c.value("name", "");
        st.image = c.value("image", "");
        st.script = pick_script(k, pod, st.container, opts);
        st.global_attempt = k.attempts_by_name[ns + "/" + name + "/" + st.container];
        start_run(st, now);
        k.containers[uid + "/" + st.container] = std::move(st);
      }
      notify = true;
    }
    const std::string pod_rp = pod["spec"].value("restartPolicy", "Always");
    bool any_running = false, all_done = true, all_ok = true, all_ready = true;
    json css = json::array(), init_css = json::array();
    // the containers first: whether they have all ended decides whether the sidecars stop
    json order = containers;
    for (const auto& c : sidecars) order.push_back(c);
    for (std::size_t ci = 0; ci < order.size(); ++ci) {
      const json& c = order[ci];
      const bool sidecar = ci >= containers.size();
      const std::string rp = sidecar ? "Always" : pod_rp;
      auto& st = k.containers[uid + "/" + c.value("name", "")];
      if (sidecar && all_done && st.running()) st.finish_code = 0;  // the kubelet stops it (SIGTERM; exits 0 here)
      if (sidecar && all_done) st.restart_pending = false;
      // a restart due now starts first, so that an attempt which also ends in this same pass
      // (a container that crashes at once) is seen ending and restarted again: a crash loop
      if (st.restart_pending && now >= st.restart_at) start_run(st, now);
      size_t before = st.runs.empty() ? 0 : st.runs.back().log.size();
      bool was_running = st.running();
      step_container(st, now);
      if (!st.runs.empty() && st.runs.back().log.size() != before) notify = true;
      if (was_running && !st.running()) {
        notify = true;
        k.attempts_by_name[ns + "/" + name + "/" + st.container] = ++st.global_attempt;
        int code = st.runs.back().exit_code;
        if ((rp == "Always" && !(sidecar && all_done)) || (rp == "OnFailure" && code != 0)) {
          st.restart_pending = true;
          st.restart_at = now + std::chrono::milliseconds(100);
        }
      }
      json cs = {{"name", st.container}, {"image", st.image}, {"imageID", "docker.io/library/fake@sha256:0"},
                 {"containerID", "containerd://" + uid.substr(0, 8) + std::to_string(st.runs.size())},
                 {"restartCount", static_cast<int>(st.runs.size()) - 1 - (st.restart_pending ? 0 : 0)}};
      const auto& run = st.runs.back();
      if (st.runs.size() >= 2 || (st.restart_pending && !st.runs.empty())) {
        const auto& prev = st.restart_pending ? run : st.runs[st.runs.size() - 2];
        cs["lastState"] = {{"terminated", {{"exitCode", prev.exit_code}, {"reason", prev.exit_code == 0 ? "Completed" : st.script.exit_reason},
                                           {"startedAt", fake::rfc3339(prev.started_at)}, {"finishedAt", fake::rfc3339(prev.finished_at)}}}};
      } else {
        cs["lastState"] = json::object();
      }
      if (st.restart_pending) {
        cs["restartCount"] = static_cast<int>(st.runs.size()) - 1;
        cs["state"] = {{"waiting", {{"reason", "CrashLoopBackOff"},
                                    {"message", "back-off 10s restarting failed container=" + st.container + " pod=" + name + "_" + ns + "(" + uid + ")"}}}};
        cs["ready"] = false;
        cs["started"] = false;
        if (!sidecar) all_done = false;
        all_ready = false;
      } else if (run.terminated) {
        cs["state"] = {{"terminated", {{"exitCode", run.exit_code}, {"reason", run.exit_code == 0 ? "Completed" : st.script.exit_reason},
                                       {"startedAt", fake::rfc3339(run.started_at)}, {"finishedAt", fake::rfc3339(run.finished_at)},
                                       {"containerID", cs["containerID"]}}}};
        cs["ready"] = false;
        cs["started"] = false;
        if (run.exit_code != 0 && !sidecar) all_ok = false;
        all_ready = false;
      } else {
        cs["state"] = {{"running", {{"startedAt", fake::rfc3339(run.started_at)}}}};
        cs["ready"] = true;
        cs["started"] = true;
        if (!sidecar) {
          any_running = true;
          all_done = false;
        }
      }
      // a late status (restart_status_lag): from the pass a run ends until the lag has passed
      // since the next one started, the API keeps what it last showed while the run ran
      // (the kubelet serves logs from its own status, which reaches the API later)
      if (opts.restart_status_lag.count() > 0 && !st.published.is_null() &&
          (st.restart_pending || (st.runs.size() >= 2 && now < st.runs.back().started_at + opts.restart_status_lag)))
        cs = st.published;
      else
        st.published = cs;
      (sidecar ? init_css : css).push_back(cs);
    }
    std::string new_phase = all_done ? (all_ok ? "Succeeded" : "Failed") : "Running";
    mutate(*this, pods, ns, name, [&](json& p) {
      auto& st = p["status"];
      if (!st.is_object()) st = json::object();  // a pod stored without status (e.g. created already bound)
      std::string ts = fake::now_rfc3339();
      auto cond = [&](const char* type, bool ok, const char* reason) {
        json c = {{"type", type}, {"status", ok ? "True" : "False"}, {"lastProbeTime", nullptr}};
        for (const auto& old : st.value("conditions", json::array()))
          if (old.value("type", "") == type) {
            c["lastTransitionTime"] = old.value("status", "") == c["status"] ? old.value("lastTransitionTime", ts) : ts;
          }
        if (!c.contains("lastTransitionTime")) c["lastTransitionTime"] = ts;
        if (!ok && reason) c["reason"] = reason;
        return c;
      };
      bool ready = any_running && all_ready;
      st["conditions"] = json::array({cond("PodReadyToStartContainers", !all_done, nullptr), cond("Initialized", true, nullptr),
                                      cond("Ready", ready, all_done ? "PodCompleted" : "ContainersNotReady"),
                                      cond("ContainersReady", ready, all_done ? "PodCompleted" : "ContainersNotReady"),
                                      cond("PodScheduled", true, nullptr)});
      st["phase"] = new_phase;
      // a lagging status update: Running before any container status is reported
      const auto& first_run = k.containers[uid + "/" + containers[0].value("name", "")].runs.front();
      if (opts.container_status_lag.count() > 0 && now < first_run.started_at + opts.container_status_lag && !all_done)
        st.erase("containerStatuses");
      else {
        st["containerStatuses"] = css;
        if (!init_css.empty()) st["initContainerStatuses"] = init_css;
      }
      if (!st.contains("podIP")) {
        std::string ip = pod_ip_locked();
        st["podIP"] = ip;
        st["podIPs"] = json::array({{{"ip", ip}}});
      }
    });
    if (first_start)
      for (const auto& c : everyone)
        event_locked(*this, *find_locked(pods, ns, name), "Normal", "Started", "Started container " + c.value("name", ""), "kubelet");
  }
  // pods that went away: their containers stop, their followers end
  for (auto it = k.containers.begin(); it != k.containers.end();) {
    std::string uid = it->first.substr(0, it->first.find('/'));
    if (!live_uids.count(uid)) {
      it = k.containers.erase(it);
      notify = true;
    } else {
      ++it;
    }
  }
  if (notify) k.cv.notify_all();
}

// ---- the training operator ------------------------------------------------------------
// The reconcile is the test operator's (support/operator/reconcile.hpp, on the SDK's
// tfjob/api/operator_rules.hpp), shared with the real-node controller stand-in; this applies
// its plan to the store, playing the API server's defaulting of
// what the operator creates.

namespace {

/// What the API server defaults on a created pod or service that the store does not.
void api_defaults(json& obj) {
  if (obj.value("kind", "") == "Pod") {
    if (!obj["spec"].contains("schedulerName")) obj["spec"]["schedulerName"] = "default-scheduler";
    if (!obj["spec"].contains("containers")) obj["spec"]["containers"] = json::array();
    for (auto& c : obj["spec"]["containers"])
      if (c.contains("ports") && c["ports"].is_array())
        for (auto& p : c["ports"])
          if (!p.contains("protocol")) p["protocol"] = "TCP";
    return;
  }
  auto& spec = obj["spec"];
  spec["clusterIPs"] = json::array({spec.value("clusterIP", "None")});
  spec["type"] = "ClusterIP";
  spec["sessionAffinity"] = "None";
  if (spec.contains("ports"))
    for (auto& p : spec["ports"]) {
      if (!p.contains("protocol")) p["protocol"] = "TCP";
      if (!p.contains("targetPort")) p["targetPort"] = p["port"];
    }
}

}  // namespace

void FakeApiServer::Impl::reconcile_tfjobs_locked() {
  const ResourceInfo& tfjobs = R("kubeflow.org", "tfjobs");
  const ResourceInfo& pods = R("", "pods");
  const ResourceInfo& services = R("", "services");
  const std::int64_t now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  for (const json& stored : list_locked(tfjobs, "")) {
    TFJob job;
    try {
      job = stored.get<TFJob>();
    } catch (const std::exception&) {
      continue;  // not a TFJob the operator can decode; the real one logs and skips it too
    }
    const std::string ns = job.metadata.namespace_;
    op::Observed seen;
    seen.pods = list_locked(pods, ns);
    seen.services = list_locked(services, ns);
    const op::Plan plan = op::reconcile(job, seen, now);
    for (const auto& n : plan.delete_pods)
      if (find_locked(pods, ns, n)) remove_locked(pods, ns, n, "Background");
    for (const auto& n : plan.delete_services)
      if (find_locked(services, ns, n)) remove_locked(services, ns, n, "Background");
    for (json p : plan.create_pods) {
      if (find_locked(pods, ns, p["metadata"]["name"])) continue;  // AlreadyExists: not ours
      api_defaults(p);
      create_locked(pods, p);
    }
    for (json svc : plan.create_services) {
      if (find_locked(services, ns, svc["metadata"]["name"])) continue;
      api_defaults(svc);
      create_locked(services, svc);
    }
    for (const auto& e : plan.events) event_locked(*this, stored, e.type, e.reason, e.message, "tfjob-controller");
    if (plan.status) {
      json st = *plan.status;
      mutate(*this, tfjobs, ns, job.metadata.name, [&](json& j) { j["status"] = st; });
    }
    if (plan.delete_job) remove_locked(tfjobs, ns, job.metadata.name, "Background");
  }
}

// ---- the deployment controller ------------------------------------------------------------

void FakeApiServer::Impl::reconcile_deployments_locked() {
  const ResourceInfo& deps = R("apps", "deployments");
  const ResourceInfo& rss = R("apps", "replicasets");
  const ResourceInfo& pods = R("", "pods");
  // ReplicaSets: keep spec.replicas pods
  for (const json& rs : list_locked(rss, "")) {
    const std::string ns = rs["metadata"].value("namespace", "");
    const int want = rs["spec"].value("replicas", 1);
    std::vector<json> mine;
    for (const auto& p : list_locked(pods, ns))
      if (owned_by(p, rs)) mine.push_back(p);
    for (int i = static_cast<int>(mine.size()); i < want; ++i) {
      json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}};
      pod["metadata"] = rs["spec"]["template"].value("metadata", json::object());
      std::string pname;
      do pname = rs["metadata"]["name"].get<std::string>() + "-" + rand5();
      while (find_locked(pods, ns, pname));
      pod["metadata"]["name"] = pname;
      pod["metadata"]["namespace"] = ns;
      pod["metadata"]["generateName"] = rs["metadata"]["name"].get<std::string>() + "-";
      pod["metadata"]["ownerReferences"] = json::array({owner_ref(rs)});
      pod["spec"] = rs["spec"]["template"].value("spec", json::object());
      if (!pod["spec"].contains("restartPolicy")) pod["spec"]["restartPolicy"] = "Always";
      pod["status"] = {{"phase", "Pending"}};
      mine.push_back(create_locked(pods, pod));
      event_locked(*this, rs, "Normal", "SuccessfulCreate", "Created pod: " + pname, "replicaset-controller");
    }
    while (static_cast<int>(mine.size()) > want) {
      remove_locked(pods, ns, mine.back()["metadata"]["name"], "Background");
      mine.pop_back();
    }
    int ready = 0;
    for (const auto& p : mine)
      if (pod_ready(p)) ++ready;
    mutate(*this, rss, ns, rs["metadata"]["name"], [&](json& o) {
      o["status"]["replicas"] = static_cast<int>(mine.size());
      o["status"]["fullyLabeledReplicas"] = static_cast<int>(mine.size());
      o["status"]["readyReplicas"] = ready;
      o["status"]["availableReplicas"] = ready;
      o["status"]["observedGeneration"] = o["metadata"].value("generation", 1);
    });
  }
  for (const json& d : list_locked(deps, "")) {
    const std::string ns = d["metadata"].value("namespace", "");
    const std::string name = d["metadata"]["name"];
    const int want = d["spec"].value("replicas", 1);
    json tmpl = d["spec"].value("template", json::object());
    char hash[16];
    std::snprintf(hash, sizeof hash, "%08x", fnv32(tmpl.dump()));
    std::string h = std::string(hash).substr(0, 8);
    for (auto& c : h)
      if (c >= '0' && c <= '9' && (c - '0') % 3 == 0) c = static_cast<char>('b' + (c - '0') / 3);  // look like a k8s hash
    const std::string rs_name = name + "-" + h;
    tmpl["metadata"]["labels"]["pod-template-hash"] = h;
    std::vector<json> owned;
    for (const auto& rs : list_locked(rss, ns))
      if (owned_by(rs, d)) owned.push_back(rs);
    bool have_new = false;
    for (const auto& rs : owned) {
      if (rs["metadata"]["name"] == rs_name) {
        have_new = true;
        mutate(*this, rss, ns, rs_name, [&](json& o) { o["spec"]["replicas"] = want; });
      } else if (rs["spec"].value("replicas", 0) != 0) {
        mutate(*this, rss, ns, rs["metadata"]["name"], [&](json& o) { o["spec"]["replicas"] = 0; });
      }
    }
    if (!have_new) {
      json sel = d["spec"].value("selector", json::object());
      sel["matchLabels"]["pod-template-hash"] = h;
      json labels = tmpl["metadata"]["labels"];
      json rs = {{"apiVersion", "apps/v1"}, {"kind", "ReplicaSet"},
                 {"metadata", {{"name", rs_name}, {"namespace", ns}, {"labels", labels}, {"ownerReferences", json::array({owner_ref(d)})},
                               {"annotations", {{"deployment.kubernetes.io/revision", std::to_string(owned.size() + 1)}}}}},
                 {"spec", {{"replicas", want}, {"selector", sel}, {"template", tmpl}}}};
      create_locked(rss, rs);
      event_locked(*this, d, "Normal", "ScalingReplicaSet", "Scaled up replica set " + rs_name + " to " + std::to_string(want), "deployment-controller");
    }
    int total = 0, updated = 0, ready = 0, updated_ready = 0;
    for (const auto& rs : list_locked(rss, ns)) {
      if (!owned_by(rs, d)) continue;
      for (const auto& p : list_locked(pods, ns)) {
        if (!owned_by(p, rs)) continue;
        ++total;
        bool r = pod_ready(p);
        if (r) ++ready;
        if (rs["metadata"]["name"] == rs_name) {
          ++updated;
          if (r) ++updated_ready;
        }
      }
    }
    // old ReplicaSets go once the new one is fully available (revisionHistoryLimit 0 here)
    if (updated_ready >= want)
      for (const auto& rs : owned)
        if (rs["metadata"]["name"] != rs_name && find_locked(rss, ns, rs["metadata"]["name"])) remove_locked(rss, ns, rs["metadata"]["name"], "Background");
    const bool complete = updated == want && total == want && ready >= want;
    mutate(*this, deps, ns, name, [&](json& o) {
      auto& st = o["status"];
      std::string now = fake::now_rfc3339();
      st["observedGeneration"] = o["metadata"].value("generation", 1);
      st["replicas"] = total;
      st["updatedReplicas"] = updated;
      st["readyReplicas"] = ready;
      st["availableReplicas"] = ready;
      if (total - ready > 0) st["unavailableReplicas"] = total - ready;
      else st.erase("unavailableReplicas");
      if (ready == 0) st.erase("readyReplicas");
      json conds = json::array();
      auto keep_time = [&](const char* type, const std::string& status, const std::string& reason) {
        for (const auto& c : st.value("conditions", json::array()))
          if (c.value("type", "") == type && c.value("status", "") == status && c.value("reason", "") == reason) return c;
        return json{{"type", type}, {"status", status}, {"reason", reason}, {"lastUpdateTime", now}, {"lastTransitionTime", now}};
      };
      json avail = keep_time("Available", ready >= want ? "True" : "False", ready >= want ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable");
      avail["message"] = ready >= want ? "Deployment has minimum availability." : "Deployment does not have minimum availability.";
      json prog = keep_time("Progressing", "True", complete ? "NewReplicaSetAvailable" : "ReplicaSetUpdated");
      prog["message"] = complete ? "ReplicaSet \"" + rs_name + "\" has successfully progressed." : "ReplicaSet \"" + rs_name + "\" is progressing.";
      if (!complete) {
        // The deployment controller's progress deadline: a rollout of this ReplicaSet that
        // has not completed within spec.progressDeadlineSeconds (default 600) of its last
        // progress is marked Progressing=False/ProgressDeadlineExceeded and stays so.
        const std::string timed_out = "ReplicaSet \"" + rs_name + "\" has timed out progressing.";
        bool exceeded = false;
        for (const auto& c : st.value("conditions", json::array()))
          if (c.value("type", "") == "Progressing" && c.value("reason", "") == "ProgressDeadlineExceeded" && c.value("message", "") == timed_out)
            exceeded = true;
        Clock::time_point since;
        const int deadline = o["spec"].value("progressDeadlineSeconds", 600);
        if (!exceeded && fake::parse_rfc3339(prog.value("lastUpdateTime", ""), since) &&
            Clock::now() - since > std::chrono::seconds(deadline))
          exceeded = true;
        if (exceeded) {
          prog = keep_time("Progressing", "False", "ProgressDeadlineExceeded");
          prog["message"] = timed_out;
        }
      }
      conds.push_back(avail);
      conds.push_back(prog);
      st["conditions"] = conds;
    });
  }
}

// ---- KServe's InferenceService controller, RawDeployment mode (FakeApiServerOptions::kserve) ----
// A stand-in for kserve's controller (pkg/controller/v1beta1/inferenceservice, raw mode): the
// TensorFlow predictor becomes a Deployment and a ClusterIP Service named NAME-predictor
// (port 80 to the container's 8080), its pods labelled serving.kserve.io/inferenceservice=NAME,
// TF Serving run as the kserve-tensorflow-serving runtime runs it; the status follows the
// Deployment: PredictorReady from its Available condition, Ready when the predictor is.

void FakeApiServer::Impl::reconcile_inferenceservices_locked() {
  if (!opts.kserve) return;
  const ResourceInfo& isvcs = *fake::find_resource("serving.kserve.io", "v1beta1", "inferenceservices");
  const ResourceInfo& deps = R("apps", "deployments");
  const ResourceInfo& svcs = R("", "services");
  for (const json& isvc : list_locked(isvcs, "")) {
    const std::string ns = isvc["metadata"].value("namespace", "");
    const std::string name = isvc["metadata"]["name"];
    const std::string comp = name + "-predictor";
    json pred = isvc.value("spec", json::object()).value("predictor", json::object());
    json model = pred.value("model", json::object());
    // KServe propagates the InferenceService's labels to its components (and adds its own)
    json labels = isvc["metadata"].value("labels", json::object());
    labels["serving.kserve.io/inferenceservice"] = name;
    labels["component"] = "predictor";
    labels["app"] = "isvc." + comp;
    json container = {{"name", "kserve-container"},
                      {"image", "tensorflow/serving:" + model.value("runtimeVersion", "2.6.2")},
                      {"command", {"/usr/bin/tensorflow_model_server"}},
                      {"args", {"--port=9000", "--rest_api_port=8080", "--model_name=" + name, "--model_base_path=/mnt/models",
                                "--rest_api_timeout_in_ms=60000"}},
                      {"ports", {{{"containerPort", 8080}, {"name", "h2c"}, {"protocol", "TCP"}}}}};
    if (model.contains("resources")) container["resources"] = model["resources"];
    json pod_spec = {{"containers", json::array()}};
    const std::string uri = model.value("storageUri", "");
    if (uri.rfind("pvc://", 0) == 0) {  // the claim mounted at /mnt/models (kserve's storage initializer injector, pvc://)
      std::string rest = uri.substr(6);
      std::string claim = rest.substr(0, rest.find('/'));
      std::string sub = rest.find('/') == std::string::npos ? "" : rest.substr(rest.find('/') + 1);
      json mount = {{"name", "kserve-pvc-source"}, {"mountPath", "/mnt/models"}, {"readOnly", true}};
      if (!sub.empty()) mount["subPath"] = sub;
      container["volumeMounts"] = json::array({mount});
      pod_spec["volumes"] = json::array({{{"name", "kserve-pvc-source"}, {"persistentVolumeClaim", {{"claimName", claim}, {"readOnly", true}}}}});
    }
    pod_spec["containers"].push_back(container);
    for (const char* k : {"nodeSelector", "tolerations"})
      if (pred.contains(k)) pod_spec[k] = pred[k];
    const int replicas = pred.value("minReplicas", 1);
    json dep = {{"apiVersion", "apps/v1"}, {"kind", "Deployment"},
                {"metadata", {{"name", comp}, {"namespace", ns}, {"labels", labels}, {"ownerReferences", json::array({owner_ref(isvc)})}}},
                {"spec", {{"replicas", replicas}, {"selector", {{"matchLabels", {{"app", "isvc." + comp}}}}},
                          {"template", {{"metadata", {{"labels", labels}}}, {"spec", pod_spec}}}}}};
    if (!find_locked(deps, ns, comp)) {
      create_locked(deps, dep);
    } else {
      mutate(*this, deps, ns, comp, [&](json& o) {
        o["spec"] = dep["spec"];
      });
    }
    if (!find_locked(svcs, ns, comp)) {
      json svc = {{"apiVersion", "v1"}, {"kind", "Service"},
                  {"metadata", {{"name", comp}, {"namespace", ns}, {"labels", labels}, {"ownerReferences", json::array({owner_ref(isvc)})}}},
                  {"spec", {{"type", "ClusterIP"}, {"selector", {{"app", "isvc." + comp}}},
                            {"ports", {{{"name", comp}, {"port", 80}, {"protocol", "TCP"}, {"targetPort", 8080}}}}}}};
      create_locked(svcs, svc);
    }
    const json* d = find_locked(deps, ns, comp);
    std::string avail = "False", reason = "MinimumReplicasUnavailable", message = "Deployment does not have minimum availability.";
    if (d)
      for (const auto& c : (*d).value("status", json::object()).value("conditions", json::array()))
        if (c.value("type", "") == "Available") {
          avail = c.value("status", "False");
          reason = c.value("reason", "");
          message = c.value("message", "");
        }
    const bool ready = avail == "True";
    const std::string url = "http://" + comp + "." + ns + ".svc.cluster.local";
    mutate(*this, isvcs, ns, name, [&](json& o) {
      const std::string now = fake::now_rfc3339();
      auto cond = [&](const char* type, bool ok, const std::string& r, const std::string& m) {
        for (const auto& c : o.value("status", json::object()).value("conditions", json::array()))
          if (c.value("type", "") == type && c.value("status", "") == (ok ? "True" : "False")) return c;
        json c = {{"type", type}, {"status", ok ? "True" : "False"}, {"lastTransitionTime", now}};
        if (!ok && !r.empty()) c["reason"] = r;
        if (!ok && !m.empty()) c["message"] = m;
        return c;
      };
      auto& st = o["status"];
      st["observedGeneration"] = o["metadata"].value("generation", 1);
      st["conditions"] = json::array({cond("IngressReady", true, "", ""), cond("PredictorReady", ready, reason, message),
                                      cond("Ready", ready, reason, message)});
      st["components"] = {{"predictor", {{"url", url}, {"address", {{"url", url}}}}}};
      st["modelStatus"] = {{"transitionStatus", ready ? "UpToDate" : "InProgress"},
                           {"states", {{"activeModelState", ready ? "Loaded" : "Pending"}, {"targetModelState", ready ? "Loaded" : "Pending"}}}};
      if (ready) {
        st["url"] = url;
        st["address"] = {{"url", url}};
      } else {
        st.erase("url");
        st.erase("address");
      }
    });
  }
}

// ---- volumes: the PV controller and a default dynamic provisioner -----------------------------

void FakeApiServer::Impl::reconcile_volumes_locked() {
  const ResourceInfo& pvcs = R("", "persistentvolumeclaims");
  const ResourceInfo& pvs = R("", "persistentvolumes");
  static const char* provisioner = "fake.csi.kubectl-tfjob.io";
  for (const json& c : list_locked(pvcs, "")) {
    if (c.value("status", json::object()).value("phase", "Pending") != "Pending") continue;
    const std::string ns = c["metadata"].value("namespace", "");
    const std::string name = c["metadata"].value("name", "");
    const std::string uid = c["metadata"].value("uid", "");
    const json spec = c.value("spec", json::object());
    const std::string cls = spec.value("storageClassName", "");
    if (!opts.provision_volumes || (!cls.empty() && cls != "standard")) {
      // stays Pending; the PV controller says why, once
      if (explained_claims.insert(uid).second) {
        if (!cls.empty() && cls != "standard")
          event_locked(*this, c, "Warning", "ProvisioningFailed", "storageclass.storage.k8s.io \"" + cls + "\" not found",
                       "persistentvolume-controller");
        else
          event_locked(*this, c, "Normal", "FailedBinding", "no persistent volumes available for this claim and no storage class is set",
                       "persistentvolume-controller");
      }
      continue;
    }
    const std::string pv = "pvc-" + uid;
    const json size = spec.value("resources", json::object()).value("requests", json::object()).value("storage", json("1Gi"));
    const json modes = spec.value("accessModes", json::array({"ReadWriteOnce"}));
    if (!find_locked(pvs, "", pv))
      create_locked(pvs, {{"apiVersion", "v1"}, {"kind", "PersistentVolume"},
                          {"metadata", {{"name", pv}, {"annotations", {{"pv.kubernetes.io/provisioned-by", provisioner}}}}},
                          {"spec", {{"capacity", {{"storage", size}}}, {"accessModes", modes}, {"persistentVolumeReclaimPolicy", "Delete"},
                                    {"storageClassName", "standard"}, {"volumeMode", spec.value("volumeMode", "Filesystem")},
                                    {"csi", {{"driver", provisioner}, {"volumeHandle", pv}}},
                                    {"claimRef", {{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"}, {"namespace", ns}, {"name", name}, {"uid", uid}}}}},
                          {"status", {{"phase", "Bound"}}}});
    mutate(*this, pvcs, ns, name, [&](json& o) {
      o["spec"]["volumeName"] = pv;
      if (!o["spec"].contains("storageClassName")) o["spec"]["storageClassName"] = "standard";
      o["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"] = "yes";
      o["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"] = "yes";
      o["metadata"]["annotations"]["volume.kubernetes.io/storage-provisioner"] = provisioner;
      o["status"] = {{"phase", "Bound"}, {"accessModes", modes}, {"capacity", {{"storage", size}}}};
    });
    event_locked(*this, c, "Normal", "ProvisioningSucceeded", "Successfully provisioned volume " + pv, provisioner);
  }
}

// ---- a small Job controller ---------------------------------------------------------------

void FakeApiServer::Impl::reconcile_jobs_locked() {
  const ResourceInfo& jobs = R("batch", "jobs");
  const ResourceInfo& pods = R("", "pods");
  for (const json& j : list_locked(jobs, "")) {
    const std::string ns = j["metadata"].value("namespace", "");
    const std::string name = j["metadata"]["name"];
    const json& st0 = j.value("status", json::object());
    bool done = false;
    for (const auto& c : st0.value("conditions", json::array()))
      if ((c.value("type", "") == "Complete" || c.value("type", "") == "Failed") && c.value("status", "") == "True") done = true;
    if (done) continue;
    const int completions = j["spec"].value("completions", 1);
    const int backoff = j["spec"].value("backoffLimit", 6);
    int active = 0, succeeded = 0, failed = 0;
    for (const auto& p : list_locked(pods, ns)) {
      if (!owned_by(p, j)) continue;
      std::string ph = phase_of(p);
      if (ph == "Succeeded") ++succeeded;
      else if (ph == "Failed") ++failed;
      else ++active;
      for (const auto& cs : p.value("status", json::object()).value("containerStatuses", json::array())) failed += cs.value("restartCount", 0);
    }
    std::string now = fake::now_rfc3339();
    json st = st0;
    if (!st.contains("startTime")) st["startTime"] = now;
    if (succeeded >= completions) {
      st["conditions"] = json::array({{{"type", "SuccessCriteriaMet"}, {"status", "True"}, {"reason", "CompletionsReached"}, {"message", "Reached expected number of succeeded pods"}, {"lastProbeTime", now}, {"lastTransitionTime", now}},
                                      {{"type", "Complete"}, {"status", "True"}, {"reason", "CompletionsReached"}, {"message", "Reached expected number of succeeded pods"}, {"lastProbeTime", now}, {"lastTransitionTime", now}}});
      st["completionTime"] = now;
    } else if (failed > backoff) {
      st["conditions"] = json::array({{{"type", "FailureTarget"}, {"status", "True"}, {"reason", "BackoffLimitExceeded"}, {"message", "Job has reached the specified backoff limit"}, {"lastProbeTime", now}, {"lastTransitionTime", now}},
                                      {{"type", "Failed"}, {"status", "True"}, {"reason", "BackoffLimitExceeded"}, {"message", "Job has reached the specified backoff limit"}, {"lastProbeTime", now}, {"lastTransitionTime", now}}});
    } else if (active == 0) {
      json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}};
      pod["metadata"] = j["spec"]["template"].value("metadata", json::object());
      std::string pname;
      do pname = name + "-" + rand5();
      while (find_locked(pods, ns, pname));
      pod["metadata"]["name"] = pname;
      pod["metadata"]["namespace"] = ns;
      pod["metadata"]["labels"]["batch.kubernetes.io/job-name"] = name;
      pod["metadata"]["labels"]["job-name"] = name;
      pod["metadata"]["labels"]["batch.kubernetes.io/controller-uid"] = j["metadata"]["uid"];
      pod["metadata"]["ownerReferences"] = json::array({owner_ref(j)});
      pod["spec"] = j["spec"]["template"].value("spec", json::object());
      pod["status"] = {{"phase", "Pending"}};
      create_locked(pods, pod);
      event_locked(*this, j, "Normal", "SuccessfulCreate", "Created pod: " + pname, "job-controller");
      ++active;
    }
    if (active) st["active"] = active;
    else st.erase("active");
    st["succeeded"] = succeeded;
    st["failed"] = failed;
    st["ready"] = 0;
    if (st != st0) mutate(*this, jobs, ns, name, [&](json& o) { o["status"] = st; });
  }
}

// ---- Kubelet (public) ---------------------------------------------------------------------

void Kubelet::script(const std::string& pod_glob, const ContainerScript& script, const std::string& container) {
  std::lock_guard<std::mutex> lk(impl_->mu);
  impl_->scripts.push_back({pod_glob, container, script});
}

void Kubelet::set_default_job_script(const ContainerScript& script) {
  std::lock_guard<std::mutex> lk(impl_->mu);
  impl_->default_job = script;
}

namespace {
std::string uid_of(FakeApiServer::Impl& s, const std::string& ns, const std::string& pod) {
  std::lock_guard<std::mutex> lk(s.mu);
  json* p = s.find_locked(R("", "pods"), ns, pod);
  if (!p) throw std::runtime_error("fake kubelet: no pod " + ns + "/" + pod);
  return (*p)["metadata"].value("uid", "");
}
}  // namespace

void Kubelet::append_log(const std::string& ns, const std::string& pod, const std::string& container, const std::vector<std::string>& lines) {
  std::string uid = uid_of(*impl_->server, ns, pod);
  std::lock_guard<std::mutex> lk(impl_->mu);
  auto it = impl_->containers.find(uid + "/" + container);
  if (it == impl_->containers.end() || !it->second.running())
    throw std::runtime_error("fake kubelet: container " + container + " of " + ns + "/" + pod + " is not running");
  auto now = Clock::now();
  for (const auto& l : lines) it->second.runs.back().log.push_back({now, l, 0, 0});
  impl_->cv.notify_all();
}

void Kubelet::write(const std::string& ns, const std::string& pod, const std::string& container, const std::string& bytes) {
  std::string uid = uid_of(*impl_->server, ns, pod);
  std::lock_guard<std::mutex> lk(impl_->mu);
  auto it = impl_->containers.find(uid + "/" + container);
  if (it == impl_->containers.end() || !it->second.running())
    throw std::runtime_error("fake kubelet: container " + container + " of " + ns + "/" + pod + " is not running");
  fake::append_output(it->second.runs.back().log, Clock::now(), bytes);
  impl_->cv.notify_all();
}

void fake::append_output(std::vector<LogEntry>& log, Clock::time_point t, const std::string& bytes) {
  // containerd's cri logger: max_container_log_line_size 16384 (pkg/cri/config), a line
  // longer than that is several "P" records and a last "F" one; a read that ends without
  // '\n' (the process exited, or simply paused) is a "P" record too.
  constexpr std::size_t max_record = 16384;
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    std::size_t nl = bytes.find('\n', pos);
    std::size_t end = nl == std::string::npos ? bytes.size() : nl;
    while (end - pos > max_record) {
      log.push_back({t, bytes.substr(pos, max_record), 0, 0, true});
      pos += max_record;
    }
    LogEntry e{t, bytes.substr(pos, end - pos), 0, 0, nl == std::string::npos};
    if (!e.text.empty() || !e.partial) log.push_back(std::move(e));
    pos = nl == std::string::npos ? bytes.size() : nl + 1;
  }
}

void Kubelet::finish(const std::string& ns, const std::string& pod, const std::string& container, int exit_code) {
  std::string uid = uid_of(*impl_->server, ns, pod);
  std::lock_guard<std::mutex> lk(impl_->mu);
  auto it = impl_->containers.find(uid + "/" + container);
  if (it == impl_->containers.end()) throw std::runtime_error("fake kubelet: container " + container + " of " + ns + "/" + pod + " never started");
  it->second.finish_code = exit_code;
}

void Kubelet::remove(const std::string& ns, const std::string& pod, const std::string& container, int exit_code) {
  std::string uid = uid_of(*impl_->server, ns, pod);
  std::lock_guard<std::mutex> lk(impl_->mu);
  auto it = impl_->containers.find(uid + "/" + container);
  if (it == impl_->containers.end()) throw std::runtime_error("fake kubelet: container " + container + " of " + ns + "/" + pod + " never started");
  it->second.finish_code = exit_code;
  it->second.removed = true;
}

std::string Kubelet::log(const std::string& ns, const std::string& pod, const std::string& container, bool previous) const {
  std::string uid = uid_of(*impl_->server, ns, pod);
  std::lock_guard<std::mutex> lk(impl_->mu);
  auto it = impl_->containers.find(uid + "/" + container);
  if (it == impl_->containers.end() || it->second.runs.empty()) return "";
  const auto& runs = it->second.runs;
  size_t idx = runs.size() - 1;
  if (previous) {
    if (it->second.restart_pending) idx = runs.size() - 1;
    else if (runs.size() >= 2) idx = runs.size() - 2;
    else return "";
  }
  std::string out;
  for (const auto& e : runs[idx].log) {
    if (e.gen_count)
      for (std::uint64_t i = 0; i < e.gen_count; ++i) out += fake::synthetic_line(i, e.gen_bytes) + "\n";
    else
      out += e.text + (e.partial ? "" : "\n");
  }
  return out;
}

}  // namespace tfjob::test
