// Pure workflow logic: job summaries, chief selection, progress lines, GPU preflight.
#include <catch2/catch.hpp>

#include <tfjob/workflow/cluster.hpp>
#include <tfjob/workflow/logs.hpp>
#include <tfjob/workflow/pods.hpp>
#include <tfjob/workflow/preflight.hpp>
#include <tfjob/workflow/progress.hpp>
#include <tfjob/workflow/status.hpp>

using nlohmann::json;
using namespace tfjob::workflow;

namespace {
json pod(const std::string& name, json labels, const std::string& phase = "Running", const std::string& node = "n1",
         const std::string& created = "2024-01-01T00:00:00Z") {
  return {{"metadata", {{"name", name}, {"labels", labels}, {"creationTimestamp", created}, {"uid", name + "-uid"}}},
          {"spec", {{"nodeName", node}, {"containers", json::array({{{"name", "tensorflow"}}})}}},
          {"status", {{"phase", phase}}}};
}
json lab(const std::string& type, int idx, bool master = false) {
  json l = {{"training.kubeflow.org/job-name", "j"},
            {"training.kubeflow.org/replica-type", type},
            {"training.kubeflow.org/replica-index", std::to_string(idx)}};
  if (master) l["training.kubeflow.org/job-role"] = "master";
  return l;
}
json job_with(json specs, json status = json::object()) {
  return {{"apiVersion", "kubeflow.org/v1"}, {"kind", "TFJob"},
          {"metadata", {{"name", "j"}, {"namespace", "default"}, {"creationTimestamp", "2024-01-01T00:00:00Z"}}},
          {"spec", {{"tfReplicaSpecs", specs}}}, {"status", status}};
}
json replica(int n, int gpus, const std::string& image = "img") {
  json c = {{"name", "tensorflow"}, {"image", image}};
  if (gpus) c["resources"] = {{"limits", {{"nvidia.com/gpu", gpus}}}};
  return {{"replicas", n}, {"template", {{"spec", {{"containers", json::array({c})}}}}}};
}
/// A served job summarised as get's rows do: its status view, decoded without the rest.
JobSummary summary_of(const json& job) { return summarize(tfjob::detail::decoded<JobStatusView>(job)); }
json node(const std::string& name, int cap, int alloc, bool cordoned = false) {
  json n = {{"metadata", {{"name", name}}}, {"status", {{"capacity", {{"cpu", "8"}}}, {"allocatable", {{"cpu", "8"}}}}}};
  if (cap >= 0) n["status"]["capacity"]["nvidia.com/gpu"] = std::to_string(cap);
  if (alloc >= 0) n["status"]["allocatable"]["nvidia.com/gpu"] = std::to_string(alloc);
  if (cordoned) n["spec"]["unschedulable"] = true;
  return n;
}
json gpu_pod(const std::string& node_name, int gpus, const std::string& phase = "Running") {
  json p = pod("p-" + node_name + std::to_string(gpus) + phase, json::object(), phase, node_name);
  p["spec"]["containers"][0]["resources"] = {{"requests", {{"nvidia.com/gpu", std::to_string(gpus)}}}};
  return p;
}
/// Objects as a server sends them, decoded as the SDK's reads decode them (leniently).
tfjob::k8s::Pod pod_of(const json& p) { return tfjob::detail::decoded<tfjob::k8s::Pod>(p); }
std::vector<tfjob::k8s::Pod> pods_of(const std::vector<json>& ps) { return tfjob::detail::decode_each<tfjob::k8s::Pod>(ps); }
std::vector<tfjob::k8s::Event> events_of(const std::vector<json>& es) { return tfjob::detail::decode_each<tfjob::k8s::Event>(es); }
}  // namespace

