// explain and the operator rules it applies, on stored job states (tests/data/explain/):
// each case one situation users report, the upstream issues among them (training-operator
// #774, #948, #1560, #1658, #2045; kubeflow #1042, #3935).
#include <catch2/catch.hpp>

#include "support/paths.hpp"

#include <tfjob/api/cluster_words.hpp>
#include <tfjob/api/operator_rules.hpp>
#include <tfjob/api/manifest.hpp>
#include <tfjob/api/manifest_stream.hpp>
#include <tfjob/api/scheduling.hpp>
#include <tfjob/workflow/describe.hpp>
#include <tfjob/workflow/explain.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

using nlohmann::json;
using tfjob::Finding;
namespace wf = tfjob::workflow;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A stored state: the documents sorted by kind into an ExplainInput, at 2024-05-01T12:00:00Z.
wf::ExplainInput load(const std::string& name) {
  const std::string dir = tfjob::test::source_dir() + "/tests/data/explain/";
  auto saved = wf::explain_input(tfjob::parse_objects(slurp(dir + name + ".yaml"), name));
  REQUIRE(saved);
  wf::ExplainInput in = std::move(*saved);
  const std::string logs = dir + name + ".logs";
  if (std::filesystem::is_directory(logs))
    for (const auto& e : std::filesystem::directory_iterator(logs)) {
      std::istringstream is(slurp(e.path().string()));
      auto& lines = in.logs[e.path().stem().string()];
      for (std::string l; std::getline(is, l);) lines.push_back(l);
    }
  in.now = *wf::parse_time("2024-05-01T12:00:00Z");
  return in;
}

const Finding* find(const wf::Explanation& x, const std::string& code) {
  for (const auto& f : x.findings)
    if (f.code == code) return &f;
  return nullptr;
}

std::string dump(const wf::Explanation& x) { return wf::render(x); }

