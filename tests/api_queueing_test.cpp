// The queueing kinds as value types (api/k8s/kueue.hpp, api/k8s/gang.hpp): Kueue's LocalQueue,
// ClusterQueue and Workload, Volcano's and scheduler-plugins' PodGroup, Volcano's Queue and the
// coordination.k8s.io Lease are read as types, written back unchanged (what they do not model
// kept), and a field of the wrong type from a server is kept as it came and not read.
#include <catch2/catch.hpp>

#include <tfjob/api/k8s/gang.hpp>
#include <tfjob/api/k8s/kueue.hpp>

using nlohmann::json;
namespace k8s = tfjob::k8s;

TEST_CASE("a Kueue ClusterQueue's quota is read as types and written back unchanged", "[api][k8s][queueing][roundtrip]") {
  // kueue v1beta1 clusterqueue_types.go, as `kubectl get clusterqueue -o json` shows one
  const json j = json::parse(R"({
    "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
    "metadata": {"name": "team-cq", "uid": "c1", "generation": 3, "finalizers": ["kueue.x-k8s.io/resource-in-use"]},
    "spec": {"cohort": "research", "namespaceSelector": {}, "queueingStrategy": "BestEffortFIFO",
             "preemption": {"reclaimWithinCohort": "Never", "withinClusterQueue": "LowerPriority"},
             "flavorFungibility": {"whenCanBorrow": "Borrow", "whenCanPreempt": "TryNextFlavor"},
             "resourceGroups": [{"coveredResources": ["cpu", "nvidia.com/gpu"],
                                 "flavors": [{"name": "a100", "resources": [{"name": "cpu", "nominalQuota": "64"},
                                                                              {"name": "nvidia.com/gpu", "nominalQuota": "8", "borrowingLimit": "4", "lendingLimit": "2"}]},
                                             {"name": "spot", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "4"}]}]}]},
    "status": {"pendingWorkloads": 5, "reservingWorkloads": 1, "admittedWorkloads": 1,
               "flavorsReservation": [{"name": "a100", "resources": [{"name": "nvidia.com/gpu", "total": "8", "borrowed": "0"}]}],
               "pendingWorkloadsStatus": {"head": [{"name": "other", "namespace": "team-b"}, {"name": "tfjob-q-1a2b3", "namespace": "team-a"}],
                                          "lastChangeTime": "2026-01-02T03:04:05Z"},
               "conditions": [{"type": "Active", "status": "True", "reason": "Ready", "message": "Can admit new workloads",
                               "lastTransitionTime": "2026-01-02T03:04:05Z", "observedGeneration": 3}]}})");
  const auto cq = j.get<k8s::ClusterQueue>();
  CHECK(cq.metadata.name == "team-cq");
  CHECK(cq.in_cohort());
  REQUIRE(cq.spec.resource_groups.size() == 1);
  const auto& g = cq.spec.resource_groups[0];
  CHECK(g.covered_resources == std::vector<std::string>{"cpu", "nvidia.com/gpu"});
  REQUIRE(g.flavors.size() == 2);
  CHECK(g.flavors[0].name == "a100");
  const auto& gpu = g.flavors[0].resources.at(1);
  CHECK(gpu.name == "nvidia.com/gpu");
  CHECK(gpu.nominal_quota == std::optional<std::string>("8"));
  CHECK(gpu.borrowing_limit == std::optional<std::string>("4"));
  CHECK(gpu.lending_limit == std::optional<std::string>("2"));
  CHECK_FALSE(g.flavors[1].resources.at(0).borrowing_limit);  // no limit: may borrow all the cohort lends
  CHECK(cq.status.pending_workloads == std::optional<std::int64_t>(5));
  REQUIRE(cq.status.pending_workloads_status);
  REQUIRE(cq.status.pending_workloads_status->head.size() == 2);
  CHECK(cq.status.pending_workloads_status->head[1].name == "tfjob-q-1a2b3");
  CHECK(cq.status.pending_workloads_status->head[1].namespace_ == "team-a");
  REQUIRE(k8s::find_condition(cq.status.conditions, "Active"));
  CHECK(k8s::find_condition(cq.status.conditions, "Active")->observed_generation == std::optional<std::int64_t>(3));
  CHECK(json(cq) == j);  // preemption, flavorsReservation, ... kept in `other`
  // v1beta2's cohortName counts as a cohort too; a quota written as a number reads as its
  // text (apimachinery's Quantity), and is written back as that text, as Go writes it
  json v2 = j;
  v2["spec"].erase("cohort");
  v2["spec"]["cohortName"] = "research";
  v2["spec"]["resourceGroups"][0]["flavors"][1]["resources"][0]["nominalQuota"] = 4;
  const auto cq2 = v2.get<k8s::ClusterQueue>();
  CHECK(cq2.in_cohort());
  CHECK(cq2.spec.resource_groups[0].flavors[1].resources[0].nominal_quota == std::optional<std::string>("4"));
  CHECK(json(cq2)["spec"]["resourceGroups"][0]["flavors"][1]["resources"][0]["nominalQuota"] == "4");
  v2["spec"].erase("cohortName");
  CHECK_FALSE(v2.get<k8s::ClusterQueue>().in_cohort());
}

