// The operator's reconcile (tests/support/operator/: the fake API server's operator and the
// real node's stand-in) on stored states: a job and the pods and services it controls in,
// the plan out. Each case is one rule of training-operator v1.9; the rules the product shares
// with it are the SDK's (tfjob/api/operator_rules.hpp).
#include "support/operator/reconcile.hpp"

#include <tfjob/api/operator_rules.hpp>

#include <catch2/catch.hpp>

using nlohmann::json;
using namespace tfjob;

namespace {

constexpr std::int64_t T0 = 1764583200;  // 2025-12-01T10:00:00Z

/// A stored TFJob: replica type -> (replicas, restartPolicy), with a uid.
TFJob job_of(const std::string& name, const std::map<std::string, std::pair<int, std::string>>& reps,
             json run_policy = json::object(), const std::string& success = "") {
  json j = {{"apiVersion", "kubeflow.org/v1"}, {"kind", "TFJob"},
            {"metadata", {{"name", name}, {"namespace", "ns1"}, {"uid", "uid-" + name}}}, {"spec", {{"tfReplicaSpecs", json::object()}}}};
  for (const auto& [t, r] : reps) {
    json container = {{"name", "tensorflow"}, {"image", "trainer:1"}};
    json tmpl = {{"metadata", {{"labels", {{"app", "mnist"}}}}}, {"spec", {{"containers", json::array({container})}}}};
    j["spec"]["tfReplicaSpecs"][t] = {{"replicas", r.first}, {"restartPolicy", r.second}, {"template", tmpl}};
  }
  if (!run_policy.empty()) j["spec"]["runPolicy"] = run_policy;
  if (!success.empty()) j["spec"]["successPolicy"] = success;
  return j.get<TFJob>();
}

/// Applies a plan the way an API server would: created pods exist (Pending), deleted go.
struct World {
  explicit World(TFJob j) : job(std::move(j)) {}
  TFJob job;
  op::Observed seen;
  std::int64_t now = T0;

  op::Plan step() {
    op::Plan p = op::reconcile(job, seen, now);
    for (const auto& n : p.delete_pods)
      seen.pods.erase(std::remove_if(seen.pods.begin(), seen.pods.end(), [&](const json& x) { return op::object_name(x) == n; }),
                      seen.pods.end());
    for (const auto& n : p.delete_services)
      seen.services.erase(std::remove_if(seen.services.begin(), seen.services.end(), [&](const json& x) { return op::object_name(x) == n; }),
                          seen.services.end());
    for (auto pod : p.create_pods) {
      pod["status"] = {{"phase", "Pending"}};
      seen.pods.push_back(pod);
    }
    for (const auto& s : p.create_services) seen.services.push_back(s);
    if (p.status) job.status = *p.status;
    return p;
  }
  json& pod(const std::string& name) {
    for (auto& p : seen.pods)
      if (op::object_name(p) == name) return p;
    FAIL("no pod " << name);
    throw;
  }
  void running(const std::string& name, int restarts = 0) {
    pod(name)["status"] = {{"phase", "Running"},
                           {"containerStatuses", {{{"name", "tensorflow"}, {"restartCount", restarts}, {"state", {{"running", json::object()}}}}}}};
  }
  void exited(const std::string& name, int code) {
    pod(name)["status"] = {{"phase", code == 0 ? "Succeeded" : "Failed"},
                           {"containerStatuses", {{{"name", "tensorflow"}, {"restartCount", 0}, {"state", {{"terminated", {{"exitCode", code}}}}}}}}};
  }
  const JobCondition* cond(const std::string& type) const { return job.status->condition(type); }
  std::string last() const { return job.status->conditions.back().type; }
};

std::string env_value(const json& pod, const std::string& name) {
  for (const auto& c : pod["spec"]["containers"])
    if (c["name"] == "tensorflow")
      for (const auto& e : c.value("env", json::array()))
        if (e["name"] == name) return e["value"];
  return "";
}

}  // namespace