bool has(const std::vector<std::string>& v, const std::string& needle) {
  for (const auto& s : v)
    if (s.find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("operator rules: ExitCode retries 128 and above, backoffLimit counts OnFailure/Always", "[explain][rules]") {
  using namespace tfjob::rules;
  CHECK_FALSE(exit_code_retryable(1));
  CHECK_FALSE(exit_code_retryable(127));
  CHECK(exit_code_retryable(128));
  CHECK(exit_code_retryable(137));
  CHECK(exit_code_retryable(143));
  CHECK(counts_toward_backoff("OnFailure"));
  CHECK(counts_toward_backoff("Always"));
  CHECK_FALSE(counts_toward_backoff("ExitCode"));
  CHECK_FALSE(counts_toward_backoff("Never"));
  CHECK(past_backoff_limit(1, 0));
  CHECK_FALSE(past_backoff_limit(0, 0));
  CHECK_FALSE(past_backoff_limit(2, 3));
  CHECK(past_backoff_limit(3, 3));
  CHECK(restart_policy_of(json::object()) == "Never");
  // which failed replicas come back (ReconcilePods): the one rule the runner, explain and the stand-ins share
  CHECK(restarts_after_failure("ExitCode", 137));
  CHECK_FALSE(restarts_after_failure("ExitCode", 1));
  CHECK(restarts_after_failure("OnFailure", 1));
  CHECK(restarts_after_failure("Always", 1));
  CHECK_FALSE(restarts_after_failure("Never", 137));
}

TEST_CASE("operator rules: the conditions' words are v1.9's", "[explain][rules]") {
  using namespace tfjob::rules;
  CHECK(succeeded_message("ns", "j") == "TFJob ns/j successfully completed.");
  CHECK(replicas_failed_message("ns", "j", 2, "Worker") == "TFJob ns/j has failed because 2 Worker replica(s) failed.");
  CHECK(backoff_limit_message("j") == "Job j has failed because it has reached the specified backoff limit");
  CHECK(deadline_message("j") == "Job j has failed because it was active longer than specified deadline");
  CHECK(restarting_message("j", "Worker") == "job j is restarting because Worker replica(s) failed.");
  CHECK(std::string(reason::succeeded) == "TFJobSucceeded");
  CHECK(std::string(reason::restarting) == "TFJobRestarting");
}

TEST_CASE("operator rules: who decides success", "[explain][rules]") {
  using tfjob::rules::SuccessRule;
  auto job = [](json specs, std::string policy = "") {
    json j = {{"spec", {{"tfReplicaSpecs", specs}}}};
    if (!policy.empty()) j["spec"]["successPolicy"] = policy;
    return j;
  };
  auto r = tfjob::rules::success_rule(job({{"Chief", json::object()}, {"Worker", json::object()}, {"PS", json::object()}}));
  CHECK(r.kind == SuccessRule::Kind::chief);
  CHECK(r.decider == "Chief");
  CHECK(r.bystanders == std::vector<std::string>{"PS", "Worker"});
  r = tfjob::rules::success_rule(job({{"Master", json::object()}, {"Worker", json::object()}}, "AllWorkers"));
  CHECK(r.kind == SuccessRule::Kind::chief);
  CHECK(r.success_policy_ignored);
  r = tfjob::rules::success_rule(job({{"Worker", json::object()}, {"Evaluator", json::object()}}));
  CHECK(r.kind == SuccessRule::Kind::worker0);
  CHECK(r.who() == "Worker 0");
  r = tfjob::rules::success_rule(job({{"Worker", json::object()}}, "AllWorkers"));
  CHECK(r.kind == SuccessRule::Kind::all_workers);
  CHECK(r.who() == "every Worker");
}

TEST_CASE("operator rules: when the deciding replicas have succeeded", "[explain][rules]") {
  using tfjob::rules::success_rule;
  // with a chief: the Chief (or Master) decides, every one of its replicas; Workers do not
  auto chief = success_rule({"Chief", "Worker"}, "");
  CHECK(chief.decides("Chief"));
  CHECK(chief.decides("Master"));
  CHECK_FALSE(chief.decides("Worker"));
  CHECK(chief.met(1, 1, false));
  CHECK_FALSE(chief.met(1, 0, true));  // worker 0 done does not end a job with a chief
  // default policy: all workers, or worker 0 completed
  auto w0 = success_rule({"PS", "Worker"}, "");
  CHECK(w0.decides("Worker"));
  CHECK_FALSE(w0.decides("PS"));
  CHECK(w0.met(3, 1, true));
  CHECK_FALSE(w0.met(3, 2, false));
  CHECK(w0.met(3, 3, false));
  // AllWorkers: worker 0 alone is not enough
  auto all = success_rule({"Worker"}, "AllWorkers");
  CHECK_FALSE(all.met(3, 1, true));
  CHECK(all.met(3, 3, true));
  // nothing decides a job of PS alone
  auto none = success_rule({"PS"}, "");
  CHECK_FALSE(none.decides("PS"));
  CHECK_FALSE(none.met(0, 0, true));
  // the typed job reads the same rule as its JSON
  tfjob::TFJob typed;
  typed.spec.tf_replica_specs["Master"] = {};
  typed.spec.tf_replica_specs["Worker"] = {};
  typed.spec.success_policy = "AllWorkers";
  auto t = success_rule(typed);
  CHECK(t.kind == tfjob::rules::SuccessRule::Kind::chief);
  CHECK(t.decider == "Master");
  CHECK(t.success_policy_ignored);
}

TEST_CASE("scheduling: tolerations, selectors and affinity as the scheduler filters", "[explain][rules]") {
  // the rules read typed objects; each case is written as the JSON a server would send
  auto tolerates = [](const json& toleration, const json& taint) {
    return tfjob::scheduling::tolerates(tfjob::detail::decoded<tfjob::k8s::Toleration>(toleration),
                                        tfjob::detail::decoded<tfjob::k8s::Taint>(taint));
  };
  auto node_fit = [](const json& pod_spec, const json& node) {
    return tfjob::scheduling::node_fit(tfjob::detail::decoded<tfjob::k8s::PodSpec>(pod_spec),
                                       tfjob::detail::decoded<tfjob::k8s::Node>(node));
  };
  json taint = {{"key", "nvidia.com/gpu"}, {"value", "present"}, {"effect", "NoSchedule"}};
  CHECK(tolerates({{"key", "nvidia.com/gpu"}, {"operator", "Exists"}}, taint));
  CHECK(tolerates({{"key", "nvidia.com/gpu"}, {"value", "present"}, {"effect", "NoSchedule"}}, taint));
  CHECK_FALSE(tolerates({{"key", "nvidia.com/gpu"}, {"value", "absent"}}, taint));
  CHECK_FALSE(tolerates({{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoExecute"}}, taint));
  CHECK(tolerates({{"operator", "Exists"}}, taint));
  CHECK_FALSE(tolerates({{"value", "present"}}, taint));  // an empty key needs Exists

  json node = {{"metadata", {{"name", "g1"}, {"labels", {{"pool", "gpu"}, {"zone", "a"}}}}},
               {"spec", {{"taints", json::array({taint, {{"key", "soft"}, {"effect", "PreferNoSchedule"}}})}}}};
  auto f = node_fit({{"nodeSelector", {{"pool", "gpu"}}}}, node);
  CHECK_FALSE(f.ok());
  CHECK(f.untolerated_taints == std::vector<std::string>{"nvidia.com/gpu=present:NoSchedule"});
  f = node_fit({{"nodeSelector", {{"pool", "gpu"}}}, {"tolerations", json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}}})}}, node);
  CHECK(f.ok());
  f = node_fit({{"nodeSelector", {{"pool", "cpu"}}}, {"tolerations", json::array({{{"operator", "Exists"}}})}}, node);
  CHECK(f.selector_misses == std::vector<std::string>{"pool=cpu"});
  json affinity = {{"nodeAffinity", {{"requiredDuringSchedulingIgnoredDuringExecution", {{"nodeSelectorTerms", json::array({
      {{"matchExpressions", json::array({{{"key", "zone"}, {"operator", "In"}, {"values", {"b"}}}})}},
      {{"matchExpressions", json::array({{{"key", "zone"}, {"operator", "NotIn"}, {"values", {"c"}}}})}}})}}}}}};
  f = node_fit({{"affinity", affinity}, {"tolerations", json::array({{{"operator", "Exists"}}})}}, node);
  CHECK(f.ok());  // the second term matches
  affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"].erase(1);
  f = node_fit({{"affinity", affinity}, {"tolerations", json::array({{{"operator", "Exists"}}})}}, node);
  CHECK_FALSE(f.ok());
  node["spec"]["unschedulable"] = true;
  CHECK_FALSE(node_fit({{"tolerations", json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}}})}}, node).schedulable);
}

