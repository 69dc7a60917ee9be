// The local runner: the operator's job rules (pure), the launch plan (pure), and real runs
// whose replicas are tiny shell commands.
#include <catch2/catch.hpp>

#include "support/local_jobs.hpp"

#include <tfjob/api/tf_config.hpp>
#include <tfjob/local/runner.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

using namespace tfjob;
using namespace tfjob::local;
using tfjob::test::local_job;
using tfjob::test::sh_replica;

namespace {

RunOptions quiet_options(const std::string& tag, std::ostream& out, std::ostream& err) {
  RunOptions o;
  o.state_dir = tfjob::test::scratch_dir(tag);
  o.out = &out;
  o.err = &err;
  o.restart_backoff = std::chrono::milliseconds(50);
  o.termination_grace = std::chrono::milliseconds(2000);
  o.handle_signals = false;
  return o;
}

const ReplicaResult& replica(const RunResult& r, const std::string& name) {
  for (const auto& x : r.replicas)
    if (x.name == name) return x;
  FAIL("no replica " << name);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("restart policies decide per exit code as the operator does", "[local][policy]") {
  CHECK(action_for_exit("Never", 0) == exit_action::succeeded);
  CHECK(action_for_exit("Never", 1) == exit_action::failed);
  CHECK(action_for_exit("Never", 137) == exit_action::failed);
  CHECK(action_for_exit("OnFailure", 1) == exit_action::restart);
  CHECK(action_for_exit("OnFailure", 0) == exit_action::succeeded);
  CHECK(action_for_exit("Always", 2) == exit_action::restart);
  CHECK(action_for_exit("ExitCode", 1) == exit_action::failed);
  CHECK(action_for_exit("ExitCode", 127) == exit_action::failed);
  CHECK(action_for_exit("ExitCode", 128) == exit_action::restart);
  CHECK(action_for_exit("ExitCode", 137) == exit_action::restart);
  CHECK(action_for_exit("ExitCode", 143) == exit_action::restart);
}

TEST_CASE("success comes from the chief, else worker 0, else all workers", "[local][policy]") {
  SECTION("chief decides; workers do not") {
    auto job = with_defaults(local_job("j", {{"Chief", sh_replica(1, "Never", "true")}, {"Worker", sh_replica(2, "Never", "true")}}));
    JobTracker t(job);
    t.on_exit("Worker", 0, 0);
    t.on_exit("Worker", 1, 0);
    CHECK_FALSE(t.finished());
    t.on_exit("Chief", 0, 0);
    CHECK(t.state() == "Succeeded");
    CHECK(t.reason() == "TFJobSucceeded");
    CHECK(t.message() == "TFJob default/j successfully completed.");
  }
  SECTION("worker 0 decides without a chief") {
    auto job = with_defaults(local_job("j", {{"Worker", sh_replica(3, "Never", "true")}, {"PS", sh_replica(1, "Never", "true")}}));
    JobTracker t(job);
    t.on_exit("Worker", 1, 0);
    CHECK_FALSE(t.finished());
    t.on_exit("Worker", 0, 0);
    CHECK(t.state() == "Succeeded");
  }
  SECTION("AllWorkers waits for every worker") {
    auto job = with_defaults(local_job("j", {{"Worker", sh_replica(2, "Never", "true")}}, {}, "AllWorkers"));
    JobTracker t(job);
    t.on_exit("Worker", 0, 0);
    CHECK_FALSE(t.finished());
    t.on_exit("Worker", 1, 0);
    CHECK(t.state() == "Succeeded");
  }
  SECTION("a replica that fails for good fails the job, naming its type") {
    auto job = with_defaults(local_job("j", {{"Chief", sh_replica(1, "Never", "true")}, {"PS", sh_replica(1, "Never", "true")}}));
    JobTracker t(job);
    t.on_exit("PS", 0, 2);
    CHECK(t.state() == "Failed");
    CHECK(t.reason() == "TFJobFailed");
    CHECK(t.message() == "TFJob default/j has failed because 1 PS replica(s) failed.");
  }
}

TEST_CASE("backoffLimit ends a job that keeps restarting", "[local][policy]") {
  auto job = with_defaults(local_job("j", {{"Worker", sh_replica(1, "OnFailure", "exit 1")}}, {{"backoffLimit", 2}}));
  JobTracker t(job);
  CHECK(t.on_exit("Worker", 0, 1) == exit_action::restart);
  CHECK(t.total_restarts() == 1);
  CHECK(t.on_exit("Worker", 0, 1) == exit_action::failed);
  CHECK(t.state() == "Failed");
  CHECK(t.reason() == "BackoffLimitExceeded");

  auto zero = with_defaults(local_job("z", {{"Worker", sh_replica(1, "OnFailure", "exit 1")}}, {{"backoffLimit", 0}}));
  JobTracker t0(zero);
  CHECK(t0.on_exit("Worker", 0, 1) == exit_action::failed);
  CHECK(t0.reason() == "BackoffLimitExceeded");
}

TEST_CASE("activeDeadlineSeconds fails the job", "[local][policy]") {
  auto job = with_defaults(local_job("j", {{"Worker", sh_replica(1, "Never", "sleep 9")}}, {{"activeDeadlineSeconds", 5}}));
  JobTracker t(job);
  CHECK_FALSE(t.check_deadline(std::chrono::seconds(4)));
  CHECK(t.check_deadline(std::chrono::seconds(5)));
  CHECK(t.reason() == "DeadlineExceeded");
}

TEST_CASE("mount paths are rewritten only where they start a path", "[local][plan]") {
  std::vector<Mount> m = {{"train", "c", "/train", "/tmp/s/volumes/c", false},
                          {"data", "", "/train/data", "/srv/data", false}};
  CHECK(rewrite_mount_paths("--data-dir=/train/data/x", m) == "--data-dir=/srv/data/x");
  CHECK(rewrite_mount_paths("/train", m) == "/tmp/s/volumes/c");
  CHECK(rewrite_mount_paths("/train/logs", m) == "/tmp/s/volumes/c/logs");
  CHECK(rewrite_mount_paths("a:/train,b=/train/ckpt", m) == "a:/tmp/s/volumes/c,b=/tmp/s/volumes/c/ckpt");
  CHECK(rewrite_mount_paths("/trainer/x", m) == "/trainer/x");
  CHECK(rewrite_mount_paths("/opt/train", m) == "/opt/train");
  CHECK(rewrite_mount_paths("python /train/run.py", m) == "python /tmp/s/volumes/c/run.py");
  CHECK(mount_env_name("/train") == "TFJOB_MOUNT_TRAIN");
  CHECK(mount_env_name("/var/lib/my-data/") == "TFJOB_MOUNT_VAR_LIB_MY_DATA");
  CHECK(mount_env_name("/") == "TFJOB_MOUNT_ROOT");
}

TEST_CASE("$(VAR) expands as the kubelet does", "[local][plan]") {
  std::map<std::string, std::string> v = {{"A", "1"}, {"DIR", "/x"}};
  CHECK(expand_vars("--a=$(A) $(DIR)/y", v) == "--a=1 /x/y");
  CHECK(expand_vars("$(MISSING) $$(A) $", v) == "$(MISSING) $(A) $");
}

TEST_CASE("the plan maps volumes and wires TF_CONFIG with the reserved ports", "[local][plan]") {
  nlohmann::json mounts = {{"volumeMounts", {{{"name", "train"}, {"mountPath", "/train"}},
                                             {{"name", "scratch"}, {"mountPath", "/scratch"}}}},
                           {"env", {{{"name", "OUT"}, {"value", "/train/out"}},
                                    {{"name", "POD"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.name"}}}}}},
                                    {{"name", "LATER"}, {"value", "$(OUT)/later"}}}},
                           {"args", {"--dir=/train/ckpt"}}};
  nlohmann::json vols = {{"volumes", {{{"name", "train"}, {"persistentVolumeClaim", {{"claimName", "my-pvc"}}}},
                                      {{"name", "scratch"}, {"emptyDir", nlohmann::json::object()}}}}};
  auto job = with_defaults(local_job(
      "p", {{"Chief", tfjob::test::local_replica(1, "Never", {"run"}, mounts, vols)},
            {"Worker", tfjob::test::local_replica(2, "Never", {"run"}, mounts, vols)}}));
  PlanInputs in;
  in.port = [](const std::string& t, int i) { return (t == "Chief" ? 40000 : 41000) + i; };
  in.state_dir = "/state";
  in.volumes["my-pvc"] = "/data/pvc";
  Plan plan = make_plan(job, in);
  REQUIRE(plan.replicas.size() == 3);
  const LaunchSpec& w1 = plan.replicas[2];
  CHECK(w1.name == "worker-1");
  CHECK(w1.pod_name == "p-worker-1");
  CHECK(w1.argv == std::vector<std::string>{"run", "--dir=/data/pvc/ckpt"});
  std::map<std::string, std::string> env(w1.env.begin(), w1.env.end());
  CHECK(env["OUT"] == "/data/pvc/out");
  CHECK(env["LATER"] == "/data/pvc/out/later");
  CHECK(env["POD"] == "p-worker-1");
  CHECK(env["TFJOB_MOUNT_TRAIN"] == "/data/pvc");
  CHECK(env["TFJOB_MOUNT_SCRATCH"] == "/state/replicas/worker-1/scratch");
  REQUIRE(env.count("TF_CONFIG"));
  auto cfg = parse_tf_config(env["TF_CONFIG"]);
  CHECK(cfg.task_type == "worker");
  CHECK(cfg.task_index == 1);
  CHECK(cfg.cluster["chief"] == std::vector<std::string>{"127.0.0.1:40000"});
  CHECK(cfg.cluster["worker"] == std::vector<std::string>{"127.0.0.1:41000", "127.0.0.1:41001"});
}

TEST_CASE("the plan refuses what a process cannot be", "[local][plan]") {
  PlanInputs in;
  in.port = [](const std::string&, int) { return 1; };
  in.state_dir = "/s";
  auto no_cmd = with_defaults(local_job("n", {{"Worker", tfjob::test::local_replica(1, "Never", {})}}));
  CHECK_THROWS_WITH(make_plan(no_cmd, in), Catch::Contains("has no command"));
  nlohmann::json cm = {{"volumeMounts", {{{"name", "cfg"}, {"mountPath", "/cfg"}}}}};
  nlohmann::json cmv = {{"volumes", {{{"name", "cfg"}, {"configMap", {{"name", "x"}}}}}}};
  auto job = with_defaults(local_job("c", {{"Worker", tfjob::test::local_replica(1, "Never", {"run"}, cm, cmv)}}));
  CHECK_THROWS_WITH(make_plan(job, in), Catch::Contains("RunOptions::volumes cfg=DIR"));
  in.volumes["cfg"] = "/here";
  CHECK(make_plan(job, in).replicas.at(0).mounts.at(0).local_dir == "/here");
}

TEST_CASE("the plan says what a process here does not get: the pod's resources and where it may run", "[local][plan]") {
  PlanInputs in;
  in.port = [](const std::string&, int) { return 1; };
  in.state_dir = "/s";
  nlohmann::json gpu = {{"resources", {{"limits", {{"nvidia.com/gpu", 1}, {"memory", "8Gi"}}}, {"requests", {{"cpu", "2"}}}}}};
  nlohmann::json placed = {{"nodeSelector", {{"cloud.google.com/gke-accelerator", "nvidia-tesla-v100"}}},
                           {"tolerations", {{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}}}}};
  auto job = with_defaults(local_job("g", {{"Worker", tfjob::test::local_replica(2, "Never", {"run"}, gpu, placed)},
                                           {"PS", tfjob::test::local_replica(1, "Never", {"run"})}}));
  const Plan plan = make_plan(job, in);
  REQUIRE(plan.warnings.size() == 1);  // once per replica type, none for the PS that asks for nothing
  CHECK(plan.warnings[0] ==
        "Worker: not applied locally: resources (cpu, memory, nvidia.com/gpu), nodeSelector, tolerations (each replica is a "
        "process with this machine's CPUs, memory and GPUs)");

  // who the pod runs as and which scheduler places it: a cluster's, said the same way
  nlohmann::json who = {{"serviceAccountName", "trainer"}, {"schedulerName", "volcano"}, {"imagePullSecrets", {{{"name", "reg"}}}}};
  auto sa = with_defaults(local_job("s", {{"Worker", tfjob::test::local_replica(1, "Never", {"run"}, nlohmann::json::object(), who)}}));
  REQUIRE(make_plan(sa, in).warnings.size() == 1);
  CHECK(make_plan(sa, in).warnings[0] ==
        "Worker: not applied locally: schedulerName, serviceAccountName, imagePullSecrets (each replica is a process with this "
        "machine's CPUs, memory and GPUs)");
  // the job's gang scheduling and its other controller: named once for the job
  auto gang = with_defaults(local_job("q", {{"Worker", tfjob::test::local_replica(1, "Never", {"run"})}}));
  gang.spec.run_policy.scheduling_policy = tfjob::SchedulingPolicy{};
  gang.spec.run_policy.managed_by = "kueue.x-k8s.io/multikueue";
  REQUIRE(make_plan(gang, in).warnings.size() == 1);
  CHECK(make_plan(gang, in).warnings[0] ==
        "TFJob q: not applied locally: runPolicy.schedulingPolicy (gang scheduling, queue, priority), runPolicy.managedBy (the "
        "replicas start here at once, each a process)");
  // a suspended job is not started here: that would be the opposite of what it says
  gang.spec.run_policy.suspend = true;
  CHECK_THROWS_WITH(make_plan(gang, in), Catch::StartsWith("TFJob q is suspended (runPolicy.suspend: true): a local run would "
                                                           "start it; leave out runPolicy.suspend"));
}

TEST_CASE("reserved ports: distinct, held until released, below the kernel's ephemeral range", "[local][plan]") {
  int ephemeral_low = 32768, ephemeral_high = 60999;
  if (std::FILE* f = std::fopen("/proc/sys/net/ipv4/ip_local_port_range", "r")) {
    REQUIRE(std::fscanf(f, "%d %d", &ephemeral_low, &ephemeral_high) == 2);
    std::fclose(f);
  }
  auto can_bind = [](int port) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<std::uint16_t>(port));
    ::inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0;
    ::close(fd);
    return ok;
  };
  tfjob::local::detail::PortReserver ports;
  std::set<int> seen;
  for (int i = 0; i < 20; ++i) {
    int p = ports.reserve();
    INFO("port " << p);
    CHECK(seen.insert(p).second);  // never handed out twice
    if (ephemeral_low - 10000 >= 1000) CHECK((p >= 10000 && p < ephemeral_low));
    CHECK_FALSE(can_bind(p));  // held: nobody else gets it
  }
  int first = *seen.begin();
  ports.release(first);
  CHECK(can_bind(first));  // the replica can take it now
  CHECK(ports.hold_again(first));
  CHECK_FALSE(can_bind(first));
}

TEST_CASE("a job succeeds when its chief does, the others are stopped with their process groups", "[local][run]") {
  std::ostringstream out, err;
  auto o = quiet_options("chief-succeeds", out, err);
  auto job = local_job("ok", {{"Chief", sh_replica(1, "Never", "echo chief says hi; sleep 1.5")},
                              {"Worker", sh_replica(2, "Never", "sleep 30 & echo pid $!; sleep 30")}});
  auto r = run(job, o);
  CHECK(r.state == "Succeeded");
  CHECK(r.exit_code() == 0);
  CHECK(out.str() == "chief says hi\n");  // only the chief's lines without --all
  CHECK(replica(r, "chief-0").phase == "Succeeded");
  CHECK(replica(r, "worker-0").phase == "Stopped");
  for (const auto& w : {"worker-0", "worker-1"}) {
    auto pids = tfjob::test::pids_in_file(replica(r, w).log_file);
    REQUIRE(pids.size() == 1);
    CHECK(tfjob::test::process_gone(pids[0]));  // the grandchild went with its group
  }
  CHECK(r.seconds < 10);
  REQUIRE(r.job.status);
  CHECK(r.job.status->conditions.back().type == "Succeeded");
  CHECK(r.state == "Succeeded");
}

TEST_CASE("Never: a failed worker fails the job and the exit code is 1", "[local][run]") {
  std::ostringstream out, err;
  auto o = quiet_options("never", out, err);
  auto job = local_job("nv", {{"Chief", sh_replica(1, "Never", "sleep 30")}, {"Worker", sh_replica(1, "Never", "exit 3")}});
  auto r = run(job, o);
  CHECK(r.state == "Failed");
  CHECK(r.exit_code() == 1);
  CHECK(r.reason == "TFJobFailed");
  CHECK(replica(r, "worker-0").exit_code == 3);
  CHECK(replica(r, "chief-0").phase == "Stopped");
}

TEST_CASE("OnFailure restarts a failed replica with the same TF_CONFIG", "[local][run]") {
  std::ostringstream out, err;
  auto o = quiet_options("onfailure", out, err);
  std::string marker = o.state_dir + "/marker";
  auto job = local_job("of", {{"Worker", sh_replica(2, "OnFailure",
                                                    "echo \"$TF_CONFIG\"; if [ ! -f " + marker + "-$TFJOB_I ]; then touch " +
                                                        marker + "-$TFJOB_I; exit 1; fi")}});
  // A distinct marker per replica: the pod name through a fieldRef (a shared marker let
  // worker-1 take the only failure, and worker-0 then never restarted).
  job.spec.tf_replica_specs["Worker"].template_["spec"]["containers"][0]["env"] = {
      {{"name", "TFJOB_I"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.name"}}}}}}};
  auto r = run(job, o);
  CHECK(r.state == "Succeeded");
  CHECK(r.restarts >= 1);
  std::string log = tfjob::test::read_text(replica(r, "worker-0").log_file);
  // Both attempts printed the same TF_CONFIG.
  auto first = log.find("{\"cluster\"");
  REQUIRE(first != std::string::npos);
  std::string cfg = log.substr(first, log.find('\n', first) - first);
  CHECK(log.find(cfg, first + 1) != std::string::npos);
}

TEST_CASE("OnFailure with backoffLimit gives up", "[local][run]") {
  std::ostringstream out, err;
  auto o = quiet_options("backoff", out, err);
  auto job = local_job("bo", {{"Worker", sh_replica(1, "OnFailure", "echo try; exit 2")}}, {{"backoffLimit", 3}});
  auto r = run(job, o);
  CHECK(r.state == "Failed");
  CHECK(r.reason == "BackoffLimitExceeded");
  CHECK(r.restarts == 2);
  std::string log = tfjob::test::read_text(replica(r, "worker-0").log_file);
  size_t tries = 0;
  for (size_t p = log.find("try"); p != std::string::npos; p = log.find("try", p + 1)) ++tries;
  CHECK(tries == 3);
}

TEST_CASE("ExitCode retries signals (>= 128) and not errors", "[local][run]") {
  std::ostringstream out, err;
  auto o = quiet_options("exitcode", out, err);
  std::string marker = o.state_dir + "/killed";
  auto job = local_job("ec", {{"Chief", sh_replica(1, "ExitCode",
                                                   "if [ ! -f " + marker + " ]; then touch " + marker + "; kill -9 $$$$; fi; exit 0")}});
  auto r = run(job, o);
  CHECK(r.state == "Succeeded");
  CHECK(r.restarts == 1);

  std::ostringstream out2, err2;
  auto o2 = quiet_options("exitcode-perm", out2, err2);
  auto r2 = run(local_job("ec2", {{"Chief", sh_replica(1, "ExitCode", "exit 1")}}), o2);
  CHECK(r2.state == "Failed");
  CHECK(r2.restarts == 0);
  CHECK(r2.reason == "TFJobFailed");
}

TEST_CASE("activeDeadlineSeconds stops a running job", "[local][run]") {
  std::ostringstream out, err;
  auto o = quiet_options("deadline", out, err);
  auto job = local_job("dl", {{"Worker", sh_replica(2, "Never", "sleep 60")}}, {{"activeDeadlineSeconds", 1}});
  auto t0 = std::chrono::steady_clock::now();
  auto r = run(job, o);
  CHECK(r.state == "Failed");
  CHECK(r.reason == "DeadlineExceeded");
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
}

TEST_CASE("no line is lost, partial last lines included, --all prefixes every replica", "[local][run]") {
  std::ostringstream out, err;
  auto o = quiet_options("lines", out, err);
  o.all_logs = true;
  auto job = local_job("ln", {{"Chief", sh_replica(1, "Never", "i=0; while [ $i -lt 3000 ]; do echo line $i; i=$((i+1)); done; printf tail")},
                              {"Worker", sh_replica(1, "Never", "echo from worker >&2")}});
  auto r = run(job, o);
  CHECK(r.state == "Succeeded");
  std::string log = tfjob::test::read_text(replica(r, "chief-0").log_file);
  CHECK(log.find("line 0\n") == 0);
  CHECK(log.find("line 2999\ntail\n") != std::string::npos);
  std::string s = out.str();
  size_t n = 0;
  for (size_t p = s.find("[chief-0] line "); p != std::string::npos; p = s.find("[chief-0] line ", p + 1)) ++n;
  CHECK(n == 3000);
  CHECK(s.find("[chief-0] tail\n") != std::string::npos);
}

TEST_CASE("volumes become directories and the mount path is reachable", "[local][run]") {
  std::ostringstream out, err;
  auto o = quiet_options("volumes", out, err);
  std::string mine = o.state_dir + "/mine";
  o.volumes["results"] = mine;
  nlohmann::json c = {{"volumeMounts", {{{"name", "out"}, {"mountPath", "/results"}}}}};
  nlohmann::json v = {{"volumes", {{{"name", "out"}, {"persistentVolumeClaim", {{"claimName", "results"}}}}}}};
  auto job = local_job("vol", {{"Chief", tfjob::test::local_replica(
                                             1, "Never", {"sh", "-c", "echo hi > /results/a.txt; echo $TFJOB_MOUNT_RESULTS"}, c, v)}});
  auto r = run(job, o);
  CHECK(r.state == "Succeeded");
  CHECK(tfjob::test::read_text(mine + "/a.txt") == "hi\n");
  CHECK(out.str() == mine + "\n");

  o.volumes.clear();
  o.volumes["typo"] = mine;
  CHECK_THROWS_WITH(run(job, o), Catch::Contains("mounts no claim or volume named \"typo\""));
}

TEST_CASE("a command that does not exist fails before anything starts", "[local][run]") {
  std::ostringstream out, err;
  auto o = quiet_options("nocmd", out, err);
  auto job = local_job("nc", {{"Worker", tfjob::test::local_replica(1, "Never", {"no-such-trainer-xyz", "--x"})}});
  CHECK_THROWS_WITH(run(job, o), Catch::Contains("command \"no-such-trainer-xyz\" not found"));
}

TEST_CASE("a port that is taken is never handed out", "[local][run]") {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0);
  REQUIRE(::listen(fd, 4) == 0);
  socklen_t len = sizeof sa;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  int taken = ntohs(sa.sin_port);

  std::ostringstream out, err;
  auto o = quiet_options("ports", out, err);
  o.first_port = taken;  // start the scan right at the taken port
  auto job = local_job("pt", {{"Chief", sh_replica(1, "Never", "true")}, {"Worker", sh_replica(2, "Never", "true")}});
  auto r = run(job, o);
  ::close(fd);
  CHECK(r.state == "Succeeded");
  std::set<int> ports;
  for (const auto& x : r.replicas) {
    CHECK(x.port != taken);
    CHECK(x.port > taken);
    ports.insert(x.port);
  }
  CHECK(ports.size() == 3);
}

TEST_CASE("stop() ends every replica and fails the job", "[local][run]") {
  std::ostringstream out, err;
  auto o = quiet_options("stop", out, err);
  auto job = local_job("st", {{"Chief", sh_replica(1, "Never", "echo pid $$$$; trap '' TERM; sleep 60 & wait")},
                              {"Worker", sh_replica(1, "OnFailure", "echo pid $$$$; sleep 60")}});
  o.termination_grace = std::chrono::milliseconds(500);
  Runner runner(job, o);
  std::thread t([&] {  // once both have started (their logs show their pids)
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline &&
           (tfjob::test::pids_in_file(o.state_dir + "/logs/chief-0.log").empty() ||
            tfjob::test::pids_in_file(o.state_dir + "/logs/worker-0.log").empty()))
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    runner.stop();
  });
  auto r = runner.run();
  t.join();
  CHECK(r.state == "Failed");
  CHECK(r.reason == "Interrupted");
  for (const auto& x : r.replicas) {
    auto pids = tfjob::test::pids_in_file(x.log_file);  // `$$$$` is `$$` after the kubelet's $(VAR) expansion
    REQUIRE(pids.size() == 1);
    CHECK(tfjob::test::process_gone(pids[0]));
  }
}