TEST_CASE("a new job gets Created and three pods and headless services with the operator's names and labels and TF_CONFIG and owner", "[operator]") {
  World w{job_of("mnist", {{"Chief", {1, "Never"}}, {"Worker", {2, "OnFailure"}}})};
  op::Plan p = w.step();
  REQUIRE(p.status);
  REQUIRE(p.status->conditions.size() == 1);
  CHECK(p.status->conditions[0].type == "Created");
  CHECK(p.status->conditions[0].reason == "TFJobCreated");
  CHECK(p.status->conditions[0].message == "TFJob mnist is created.");
  CHECK(p.status->conditions[0].last_transition_time == "2025-12-01T10:00:00Z");
  CHECK(p.status->start_time == "2025-12-01T10:00:00Z");
  REQUIRE(p.create_pods.size() == 3);
  REQUIRE(p.create_services.size() == 3);

  const json& chief = w.pod("mnist-chief-0");
  CHECK(chief["metadata"]["namespace"] == "ns1");
  CHECK(chief["metadata"]["labels"] == json{{"app", "mnist"},
                                            {"training.kubeflow.org/job-name", "mnist"},
                                            {"training.kubeflow.org/operator-name", "tfjob-controller"},
                                            {"training.kubeflow.org/replica-type", "chief"},
                                            {"training.kubeflow.org/replica-index", "0"},
                                            {"training.kubeflow.org/job-role", "master"}});
  CHECK(chief["metadata"]["ownerReferences"] == json::array({{{"apiVersion", "kubeflow.org/v1"}, {"kind", "TFJob"}, {"name", "mnist"},
                                                              {"uid", "uid-mnist"}, {"controller", true}, {"blockOwnerDeletion", true}}}));
  CHECK(chief["spec"]["restartPolicy"] == "Never");
  CHECK(chief["spec"]["containers"][0]["ports"] == json::array({{{"name", "tfjob-port"}, {"containerPort", 2222}}}));
  CHECK(env_value(chief, "TF_CONFIG") ==
        "{\"cluster\":{\"chief\":[\"mnist-chief-0.ns1.svc:2222\"],\"worker\":[\"mnist-worker-0.ns1.svc:2222\","
        "\"mnist-worker-1.ns1.svc:2222\"]},\"task\":{\"type\":\"chief\",\"index\":0},\"environment\":\"cloud\"}");
  const json& w1 = w.pod("mnist-worker-1");
  CHECK(w1["spec"]["restartPolicy"] == "OnFailure");
  CHECK_FALSE(w1["metadata"]["labels"].contains("training.kubeflow.org/job-role"));
  CHECK(env_value(w1, "TF_CONFIG").find("\"task\":{\"type\":\"worker\",\"index\":1}") != std::string::npos);

  const json* svc = nullptr;
  for (const auto& s : p.create_services)
    if (op::object_name(s) == "mnist-worker-1") svc = &s;
  REQUIRE(svc);
  CHECK((*svc)["spec"]["clusterIP"] == "None");
  CHECK((*svc)["spec"]["selector"] == json{{"training.kubeflow.org/job-name", "mnist"},
                                           {"training.kubeflow.org/operator-name", "tfjob-controller"},
                                           {"training.kubeflow.org/replica-type", "worker"},
                                           {"training.kubeflow.org/replica-index", "1"}});
  CHECK((*svc)["spec"]["ports"] == json::array({{{"name", "tfjob-port"}, {"port", 2222}}}));
  CHECK((*svc)["metadata"]["ownerReferences"][0]["controller"] == true);

  // nothing changes on a second look at the same state
  op::Plan again = w.step();
  CHECK(again.empty());
}

TEST_CASE("the cluster domain goes into TF_CONFIG - one replica in total gets none", "[operator]") {
  op::OperatorOptions o;
  o.cluster_domain = "cluster.local";
  TFJob two = job_of("d", {{"Worker", {2, "Never"}}});
  op::Plan p = op::reconcile(two, {}, T0, o);
  REQUIRE(p.create_pods.size() == 2);
  CHECK(env_value(p.create_pods[0], "TF_CONFIG").find("d-worker-0.ns1.svc.cluster.local:2222") != std::string::npos);
  TFJob one = job_of("s", {{"Worker", {1, "Never"}}});
  op::Plan q = op::reconcile(one, {}, T0, o);
  REQUIRE(q.create_pods.size() == 1);
  CHECK_FALSE(q.create_pods[0]["spec"]["containers"][0].contains("env"));
  CHECK(q.create_pods[0]["metadata"]["labels"]["training.kubeflow.org/job-role"] == "master");  // worker 0 without a chief
}