TEST_CASE("#774: PS still running after the Chief succeeded is normal, and cleanPodPolicy None leaves it", "[explain]") {
  auto x = wf::explain(load("ps-running-after-success-774"));
  INFO(dump(x));
  CHECK(x.state == "Succeeded");
  auto* s = find(x, "SuccessDecidedBy");
  REQUIRE(s);
  CHECK(s->message.str().find("success is decided by the Chief") != std::string::npos);
  CHECK(s->message.str().find("PS, Worker replicas do not decide it") != std::string::npos);
  auto* n = find(x, "NeverExitsOnItsOwn");
  REQUIRE(n);
  CHECK(n->message.str().find("PS pods still run after the job Succeeded: normal") != std::string::npos);
  CHECK(n->message.str().find("cleanPodPolicy None leaves them running") != std::string::npos);
  CHECK(n->evidence == std::vector<std::string>{"ps774-ps-0"});
  CHECK(n->fix.str().find("cleanPodPolicy: Running") != std::string::npos);
  CHECK_FALSE(find(x, "WaitingFor"));
  CHECK_FALSE(find(x, "FirstFailure"));
}

TEST_CASE("#1658: the Workers decide, never the Evaluator, cleanPodPolicy Running deletes it", "[explain]") {
  auto x = wf::explain(load("evaluator-ended-early-1658"));
  INFO(dump(x));
  auto* s = find(x, "SuccessDecidedBy");
  REQUIRE(s);
  CHECK(s->message.str().find("every Worker (successPolicy AllWorkers)") != std::string::npos);
  CHECK(s->message.str().find("Evaluator replicas do not decide it") != std::string::npos);
  auto* n = find(x, "NeverExitsOnItsOwn");
  REQUIRE(n);
  CHECK(n->message.str().find("cleanPodPolicy Running deletes them now") != std::string::npos);
  REQUIRE(find(x, "AllWorkersWithEvaluator"));  // the lint rule, on the spec
}

TEST_CASE("#2045: ExitCode fails at once on exit code 1, with the message and the last log lines", "[explain]") {
  auto x = wf::explain(load("exitcode-permanent-2045"));
  INFO(dump(x));
  REQUIRE(!x.findings.empty());
  const auto& f = x.findings.front();
  CHECK(f.code == "FirstFailure");
  CHECK(f.severity == Finding::Severity::error);
  CHECK(f.replica == "Worker");
  CHECK(f.message.str().find("Worker (pod ec2045-worker-1) failed first, with exit code 1 (Error)") != std::string::npos);
  CHECK(f.message.str().find("1-127 as permanent") != std::string::npos);
  CHECK(has(f.evidence, "termination message: ConnectionResetError: dataset server went away"));
  CHECK(has(f.evidence, "log: ConnectionResetError: [Errno 104] Connection reset by peer"));
  CHECK(f.fix.str().find(">= 128") != std::string::npos);
  auto* b = find(x, "BackoffLimit");
  REQUIRE(b);
  CHECK(b->message.str().find("0 of backoffLimit 3 restarts used; no replica's restarts count") != std::string::npos);
}

TEST_CASE("#1560: ExitCode retries 137 without limit: recreated pods do not count toward backoffLimit", "[explain]") {
  auto x = wf::explain(load("exitcode-retry-forever-1560"));
  INFO(dump(x));
  CHECK(x.state == "Restarting");
  auto* r = find(x, "RetryableExitCode");
  REQUIRE(r);
  CHECK(r->message.str().find("exited with 137") != std::string::npos);
  CHECK(r->message.str().find("without limit") != std::string::npos);
  CHECK(has(r->evidence, "exit code 137 (OOMKilled), killed by signal 9"));
  CHECK(r->fix.str().find("memory limit") != std::string::npos);
  auto* o = find(x, "OperatorRestarted");
  REQUIRE(o);
  CHECK(o->message.str().find("12 time(s)") != std::string::npos);
  auto* b = find(x, "BackoffLimit");
  REQUIRE(b);
  CHECK(b->message.str().find("not counted: Chief (ExitCode)") != std::string::npos);
  CHECK_FALSE(find(x, "FirstFailure"));
}

TEST_CASE("the operator's restarts: unfolded events summed, and what ExitCode says of a recreated pod", "[explain]") {
  auto in = load("exitcode-retry-forever-1560");
  // a recorder that does not fold repeats (the real-node controller stand-in) writes one
  // event per restart: the same message twice more, count 1 each
  auto e = *std::find_if(in.events.begin(), in.events.end(), [](const tfjob::k8s::Event& v) { return v.reason == "TFJobRestarting"; });
  e.count = 1;
  in.events.push_back(e);
  e.count = 0;  // no count at all: once
  in.events.push_back(e);
  in.pods.clear();  // the recreated pods' exit codes are gone: the restart policy still says which they were
  auto x = wf::explain(in);
  INFO(dump(x));
  int n = 0;
  for (const auto& f : x.findings) n += f.code == "OperatorRestarted";
  CHECK(n == 1);
  auto* o = find(x, "OperatorRestarted");
  REQUIRE(o);
  CHECK(o->message.str().find("14 time(s)") != std::string::npos);
  CHECK(o->message.str().find("Under restartPolicy ExitCode (Chief) it recreates a pod only after an exit code of 128 or above") != std::string::npos);
  CHECK(o->evidence == std::vector<std::string>{"event TFJobRestarting x14"});
}