TEST_CASE("summarize: the last true condition is the state, replicas and GPUs", "[workflow]") {
  json st = {{"conditions", json::array({
                 {{"type", "Created"}, {"status", "True"}, {"reason", "TFJobCreated"}},
                 {{"type", "Running"}, {"status", "False"}},
                 {{"type", "Failed"}, {"status", "True"}, {"reason", "TFJobFailed"}, {"message", "TFJob j has failed because 1 Worker replica(s) failed."}},
             })},
             {"replicaStatuses", {{"Worker", {{"failed", 1}, {"active", 1}}}}}};
  auto s = summary_of(job_with({{"Chief", replica(1, 1)}, {"Worker", replica(2, 2)}}, st));
  CHECK(s.state == "Failed");
  CHECK(s.finished());
  CHECK(s.message.find("1 Worker replica(s) failed") != std::string::npos);
  CHECK(s.gpus == 5);
  CHECK(s.spec_replicas.at("Worker") == 2);
  CHECK(replicas_column(s) == "Chief:0/0/0,Worker:1/0/1");
  CHECK(wait_outcome(s, "Failed") == WaitOutcome::reached);
  CHECK(wait_outcome(s, "succeeded") == WaitOutcome::impossible);
  CHECK(wait_outcome(s, "Created") == WaitOutcome::reached);
  auto empty = summary_of(job_with({{"Worker", replica(1, 0)}}));
  CHECK(empty.state.empty());
  CHECK(wait_outcome(empty, "Running") == WaitOutcome::pending);
}