TEST_CASE("Running - then the chief decides success - a running condition turns False", "[operator]") {
  World w{job_of("c", {{"Chief", {1, "Never"}}, {"Worker", {2, "Never"}}})};
  w.step();
  w.running("c-worker-0");
  w.step();
  CHECK_FALSE(w.job.status->has_condition("Running"));  // workers alone do not make a chief job Running
  w.running("c-chief-0");
  w.step();
  REQUIRE(w.cond("Running"));
  CHECK(w.cond("Running")->reason == "TFJobRunning");
  CHECK(w.cond("Running")->message == "TFJob ns1/c is running.");
  CHECK(w.job.status->replica_statuses.at("Chief").active == 1);
  CHECK(w.job.status->replica_statuses.at("Worker").selector ==
        "training.kubeflow.org/job-name=c,training.kubeflow.org/operator-name=tfjob-controller,training.kubeflow.org/replica-type=worker");
  w.now += 30;
  w.exited("c-chief-0", 0);
  op::Plan p = w.step();
  CHECK(w.last() == "Succeeded");
  CHECK(w.cond("Succeeded")->reason == "TFJobSucceeded");
  CHECK(w.cond("Succeeded")->message == "TFJob ns1/c successfully completed.");
  CHECK(w.cond("Running")->status == "False");
  CHECK(w.job.status->completion_time == "2025-12-01T10:00:30Z");
  CHECK(p.delete_pods.empty());  // cleanPodPolicy None: the workers stay
  // finished: a succeeded job's active replicas are counted as succeeded
  w.step();
  CHECK(w.job.status->replica_statuses.at("Worker").succeeded == 1);
  CHECK(w.job.status->replica_statuses.at("Worker").active == 0);
}

TEST_CASE("successPolicy: worker 0 decides by default - AllWorkers waits for every worker", "[operator]") {
  for (std::string policy : {"", "AllWorkers"}) {
    World w{job_of("w", {{"Worker", {2, "Never"}}}, json::object(), policy)};
    w.step();
    w.running("w-worker-0");
    w.running("w-worker-1");
    w.step();
    CHECK(w.last() == "Running");
    w.exited("w-worker-0", 0);
    w.step();
    if (policy.empty()) {
      CHECK(w.job.status->succeeded());
    } else {
      CHECK_FALSE(w.job.status->succeeded());
      w.exited("w-worker-1", 0);
      w.step();
      CHECK(w.job.status->succeeded());
    }
  }
}

TEST_CASE("Never: a failed replica fails the job with the operator's message", "[operator]") {
  World w{job_of("f", {{"Worker", {2, "Never"}}})};
  w.step();
  w.running("f-worker-0");
  w.exited("f-worker-1", 1);
  op::Plan p = w.step();
  REQUIRE(w.job.status->failed());
  CHECK(w.cond("Failed")->reason == "TFJobFailed");
  CHECK(w.cond("Failed")->message == "TFJob ns1/f has failed because 1 Worker replica(s) failed.");
  CHECK(p.create_pods.empty());
  CHECK(p.delete_pods.empty());
  // once Failed, nothing changes the conditions any more
  w.exited("f-worker-0", 0);
  w.step();
  CHECK(w.job.status->failed());
  CHECK_FALSE(w.job.status->has_condition("Succeeded"));
}

TEST_CASE("ExitCode: 128+signal is retried (pod recreated - Restarting) - 1-127 is permanent", "[operator]") {
  CHECK(rules::exit_code_retryable(137));
  CHECK(rules::exit_code_retryable(143));
  CHECK(rules::exit_code_retryable(128));
  CHECK_FALSE(rules::exit_code_retryable(1));
  CHECK_FALSE(rules::exit_code_retryable(127));
  World w{job_of("e", {{"Worker", {2, "ExitCode"}}})};
  w.step();
  CHECK(w.pod("e-worker-0")["spec"]["restartPolicy"] == "Never");  // the operator restarts, not the kubelet
  w.running("e-worker-0");
  w.running("e-worker-1");
  w.step();
  w.exited("e-worker-1", 137);
  op::Plan p = w.step();
  CHECK(p.delete_pods == std::vector<std::string>{"e-worker-1"});
  CHECK(w.last() == "Restarting");
  CHECK(w.cond("Restarting")->reason == "TFJobRestarting");
  CHECK(w.cond("Restarting")->message == "job e is restarting because Worker replica(s) failed.");
  CHECK_FALSE(w.cond("Running"));  // Restarting replaced Running
  CHECK_FALSE(w.job.status->failed());
  bool warned = false;
  for (const auto& e : p.events) warned |= e.type == "Warning" && e.reason == "TFJobRestarting";
  CHECK(warned);
  // the next pass recreates it with the same name and TF_CONFIG
  op::Plan q = w.step();
  REQUIRE(q.create_pods.size() == 1);
  CHECK(op::object_name(q.create_pods[0]) == "e-worker-1");
  w.running("e-worker-1");
  w.step();
  CHECK(w.last() == "Running");
  CHECK_FALSE(w.cond("Restarting"));
  // a permanent code fails the job
  w.exited("e-worker-1", 2);
  op::Plan r = w.step();
  CHECK(r.delete_pods.empty());
  CHECK(w.job.status->failed());
}