TEST_CASE("a replica failed for good while the job stays Restarting (seen on the real node)", "[explain]") {
  auto x = wf::explain(load("exitcode-stuck-restarting"));
  INFO(dump(x));
  CHECK(x.state == "Restarting");
  auto* st = find(x, "StuckRestarting");
  REQUIRE(st);
  CHECK(st->replica == "Worker");
  CHECK(st->message.str().find("Worker (pod stuck-worker-0) failed for good (exit code 1 (Error), restartPolicy ExitCode), but the job "
                         "stays Restarting") != std::string::npos);
  CHECK(st->fix.str().find("activeDeadlineSeconds") != std::string::npos);
  REQUIRE(find(x, "FirstFailure"));
  // a job that is Restarting because its pod is being recreated (137) is not stuck
  CHECK_FALSE(find(wf::explain(load("exitcode-retry-forever-1560")), "StuckRestarting"));
  // nor is a failed job
  CHECK_FALSE(find(wf::explain(load("exitcode-permanent-2045")), "StuckRestarting"));
}

TEST_CASE("#948: pods held by a gang scheduler's PodGroup", "[explain]") {
  auto x = wf::explain(load("gang-pending-948"));
  INFO(dump(x));
  auto* g = find(x, "GangNotSatisfied");
  REQUIRE(g);
  CHECK(g->message.str().find("gang scheduler (volcano)") != std::string::npos);
  CHECK(g->message.str().find("minAvailable 3") != std::string::npos);
  CHECK(has(g->evidence, "3/3 tasks in gang unschedulable"));
  auto* w = find(x, "WaitingFor");
  REQUIRE(w);
  CHECK(w->message.str().find("waits for Worker 0: gang948-worker-0 (Pending)") != std::string::npos);
}

TEST_CASE("kubeflow #3935: the Istio sidecar keeps the pod Running after the trainer exited", "[explain]") {
  auto x = wf::explain(load("istio-sidecar-3935"));
  INFO(dump(x));
  auto* s = find(x, "SidecarKeepsPodRunning");
  REQUIRE(s);
  CHECK(s->message.str().find("istio-proxy keep running") != std::string::npos);
  CHECK(s->message.str().find("#3935") != std::string::npos);
  CHECK(s->fix.str().find("sidecar.istio.io/inject") != std::string::npos);
  REQUIRE(find(x, "IstioSidecarInjected"));  // the namespace injects, the template does not opt out
}

TEST_CASE("kubeflow #1042: GPU requests without limits: the API server refuses the pods", "[explain]") {
  auto x = wf::explain(load("gpu-request-without-limit-1042"));
  INFO(dump(x));
  auto* p = find(x, "PodCreateFailed");
  REQUIRE(p);
  CHECK(has(p->evidence, "Limit must be set for non overcommitable resources"));
  auto* l = find(x, "GpuRequestWithoutLimit");
  REQUIRE(l);
  CHECK(l->replica == "Worker");
  auto* g = find(x, "PodsGone");
  REQUIRE(g);
  CHECK(g->message.str().find("no pods yet") != std::string::npos);
}

TEST_CASE("Pending on GPUs: the scheduler's words and the GPU nodes that come closest", "[explain]") {
  auto x = wf::explain(load("pending-gpu"));
  INFO(dump(x));
  auto* g = find(x, "InsufficientGpu");
  REQUIRE(g);
  CHECK(g->replica == "Worker");
  CHECK(g->message.str().find("pod big-worker-1 waits: no node it may use has 2 free nvidia.com/gpu") != std::string::npos);
  REQUIRE(g->evidence.size() == 3);
  CHECK(g->evidence[1] == "node gpu-b: allocatable 1 nvidia.com/gpu, 0 taken by pods of this job");
  CHECK(g->evidence[2] == "node gpu-a: allocatable 2 nvidia.com/gpu, 2 taken by pods of this job");
  // describe: the Why section on top and the pod's DETAIL column say it too
  auto in = load("pending-gpu");
  auto d = wf::describe(in.job, in.pods, in.events, {}, in.now);
  auto text = wf::render(d, in.now);
  INFO(text);
  CHECK(text.find("Why:\n  pod big-worker-1 waits: no node it may use has 2 free nvidia.com/gpu") != std::string::npos);
  REQUIRE(d.pods.size() == 2);
  CHECK(d.pods[1].detail == "0/3 nodes are available: 2 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 "
                            "Preemption is not helpful for scheduling.");
  // worker 0 runs on its 2 GPUs while worker 1 waits: held for nothing, after the pod's own reason
  auto* h = find(x, "PartlyRunningHoldsGpus");
  REQUIRE(h);
  CHECK(h->message.str().rfind("1 of 2 pods run and hold 2 GPU(s) while 1 wait(s) Pending", 0) == 0);
  CHECK(h->fix.str().find("set runPolicy.schedulingPolicy.minAvailable to 2 (every replica, TFJobBuilder::gang)") != std::string::npos);
  // the SDK names its settings; the plugin words them with its flags (plugin/common/error_words.hpp)
  CHECK(h->fix.str().find("--") == std::string::npos);
  CHECK(h > g);
  CHECK(text.find("\n  1 of 2 pods run and hold 2 GPU(s)") != std::string::npos);
}