TEST_CASE("summarize: a served job's status view says what the whole typed job says", "[workflow][typed]") {
  json st = {{"conditions", json::array({{{"type", "Created"}, {"status", "True"}}, {{"type", "Running"}, {"status", "True"}, {"reason", "TFJobRunning"}}})},
             {"replicaStatuses", {{"Worker", {{"active", 2}}}, {"Chief", {{"active", 1}}}}},
             {"startTime", "2024-01-01T00:01:00Z"}};
  json job = job_with({{"Chief", replica(1, 1)}, {"Worker", replica(2, 2)}, {"PS", replica(1, 0)}}, st);
  job["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["initContainers"] =
      json::array({{{"name", "fetch"}, {"resources", {{"requests", {{"nvidia.com/gpu", "4"}}}}}}});  // an init container's ask is a max
  const auto view = tfjob::detail::decoded<JobStatusView>(job);
  CHECK(view.name == "j");
  CHECK(view.namespace_ == "default");
  REQUIRE(view.status);
  CHECK(view.status->start_time == "2024-01-01T00:01:00Z");
  REQUIRE(view.replicas.size() == 3);
  CHECK(view.replicas[2].type == "Worker");
  CHECK(view.replicas[2].gpus_per_pod == 4);
  const JobSummary a = summarize(view);
  const JobSummary b = summarize(tfjob::detail::decoded<tfjob::TFJob>(job));
  CHECK(a.state == "Running");
  CHECK(a.gpus == 1 + 2 * 4);
  for (const JobSummary* s : {&a, &b}) {
    CHECK(s->state == "Running");
    CHECK(s->gpus == 9);
    CHECK(s->creation_timestamp == "2024-01-01T00:00:00Z");
    CHECK(replicas_column(*s) == "Chief:1/0/0,PS:0/0/0,Worker:2/0/0");
    CHECK(s->conditions.size() == 2);
  }
  // a template's fields a summary does not read may be of any shape: the view never looks at them
  job["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["env"] = 7;
  job["spec"]["tfReplicaSpecs"]["Worker"]["template"]["metadata"] = "x";
  CHECK(summary_of(job).gpus == 9);
  // no status yet: no state, the spec's replicas and GPUs all the same
  job.erase("status");
  CHECK(summary_of(job).state.empty());
  CHECK(replicas_column(summary_of(job)) == "Chief:0/0/0,PS:0/0/0,Worker:0/0/0");
}

TEST_CASE("human_duration matches kubectl's ages", "[workflow]") {
  CHECK(human_duration(45) == "45s");
  CHECK(human_duration(119) == "119s");
  CHECK(human_duration(330) == "5m30s");
  CHECK(human_duration(3600 * 2) == "120m");
  CHECK(human_duration(3600 * 5 + 60) == "5h1m");
  CHECK(human_duration(3600 * 30) == "30h");
  CHECK(human_duration(3600 * 24 * 3 + 3600) == "3d1h");
  CHECK(human_duration(3600 * 24 * 100) == "100d");
  auto t = parse_time("2024-01-01T00:00:10Z");
  REQUIRE(t);
  CHECK(age("2024-01-01T00:00:00Z", *t) == "10s");
  CHECK(age("", *t) == "<unknown>");
}

TEST_CASE("select_chief follows the operator's marks, then legacy labels", "[workflow]") {
  std::vector<json> pods = {pod("j-worker-1", lab("worker", 1)), pod("j-worker-0", lab("worker", 0)),
                            pod("j-ps-0", lab("ps", 0))};
  CHECK(select_chief(pods_of(pods))->metadata.name == "j-worker-0");
  pods.push_back(pod("j-master-0", lab("master", 0)));
  CHECK(select_chief(pods_of(pods))->metadata.name == "j-master-0");
  pods.push_back(pod("j-chief-0", lab("chief", 0)));
  CHECK(select_chief(pods_of(pods))->metadata.name == "j-chief-0");
  pods.push_back(pod("j-evaluator-0", lab("evaluator", 0, true)));  // job-role wins over types
  CHECK(select_chief(pods_of(pods))->metadata.name == "j-evaluator-0");

  // tf-operator v1 labels and v1alpha2 labels
  std::vector<json> legacy = {pod("old-worker-0", {{"job-name", "old"}, {"replica-type", "worker"}, {"replica-index", "0"}}),
                              pod("old-ps-0", {{"job-name", "old"}, {"replica-type", "ps"}, {"replica-index", "0"}})};
  CHECK(select_chief(pods_of(legacy))->metadata.name == "old-worker-0");
  legacy.push_back(pod("old-x", {{"job-name", "old"}, {"job-role", "master"}, {"replica-type", "master"}}));
  CHECK(select_chief(pods_of(legacy))->metadata.name == "old-x");
  std::vector<json> alpha = {pod("a-chief-0", {{"tf-job-name", "a"}, {"tf-replica-type", "chief"}, {"tf-replica-index", "0"}})};
  CHECK(select_chief(pods_of(alpha))->metadata.name == "a-chief-0");
  CHECK_FALSE(select_chief(pods_of({pod("x", json::object())})));

  // a recreated pod (same name, newer) beats the terminating one
  json old_pod = pod("j-chief-0", lab("chief", 0), "Failed", "n1", "2024-01-01T00:00:00Z");
  old_pod["metadata"]["deletionTimestamp"] = "2024-01-01T00:01:00Z";
  json new_pod = pod("j-chief-0", lab("chief", 0), "Pending", "", "2024-01-01T00:01:00Z");
  new_pod["metadata"]["uid"] = "new";
  CHECK(select_chief(pods_of({old_pod, new_pod}))->metadata.uid == "new");
  CHECK(select_replica(pods_of(pods), "PS", 0)->metadata.name == "j-ps-0");
  CHECK_FALSE(select_replica(pods_of(pods), "worker", 7));
}

TEST_CASE("pod_info reads exit codes and select_failed finds the culprit", "[workflow]") {
  json ok = pod("j-chief-0", lab("chief", 0, true), "Running");
  json bad = pod("j-worker-1", lab("worker", 1), "Failed");
  bad["status"]["containerStatuses"] = json::array({{{"name", "tensorflow"}, {"restartCount", 2},
                                                     {"state", {{"terminated", {{"exitCode", 137}, {"reason", "OOMKilled"}}}}}}});
  auto i = pod_info(pod_of(bad));
  REQUIRE(i.exit_code);
  CHECK(*i.exit_code == 137);
  CHECK(i.terminated_reason == "OOMKilled");
  CHECK(i.restarts == 2);
  CHECK(i.replica_type == "worker");
  CHECK(i.replica_index == 1);
  CHECK(select_failed(pods_of({ok, bad}))->metadata.name == "j-worker-1");
  CHECK_FALSE(select_failed(pods_of({ok})));
}

TEST_CASE("progress shows pods by phase and the scheduler's reason", "[workflow]") {
  json job = job_with({{"Chief", replica(1, 1)}, {"Worker", replica(2, 1)}},
                      {{"conditions", json::array({{{"type", "Created"}, {"status", "True"}}})}});
  std::vector<json> pods = {pod("j-chief-0", lab("chief", 0, true), "Running"),
                            pod("j-worker-0", lab("worker", 0), "Pending", ""),
                            pod("j-worker-1", lab("worker", 1), "Pending", "")};
  std::vector<json> events = {
      {{"involvedObject", {{"kind", "Pod"}, {"name", "j-worker-0"}}}, {"reason", "FailedScheduling"},
       {"message", "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."}, {"lastTimestamp", "2024-01-01T00:00:05Z"}},
      {{"involvedObject", {{"kind", "Pod"}, {"name", "j-worker-0"}}}, {"reason", "FailedScheduling"},
       {"message", "old"}, {"lastTimestamp", "2024-01-01T00:00:01Z"}},
      {{"involvedObject", {{"kind", "Pod"}, {"name", "other"}}}, {"reason", "FailedScheduling"}, {"message", "nope"}}};
  auto p = progress(tfjob::detail::decoded<tfjob::TFJob>(job), pods_of(pods), events_of(events));
  CHECK(p.running == 1);
  CHECK(p.pending == 2);
  CHECK(p.expected == 3);
  REQUIRE(p.waiting.size() == 1);
  CHECK(p.line() == "Created · pods: 1 running, 2 pending, 0 succeeded, 0 failed (of 3) · j-worker-0: "
                    "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.");
  pods[2]["spec"]["nodeName"] = "n2";
  pods[2]["status"]["containerStatuses"] = json::array({{{"name", "tensorflow"}, {"state", {{"waiting", {{"reason", "ImagePullBackOff"}, {"message", "pull failed"}}}}}}});
  p = progress(tfjob::detail::decoded<tfjob::TFJob>(job), pods_of(pods), events_of(events));
  REQUIRE(p.waiting.size() == 2);
  CHECK(p.waiting[1].reason == "ImagePullBackOff");
  CHECK(p.line().find("(+1 more)") != std::string::npos);
}

TEST_CASE("gpu_preflight: per-pod fit, total free, missing device plugin", "[workflow]") {
  json job = job_with({{"Chief", replica(1, 1)}, {"Worker", replica(2, 2)}});
  SECTION("no GPU node at all") {
    auto r = gpu_preflight(job, {node("cpu-1", -1, -1)}, std::vector<json>{});
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].is_error());
    CHECK(r.findings[0].message.str().find("NVIDIA device plugin") != std::string::npos);
    CHECK(r.findings[0].code == "NoGpuNodes");
    // the remedy is the fix, in the SDK's names (the plugin words it as `kubectl tfjob gpu-check`)
    CHECK(r.findings[0].fix.str().find("gpu::run_gpu_check") != std::string::npos);
  }
  SECTION("a pod larger than any node") {
    auto r = gpu_preflight(job, {node("g1", 1, 1), node("g2", 4, 4, true), node("cpu", -1, -1)}, std::vector<json>{});
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].is_error());
    CHECK(r.findings[0].message.str().find("each Worker pod asks for 2") != std::string::npos);
    CHECK(r.findings[0].message.str().find("g2 (cordoned)") != std::string::npos);
    CHECK(r.nodes.size() == 2);
  }
  SECTION("enough per node, not enough free in total: a warning") {
    auto r = gpu_preflight(job, {node("g1", 4, 4), node("g2", 2, 2)},
                           std::vector<json>{gpu_pod("g1", 3), gpu_pod("g1", 1, "Succeeded"), gpu_pod("g2", 1)});
    CHECK(r.cluster_free == 2);
    CHECK(r.job_total == 5);
    REQUIRE(r.findings.size() == 1);
    CHECK_FALSE(r.findings[0].is_error());
    CHECK(r.findings[0].message.str().find("only 2 are free") != std::string::npos);
  }
  SECTION("fits") {
    auto r = gpu_preflight(job, {node("g1", 8, 8)}, std::nullopt);
    CHECK(r.findings.empty());
  }
  SECTION("CPU job: nothing to check") {
    auto r = gpu_preflight(job_with({{"Worker", replica(2, 0)}}), {}, std::nullopt);
    CHECK(r.findings.empty());
  }
}

