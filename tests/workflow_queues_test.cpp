// Where a job would wait on a shared GPU cluster, before it is submitted: the pure rules of
// workflow/queue_findings.hpp over what discovery served and which named queues exist (Kueue's
// LocalQueue, Volcano's Queue, a multi-replica GPU job without gang scheduling where a gang
// scheduler runs), and the lookups of workflow/queues.hpp against the fake API server, which
// serves none of them; once it exists, workflow/queue_wait.hpp's over its Workload and PodGroup.
#include <catch2/catch.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_cluster.hpp"

#include <tfjob/kube/client.hpp>
#include <tfjob/workflow/queues.hpp>

using nlohmann::json;
using tfjob::k8s::ClusterQueue;
using tfjob::workflow::QueueFacts;
using tfjob::workflow::queue_findings;

namespace {

tfjob::TFJob job_of(tfjob::TFJobBuilder b) { return b.namespace_("team-a").build_unchecked(); }

std::vector<std::string> codes(const std::vector<tfjob::Finding>& fs) {
  std::vector<std::string> c;
  for (const auto& f : fs) c.push_back(f.code);
  return c;
}

}  // namespace

TEST_CASE("queue findings: Kueue, Volcano and gang scheduling, from the cluster's facts", "[workflow][queues][unit]") {
  const auto kueue_job = job_of(tfjob::TFJobBuilder("q").image("i").workers(2).gpus(1).local_queue("team-gpus"));
  QueueFacts none;
  SECTION("a LocalQueue on a cluster without Kueue: nothing would unsuspend the job") {
    auto f = queue_findings(kueue_job, none);
    REQUIRE(codes(f) == std::vector<std::string>{"KueueMissing"});
    CHECK(f[0].message == "the job names Kueue LocalQueue \"team-gpus\", but this cluster does not serve Kueue (kueue.x-k8s.io "
                          "LocalQueue, ClusterQueue, Workload): nothing will unsuspend it");
    CHECK(f[0].evidence == std::vector<std::string>{"label kueue.x-k8s.io/queue-name=team-gpus"});
    QueueFacts forbidden;  // discovery not readable: no absence claimed
    forbidden.systems.known = false;
    CHECK(queue_findings(kueue_job, forbidden).empty());
  }
  SECTION("Kueue, the LocalQueue missing or there") {
    QueueFacts k;
    k.systems.kueue = true;
    k.local_queue_exists = false;
    auto f = queue_findings(kueue_job, k);
    REQUIRE(codes(f) == std::vector<std::string>{"LocalQueueNotFound"});
    CHECK(f[0].message == "Kueue LocalQueue \"team-gpus\" does not exist in namespace \"team-a\": Kueue admits no Workload from it, so "
                          "the job stays suspended");
    CHECK(f[0].fix == "kubectl get localqueues -n team-a (the queues this namespace has)");
    k.local_queue_exists = true;
    CHECK(queue_findings(kueue_job, k).empty());
    k.local_queue_exists.reset();  // forbidden to read: nothing said
    CHECK(queue_findings(kueue_job, k).empty());
    // Kueue admits the job whole: no gang warning even where Volcano runs too
    k.systems.volcano = true;
    CHECK(queue_findings(kueue_job, k).empty());
  }
  SECTION("a multi-replica GPU job without gang scheduling where a gang scheduler runs") {
    const auto plain = job_of(tfjob::TFJobBuilder("g").image("i").chief().workers(3).ps(1).gpus(1));
    CHECK(queue_findings(plain, none).empty());  // no gang scheduler: nothing to suggest
    QueueFacts v;
    v.systems.volcano = true;
    auto f = queue_findings(plain, v);
    REQUIRE(codes(f) == std::vector<std::string>{"NoGangScheduling"});
    CHECK(f[0].message == "4 pods ask for GPUs without gang scheduling, on a cluster that has Volcano: some may start and hold "
                          "their GPUs while the rest wait, and two such jobs can block each other");
    CHECK(f[0].fix == "set runPolicy.schedulingPolicy.minAvailable to 5 (every replica)");
    QueueFacts sp;
    sp.systems.scheduler_plugins = true;
    CHECK_THAT(queue_findings(plain, sp).at(0).message.str(), Catch::Contains("scheduler-plugins' coscheduling"));
    CHECK(queue_findings(job_of(tfjob::TFJobBuilder("g").image("i").chief().workers(3).gpus(1).gang()), v).empty());
    CHECK(queue_findings(job_of(tfjob::TFJobBuilder("g").image("i").chief().workers(3).gpus(1).min_available(2)), v).empty());
    CHECK(queue_findings(job_of(tfjob::TFJobBuilder("g").image("i").workers(3).gpus(0)), v).empty());  // CPU only
    CHECK(queue_findings(job_of(tfjob::TFJobBuilder("g").image("i").workers(1).gpus(8)), v).empty());  // one pod
  }
  SECTION("a Volcano queue that does not exist") {
    const auto vq = job_of(tfjob::TFJobBuilder("v").image("i").workers(2).gpus(1).gang().queue("research"));
    QueueFacts v;
    v.systems.volcano = true;
    v.volcano_queue_exists = false;
    auto f = queue_findings(vq, v);
    REQUIRE(codes(f) == std::vector<std::string>{"VolcanoQueueNotFound"});
    CHECK(f[0].message == "Volcano Queue \"research\" does not exist: the job's PodGroup would wait in it for good");
    v.volcano_queue_exists = true;
    CHECK(queue_findings(vq, v).empty());
  }
}