TEST_CASE("Kueue: the Workload has no quota reserved, the job waits in the queue and not for a node", "[explain]") {
  auto x = wf::explain(load("kueue-quota-pending"));
  INFO(dump(x));
  auto* q = find(x, "QueuedInKueue");
  REQUIRE(q);
  CHECK(q->message == "the job waits in Kueue's queue, not for a node: Workload tfjob-kq-7c9d1 in LocalQueue \"team-gpus\" (ClusterQueue "
                      "\"gpus\"): no quota is reserved for it yet (Kueue: \"couldn't assign flavors to pod set worker: insufficient unused "
                      "quota for nvidia.com/gpu in flavor default-flavor, 8 more needed\"); position 3 of 4 in the queue");
  CHECK(has(q->evidence, "localqueue/team-gpus: 2 pending, 1 admitted"));
  CHECK(find(x, "SuspendedByKueue"));
  CHECK_FALSE(find(x, "NoWorkload"));
  // a Workload of another job in the namespace is not this one's
  auto in = load("kueue-quota-pending");
  CHECK(in.queue.workloads.size() == 2);
  std::size_t queued = 0;
  for (const auto& f : wf::explain(in).findings) queued += f.code == "QueuedInKueue";
  CHECK(queued == 1);
  auto d = wf::describe(in.job, in.pods, in.events, {}, in.now, in.queue);
  CHECK(wf::render(d, in.now).find("the job waits in Kueue's queue, not for a node") != std::string::npos);
}

TEST_CASE("Pending on a node selector: the closest node and the label it lacks", "[explain]") {
  auto x = wf::explain(load("pending-selector"));
  INFO(dump(x));
  auto* s = find(x, "NodeSelectorMismatch");
  REQUIRE(s);
  CHECK(s->replica == "Chief");
  REQUIRE(s->evidence.size() >= 2);
  CHECK(s->evidence[1] == "node v100-1: lacks pool=training");
}

TEST_CASE("the scheduler's and the kubelet's words, 1.20 to 1.36: each minor's wording read alike", "[explain][words]") {
  // One stored state (a Chief Pending by its nodeSelector), its FailedScheduling message in
  // each minor's words (api/cluster_words.hpp names the source of each): the same finding.
  struct Case {
    const char* minors;
    const char* message;
    const char* code;
  };
  const Case cases[] = {
      // NodeAffinity, plugins/nodeaffinity/node_affinity.go ErrReasonPod
      {"1.19 and before (predicates)", "0/2 nodes are available: 2 node(s) didn't match node selector.", "NodeSelectorMismatch"},
      {"1.20 (the real node's)", "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity.", "NodeSelectorMismatch"},
      {"1.21-1.23", "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.", "NodeSelectorMismatch"},
      {"1.24-1.36 (with DefaultPreemption's words)",
       "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 "
       "Preemption is not helpful for scheduling.",
       "NodeSelectorMismatch"},
      // TaintToleration, plugins/tainttoleration/taint_toleration.go Filter
      {"1.20-1.23", "0/2 nodes are available: 2 node(s) had taint {dedicated: gpu}, that the pod didn't tolerate.", "TaintNotTolerated"},
      {"1.24", "0/2 nodes are available: 2 node(s) had taint {dedicated: gpu}, that the pod didn't tolerate. preemption: 0/2 nodes are "
               "available: 2 Preemption is not helpful for scheduling.", "TaintNotTolerated"},
      {"1.25-1.34", "0/2 nodes are available: 2 node(s) had untolerated taint {dedicated: gpu}. preemption: 0/2 nodes are available: 2 "
                    "Preemption is not helpful for scheduling.", "TaintNotTolerated"},
      {"1.35-1.36 (and 1.34 patches)", "0/2 nodes are available: 2 node(s) had untolerated taint(s). preemption: 0/2 nodes are "
                                       "available: 2 Preemption is not helpful for scheduling.", "TaintNotTolerated"},
      {"ErrReasonNotMatch (the kubelet's; 1.17-1.19's filter)", "0/2 nodes are available: 2 node(s) had taints that the pod didn't tolerate.",
       "TaintNotTolerated"},
      // NodeResourcesFit with a taint beside it: the resource decides; the preemption half repeats words that are not the filters'
      {"1.35-1.36, GPUs short and a tainted control plane",
       "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are "
       "available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.",
       "InsufficientGpu"},
      // NodeAffinity's addedAffinity (1.20-1.36): not the pod's selector
      {"1.20-1.36, the profile's addedAffinity", "0/2 nodes are available: 2 node(s) didn't match scheduler-enforced node affinity.",
       "Unschedulable"},
      // NodeUnschedulable (1.20-1.36)
      {"1.20-1.36, cordoned", "0/2 nodes are available: 2 node(s) were unschedulable.", "Unschedulable"},
  };
  for (const auto& c : cases) {
    auto in = load("pending-selector");
    for (auto& e : in.events)
      if (e.reason == "FailedScheduling") e.message = c.message;
    auto x = wf::explain(in);
    INFO(c.minors << ": " << c.message << "\n" << dump(x));
    const auto* f = find(x, c.code);
    REQUIRE(f);
    CHECK(f->replica == "Chief");
    for (const char* other : {"NodeSelectorMismatch", "TaintNotTolerated", "InsufficientGpu", "Unschedulable"})
      if (std::string(other) != c.code) CHECK_FALSE(find(x, other));
    if (std::string(c.code) == "InsufficientGpu") CHECK(f->message.str().find("free nvidia.com/gpu") != std::string::npos);
    if (std::string(c.message).find("scheduler-enforced") != std::string::npos) CHECK(f->fix.str().find("addedAffinity") != std::string::npos);
    if (std::string(c.message).find("were unschedulable") != std::string::npos) CHECK(f->fix.str().find("cordoned") != std::string::npos);
  }
}