TEST_CASE("TF2 images with a Master replica are warned about", "[workflow]") {
  CHECK(is_tf2_image("tensorflow/tensorflow:2.15.0-gpu"));
  CHECK(is_tf2_image("tensorflow/tensorflow:latest-gpu"));
  CHECK(is_tf2_image("tensorflow/tensorflow"));
  CHECK(is_tf2_image("gcr.io/x/my-tf2-trainer:v3"));
  CHECK(is_tf2_image("registry:5000/tensorflow/tensorflow:2.9.1"));
  CHECK_FALSE(is_tf2_image("tensorflow/tensorflow:1.15.5-gpu"));
  CHECK_FALSE(is_tf2_image("ghcr.io/kubectl-tfjob/mnist:v0.1.0"));
  CHECK_FALSE(is_tf2_image("kubeflow/tf-mnist-with-summaries:latest"));
  CHECK(tf2_master_warning(job_with({{"Master", replica(1, 0, "tensorflow/tensorflow:2.15.0")}})));
  CHECK_FALSE(tf2_master_warning(job_with({{"Chief", replica(1, 0, "tensorflow/tensorflow:2.15.0")}})));
  CHECK_FALSE(tf2_master_warning(job_with({{"Master", replica(1, 0, "tensorflow/tensorflow:1.15.0")}})));
  CHECK(std::string(operator_install_command).find("standalone?ref=v1.9.4") != std::string::npos);
}