TEST_CASE("queue lookups against a server without Kueue, Volcano or scheduler-plugins", "[workflow][queues]") {
  tfjob::test::FakeCluster c({}, "wf-queues");
  tfjob::kube::Client client(tfjob::test::admin_config(*c.server));
  auto systems = tfjob::workflow::detect_queue_systems(client);
  CHECK_FALSE(systems.kueue);
  CHECK_FALSE(systems.volcano);
  CHECK_FALSE(systems.scheduler_plugins);
  const auto kueue_job = job_of(tfjob::TFJobBuilder("q").image("i").workers(2).gpus(1).local_queue("team-gpus"));
  CHECK(codes(tfjob::workflow::check_queues(client, "default", kueue_job)) == std::vector<std::string>{"KueueMissing"});
  // submit says it, and still submits (a warning; --strict refuses)
  auto r = c.run({"submit", "--name", "q", "--image", "tensorflow/tensorflow:2.15.0", "--gpus", "0", "--local-queue", "team-gpus"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("warning: the job names Kueue LocalQueue \"team-gpus\", but this cluster does not serve Kueue") &&
                        Catch::Contains("[KueueMissing]"));
  r = c.run({"submit", "--name", "q2", "--image", "tensorflow/tensorflow:2.15.0", "--gpus", "0", "--local-queue", "team-gpus", "--strict"});
  CHECK(r.exit_code == 1);
  CHECK_FALSE(c.server->get_object("tfjobs", "default", "q2"));
}

namespace {

/// A Kueue ClusterQueue as an admin writes it (kueue v1beta1 spec.resourceGroups), as served.
json cluster_queue_json(const std::string& name, json gpu_quota, json borrowing = nullptr, const std::string& cohort = "") {
  json res = json::array({{{"name", "cpu"}, {"nominalQuota", "64"}}});
  if (!gpu_quota.is_null()) {
    json r = {{"name", "nvidia.com/gpu"}, {"nominalQuota", gpu_quota}};
    if (!borrowing.is_null()) r["borrowingLimit"] = borrowing;
    res.push_back(r);
  }
  json covered = gpu_quota.is_null() ? json::array({"cpu"}) : json::array({"cpu", "nvidia.com/gpu"});
  json cq = {{"apiVersion", "kueue.x-k8s.io/v1beta1"}, {"kind", "ClusterQueue"}, {"metadata", {{"name", name}}},
             {"spec", {{"resourceGroups", json::array({{{"coveredResources", covered},
                                                         {"flavors", json::array({{{"name", "default-flavor"}, {"resources", res}}})}}})}}}};
  if (!cohort.empty()) cq["spec"]["cohort"] = cohort;
  return cq;
}

ClusterQueue cluster_queue(const std::string& name, json gpu_quota, json borrowing = nullptr, const std::string& cohort = "") {
  return cluster_queue_json(name, std::move(gpu_quota), std::move(borrowing), cohort).get<ClusterQueue>();
}

}  // namespace

TEST_CASE("queue findings: the ClusterQueue's nvidia.com/gpu quota and the scheduler the pods name", "[workflow][queues][unit]") {
  // 2 Workers with 4 GPUs each: 8 GPUs, a pod set of 8
  const auto job = job_of(tfjob::TFJobBuilder("q").image("i").workers(2).gpus(4).local_queue("team-gpus"));
  QueueFacts k;
  k.systems.kueue = true;
  k.local_queue_exists = true;
  k.cluster_queue_name = "team-cq";
  SECTION("no GPU quota at all: never admitted") {
    k.cluster_queue = cluster_queue("team-cq", nullptr);
    auto f = queue_findings(job, k);
    REQUIRE(codes(f) == std::vector<std::string>{"NoGpuQuota"});
    CHECK(f[0].message == "ClusterQueue \"team-cq\" (of LocalQueue \"team-gpus\") has no nvidia.com/gpu quota: Kueue can never admit "
                          "this job, which asks for 8 GPUs, so it stays suspended");
    CHECK_THAT(f[0].fix.str(), Catch::Contains("ask the cluster's admins for nvidia.com/gpu quota in ClusterQueue team-cq"));
    // a CPU job needs none
    CHECK(queue_findings(job_of(tfjob::TFJobBuilder("c").image("i").workers(2).gpus(0).local_queue("team-gpus")), k).empty());
  }
  SECTION("less quota than the job asks") {
    k.cluster_queue = cluster_queue("team-cq", 6);
    auto f = queue_findings(job, k);
    REQUIRE(codes(f) == std::vector<std::string>{"GpuQuotaTooSmall"});
    CHECK(f[0].message == "the job asks for 8 nvidia.com/gpu, more than ClusterQueue \"team-cq\" can ever give (6): Kueue can never admit it, "
                          "so it stays suspended");
    CHECK(f[0].evidence == std::vector<std::string>{"the job asks for 8 nvidia.com/gpu (Worker: 8)", "flavor default-flavor: nominalQuota 6"});
    k.cluster_queue = cluster_queue("team-cq", "8");  // enough (a quantity string): quiet
    CHECK(queue_findings(job, k).empty());
    k.cluster_queue = cluster_queue("team-cq", 16);
    CHECK(queue_findings(job, k).empty());
  }
  SECTION("borrowing from a cohort") {
    k.cluster_queue = cluster_queue("team-cq", 4, 2, "research");  // 4 + 2 < 8: never
    auto f = queue_findings(job, k);
    REQUIRE(codes(f) == std::vector<std::string>{"GpuQuotaTooSmall"});
    CHECK_THAT(f[0].evidence.at(1), Catch::Equals("flavor default-flavor: nominalQuota 4, borrowingLimit 2"));
    k.cluster_queue = cluster_queue("team-cq", 4, 4, "research");  // 4 + 4: may be admitted
    CHECK(queue_findings(job, k).empty());
    k.cluster_queue = cluster_queue("team-cq", 4, nullptr, "research");  // no limit on borrowing: not claimed
    CHECK(queue_findings(job, k).empty());
    k.cluster_queue = cluster_queue("team-cq", 4, 4);  // borrowingLimit without a cohort borrows nothing
    CHECK(codes(queue_findings(job, k)) == std::vector<std::string>{"GpuQuotaTooSmall"});
  }
  SECTION("each replica type gets one flavor") {
    json cq = cluster_queue_json("team-cq", 4);
    cq["spec"]["resourceGroups"][0]["flavors"].push_back({{"name", "spot"}, {"resources", json::array({{{"name", "nvidia.com/gpu"}, {"nominalQuota", 4}}})}});
    k.cluster_queue = cq.get<ClusterQueue>();  // 4 + 4 in two flavors; the Workers' pod set of 8 fits neither
    auto f = queue_findings(job, k);
    REQUIRE(codes(f) == std::vector<std::string>{"GpuQuotaTooSmall"});
    CHECK(f[0].message == "Worker asks for 8 nvidia.com/gpu, more than any one flavor of ClusterQueue \"team-cq\" gives (at most 4), and "
                          "Kueue gives a replica type one flavor: it can never admit this job, so it stays suspended");
    // a Chief with 4 and a Worker with 4: each fits a flavor
    CHECK(queue_findings(job_of(tfjob::TFJobBuilder("q").image("i").chief().workers(1).gpus(4).local_queue("team-gpus")), k).empty());
  }
  SECTION("a LocalQueue whose ClusterQueue does not exist") {
    k.cluster_queue_missing = true;
    auto f = queue_findings(job, k);
    REQUIRE(codes(f) == std::vector<std::string>{"ClusterQueueNotFound"});
    CHECK(f[0].message == "Kueue LocalQueue \"team-gpus\" points to ClusterQueue \"team-cq\", which does not exist: Kueue admits nothing "
                          "from it, so the job stays suspended");
  }
  SECTION("a malformed ClusterQueue says nothing and does not throw") {
    for (json bad : {json::object(), json{{"spec", {{"resourceGroups", 3}}}}, json{{"spec", {{"resourceGroups", {{{"flavors", "x"}}}}}}},
                     json{{"spec", {{"resourceGroups", {{{"flavors", {{{"resources", {{{"name", "nvidia.com/gpu"}, {"nominalQuota", "-3"}}}}}}}}}}}}}}) {
      k.cluster_queue = bad.get<ClusterQueue>();  // decoded leniently: the wrong fields are kept, not read
      CHECK_NOTHROW(queue_findings(job, k));
    }
  }
  SECTION("--scheduler-name: a scheduler that is not there, or cannot be known") {
    const auto sj = job_of(tfjob::TFJobBuilder("s").image("i").workers(2).gpus(1).gang().scheduler_name("volcano"));
    QueueFacts f;
    f.scheduler_found = false;
    auto fs = queue_findings(sj, f);
    REQUIRE(codes(fs) == std::vector<std::string>{"SchedulerNotFound"});
    CHECK(fs[0].severity == tfjob::Finding::Severity::warning);
    CHECK(fs[0].message == "the pods ask for scheduler \"volcano\", but none of that name was found: if it does not run, they stay Pending "
                           "for good, with no event saying why");
    CHECK(fs[0].evidence.at(1) == "no Lease named volcano in any namespace, no pod named volcano* in kube-system, no event from volcano");
    f.scheduler_found = true;
    CHECK(queue_findings(sj, f).empty());
    f.scheduler_found.reset();  // forbidden to look: said as a note, never a warning
    fs = queue_findings(sj, f);
    REQUIRE(codes(fs) == std::vector<std::string>{"SchedulerUnknown"});
    CHECK(fs[0].severity == tfjob::Finding::Severity::info);
    f.scheduler_found = false;  // the default scheduler is never looked for
    CHECK(queue_findings(job_of(tfjob::TFJobBuilder("d").image("i").workers(2).gpus(1).gang()), f).empty());
  }
}

namespace {

json workload(const std::string& name, const std::string& job_uid, json conditions) {
  return {{"apiVersion", "kueue.x-k8s.io/v1beta1"}, {"kind", "Workload"},
          {"metadata", {{"name", name}, {"namespace", "team-a"}, {"labels", {{"kueue.x-k8s.io/job-uid", job_uid}}},
                        {"ownerReferences", json::array({{{"apiVersion", "kubeflow.org/v1"}, {"kind", "TFJob"}, {"name", "q"}, {"uid", job_uid}}})}}},
          {"spec", {{"queueName", "team-gpus"}}},
          {"status", {{"conditions", conditions}}}};
}

json pod(const std::string& name, const std::string& phase, int gpus) {
  json p = {{"metadata", {{"name", name}, {"labels", {{"training.kubeflow.org/job-name", "q"}, {"training.kubeflow.org/replica-type", "worker"}}}}},
            {"spec", {{"containers", json::array({{{"name", "tensorflow"}}})}}},
            {"status", {{"phase", phase}}}};
  if (gpus) p["spec"]["containers"][0]["resources"] = {{"limits", {{"nvidia.com/gpu", std::to_string(gpus)}}}};
  return p;
}

}  // namespace

TEST_CASE("queue wait findings: Kueue's Workload, the PodGroup, and a job partly Running", "[workflow][queues][unit]") {
  using tfjob::workflow::QueueState;
  // pods and events as a server sends them, decoded as the SDK's reads decode them (leniently)
  auto queue_wait_findings = [](const tfjob::TFJob& j, const std::vector<json>& pods, const std::vector<json>& events,
                                const QueueState& q) {
    return tfjob::workflow::queue_wait_findings(j, tfjob::detail::decode_each<tfjob::k8s::Pod>(pods),
                                                tfjob::detail::decode_each<tfjob::k8s::Event>(events), q);
  };
  using tfjob::k8s::Workload;
  tfjob::TFJob job = job_of(tfjob::TFJobBuilder("q").image("i").workers(2).gpus(4).local_queue("team-gpus"));
  job.metadata.uid = "u-1";
  SECTION("QuotaReserved False: waits in the queue, with Kueue's message and the position") {
    QueueState q;
    q.workloads_read = true;
    auto with_conditions = [](json conditions) { return workload("tfjob-q-1a2b3", "u-1", std::move(conditions)).get<Workload>(); };
    q.workloads.push_back(with_conditions(
        {{{"type", "QuotaReserved"}, {"status", "False"}, {"reason", "Pending"},
          {"message", "couldn't assign flavors to pod set worker: insufficient unused quota for nvidia.com/gpu in flavor default-flavor, 8 more needed"}}}));
    q.local_queue = json{{"metadata", {{"name", "team-gpus"}}}, {"spec", {{"clusterQueue", "team-cq"}}}, {"status", {{"pendingWorkloads", 3}, {"admittedWorkloads", 1}}}}
                        .get<tfjob::k8s::LocalQueue>();
    q.cluster_queue = json{{"metadata", {{"name", "team-cq"}}},
                           {"status", {{"pendingWorkloads", 5},
                                       {"pendingWorkloadsStatus", {{"head", json::array({{{"name", "other"}, {"namespace", "team-b"}},
                                                                                         {{"name", "tfjob-q-1a2b3"}, {"namespace", "team-a"}}})}}}}}}
                          .get<ClusterQueue>();
    auto f = queue_wait_findings(job, {}, {}, q);
    REQUIRE(codes(f) == std::vector<std::string>{"QueuedInKueue"});
    CHECK(f[0].message == "the job waits in Kueue's queue, not for a node: Workload tfjob-q-1a2b3 in LocalQueue \"team-gpus\" (ClusterQueue "
                          "\"team-cq\"): no quota is reserved for it yet (Kueue: \"couldn't assign flavors to pod set worker: insufficient "
                          "unused quota for nvidia.com/gpu in flavor default-flavor, 8 more needed\"); position 2 of 5 in the queue");
    CHECK(f[0].evidence == std::vector<std::string>{
                               "workload/tfjob-q-1a2b3: QuotaReserved False (Pending): couldn't assign flavors to pod set worker: insufficient "
                               "unused quota for nvidia.com/gpu in flavor default-flavor, 8 more needed",
                               "workload/tfjob-q-1a2b3: Admitted not set", "localqueue/team-gpus: 3 pending, 1 admitted",
                               "clusterqueue/team-cq: 5 pending"});
    // quota reserved, admission checks pending
    q.workloads[0] = with_conditions({{{"type", "QuotaReserved"}, {"status", "True"}},
                                      {{"type", "Admitted"}, {"status", "False"}, {"message", "The workload has not all checks ready"}}});
    f = queue_wait_findings(job, {}, {}, q);
    REQUIRE(codes(f) == std::vector<std::string>{"QueuedInKueue"});
    CHECK_THAT(f[0].message.str(), Catch::Contains("its quota is reserved, and it waits for the ClusterQueue's admission checks (Kueue: \"The workload has not all checks ready\")"));
    // admitted: nothing waits (a note while the job is still suspended)
    q.workloads[0] = with_conditions({{{"type", "QuotaReserved"}, {"status", "True"}}, {{"type", "Admitted"}, {"status", "True"}}});
    f = queue_wait_findings(job, {}, {}, q);
    REQUIRE(codes(f) == std::vector<std::string>{"KueueAdmitted"});
    CHECK(f[0].severity == tfjob::Finding::Severity::info);
    // evicted: back in the queue
    q.workloads[0] = with_conditions({{{"type", "QuotaReserved"}, {"status", "False"}},
                                      {{"type", "Evicted"}, {"status", "True"}, {"reason", "Preempted"}, {"message", "Preempted to accommodate a higher priority Workload"}}});
    f = queue_wait_findings(job, {}, {}, q);
    REQUIRE(codes(f) == std::vector<std::string>{"KueueEvicted"});
    CHECK_THAT(f[0].message.str(), Catch::StartsWith("Kueue evicted the job (Preempted) and it waits in its queue again: Workload tfjob-q-1a2b3"));
  }
  SECTION("Kueue served but no Workload for a suspended job") {
    QueueState q;
    q.workloads_read = true;
    auto f = queue_wait_findings(job, {}, {}, q);
    REQUIRE(codes(f) == std::vector<std::string>{"NoWorkload"});
    q.workloads_read = false;  // not readable: nothing claimed
    CHECK(queue_wait_findings(job, {}, {}, q).empty());
  }
  SECTION("Volcano's PodGroup Pending and Inqueue, with its conditions and events") {
    tfjob::TFJob vj = job_of(tfjob::TFJobBuilder("q").image("i").workers(2).gpus(4).gang().queue("research"));
    QueueState q;
    q.pod_group_system = "Volcano";
    q.pod_group = json{{"metadata", {{"name", "q"}}}, {"spec", {{"minMember", 2}, {"queue", "research"}}},
                       {"status", {{"phase", "Pending"}, {"conditions", {{{"type", "Unschedulable"}, {"status", "True"}, {"reason", "NotEnoughResources"},
                                                                          {"message", "2/2 tasks in gang unschedulable: pod group is not ready"}}}}}}}
                      .get<tfjob::k8s::PodGroup>();
    std::vector<json> events = {{{"involvedObject", {{"kind", "PodGroup"}, {"name", "q"}}}, {"reason", "Unschedulable"},
                                 {"message", "queue resource quota insufficient"}, {"type", "Warning"}}};
    auto f = queue_wait_findings(vj, {pod("q-worker-0", "Pending", 4), pod("q-worker-1", "Pending", 4)}, events, q);
    REQUIRE(codes(f) == std::vector<std::string>{"PodGroupWaiting"});
    CHECK(f[0].message == "the job waits in Volcano queue \"research\", not for a node: its PodGroup is Pending until the queue has room for its "
                          "minResources");
    CHECK(f[0].evidence == std::vector<std::string>{"podgroup/q: phase Pending, minMember 2, queue research",
                                                    "podgroup/q: Unschedulable True (NotEnoughResources): 2/2 tasks in gang unschedulable: pod group is not ready",
                                                    "event Unschedulable: queue resource quota insufficient"});
    q.pod_group->status.phase = "Inqueue";
    f = queue_wait_findings(vj, {}, events, q);
    REQUIRE(codes(f) == std::vector<std::string>{"PodGroupWaiting"});
    CHECK_THAT(f[0].message.str(), Catch::StartsWith("the job's Volcano PodGroup is Inqueue: queue \"research\" admitted it, and Volcano starts its pods only when 2 fit at once"));
    q.pod_group->status.phase = "Running";
    CHECK(queue_wait_findings(vj, {}, events, q).empty());
    q.pod_group_system = "scheduler-plugins";
    q.pod_group->status.phase = "Scheduling";
    f = queue_wait_findings(vj, {}, {}, q);
    REQUIRE(codes(f) == std::vector<std::string>{"PodGroupWaiting"});
    CHECK_THAT(f[0].message.str(), Catch::StartsWith("the job's scheduler-plugins PodGroup is Scheduling: coscheduling starts its pods only when 2 fit at once"));
  }
  SECTION("partly Running: the GPUs it holds, and the gang flags that avoid it") {
    tfjob::TFJob pj = job_of(tfjob::TFJobBuilder("q").image("i").workers(4).gpus(2));
    std::vector<json> pods = {pod("q-worker-0", "Running", 2), pod("q-worker-1", "Running", 2), pod("q-worker-2", "Running", 2),
                              pod("q-worker-3", "Pending", 2)};
    auto f = queue_wait_findings(pj, pods, {}, {});
    REQUIRE(codes(f) == std::vector<std::string>{"PartlyRunningHoldsGpus"});
    CHECK(f[0].message == "3 of 4 pods run and hold 6 GPU(s) while 1 wait(s) Pending: a distributed job does not train until every replica is "
                          "there, so those GPUs are held for nothing, and two such jobs can block each other (training-operator #948, #1264)");
    CHECK_THAT(f[0].fix.str(), Catch::StartsWith("set runPolicy.schedulingPolicy.minAvailable to 4 (every replica, TFJobBuilder::gang) or "
                                           "fewer (TFJobBuilder::min_available)"));
    CHECK(f[0].evidence.size() == 4);
    // every pod Running, or none, or a whole gang: nothing held for nothing
    pods[3]["status"]["phase"] = "Running";
    CHECK(queue_wait_findings(pj, pods, {}, {}).empty());
    pods[3]["status"]["phase"] = "Pending";
    CHECK(queue_wait_findings(job_of(tfjob::TFJobBuilder("q").image("i").workers(4).gpus(2).gang()), pods, {}, {}).empty());
    // a finished job holds nothing to say
    tfjob::TFJob done = pj;
    done.status.emplace().conditions.push_back(json{{"type", "Succeeded"}, {"status", "True"}}.get<tfjob::JobCondition>());
    CHECK(queue_wait_findings(done, pods, {}, {}).empty());
  }
}