TEST_CASE("the cluster's words: each rule on each minor's wording, and what it must not read", "[explain][words]") {
  namespace w = tfjob::words;
  // the preemption half (1.24+) is not the filters' verdict
  auto r = w::read_scheduler_message("0/1 nodes are available: 1 node(s) had untolerated taint(s). preemption: 0/1 nodes are available: "
                                     "1 Insufficient cpu.");
  CHECK(r.taint);
  CHECK(r.insufficient.empty());
  // 1.37's placement words (kubernetes #140180) neither
  r = w::read_scheduler_message("0/1 nodes are available: 1 Insufficient cpu. preemption: found a potential placement for pod on node n1");
  CHECK(r.insufficient == std::vector<std::string>{"cpu"});
  r = w::read_scheduler_message("0/4 nodes are available: 1 Insufficient cpu, 2 Insufficient nvidia.com/gpu, 1 node(s) were unschedulable.");
  CHECK(r.insufficient == std::vector<std::string>{"cpu", "nvidia.com/gpu"});
  CHECK(r.cordoned);
  CHECK_FALSE(r.selector);
  CHECK(w::says_insufficient("0/2 nodes are available: 2 Insufficient nvidia.com/gpu.", "nvidia.com/gpu"));
  CHECK_FALSE(w::says_insufficient("0/2 nodes are available: 2 Insufficient nvidia.com/gpu.", "cpu"));
  // VolumeBinding, 1.20-1.36
  CHECK(w::read_scheduler_message("0/1 nodes are available: 1 pod has unbound immediate PersistentVolumeClaims.").claim);
  r = w::read_scheduler_message("0/1 nodes are available: persistentvolumeclaim \"data\" not found.");
  CHECK(r.claim);
  CHECK(r.claim_not_found);
  CHECK(w::read_scheduler_message("0/2 nodes are available: 2 node(s) didn't find available persistent volumes to bind.").claim);
  // enforced affinity is not the pod's selector
  r = w::read_scheduler_message("0/1 nodes are available: 1 node(s) didn't match scheduler-enforced node affinity.");
  CHECK(r.enforced_affinity);
  CHECK_FALSE(r.selector);
  // the kubelet: ImagePullBackOff's message, 1.20-1.31 vs 1.32+ (kubernetes #127918)
  CHECK_FALSE(w::pull_backoff_names_error("Back-off pulling image \"registry:5000/tf:2.20.0\""));
  CHECK(w::pull_backoff_names_error("Back-off pulling image \"registry:5000/tf:2.20.0\": ErrImagePull: failed to pull and unpack image"));
  // the BackOff event, 1.20-1.25 vs 1.26+ (kubernetes #113216)
  CHECK(w::restart_backoff_event("BackOff", "Back-off restarting failed container", "tensorflow"));
  CHECK(w::restart_backoff_event("BackOff", "Back-off restarting failed container tensorflow in pod mnist-worker-0_default(1a2b)", "tensorflow"));
  CHECK_FALSE(w::restart_backoff_event("BackOff", "Back-off restarting failed container istio-proxy in pod mnist-worker-0_default(1a2b)",
                                       "tensorflow"));
  CHECK_FALSE(w::restart_backoff_event("BackOff", "Back-off pulling image \"x\"", ""));
  CHECK(w::crash_loop("CrashLoopBackOff"));
  CHECK(w::oom_killed("OOMKilled"));
  for (const char* reason : {"ErrImagePull", "ImagePullBackOff", "ErrImageNeverPull", "InvalidImageName"}) CHECK(w::image_pull_problem(reason));
  CHECK_FALSE(w::image_pull_problem("ContainerCreating"));
  // native sidecars: init containers with restartPolicy Always (1.28+), read from the typed spec
  const auto spec = tfjob::detail::decoded<tfjob::k8s::PodSpec>(json::parse(
      R"({"initContainers": [{"name": "setup"}, {"name": "proxy", "restartPolicy": "Always"}], "containers": [{"name": "tensorflow"}]})"));
  REQUIRE(spec.sidecars().size() == 1);
  CHECK(spec.sidecars()[0]->name == "proxy");
}