TEST_CASE("a Kueue LocalQueue and Workload are read as types and written back unchanged", "[api][k8s][queueing][roundtrip]") {
  const json lqj = json::parse(R"({
    "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue",
    "metadata": {"name": "team-gpus", "namespace": "team-a"},
    "spec": {"clusterQueue": "team-cq", "stopPolicy": "None"},
    "status": {"pendingWorkloads": 3, "reservingWorkloads": 1, "admittedWorkloads": 1,
               "flavorUsage": [{"name": "a100", "resources": [{"name": "nvidia.com/gpu", "total": "8"}]}]}})");
  const auto lq = lqj.get<k8s::LocalQueue>();
  CHECK(lq.spec.cluster_queue == "team-cq");
  CHECK(lq.status.pending_workloads == std::optional<std::int64_t>(3));
  CHECK(lq.status.admitted_workloads == std::optional<std::int64_t>(1));
  CHECK(json(lq) == lqj);
  CHECK_FALSE(json::parse(R"({"kind": "LocalQueue", "status": {}})").get<k8s::LocalQueue>().status.pending_workloads);  // none: unset, not 0

  const json wj = json::parse(R"({
    "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
    "metadata": {"name": "tfjob-q-1a2b3", "namespace": "team-a", "labels": {"kueue.x-k8s.io/job-uid": "u-1"},
                 "ownerReferences": [{"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "name": "q", "uid": "u-1", "controller": true}]},
    "spec": {"queueName": "team-gpus", "priority": 0, "active": true,
             "podSets": [{"name": "worker", "count": 2, "template": {"spec": {"containers": [{"name": "tensorflow"}]}}}]},
    "status": {"admission": {"clusterQueue": "team-cq", "podSetAssignments": [{"name": "worker", "flavors": {"nvidia.com/gpu": "a100"}}]},
               "requeueState": {"count": 1},
               "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": "Quota reserved in ClusterQueue team-cq",
                               "lastTransitionTime": "2026-01-02T03:04:05Z"},
                              {"type": "Admitted", "status": "False", "reason": "Pending", "message": "The workload has not all checks ready"}]}})");
  const auto w = wj.get<k8s::Workload>();
  CHECK(w.spec.queue_name == "team-gpus");
  CHECK(w.spec.priority == std::optional<std::int32_t>(0));
  CHECK(w.spec.active == std::optional<bool>(true));
  REQUIRE(w.status.admission);
  CHECK(w.status.admission->cluster_queue == "team-cq");
  REQUIRE(w.condition("Admitted"));
  CHECK(w.condition("Admitted")->status == "False");
  CHECK(w.condition("Admitted")->message == "The workload has not all checks ready");
  CHECK(w.condition("Evicted") == nullptr);
  CHECK(w.metadata.owner_references.at(0).uid == "u-1");
  CHECK(json(w) == wj);  // podSets as they came, requeueState kept
}

