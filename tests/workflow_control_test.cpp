// Changing a job that exists, as a user does it, against the fake API server's operator
// (the same reconcile, tests/support/operator/, as the real node's controller stand-in): suspend
// (pods deleted, the job kept, Suspended), resume (pods recreated, Suspended False,
// Running again), submit --suspend, scale --workers where enableDynamicWorker allows it,
// and each refusal with its reason.
#include <catch2/catch.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_cluster.hpp"
#include "support/workflow_run.hpp"

#include <tfjob/workflow/control.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <thread>

using nlohmann::json;
using tfjob::test::ContainerScript;

namespace {

struct Cluster : tfjob::test::FakeCluster {
  Cluster() : FakeCluster(tfjob::test::with_controllers({}), "wf-control") {
    // every pod of these jobs runs until the test ends: only the operator removes them
    ContainerScript s;
    s.lines = {"training"};
    s.exit_code = std::nullopt;
    server->kubelet().set_default_job_script(s);
  }
  std::vector<std::string> pods_of(const std::string& job) const {
    std::vector<std::string> names;
    for (const auto& p : server->list_objects("pods", "default"))
      if (p.value("/metadata/labels/training.kubeflow.org~1job-name"_json_pointer, std::string()) == job &&
          !p["metadata"].contains("deletionTimestamp"))
        names.push_back(p["metadata"]["name"]);
    std::sort(names.begin(), names.end());
    return names;
  }
  json condition(const std::string& job, const std::string& type) const {
    auto j = server->get_object("tfjobs", "default", job);
    REQUIRE(j);
    for (const auto& c : j->value("/status/conditions"_json_pointer, json::array()))
      if (c.value("type", "") == type) return c;
    return json();
  }
};

/// Polls `done` (the server's state, which the operator changes on its own thread) until it
/// holds or 30 s pass.
bool eventually(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

}  // namespace

TEST_CASE("suspend and resume: the operator deletes the pods and keeps the job, then recreates them", "[workflow][control]") {
  Cluster c;
  auto r = c.run({"submit", "--name", "long", "--image", "tensorflow/tensorflow:2.15.0", "--chief", "--workers", "2", "--gpus", "0"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  r = c.run({"wait", "long", "--for=condition=Running", "--timeout=60s"});
  REQUIRE(r.exit_code == 0);
  const std::vector<std::string> all = {"long-chief-0", "long-worker-0", "long-worker-1"};
  REQUIRE(c.pods_of("long") == all);

  r = c.run({"suspend", "long"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "tfjob.kubeflow.org/long suspended\n");
  r = c.run({"wait", "long", "--for=condition=Suspended", "--timeout=60s"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(eventually([&] { return c.pods_of("long").empty(); }));
  auto job = c.server->get_object("tfjobs", "default", "long");
  REQUIRE(job);  // kept
  CHECK(job->at("spec").at("runPolicy").at("suspend") == true);
  CHECK(c.condition("long", "Suspended")["reason"] == "TFJobSuspended");
  CHECK(c.condition("long", "Running")["status"] == "False");
  // the same again changes nothing
  r = c.run({"suspend", "long"});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "tfjob.kubeflow.org/long already suspended\n");
  // explain says why nothing runs
  r = c.run({"explain", "long"});
  CHECK_THAT(r.out, Catch::Contains("suspend"));

  r = c.run({"resume", "long"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "tfjob.kubeflow.org/long resumed\n");
  CHECK(eventually([&] { return c.pods_of("long") == all; }));
  CHECK(eventually([&] { return c.condition("long", "Suspended")["status"] == "False"; }));
  CHECK(c.condition("long", "Suspended")["reason"] == "TFJobResumed");
  r = c.run({"wait", "long", "--for=condition=Running", "--timeout=60s"});
  CHECK(r.exit_code == 0);
  CHECK(eventually([&] { return c.condition("long", "Running")["status"] == "True"; }));
  r = c.run({"resume", "long"});
  CHECK(r.out == "tfjob.kubeflow.org/long already resumed\n");

  SECTION("not found, finished: refused with the reason, the others still done") {
    json done = *c.server->get_object("tfjobs", "default", "long");
    done["metadata"] = {{"name", "done"}, {"namespace", "default"}};
    done["status"] = {{"conditions", json::array({{{"type", "Succeeded"}, {"status", "True"}, {"reason", "TFJobSucceeded"}}})}};
    c.server->put_object(done);
    r = c.run({"suspend", "nope", "done", "long"});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("Error from server (NotFound): tfjobs.kubeflow.org \"nope\" not found in namespace \"default\"") &&
                          Catch::Contains("error: tfjob default/done: the job has Succeeded: the operator only cleans up a finished job, it does not suspend it"));
    CHECK(r.out == "tfjob.kubeflow.org/long suspended\n");
  }
}

TEST_CASE("submit --suspend and --local-queue: created without pods, Suspended, resume starts it", "[workflow][control]") {
  Cluster c;
  auto r = c.run({"submit", "--name", "later", "--image", "tensorflow/tensorflow:2.15.0", "--workers", "2", "--gpus", "0", "--suspend"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  r = c.run({"wait", "later", "--for=condition=Suspended", "--timeout=60s"});
  CHECK(r.exit_code == 0);
  CHECK(c.pods_of("later").empty());
  r = c.run({"resume", "later"});
  REQUIRE(r.exit_code == 0);
  CHECK(eventually([&] { return c.pods_of("later").size() == 2; }));

  // Kueue's job: the label and suspend; resuming it by hand is said to be Kueue's business
  r = c.run({"submit", "--name", "queued", "--image", "tensorflow/tensorflow:2.15.0", "--gpus", "0", "--local-queue", "team-gpus"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto job = c.server->get_object("tfjobs", "default", "queued");
  REQUIRE(job);
  CHECK(job->at("metadata").at("labels").at("kueue.x-k8s.io/queue-name") == "team-gpus");
  r = c.run({"resume", "queued"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("note: the job is in Kueue LocalQueue \"team-gpus\": Kueue suspends it again unless its Workload is admitted"));
}

TEST_CASE("scale --workers: only where enableDynamicWorker allows it, refused with the reason otherwise", "[workflow][control]") {
  Cluster c;
  auto r = c.run({"submit", "--name", "fixed", "--image", "tensorflow/tensorflow:2.15.0", "--chief", "--workers", "2", "--gpus", "0"});
  REQUIRE(r.exit_code == 0);
  r = c.run({"scale", "fixed", "--workers", "3"});
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("error: tfjob default/fixed: enableDynamicWorker is not set: every pod's TF_CONFIG lists the Workers"));
  CHECK(c.server->get_object("tfjobs", "default", "fixed")->at("spec").at("tfReplicaSpecs").at("Worker").at("replicas") == 2);

  r = c.run({"submit", "--name", "elastic", "--image", "tensorflow/tensorflow:2.15.0", "--chief", "--workers", "2", "--gpus", "0",
             "--dynamic-worker"});
  REQUIRE(r.exit_code == 0);
  CHECK(eventually([&] { return c.pods_of("elastic").size() == 3; }));
  r = c.run({"scale", "elastic", "--workers", "4"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "tfjob.kubeflow.org/elastic scaled\n");
  CHECK(eventually([&] {
    return c.pods_of("elastic") == std::vector<std::string>{"elastic-chief-0", "elastic-worker-0", "elastic-worker-1", "elastic-worker-2", "elastic-worker-3"};
  }));
  r = c.run({"scale", "elastic", "--workers", "1"});
  REQUIRE(r.exit_code == 0);
  CHECK(eventually([&] { return c.pods_of("elastic") == std::vector<std::string>{"elastic-chief-0", "elastic-worker-0"}; }));
  r = c.run({"scale", "elastic", "--workers", "1"});
  CHECK(r.out == "tfjob.kubeflow.org/elastic unchanged\n");
  r = c.run({"scale", "nope", "--workers", "1"});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("\"nope\" not found"));
  r = c.run({"scale", "elastic"});
  CHECK(r.exit_code == 64);
}

TEST_CASE("control rules: pure refusals and patches", "[workflow][control][unit]") {
  tfjob::TFJob j = tfjob::TFJobBuilder("j").image("i").workers(2).build_unchecked();
  CHECK(tfjob::workflow::suspend_patch(true) == json::parse(R"({"spec":{"runPolicy":{"suspend":true}}})"));
  CHECK(tfjob::workflow::scale_patch(3) == json::parse(R"({"spec":{"tfReplicaSpecs":{"Worker":{"replicas":3}}}})"));
  CHECK(tfjob::workflow::suspend_refusal(j, true).empty());
  CHECK_THAT(tfjob::workflow::scale_refusal(j, 3), Catch::Contains("enableDynamicWorker is not set"));
  j.spec.enable_dynamic_worker = true;
  CHECK(tfjob::workflow::scale_refusal(j, 3).empty());
  CHECK_THAT(tfjob::workflow::scale_refusal(j, -1), Catch::Contains("0 or more"));
  j.status = tfjob::JobStatus{};
  j.status->conditions.push_back({});
  j.status->conditions.back().type = "Failed";
  j.status->conditions.back().status = "True";
  CHECK(tfjob::workflow::suspend_refusal(j, false) == "the job has Failed: the operator only cleans up a finished job, it does not resume it");
  CHECK_THAT(tfjob::workflow::scale_refusal(j, 3), Catch::Contains("the job has Failed"));
  tfjob::TFJob ps_only = tfjob::TFJobBuilder("p").image("i").ps(1).build_unchecked();
  ps_only.spec.enable_dynamic_worker = true;
  CHECK(tfjob::workflow::scale_refusal(ps_only, 1) == "the job has no Worker replicas to scale");
  tfjob::TFJob mk = tfjob::TFJobBuilder("k").image("i").managed_by(tfjob::managed_by_multikueue).build_unchecked();
  auto notes = tfjob::workflow::suspend_notes(mk, true);
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Catch::Contains("managed by kueue.x-k8s.io/multikueue"));
}
