// The training operator's reconcile (reconcile.hpp): the steps of v1.9's ReconcileJobs,
// ReconcilePods, ReconcileServices and UpdateJobStatus over JSON pods and services. The
// rules it shares with the SDK's product code come from tfjob/api/operator_rules.hpp.
#include "support/operator/reconcile.hpp"

#include <tfjob/api/defaults.hpp>
#include <tfjob/api/labels.hpp>
#include <tfjob/api/operator_rules.hpp>
#include <tfjob/api/tf_config.hpp>
#include <tfjob/detail/json.hpp>
#include <tfjob/detail/time.hpp>

#include <algorithm>
#include <ctime>
#include <limits>
#include <map>

namespace tfjob::op {

namespace reason = tfjob::rules::reason;

/// The operator's magic "no exit code seen" value (`var exitCode int32 = 0xbeef`).
constexpr int no_exit_code = 0xbeef;

namespace detail {
const nlohmann::json& field(const nlohmann::json& o, const char* key);
std::string str(const nlohmann::json& o, const char* key);
std::string label(const nlohmann::json& obj, const char* key);
}  // namespace detail

/// `status.phase` of a pod ("" when unset).
std::string pod_phase(const nlohmann::json& pod);
/// True once the object has a deletionTimestamp (it is going away).
bool is_deleting(const nlohmann::json& obj);

/// `ReplicaIndex(labels)`: the replica-index label as a number; nullopt when absent or
/// not a non-negative integer (`GetPodSlices` skips such pods).
std::optional<int> replica_index_of(const nlohmann::json& obj);

/// The exit code of the `tensorflow` container once terminated, else `no_exit_code`
/// (ReconcilePods' loop over ContainerStatuses, `getContainerExitCode`).
int tensorflow_exit_code(const nlohmann::json& pod);

/// `GenOwnerReference`: the TFJob as the controlling owner (controller and
/// blockOwnerDeletion true), so the garbage collector deletes what the job made.
nlohmann::json owner_reference(const TFJob& job);

/// True when `obj` has a controller ownerReference to `job` (by uid): what
/// `ClaimPods`/`ClaimServices` keep.
bool is_controlled_by(const nlohmann::json& obj, const TFJob& job);

namespace detail {

/// `GetPodSlices` / `GetServiceSlices`: objects of one replica type by index, sized
/// max(replicas, highest index + 1).
std::vector<std::vector<const nlohmann::json*>> slices(const std::vector<const nlohmann::json*>& objs, int replicas);
std::vector<const nlohmann::json*> of_type(const std::vector<const nlohmann::json*>& objs, const std::string& rtype);
std::int64_t restart_counts(const nlohmann::json& pod);
std::optional<std::int64_t> unix_time(const std::string& ts);

/// DeletePodsAndServices: once finished, cleanPodPolicy None keeps everything and Running
/// keeps pods that are neither Running nor Pending; before that (suspend, a limit
/// reached) every pod goes. A pod's service has the pod's name and goes with it.
void delete_pods_and_services(Plan& plan, const std::vector<const nlohmann::json*>& pods, const RunPolicy& rp,
                              bool finished);

/// One reconcile pass: the defaulted job, what was observed, the status being written and
/// the plan; each step is one of the operator's (TFJobReconciler.Reconcile, ReconcileJobs).
struct Reconciler {
  using json = nlohmann::json;
  const TFJob job;
  const Observed& seen;
  const std::int64_t now;
  const OperatorOptions& opts;
  const std::string ts, name, key;
  const RunPolicy& rp;
  JobStatus st;
  const json before;
  std::vector<const json*> pods, services;  ///< the job's (controlled by it)
  Plan plan;

  Reconciler(TFJob j, const Observed& observed, std::int64_t at, const OperatorOptions& o);

  /// The plan, with the status when it changed.
  Plan result();

  /// ReconcileJobs: a finished job only cleans up (cleanPodPolicy) and expires (TTL); true
  /// when the job is finished.
  bool finished();

  /// A suspended job loses its pods (true: nothing else happens); a resumed one starts its
  /// clock again.
  bool suspended();