TEST_CASE("native sidecars: a finished trainer beside a sidecar the kubelet stopped is not stuck, its restarts are said and counted",
          "[explain][sidecar]") {
  auto in = load("native-sidecar");
  auto x = wf::explain(in);
  INFO(dump(x));
  // the Worker's pod ran with a native sidecar that restarted twice; nothing keeps it running
  CHECK_FALSE(find(x, "SidecarKeepsPodRunning"));
  CHECK_FALSE(find(x, "FirstFailure"));  // the sidecar's 143 when the kubelet stopped it is no failure
  auto* s = find(x, "SidecarRestarted");
  REQUIRE(s);
  CHECK(s->replica == "Worker");
  CHECK(s->message.str().find("pod side-worker-0: sidecar proxy (an init container with restartPolicy: Always) restarted 2 time(s)") !=
        std::string::npos);
  CHECK(s->message.str().find("count toward backoffLimit") != std::string::npos);  // OnFailure: the operator sums them
  // describe: the sidecar's restarts in RESTARTS, as kubectl counts them
  auto d = wf::describe(in.job, in.pods, in.events, {}, in.now);
  REQUIRE(d.pods.size() == 2);
  CHECK(d.pods[1].name == "side-worker-0");
  CHECK(d.pods[1].restarts == 2);
  CHECK(d.pods[1].detail.empty());
  // a Pending pod held by its sidecar's image: the init container's reason, as kubectl's Init:ErrImagePull
  json held = in.pods[0];
  held["status"] = json::parse(R"({"phase": "Pending",
    "initContainerStatuses": [{"name": "proxy", "restartCount": 0, "ready": false, "started": false, "image": "proxy:1",
                               "state": {"waiting": {"reason": "ErrImageNeverPull", "message": "Container image \"proxy:1\" is not present with pull policy of Never"}}}],
    "containerStatuses": [{"name": "tensorflow", "restartCount": 0, "ready": false, "image": "tf", "state": {"waiting": {"reason": "PodInitializing"}}}]})");
  held["spec"]["nodeName"] = "n1";
  auto i = wf::pod_info(tfjob::detail::decoded<tfjob::k8s::Pod>(held));
  CHECK(i.waiting_reason == "ErrImageNeverPull");
  CHECK(wf::cannot_start(i.waiting_reason));
}

TEST_CASE("Pending on a claim: why it is not bound, not an older claim's event", "[explain]") {
  auto x = wf::explain(load("pending-claim"));
  INFO(dump(x));
  auto* c = find(x, "ClaimNotBound");
  REQUIRE(c);
  CHECK(c->message.str().find("waits for claim \"data\": FailedBinding: no persistent volumes available for this claim and no storage "
                        "class is set") != std::string::npos);
  CHECK(dump(x).find("\"fast\" not found") == std::string::npos);  // the event of a claim deleted earlier
  CHECK(has(c->evidence, "accessModes [\"ReadWriteOnce\"], storageClassName <none>"));
}

TEST_CASE("an image that cannot be pulled: the registry's message", "[explain]") {
  auto x = wf::explain(load("image-pull"));
  INFO(dump(x));
  auto* i = find(x, "ImagePullFailed");
  REQUIRE(i);
  CHECK(i->message.str().find("cannot pull image tensorflow/tensorflow:2.99.0: ImagePullBackOff: Back-off pulling image") != std::string::npos);
  CHECK(i->message.str().find("manifest unknown") != std::string::npos);
}

TEST_CASE("quota: the operator cannot create the pods", "[explain]") {
  auto x = wf::explain(load("quota"));
  INFO(dump(x));
  auto* q = find(x, "QuotaExceeded");
  REQUIRE(q);
  CHECK(has(q->evidence, "exceeded quota: compute"));
  CHECK(q->fix.str().find("resourcequota -n team-a") != std::string::npos);
}

TEST_CASE("suspended by Kueue", "[explain]") {
  auto x = wf::explain(load("kueue-suspended"));
  INFO(dump(x));
  auto* k = find(x, "SuspendedByKueue");
  REQUIRE(k);
  CHECK(k->message.str().find("LocalQueue \"gpu-queue\"") != std::string::npos);
  CHECK_FALSE(find(x, "PodsGone"));
}

TEST_CASE("pods gone: from status and events, saying what cannot be known any more", "[explain]") {
  auto x = wf::explain(load("pods-gone"));
  INFO(dump(x));
  CHECK(x.pods_gone);
  auto* g = find(x, "PodsGone");
  REQUIRE(g);
  CHECK(g->message.str().find("cleanPodPolicy All deleted them") != std::string::npos);
  CHECK(g->message.str().find("can no longer be known") != std::string::npos);
  CHECK(has(g->evidence, "condition Failed: TFJob default/gone has failed because 1 Worker replica(s) failed."));
  CHECK(has(g->evidence, "status.replicaStatuses.Worker: active 0, succeeded 0, failed 1"));
}

TEST_CASE("OnFailure restarts in place: backoffLimit used and activeDeadlineSeconds left", "[explain]") {
  auto x = wf::explain(load("deadline-and-backoff"));
  INFO(dump(x));
  auto* r = find(x, "RestartedInPlace");
  REQUIRE(r);
  CHECK(r->message.str().find("exited with 3 and the kubelet restarted it") != std::string::npos);
  auto* b = find(x, "BackoffLimit");
  REQUIRE(b);
  CHECK(b->message.str().find("2 of backoffLimit 4 restarts used") != std::string::npos);
  CHECK(b->severity == Finding::Severity::info);
  auto* d = find(x, "ActiveDeadline");
  REQUIRE(d);
  CHECK(d->message == "20m of activeDeadlineSeconds 60m used, 40m left");
  auto* w = find(x, "WaitingFor");
  REQUIRE(w);
  CHECK(w->message.str().find("Running because it waits for Worker 0: flaky-worker-0 (Running)") != std::string::npos);
}