#include <tfjob/workflow/describe.hpp>

TEST_CASE("describe gathers spec, conditions, pods, events and TF_CONFIG", "[workflow]") {
  json job = job_with({{"Chief", replica(1, 1, "tensorflow/tensorflow:2.15.0")}, {"Worker", replica(2, 1)}},
                      {{"conditions", json::array({{{"type", "Created"}, {"status", "True"}, {"reason", "TFJobCreated"}},
                                                   {{"type", "Running"}, {"status", "True"}, {"reason", "TFJobRunning"}}})},
                       {"replicaStatuses", {{"Chief", {{"active", 1}}}}}});
  job["spec"]["runPolicy"] = {{"cleanPodPolicy", "Running"}, {"backoffLimit", 3}};
  std::vector<json> pods = {pod("j-worker-0", lab("worker", 0), "Pending", ""), pod("j-chief-0", lab("chief", 0, true))};
  std::vector<json> events = {
      {{"involvedObject", {{"kind", "TFJob"}, {"name", "j"}}}, {"reason", "SuccessfulCreatePod"}, {"message", "Created pod: j-chief-0"},
       {"lastTimestamp", "2024-01-01T00:00:01Z"}},
      {{"involvedObject", {{"kind", "Pod"}, {"name", "unrelated"}}}, {"reason", "X"}, {"message", "no"}}};
  // decoded once, as the client's edge does; describe reads fields
  auto d = describe(tfjob::detail::decoded<tfjob::TFJob>(job), tfjob::detail::decode_each<tfjob::k8s::Pod>(pods),
                    tfjob::detail::decode_each<tfjob::k8s::Event>(events), {{"chief-0", "{\"cluster\":{}}"}}, *parse_time("2024-01-01T00:01:00Z"));
  REQUIRE(d.pods.size() == 2);
  CHECK(d.pods[0].name == "j-chief-0");  // chief sorts first
  CHECK(d.events.size() == 1);
  CHECK(d.events[0].age == "59s");
  CHECK(d.replicas.size() == 2);
  std::string text = render(d, *parse_time("2024-01-01T00:01:00Z"));
  CHECK(text.find("State:        Running") != std::string::npos);
  CHECK(text.find("Clean Pod Policy:  Running") != std::string::npos);
  INFO(text);
  CHECK(text.find("  Chief    1          <default>        1          tensorflow/tensorflow:2.15.0\n") != std::string::npos);
  CHECK(text.find("Created pod: j-chief-0") != std::string::npos);
  CHECK(text.find("chief-0: {\"cluster\":{}}") != std::string::npos);
  CHECK(text.find("unrelated") == std::string::npos);
  // conditions in the operator's order
  CHECK(text.find("Created   True") < text.find("Running   True"));
}

TEST_CASE("summarize: hostile replica and GPU counts are bounded, never overflow", "[workflow]") {
  using tfjob::workflow::integer_quantity;
  CHECK(integer_quantity(nlohmann::json("9223372036854775807k")) == 1000000000);
  CHECK(integer_quantity(nlohmann::json(1e300)) == 1000000000);
  CHECK(integer_quantity(nlohmann::json(-1e300)) == -1000000000);
  CHECK(integer_quantity(nlohmann::json(18446744073709551615ULL)) == 1000000000);
  CHECK(integer_quantity(nlohmann::json("2")) == 2);
  nlohmann::json pod = {{"containers", {{{"resources", {{"limits", {{"nvidia.com/gpu", "9223372036854775807"}}}}}}}}};
  nlohmann::json job = {{"spec", {{"tfReplicaSpecs", {}}}}};
  for (const char* t : {"Chief", "Worker", "PS", "Evaluator"})
    job["spec"]["tfReplicaSpecs"][t] = {{"replicas", 1e300}, {"template", {{"spec", pod}}}};
  auto s = summary_of(job);
  CHECK(s.gpus == 1000000000);
  CHECK(s.spec_replicas["Worker"] == 1000000000);
}