TEST_CASE("OnFailure: the kubelet restarts - backoffLimit counts restarts of running pods", "[operator]") {
  World w{job_of("b", {{"Worker", {1, "OnFailure"}}}, {{"backoffLimit", 2}})};
  w.step();
  w.running("b-worker-0", 1);
  w.step();
  CHECK_FALSE(w.job.status->failed());
  w.running("b-worker-0", 2);  // PastBackoffLimit: restarts >= backoffLimit
  op::Plan p = w.step();
  REQUIRE(w.job.status->failed());
  CHECK(w.cond("Failed")->message == "Job b has failed because it has reached the specified backoff limit");
  CHECK(p.delete_pods == std::vector<std::string>{"b-worker-0"});  // every pod goes, whatever cleanPodPolicy says
  CHECK_FALSE(w.job.status->completion_time.empty());

  // backoffLimit 0: the first restart is too many; Never replicas are not counted
  World z{job_of("z", {{"Worker", {1, "OnFailure"}}, {"PS", {1, "Never"}}}, {{"backoffLimit", 0}})};
  z.step();
  z.running("z-ps-0", 5);
  z.running("z-worker-0");
  z.step();
  CHECK_FALSE(z.job.status->failed());
  z.running("z-worker-0", 1);
  z.step();
  CHECK(z.job.status->failed());
}

TEST_CASE("backoffLimit 0 and a new failure fails by the limit before the replica rule", "[operator]") {
  World w{job_of("n", {{"Worker", {2, "Never"}}}, {{"backoffLimit", 0}})};
  w.step();
  w.running("n-worker-0");
  w.exited("n-worker-1", 1);
  w.step();
  REQUIRE(w.job.status->failed());
  CHECK(w.cond("Failed")->message == "Job n has failed because it has reached the specified backoff limit");
}

TEST_CASE("activeDeadlineSeconds: requeued for the deadline - then failed with every pod deleted", "[operator]") {
  World w{job_of("d", {{"Worker", {1, "Never"}}}, {{"activeDeadlineSeconds", 60}})};
  op::Plan p = w.step();
  REQUIRE(p.requeue_after);
  CHECK(*p.requeue_after == 60);
  w.running("d-worker-0");
  w.now += 59;
  p = w.step();
  CHECK_FALSE(w.job.status->failed());
  REQUIRE(p.requeue_after);
  CHECK(*p.requeue_after == 1);
  w.now += 1;
  p = w.step();
  REQUIRE(w.job.status->failed());
  CHECK(w.cond("Failed")->message == "Job d has failed because it was active longer than specified deadline");
  CHECK(p.delete_pods == std::vector<std::string>{"d-worker-0"});
  CHECK(p.delete_services == std::vector<std::string>{"d-worker-0"});
}

TEST_CASE("cleanPodPolicy after the job finished: None keeps - Running deletes running and pending pods - All deletes all", "[operator]") {
  for (std::string policy : {"None", "Running", "All"}) {
    World w{job_of("p", {{"Chief", {1, "Never"}}, {"Worker", {2, "Never"}}}, {{"cleanPodPolicy", policy}})};
    w.step();
    w.running("p-chief-0");
    w.running("p-worker-0");
    w.exited("p-worker-1", 0);
    w.step();
    w.exited("p-chief-0", 0);
    w.step();
    REQUIRE(w.job.status->succeeded());
    op::Plan p = w.step();
    std::sort(p.delete_pods.begin(), p.delete_pods.end());
    if (policy == "None") CHECK(p.delete_pods.empty());
    if (policy == "Running") CHECK(p.delete_pods == std::vector<std::string>{"p-worker-0"});
    if (policy == "All") CHECK(p.delete_pods == std::vector<std::string>{"p-chief-0", "p-worker-0", "p-worker-1"});
  }
}

TEST_CASE("ttlSecondsAfterFinished: the job is deleted once its completionTime + ttl has passed", "[operator]") {
  World w{job_of("t", {{"Worker", {1, "Never"}}}, {{"ttlSecondsAfterFinished", 10}})};
  w.step();
  w.exited("t-worker-0", 0);
  op::Plan p = w.step();
  REQUIRE(w.job.status->succeeded());
  CHECK_FALSE(p.delete_job);
  w.now += 10;
  p = w.step();
  CHECK_FALSE(p.delete_job);
  REQUIRE(p.requeue_after);
  w.now += 1;
  p = w.step();
  CHECK(p.delete_job);
}