TEST_CASE("explain -o json: the stable shape", "[explain]") {
  auto j = wf::to_json_value(wf::explain(load("exitcode-permanent-2045")));
  CHECK(j["name"] == "ec2045");
  CHECK(j["namespace"] == "default");
  CHECK(j["state"] == "Failed");
  CHECK(j["podsGone"] == false);
  REQUIRE(j["findings"].is_array());
  const auto& f = j["findings"][0];
  for (const char* k : {"code", "severity", "replica", "message", "evidence", "fix"}) CHECK(f.contains(k));
  CHECK(f["code"] == "FirstFailure");
  CHECK(f["severity"] == "error");
  CHECK(f["evidence"].is_array());
}

namespace {
/// Another job's objects, as a crowded namespace's state dump holds them beside the job's own.
std::vector<json> crowd(bool with_job) {
  std::vector<json> out;
  auto event = [](const std::string& kind, const std::string& name, const std::string& reason) {
    return json{{"apiVersion", "v1"}, {"kind", "Event"}, {"metadata", {{"name", name + "." + reason}, {"namespace", "default"}}},
                {"involvedObject", {{"kind", kind}, {"name", name}, {"namespace", "default"}}}, {"type", "Warning"},
                {"reason", reason}, {"message", "about " + name}, {"lastTimestamp", "2024-05-01T11:58:00Z"}};
  };
  if (with_job)
    out.push_back({{"apiVersion", "kubeflow.org/v1"}, {"kind", "TFJob"}, {"metadata", {{"name", "crowd"}, {"namespace", "default"}}},
                   {"spec", {{"tfReplicaSpecs", {{"Worker", {{"replicas", 3}}}}}}}});
  for (int i = 0; i < 3; ++i) {
    const std::string pod = "crowd-worker-" + std::to_string(i);
    out.push_back({{"apiVersion", "v1"}, {"kind", "Pod"},
                   {"metadata", {{"name", pod}, {"namespace", "default"}, {"labels", {{"training.kubeflow.org/job-name", "crowd"}}}}},
                   {"status", {{"phase", "Failed"}}}});
    out.push_back(event("Pod", pod, "FailedScheduling"));
  }
  out.push_back({{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "web-1"}, {"namespace", "default"}}}});
  out.push_back(event("Pod", "web-1", "BackOff"));
  out.push_back(event(tfjob::kind, "crowd", "SuccessfulCreatePod"));
  out.push_back(event("PodGroup", "crowd", "Unschedulable"));
  out.push_back(event("ReplicaSet", "web", "SuccessfulCreate"));
  out.push_back({{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "settings"}}}, {"data", {{"a", "b"}}}});
  return out;
}
}  // namespace

TEST_CASE("a crowded namespace's state dump, read item by item, explains the job as its own objects do", "[explain][stream]") {
  const std::string dir = tfjob::test::source_dir() + "/tests/data/explain/";
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".yaml") continue;
    const std::string name = e.path().stem().string();
    INFO(name);
    const auto own = tfjob::parse_objects(slurp(e.path().string()), name);
    std::string job;
    for (const auto& o : own)
      if (o.value("kind", "") == tfjob::kind) job = o["metadata"]["name"];
    REQUIRE(!job.empty());
    for (bool named : {true, false}) {
      INFO((named ? "named" : "the only TFJob"));
      // kubectl get tfjobs,pods,events -o yaml: one List; here the job's pods and events come
      // before the job, between another job's objects (only when the job is named: else its
      // TFJob would make two)
      std::vector<json> items = crowd(named);
      json the_job;
      for (const auto& o : own)
        if (o.value("kind", "") == tfjob::kind) the_job = o;
        else items.push_back(o);
      for (auto& o : crowd(false)) items.push_back(std::move(o));
      items.push_back(the_job);
      std::istringstream dump(tfjob::to_yaml({{"apiVersion", "v1"}, {"items", items}, {"kind", "List"}, {"metadata", json::object()}}));
      wf::SavedState state(named ? job : "");
      tfjob::ManifestReader(dump, "state.yaml").each([&](json&& o, const tfjob::ObjectPlace&) { state.add(o); });
      auto streamed = state.finish();
      REQUIRE(streamed);
      auto alone = wf::explain_input(own);
      REQUIRE(alone);
      // what is kept is the job's: no pod or event of the crowd
      CHECK(streamed->pods.size() == alone->pods.size());
      CHECK(streamed->events.size() == alone->events.size());
      for (const auto& p : streamed->pods) CHECK(p.metadata.name.rfind("crowd", 0) != 0);
      for (const auto& ev : streamed->events) CHECK(ev.involved_object.name.rfind("crowd", 0) != 0);
      streamed->now = alone->now = *wf::parse_time("2024-05-01T12:00:00Z");
      CHECK(wf::render(wf::explain(*streamed)) == wf::render(wf::explain(*alone)));
    }
  }
}