#include <tfjob/api/validation.hpp>

#include <random>
#include <regex>

// lint and validation match names without <regex> (it cost every includer seconds of
// compile time); the matchers must say what the regular expressions they replace say.
TEST_CASE("the name and image matchers agree with the regular expressions they replace", "[workflow][lint]") {
  const std::regex name_re("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  const std::regex subdomain_re("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  const std::regex tf2_word("(^|[^a-z0-9])tf-?2([^0-9]|$)"), v2("^v?2\\.[0-9]+");
  const std::regex cuda13("(^|[^a-z0-9])(cuda-?13|cu13[0-9]?)([^0-9]|$)");
  std::vector<std::string> cases = {"", "a", "-", "a-", "-a", "a.b", "a..b", "a.", ".a", "A_b.c-D", "_a", "a_",
                                    "tf2", "tf-2", "xtf2", "x-tf2", "tf21", "tf2x", "Tf2", "mytf-2.1", "2.1", "v2.1",
                                    "v2.", "2.x", "vv2.1", "cuda13", "cuda-13", "cuda130", "cu13", "cu130", "cu1301",
                                    "x-cu13.0", "acu13", "Acu13", "cuda13-cu13"};
  std::mt19937 rng(13);
  const std::string alphabet = "atfcud-123v.2_A/x9";
  const char* words[] = {"tf2", "tf-2", "cuda13", "cuda-13", "cu13", "cu130", "2.1", "v2.", "a.b"};
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    for (int n = static_cast<int>(rng() % 10); n > 0; --n) s += alphabet[rng() % alphabet.size()];
    if (rng() % 3 == 0) s.insert(rng() % (s.size() + 1), words[rng() % 9]);
    cases.push_back(s);
  }
  for (const auto& s : cases) {
    INFO("'" << s << "'");
    CHECK(tfjob::detail::is_qualified_name_part(s) == std::regex_match(s, name_re));
    CHECK(tfjob::detail::is_dns1123_subdomain(s) == std::regex_match(s, subdomain_re));
    CHECK(tfjob::lint::detail::has_tf2_word(s) == std::regex_search(s, tf2_word));
    CHECK(tfjob::lint::detail::is_v2_tag(s) == std::regex_search(s, v2));
    CHECK(tfjob::lint::detail::has_cuda13_word(s) == std::regex_search(s, cuda13));
  }
}

TEST_CASE("a job read from a server is decoded once: its claims and its log targets come from the type", "[workflow][typed]") {
  const json j = json::parse(R"({
    "apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": "mnist", "namespace": "ml"},
    "spec": {"tfReplicaSpecs": {
      "Chief": {"template": {"spec": {"initContainers": [{"name": "fetch"}], "containers": [{"name": "tensorflow"}],
                                      "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}},
                                                  {"name": "s", "emptyDir": {}}]}}},
      "Worker": {"replicas": 2, "template": {"spec": {"containers": [{"name": "tensorflow"}, {"name": "sidecar"}],
                                                      "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}},
                                                                  {"name": "c", "persistentVolumeClaim": {"claimName": "ckpt"}},
                                                                  {"name": "e", "persistentVolumeClaim": {"claimName": ""}}]}}}},
      "runPolicy": {"cleanPodPolicy": "None", "unknownKnob": 3}},
    "status": {"conditions": [{"type": "Running", "status": "True"}], "somethingNew": {"x": 1}}})");
  const auto job = decode_tfjob(j);
  CHECK(job.metadata.name == "mnist");
  CHECK(claims_of(job) == std::set<std::string>{"ckpt", "data"});  // each once; an empty name is no claim
  CHECK(json(job) == j);                                            // what the SDK does not model is kept

  LogTargetFilter all;
  all.all_containers = true;
  const auto t = log_targets(job, {}, all, true);
  std::vector<std::string> got;
  for (const auto& x : t) got.push_back(x.replica_type + "-" + std::to_string(x.index) + "/" + x.container);
  // reading order: chief first, init containers before containers (kubectl --all-containers)
  CHECK(got == std::vector<std::string>{"chief-0/fetch", "chief-0/tensorflow", "worker-0/tensorflow", "worker-0/sidecar",
                                        "worker-1/tensorflow", "worker-1/sidecar"});
  LogTargetFilter bad;
  bad.indices = {2};
  bad.types = {"worker"};
  CHECK_THROWS_WITH(log_targets(job, {}, bad, true),
                    "TFJob \"mnist\" has no replica with index 2: its replicas are Worker 0-1");
  // a field of the wrong type from a server is not read, and nothing throws
  json odd = j;
  odd["spec"]["tfReplicaSpecs"]["Worker"]["replicas"] = "two";
  CHECK(decode_tfjob(odd).spec.tf_replica_specs.at("Worker").replicas_or_default() == 1);
}