TEST_CASE("suspend deletes pods and services and says Suspended - resume recreates them and restarts the clock", "[operator]") {
  World w{job_of("s", {{"Worker", {2, "Never"}}})};
  w.step();
  w.running("s-worker-0");
  w.running("s-worker-1");
  w.step();
  w.job.spec.run_policy.suspend = true;
  w.now += 5;
  op::Plan p = w.step();
  CHECK(p.delete_pods.size() == 2);
  CHECK(p.delete_services.size() == 2);
  REQUIRE(w.cond("Suspended"));
  CHECK(w.cond("Suspended")->status == "True");
  CHECK(w.cond("Suspended")->reason == "TFJobSuspended");
  CHECK(w.cond("Suspended")->message == "TFJob s is suspended.");
  CHECK(w.cond("Running")->status == "False");
  CHECK(w.job.status->replica_statuses.at("Worker").active == 0);
  CHECK(w.step().empty());  // stays suspended, creates nothing
  w.job.spec.run_policy.suspend = false;
  w.now += 5;
  p = w.step();
  CHECK(w.cond("Suspended")->status == "False");
  CHECK(w.cond("Suspended")->reason == "TFJobResumed");
  CHECK(w.job.status->start_time == "2025-12-01T10:00:10Z");
  CHECK(p.create_pods.size() == 2);
  CHECK(p.create_services.size() == 2);
}

TEST_CASE("scale down deletes the pods and services beyond replicas - foreign and deleting objects are left alone", "[operator]") {
  World w{job_of("x", {{"Worker", {3, "Never"}}})};
  w.step();
  json stranger = w.pod("x-worker-0");
  stranger["metadata"]["name"] = "other-worker-0";
  stranger["metadata"]["ownerReferences"][0]["uid"] = "someone-else";
  w.seen.pods.push_back(stranger);
  w.job.spec.tf_replica_specs["Worker"].replicas = 1;
  op::Plan p = w.step();
  std::sort(p.delete_pods.begin(), p.delete_pods.end());
  CHECK(p.delete_pods == std::vector<std::string>{"x-worker-1", "x-worker-2"});
  std::sort(p.delete_services.begin(), p.delete_services.end());
  CHECK(p.delete_services == std::vector<std::string>{"x-worker-1", "x-worker-2"});
  // a pod that is going away holds its slot: no second pod is made beside it
  w.pod("x-worker-0")["metadata"]["deletionTimestamp"] = "2025-12-01T10:00:00Z";
  op::Plan q = w.step();
  CHECK(q.create_pods.empty());
  CHECK(q.delete_pods.empty());
}

TEST_CASE("a job being deleted or managed by another controller is not reconciled", "[operator]") {
  TFJob j = job_of("g", {{"Worker", {1, "Never"}}});
  j.metadata.deletion_timestamp = "2025-12-01T10:00:00Z";
  CHECK(op::reconcile(j, {}, T0).empty());
  TFJob k = job_of("k", {{"Worker", {1, "Never"}}}, {{"managedBy", "kueue.x-k8s.io/multikueue"}});
  CHECK(op::reconcile(k, {}, T0).empty());
}

TEST_CASE("update_condition keeps lastTransitionTime while the status stays and ignores repeats", "[operator]") {
  JobStatus st;
  op::update_condition(st, "Running", "True", "TFJobRunning", "m", "t1");
  op::update_condition(st, "Running", "True", "TFJobRunning", "other message", "t2");
  REQUIRE(st.conditions.size() == 1);
  CHECK(st.conditions[0].message == "m");
  CHECK(st.conditions[0].last_update_time == "t1");
  op::update_condition(st, "Running", "True", "Other", "m2", "t3");
  CHECK(st.conditions[0].last_transition_time == "t1");
  CHECK(st.conditions[0].last_update_time == "t3");
  op::update_condition(st, "Restarting", "True", "TFJobRestarting", "r", "t4");
  REQUIRE(st.conditions.size() == 1);
  CHECK(st.conditions[0].type == "Restarting");
}

TEST_CASE("a replica without a tensorflow container gets its pod but no service - and the warning once", "[operator]") {
  World w{job_of("nt", {{"Worker", {1, "Never"}}})};
  w.job.spec.tf_replica_specs["Worker"].template_["spec"]["containers"][0]["name"] = "main";
  op::Plan p = w.step();
  CHECK(p.create_pods.size() == 1);
  CHECK(p.create_services.empty());
  int warnings = 0;
  for (const auto& e : p.events) warnings += e.reason == "FailedCreateService";
  CHECK(warnings == 1);
  op::Plan q = w.step();
  CHECK(q.events.empty());
  CHECK(q.empty());
}