TEST_CASE("Volcano's and scheduler-plugins' PodGroup, Volcano's Queue and a Lease are read as types", "[api][k8s][queueing][roundtrip]") {
  // volcano.sh/apis pkg/apis/scheduling/v1beta1/types.go
  const json vj = json::parse(R"({
    "apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
    "metadata": {"name": "q", "namespace": "team-a", "uid": "pg-1"},
    "spec": {"minMember": 2, "queue": "research", "priorityClassName": "high", "minResources": {"nvidia.com/gpu": "8", "cpu": "4"},
             "minTaskMember": {"worker": 2}},
    "status": {"phase": "Pending", "running": 1,
               "conditions": [{"type": "Unschedulable", "status": "True", "transitionID": "t-1", "reason": "NotEnoughResources",
                               "message": "2/2 tasks in gang unschedulable: pod group is not ready", "lastTransitionTime": "2026-01-02T03:04:05Z"}]}})");
  const auto pg = vj.get<k8s::PodGroup>();
  CHECK(pg.spec.min_member == std::optional<std::int32_t>(2));
  CHECK(pg.spec.queue == "research");
  CHECK(pg.spec.min_resources.at("nvidia.com/gpu") == "8");
  CHECK(pg.status.phase == "Pending");
  CHECK(pg.status.running == 1);
  REQUIRE(k8s::find_condition(pg.status.conditions, "Unschedulable"));
  CHECK(k8s::find_condition(pg.status.conditions, "Unschedulable")->reason == "NotEnoughResources");
  CHECK(json(pg) == vj);  // transitionID, minTaskMember kept
  // scheduler-plugins apis/scheduling/v1alpha1/types.go: the same struct reads its fields
  const json sj = json::parse(R"({
    "apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup", "metadata": {"name": "q", "namespace": "team-a"},
    "spec": {"minMember": 3, "scheduleTimeoutSeconds": 60},
    "status": {"phase": "Scheduling", "occupiedBy": "team-a/q", "scheduleStartTime": "2026-01-02T03:04:05Z"}})");
  const auto spg = sj.get<k8s::PodGroup>();
  CHECK(spg.spec.min_member == std::optional<std::int32_t>(3));
  CHECK(spg.spec.schedule_timeout_seconds == std::optional<std::int32_t>(60));
  CHECK(spg.status.phase == "Scheduling");
  CHECK(spg.status.occupied_by == "team-a/q");
  CHECK(json(spg) == sj);

  const json qj = json::parse(R"({
    "apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "research"},
    "spec": {"weight": 1, "reclaimable": true, "capability": {"nvidia.com/gpu": "16"}, "guarantee": {}},
    "status": {"state": "Open", "pending": 2, "running": 1, "allocated": {"nvidia.com/gpu": "8"}}})");
  const auto vq = qj.get<k8s::VolcanoQueue>();
  CHECK(vq.spec.weight == 1);
  CHECK(vq.spec.capability.at("nvidia.com/gpu") == "16");
  CHECK(vq.status.state == "Open");
  CHECK(vq.status.pending == 2);
  CHECK(json(vq) == qj);

  // k8s.io/api coordination/v1 types.go: kube-scheduler's leader-election record
  const json lj = json::parse(R"({
    "apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "volcano", "namespace": "volcano-system"},
    "spec": {"holderIdentity": "volcano-scheduler-7d9f_1", "leaseDurationSeconds": 15, "acquireTime": "2026-01-02T03:04:05.000000Z",
             "renewTime": "2026-01-02T03:05:05.000000Z", "leaseTransitions": 2}})");
  const auto l = lj.get<k8s::Lease>();
  CHECK(l.metadata.name == "volcano");
  CHECK(l.spec.holder_identity == std::optional<std::string>("volcano-scheduler-7d9f_1"));
  CHECK(l.spec.lease_duration_seconds == std::optional<std::int32_t>(15));
  CHECK(l.spec.lease_transitions == std::optional<std::int32_t>(2));
  CHECK(json(l) == lj);
}

TEST_CASE("a queueing object's field of the wrong type stays as it came and is not read", "[api][k8s][queueing][hostile]") {
  const json j = json::parse(R"({
    "kind": "ClusterQueue", "metadata": {"name": "cq"},
    "spec": {"cohort": 7, "resourceGroups": [{"flavors": [{"name": "f", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": true,
                                                                                        "borrowingLimit": [1]}]}]}]},
    "status": {"pendingWorkloads": "five", "pendingWorkloadsStatus": {"head": [{"name": "w"}, 3]}}})");
  k8s::ClusterQueue cq;
  REQUIRE_NOTHROW(cq = j.get<k8s::ClusterQueue>());
  CHECK_FALSE(cq.in_cohort());
  const auto& r = cq.spec.resource_groups.at(0).flavors.at(0).resources.at(0);
  CHECK(r.name == "nvidia.com/gpu");
  CHECK_FALSE(r.nominal_quota);    // not a quantity: not read
  CHECK_FALSE(r.borrowing_limit);
  CHECK_FALSE(cq.status.pending_workloads);
  REQUIRE(cq.status.pending_workloads_status);
  CHECK(cq.status.pending_workloads_status->head.empty());  // an item that is not an object: the list is not modeled
  CHECK(json(cq) == j);                                     // and nothing is lost

  const json w = json::parse(R"({"kind": "Workload", "spec": {"queueName": ["q"]}, "status": {"conditions": [{"type": "Admitted", "status": true}]}})");
  const auto wl = w.get<k8s::Workload>();
  CHECK(wl.spec.queue_name.empty());
  REQUIRE(wl.condition("Admitted"));
  CHECK(wl.condition("Admitted")->status.empty());
  CHECK(json(wl) == w);
  const json pg = json::parse(R"({"kind": "PodGroup", "spec": {"minMember": "2"}, "status": {"phase": 1}})");
  CHECK_FALSE(pg.get<k8s::PodGroup>().spec.min_member);
  CHECK(json(pg.get<k8s::PodGroup>()) == pg);
  CHECK_THROWS_WITH(json::array().get<k8s::Workload>(), Catch::Contains("a Workload must be a JSON object, not array"));
  CHECK_THROWS_WITH(json("x").get<k8s::Lease>(), Catch::Contains("a Lease must be a JSON object, not string"));
}