TEST_CASE("sort_pods: chief, master, worker, ps, evaluator, then other types, by index as a number, equal pods in their order", "[workflow][order]") {
  auto ps = pods_of({pod("j-ps-0", lab("ps", 0)), pod("j-worker-10", lab("worker", 10)), pod("j-x-0", lab("aaa", 0)),
                     pod("j-worker-2", lab("worker", 2)), pod("j-evaluator-0", lab("evaluator", 0)),
                     pod("j-chief-0", lab("chief", 0)), pod("j-master-0", lab("master", 0)),
                     pod("b-worker-2", lab("worker", 2)), pod("a-worker-2", lab("worker", 2)), pod("unlabelled", json::object())});
  sort_pods(ps);
  std::vector<std::string> names;
  for (const auto& p : ps) names.push_back(p.metadata.name);
  // unlabelled: no type ("" sorts first of the unknown ones), index -1
  CHECK(names == std::vector<std::string>{"j-chief-0", "j-master-0", "a-worker-2", "b-worker-2", "j-worker-2", "j-worker-10",
                                          "j-ps-0", "j-evaluator-0", "unlabelled", "j-x-0"});
}

TEST_CASE("events_for: the object's events oldest first (lastTimestamp, else eventTime, else firstTimestamp), the same time keeping the list's order", "[workflow][order]") {
  auto ev = [](const std::string& name, const std::string& pod, json times) {
    json e = {{"metadata", {{"name", name}}}, {"involvedObject", {{"kind", "Pod"}, {"name", pod}}}, {"reason", name}};
    e.update(times);
    return e;
  };
  auto es = events_of({ev("c", "p", {{"lastTimestamp", "2024-01-01T00:00:03Z"}}),
                       ev("other", "q", {{"lastTimestamp", "2024-01-01T00:00:00Z"}}),
                       ev("a", "p", {{"eventTime", "2024-01-01T00:00:01.000000Z"}}),
                       ev("b1", "p", {{"firstTimestamp", "2024-01-01T00:00:02Z"}}),
                       ev("b2", "p", {{"lastTimestamp", "2024-01-01T00:00:02Z"}})});
  std::vector<std::string> reasons;
  for (const auto& e : events_for(es, "Pod", "p", "")) reasons.push_back(e.reason);
  CHECK(reasons == std::vector<std::string>{"a", "b1", "b2", "c"});
}

TEST_CASE("stable_order_by: each key computed once, each item moved once, equal keys in their order", "[helpers][order]") {
  struct Item {
    int key, id;
    int* moves;
    Item(int k, int i, int* m) : key(k), id(i), moves(m) {}
    Item(Item&& o) noexcept : key(o.key), id(o.id), moves(o.moves) { ++*moves; }
    Item& operator=(Item&& o) noexcept { key = o.key; id = o.id; moves = o.moves; ++*moves; return *this; }
  };
  int moves = 0, keys = 0;
  std::vector<Item> v;
  v.reserve(200);
  for (int i = 0; i < 200; ++i) v.emplace_back((i * 37) % 7, i, &moves);
  tfjob::detail::stable_order_by(v, [&](const Item& x) { ++keys; return x.key; });
  CHECK(keys == 200);
  CHECK(moves == 200);  // into the ordered list; the list itself is then moved whole
  for (std::size_t i = 1; i < v.size(); ++i) {
    CHECK(v[i - 1].key <= v[i].key);
    if (v[i - 1].key == v[i].key) CHECK(v[i - 1].id < v[i].id);
  }
  std::vector<Item> none;
  tfjob::detail::stable_order_by(none, [](const Item& x) { return x.key; });
  CHECK(none.empty());
}