  /// backoffLimit and activeDeadlineSeconds: true when the job failed for one of them.
  bool past_limits();

  /// ReconcilePods for one replica type: the replica statuses, pods created, deleted and counted;
  /// the pods by index, for the services.
  std::vector<std::vector<const json*>> replica_pods(const std::string& rtype, const ReplicaSpec& spec);

  /// ReconcileServices for one replica type: one headless service per index.
  void replica_services(const std::string& rtype, int replicas, const std::vector<std::vector<const json*>>& pod_slices);

  /// UpdateJobStatus: Running, Succeeded and Failed by the success rule and the replicas' counts.
  void update_status();
};

}  // namespace detail

bool Plan::empty() const {
  return create_pods.empty() && create_services.empty() && delete_pods.empty() &&
         delete_services.empty() && !status && !delete_job;
}

}  // namespace tfjob::op
namespace tfjob::op::detail {

const nlohmann::json& field(const nlohmann::json& o, const char* key) {
  static const nlohmann::json null;
  if (!o.is_object()) return null;
  auto it = o.find(key);
  return it == o.end() ? null : *it;
}

std::string str(const nlohmann::json& o, const char* key) {
  const auto& v = field(o, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

std::string label(const nlohmann::json& obj, const char* key) {
  return str(field(field(obj, "metadata"), "labels"), key);
}

}  // namespace tfjob::op::detail
namespace tfjob::op {

std::string pod_phase(const nlohmann::json& pod) { return detail::str(detail::field(pod, "status"), "phase"); }

bool is_deleting(const nlohmann::json& obj) {
  return !detail::str(detail::field(obj, "metadata"), "deletionTimestamp").empty();
}

std::string object_name(const nlohmann::json& obj) { return detail::str(detail::field(obj, "metadata"), "name"); }

std::optional<int> replica_index_of(const nlohmann::json& obj) {
  std::string v = detail::label(obj, labels::replica_index);
  if (v.empty() || v.size() > 9) return std::nullopt;
  int n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

int tensorflow_exit_code(const nlohmann::json& pod) {
  int code = no_exit_code;
  const auto& css = detail::field(detail::field(pod, "status"), "containerStatuses");
  if (!css.is_array()) return code;
  for (const auto& cs : css) {
    const auto& term = detail::field(detail::field(cs, "state"), "terminated");
    const auto& ec = detail::field(term, "exitCode");
    if (detail::str(cs, "name") == default_container_name && ec.is_number_integer()) code = ec.get<int>();
  }
  return code;
}

nlohmann::json owner_reference(const TFJob& job) {
  return {{"apiVersion", api_version}, {"kind", kind}, {"name", job.metadata.name},
          {"uid", job.metadata.uid}, {"controller", true}, {"blockOwnerDeletion", true}};
}

bool is_controlled_by(const nlohmann::json& obj, const TFJob& job) {
  const auto& refs = detail::field(detail::field(obj, "metadata"), "ownerReferences");
  if (!refs.is_array()) return false;
  for (const auto& r : refs)
    if (detail::field(r, "controller") == true && detail::str(r, "uid") == job.metadata.uid && !job.metadata.uid.empty())
      return true;
  return false;
}

void update_condition(JobStatus& st, const std::string& type, const std::string& status,
                                   const std::string& why, const std::string& message, const std::string& now) {
  if (st.failed()) return;
  const JobCondition* cur = st.condition(type);
  if (cur && cur->status == status && cur->reason == why) return;
  JobCondition c;
  c.type = type;
  c.status = status;
  c.reason = why;
  c.message = message;
  c.last_update_time = now;
  c.last_transition_time = cur && cur->status == status ? cur->last_transition_time : now;
  std::vector<JobCondition> out;
  for (auto x : st.conditions) {  // filterOutCondition
    if (type == condition_type::Restarting && x.type == condition_type::Running) continue;
    if (type == condition_type::Running && x.type == condition_type::Restarting) continue;
    if (x.type == type) continue;
    if ((type == condition_type::Failed || type == condition_type::Succeeded) && x.type == condition_type::Running)
      x.status = "False";
    out.push_back(std::move(x));
  }
  out.push_back(std::move(c));
  st.conditions = std::move(out);
}

nlohmann::json desired_pod(const TFJob& job, const std::string& rtype, int index, const OperatorOptions& opts) {
  using nlohmann::json;
  const ReplicaSpec& spec = job.spec.tf_replica_specs.at(rtype);
  const json tmpl = spec.template_.is_object() ? spec.template_ : json::object();
  const json& tmeta = detail::field(tmpl, "metadata");
  json labels_j = detail::field(tmeta, "labels").is_object() ? detail::field(tmeta, "labels") : json::object();
  for (const auto& [k, v] : pod_labels(job, rtype, index)) labels_j[k] = v;
  json meta = {{"name", replica_name(job.metadata.name, rtype, index)}, {"namespace", job.metadata.namespace_},
               {"labels", labels_j}, {"ownerReferences", json::array({owner_reference(job)})}};
  if (detail::field(tmeta, "annotations").is_object()) meta["annotations"] = tmeta["annotations"];
  if (detail::field(tmeta, "finalizers").is_array()) meta["finalizers"] = tmeta["finalizers"];
  json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", meta}};
  pod["spec"] = detail::field(tmpl, "spec").is_object() ? tmpl["spec"] : json::object();
  // SetClusterSpec: TF_CONFIG only for a distributed job, in the first `tensorflow` container
  TFConfigOptions tc;
  tc.cluster_domain = opts.cluster_domain;
  if (auto cfg = gen_tf_config(job, rtype, index, tc); cfg && pod["spec"].contains("containers") && pod["spec"]["containers"].is_array())
    for (auto& c : pod["spec"]["containers"])
      if (c.is_object() && tfjob::detail::value_at(c, "name", std::string()) == default_container_name) {
        if (!c.contains("env") || !c["env"].is_array()) c["env"] = json::array();
        c["env"].push_back({{"name", env_tf_config}, {"value", *cfg}});
        break;
      }
  // setRestartPolicy
  pod["spec"]["restartPolicy"] = spec.restart_policy == restart_policy::ExitCode ? std::string(restart_policy::Never) : spec.restart_policy;
  return pod;
}

std::optional<nlohmann::json> desired_service(const TFJob& job, const std::string& rtype, int index) {
  using nlohmann::json;
  const ReplicaSpec& spec = job.spec.tf_replica_specs.at(rtype);
  const json* tf = tensorflow_container(spec);
  if (!tf) return std::nullopt;
  auto l = job_labels(job.metadata.name);
  l[labels::replica_type] = to_lower(rtype);
  l[labels::replica_index] = std::to_string(index);
  std::map<std::string, int> ports;  // a Go map: one port per name, the last wins
  if (tf->contains("ports") && (*tf)["ports"].is_array())
    for (const auto& p : (*tf)["ports"])
      if (p.is_object() && p.contains("containerPort") && p["containerPort"].is_number_integer())
        ports[tfjob::detail::value_at(p, "name", std::string())] = tfjob::detail::value_at(p, "containerPort", 0);
  json jports = json::array();
  for (const auto& [n, port] : ports) {
    json sp = {{"port", port}};
    if (!n.empty()) sp["name"] = n;
    jports.push_back(sp);
  }
  json spec_j = {{"clusterIP", "None"}, {"selector", l}};
  if (!jports.empty()) spec_j["ports"] = jports;
  return json{{"apiVersion", "v1"}, {"kind", "Service"},
              {"metadata", {{"name", replica_name(job.metadata.name, rtype, index)}, {"namespace", job.metadata.namespace_},
                            {"labels", l}, {"ownerReferences", json::array({owner_reference(job)})}}},
              {"spec", spec_j}};
}

}  // namespace tfjob::op
namespace tfjob::op::detail {

std::vector<std::vector<const nlohmann::json*>> slices(const std::vector<const nlohmann::json*>& objs, int replicas) {
  int size = replicas;
  for (const auto* o : objs)
    if (auto i = replica_index_of(*o)) size = std::max(size, *i + 1);
  std::vector<std::vector<const nlohmann::json*>> out(static_cast<std::size_t>(std::max(size, 0)));
  for (const auto* o : objs)
    if (auto i = replica_index_of(*o)) out[static_cast<std::size_t>(*i)].push_back(o);
  return out;
}

std::vector<const nlohmann::json*> of_type(const std::vector<const nlohmann::json*>& objs, const std::string& rtype) {
  std::vector<const nlohmann::json*> out;
  const std::string rt = to_lower(rtype);
  for (const auto* o : objs)
    if (label(*o, labels::replica_type) == rt) out.push_back(o);
  return out;
}

std::int64_t restart_counts(const nlohmann::json& pod) {
  std::int64_t n = 0;
  for (const char* key : {"initContainerStatuses", "containerStatuses"}) {
    const auto& css = field(field(pod, "status"), key);
    if (!css.is_array()) continue;
    for (const auto& cs : css)
      if (const auto r = tfjob::detail::value_at(cs, "restartCount", std::int64_t{0}); r > 0)  // a server's count: never past INT64_MAX
        n = r > std::numeric_limits<std::int64_t>::max() - n ? std::numeric_limits<std::int64_t>::max() : n + r;
  }
  return n;
}

std::optional<std::int64_t> unix_time(const std::string& ts) {
  std::int64_t s = 0, ns = 0;
  if (ts.empty() || !tfjob::detail::parse_rfc3339(ts, s, ns)) return std::nullopt;
  return s;
}

void delete_pods_and_services(Plan& plan, const std::vector<const nlohmann::json*>& pods, const RunPolicy& rp,
                                           bool finished) {
  const std::string policy = rp.clean_pod_policy.value_or(clean_pod_policy::None);
  if (finished && policy == clean_pod_policy::None) return;
  for (const auto* p : pods) {
    const std::string ph = pod_phase(*p);
    if (finished && policy == clean_pod_policy::Running && ph != "Running" && ph != "Pending") continue;
    if (is_deleting(*p)) continue;  // already going; asking again changes nothing
    plan.delete_pods.push_back(object_name(*p));
    plan.delete_services.push_back(object_name(*p));
    plan.events.push_back({"Normal", "SuccessfulDeletePod", "Deleted pod: " + object_name(*p)});
  }
}

Reconciler::Reconciler(TFJob j, const Observed& observed, std::int64_t at, const OperatorOptions& o)
    : job(std::move(j)),
      seen(observed),
      now(at),
      opts(o),
      ts(tfjob::detail::format_rfc3339(static_cast<std::time_t>(now))),
      name(job.metadata.name),
      key(job.metadata.namespace_ + "/" + name),
      rp(job.spec.run_policy),
      st(job.status.value_or(JobStatus{})),
      before(job.status ? json(*job.status) : json()) {
  for (const auto& p : seen.pods)
    if (is_controlled_by(p, job)) pods.push_back(&p);
  for (const auto& s : seen.services)
    if (is_controlled_by(s, job)) services.push_back(&s);
  // onOwnerCreateFunc: a new job gets its Created condition
  if (st.conditions.empty())
    update_condition(st, condition_type::Created, "True", reason::created, "TFJob " + name + " is created.", ts);
}

Plan Reconciler::result() {
  if (json(st) != before) plan.status = st;
  return plan;
}

bool Reconciler::finished() {
  if (!st.finished()) return false;
  detail::delete_pods_and_services(plan, pods, rp, true);
  // CleanupJob: delete the job ttlSecondsAfterFinished after its completionTime
  if (rp.ttl_seconds_after_finished) {
    if (auto done = detail::unix_time(st.completion_time)) {
      const std::int64_t expire = *done + *rp.ttl_seconds_after_finished;
      if (now > expire) {
        plan.delete_job = true;
        plan.events.push_back({"Normal", "SuccessfulDeleteJob", "Deleted job: " + name});
      } else {
        plan.requeue_after = expire - now + 1;
      }
    }
  }
  // a succeeded job's replicas that were still active count as succeeded
  if (st.succeeded())
    for (auto& [t, rs] : st.replica_statuses) {
      rs.succeeded += rs.active;
      rs.active = 0;
    }
  return true;
}

bool Reconciler::suspended() {
  if (rp.suspend.value_or(false)) {
    detail::delete_pods_and_services(plan, pods, rp, false);
    for (auto& [t, rs] : st.replica_statuses) rs.active = 0;
    const std::string msg = "TFJob " + name + " is suspended.";
    if (st.has_condition(condition_type::Running))
      update_condition(st, condition_type::Running, "False", reason::suspended, msg, ts);
    if (!st.has_condition(condition_type::Suspended)) {
      update_condition(st, condition_type::Suspended, "True", reason::suspended, msg, ts);
      // the operator records this on every pass; the event recorder folds repeats into one
      plan.events.push_back({"Normal", reason::suspended, msg});
    }
    return true;
  }
  if (st.has_condition(condition_type::Suspended)) {  // resumed: the clock starts again
    const std::string msg = "TFJob " + name + " is resumed.";
    update_condition(st, condition_type::Suspended, "False", reason::resumed, msg, ts);
    st.start_time = ts;
    plan.events.push_back({"Normal", reason::resumed, msg});
  }
  return false;
}

bool Reconciler::past_limits() {
  int active = 0, failed = 0;
  for (const auto* p : pods) {
    const std::string ph = pod_phase(*p);
    if (ph != "Succeeded" && ph != "Failed" && !is_deleting(*p)) ++active;  // FilterActivePods
    if (ph == "Failed") ++failed;
  }
  int prev_failed = 0;
  for (const auto& [t, rs] : st.replica_statuses) prev_failed += rs.failed;
  std::string failure;
  if (rp.backoff_limit) {
    // exceedsBackoffLimit: a new failure while not every replica is active, and
    // previousRetry + 1 > backoffLimit; the v1.9 reconcilers' work queue is a
    // FakeWorkQueue whose NumRequeues is always 0
    const bool exceeds = failed > prev_failed && active != job.total_replicas() && 0 + 1 > *rp.backoff_limit;
    // PastBackoffLimit: container restarts of running pods of the replicas whose restarts count
    std::int64_t restarts = 0;
    for (const auto& [t, spec] : job.spec.tf_replica_specs) {
      if (!rules::counts_toward_backoff(spec.restart_policy)) continue;
      for (const auto* p : detail::of_type(pods, t))
        if (pod_phase(*p) == "Running") restarts += detail::restart_counts(*p);
    }
    if (exceeds || rules::past_backoff_limit(restarts, *rp.backoff_limit)) failure = rules::backoff_limit_message(name);
  }
  if (failure.empty() && rp.active_deadline_seconds) {  // PastActiveDeadline
    if (auto start = detail::unix_time(st.start_time)) {
      if (now - *start >= *rp.active_deadline_seconds)
        failure = rules::deadline_message(name);
      else
        plan.requeue_after = *start + *rp.active_deadline_seconds - now;
    }
  }
  if (!failure.empty()) {
    if (st.completion_time.empty()) st.completion_time = ts;
    detail::delete_pods_and_services(plan, pods, rp, false);
    plan.events.push_back({"Normal", reason::failed, failure});
    update_condition(st, condition_type::Failed, "True", reason::failed, failure, ts);
    plan.requeue_after.reset();
    return true;
  }
  return false;
}

std::vector<std::vector<const Reconciler::json*>> Reconciler::replica_pods(const std::string& rtype, const ReplicaSpec& spec) {
  const std::string rt = to_lower(rtype);
  const int replicas = spec.replicas_or_default();
  // initializeReplicaStatuses, with the selector v1.9 publishes for the scale subresource
  ReplicaStatus& rs = st.replica_statuses[rtype] = ReplicaStatus{};
  auto sel = job_labels(name);
  sel[labels::replica_type] = rt;
  rs.label_selector = {{"matchLabels", sel}};
  for (const auto& [k, v] : sel) rs.selector += (rs.selector.empty() ? "" : ",") + k + "=" + v;

  const auto pod_slices = detail::slices(detail::of_type(pods, rtype), replicas);
  for (std::size_t i = 0; i < pod_slices.size(); ++i) {
    const int index = static_cast<int>(i);
    if (pod_slices[i].size() > 1) continue;  // "We have too many pods for ..."
    if (pod_slices[i].empty()) {
      json pod = desired_pod(job, rtype, index, opts);
      if (spec.template_.is_object() && spec.template_.contains("spec") && spec.template_["spec"].is_object() &&
          !tfjob::detail::value_at(spec.template_["spec"], "restartPolicy", std::string()).empty())
        plan.events.push_back({"Warning", "SettedPodTemplateRestartPolicy",
                               "Restart policy in pod template will be overwritten by restart policy in replica spec"});
      plan.events.push_back({"Normal", "SuccessfulCreatePod", "Created pod: " + object_name(pod)});
      plan.create_pods.push_back(std::move(pod));
      continue;
    }
    const json& pod = *pod_slices[i][0];
    bool deleted = false;
    if (index >= replicas && !is_deleting(pod)) {  // scaled down
      plan.delete_pods.push_back(object_name(pod));
      plan.events.push_back({"Normal", "SuccessfulDeletePod", "Deleted pod: " + object_name(pod)});
      deleted = true;
    }
    const std::string ph = pod_phase(pod);
    const int code = tensorflow_exit_code(pod);
    // a failed pod is recreated under ExitCode with a retryable code, OnFailure, Always
    if (ph == "Failed" && !is_deleting(pod) && rules::restarts_after_failure(spec.restart_policy, code)) {
      if (!deleted) {
        plan.delete_pods.push_back(object_name(pod));
        plan.events.push_back({"Normal", "SuccessfulDeletePod", "Deleted pod: " + object_name(pod)});
      }
      const std::string msg = rules::restarting_message(name, rtype);
      plan.events.push_back({"Warning", reason::restarting, msg});
      update_condition(st, condition_type::Restarting, "True", reason::restarting, msg, ts);
    }
    // updateJobReplicaStatuses: a running pod being deleted counts as failed (it may
    // never reach Failed: an orphan on a lost node)
    if (ph == "Running") (is_deleting(pod) ? rs.failed : rs.active)++;
    else if (ph == "Succeeded") ++rs.succeeded;
    else if (ph == "Failed") ++rs.failed;
  }
  return pod_slices;
}

void Reconciler::replica_services(const std::string& rtype, int replicas, const std::vector<std::vector<const json*>>& pod_slices) {
  const auto svc_slices = detail::slices(detail::of_type(services, rtype), replicas);
  for (std::size_t i = 0; i < svc_slices.size(); ++i) {
    const int index = static_cast<int>(i);
    if (svc_slices[i].size() > 1) continue;
    if (svc_slices[i].empty()) {
      if (auto svc = desired_service(job, rtype, index)) {
        plan.events.push_back({"Normal", "SuccessfulCreateService", "Created service: " + object_name(*svc)});
        plan.create_services.push_back(std::move(*svc));
      } else if (i < pod_slices.size() && pod_slices[i].empty()) {  // said once, with the pod's creation
        plan.events.push_back({"Warning", "FailedCreateService",
                               "replica " + rtype + " has no container named " + default_container_name +
                                   ": no port for its service"});
      }
    } else if (index >= replicas && !is_deleting(*svc_slices[i][0])) {
      plan.delete_services.push_back(object_name(*svc_slices[i][0]));
      plan.events.push_back({"Normal", "SuccessfulDeleteService", "Deleted service: " + object_name(*svc_slices[i][0])});
    }
  }
}

void Reconciler::update_status() {
  bool worker0_completed = false;  // IsWorker0Completed
  if (const auto* w = job.replica(replica_type::Worker)) {
    const auto ws = detail::slices(detail::of_type(pods, replica_type::Worker), w->replicas_or_default());
    worker0_completed = !ws.empty() && ws[0].size() == 1 && tensorflow_exit_code(*ws[0][0]) == 0 &&
                        pod_phase(*ws[0][0]) == "Succeeded";
  }
  if (st.start_time.empty()) {
    st.start_time = ts;
    if (rp.active_deadline_seconds) plan.requeue_after = *rp.active_deadline_seconds;
  }
  // a Restarting condition set above must survive a Running condition set below
  std::optional<JobCondition> restarting;
  if (const auto* c = st.condition(condition_type::Restarting)) restarting = *c;
  const rules::SuccessRule rule = rules::success_rule(job);
  const std::string ok_msg = rules::succeeded_message(job.metadata.namespace_, name);
  const std::string run_msg = "TFJob " + key + " is running.";
  auto succeed = [&]() {
    if (!st.succeeded()) plan.events.push_back({"Normal", reason::succeeded, ok_msg});
    if (st.completion_time.empty()) st.completion_time = ts;
    update_condition(st, condition_type::Succeeded, "True", reason::succeeded, ok_msg, ts);
  };
  for (const char* rtype : {replica_type::Chief, replica_type::Evaluator, replica_type::Master, replica_type::PS,
                            replica_type::Worker}) {
    const ReplicaSpec* spec = job.replica(rtype);
    if (!spec) continue;
    const ReplicaStatus rs = st.replica_statuses[rtype];
    if (rule.decides(rtype)) {
      const bool done = rule.met(spec->replicas_or_default(), rs.succeeded, worker0_completed);
      if (rule.kind == rules::SuccessRule::Kind::chief) {  // Running while active, then Succeeded
        if (rs.active > 0) update_condition(st, condition_type::Running, "True", reason::running, run_msg, ts);
        if (done) succeed();
      } else if (done) {  // Workers: Succeeded, else Running while some are active
        succeed();
      } else if (rs.active > 0) {
        update_condition(st, condition_type::Running, "True", reason::running, run_msg, ts);
      }
    }
    if (rs.failed > 0) {
      if (restarting) {
        update_condition(st, condition_type::Restarting, "True", restarting->reason, restarting->message, ts);
      } else if (job.spec.enable_dynamic_worker && std::string(rtype) == replica_type::Worker) {
        continue;  // "continues regardless ... as enableDynamicWorker is set true"
      } else {
        const std::string msg = rules::replicas_failed_message(job.metadata.namespace_, name, rs.failed, rtype);
        if (!st.failed()) plan.events.push_back({"Normal", reason::failed, msg});
        if (st.completion_time.empty()) st.completion_time = ts;
        update_condition(st, condition_type::Failed, "True", reason::failed, msg, ts);
      }
    }
  }
  if (st.finished()) plan.requeue_after = rp.ttl_seconds_after_finished ? std::optional<std::int64_t>(*rp.ttl_seconds_after_finished + 1) : std::nullopt;
}

}  // namespace tfjob::op::detail
namespace tfjob::op {

Plan reconcile(const TFJob& stored, const Observed& seen, std::int64_t now, const OperatorOptions& opts) {
  TFJob job = with_defaults(stored);
  if (job.metadata.namespace_.empty()) job.metadata.namespace_ = "default";
  // Reconcile: a job being deleted is left to the garbage collector
  if (!job.metadata.deletion_timestamp.empty()) return {};
  // v1.9 managedBy: a job managed by another controller (e.g. MultiKueue) is not touched
  if (job.spec.run_policy.managed_by && *job.spec.run_policy.managed_by != managed_by_kubeflow) return {};
  detail::Reconciler r(std::move(job), seen, now, opts);
  if (r.finished() || r.suspended() || r.past_limits()) return r.result();
  // ReconcilePods and ReconcileServices, per replica type
  for (const auto& [rtype, spec] : r.job.spec.tf_replica_specs)
    r.replica_services(rtype, spec.replicas_or_default(), r.replica_pods(rtype, spec));
  r.update_status();
  return r.result();
}

}  // namespace tfjob::op
