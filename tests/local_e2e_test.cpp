// End to end: the local runner starts the hello-tfjob trainer as a chief and workers with
// real TF_CONFIG and real sockets; they train together on a small subset of Fashion-MNIST.
#include <catch2/catch.hpp>

#include "support/local_jobs.hpp"
#include "support/paths.hpp"

#include <tfjob/local/runner.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

using namespace tfjob;
using namespace tfjob::local;

namespace {

std::string trainer() {
  std::string p = tfjob::test::binary_dir() + "/samples/hello-tfjob/hello-tfjob";
  REQUIRE(::access(p.c_str(), X_OK) == 0);  // built with the tests (tests/cmake/local.cmake)
  return p;
}

tfjob::TFJob hello_job(const std::string& name, int workers, const std::string& policy, std::vector<std::string> extra = {}) {
  std::vector<std::string> cmd = {trainer(), "--data-dir=/train/data", "--output-dir=/train/out", "--epochs=2",
                                  "--train-limit=6000", "--test-limit=1000", "--connect-timeout=60"};
  cmd.insert(cmd.end(), extra.begin(), extra.end());
  nlohmann::json c = {{"volumeMounts", {{{"name", "train"}, {"mountPath", "/train"}}}}};
  nlohmann::json v = {{"volumes", {{{"name", "train"}, {"persistentVolumeClaim", {{"claimName", "tfjob-hello"}}}}}}};
  std::map<std::string, nlohmann::json> specs = {{"Chief", tfjob::test::local_replica(1, policy, cmd, c, v)}};
  if (workers > 0) specs["Worker"] = tfjob::test::local_replica(workers, policy, cmd, c, v);
  return tfjob::test::local_job(name, specs);
}

RunOptions options(const std::string& tag, std::ostream& out, std::ostream& err) {
  RunOptions o;
  o.state_dir = tfjob::test::scratch_dir(tag);
  o.out = &out;
  o.err = &err;
  o.restart_backoff = std::chrono::milliseconds(200);
  o.handle_signals = false;
  return o;
}

std::string checksum_in(const std::string& log) {
  std::smatch m;
  std::regex re("model checksum ([0-9a-f]{16})");
  return std::regex_search(log, m, re) ? m[1].str() : "";
}

/// Waits until `needle` appears in the file (the runner flushes each batch of lines).
bool wait_for_text(const std::string& path, const std::string& needle, std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (tfjob::test::read_text(path).find(needle) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

int first_pid(const std::string& log) {
  auto pids = tfjob::test::pids_in_file(log);
  return pids.empty() ? -1 : pids.front();
}

}  // namespace

TEST_CASE("a chief and two workers train together and agree on the model", "[local][e2e]") {
  std::ostringstream out, err;
  auto o = options("e2e-agree", out, err);
  auto r = run(hello_job("hello", 2, "Never"), o);
  INFO(err.str() << out.str());
  REQUIRE(r.state == "Succeeded");
  std::set<std::string> sums;
  for (const auto& x : r.replicas) {
    std::string sum = checksum_in(tfjob::test::read_text(x.log_file));
    CHECK(sum.size() == 16);
    sums.insert(sum);
    // Each got the TF_CONFIG of its own task, with 127.0.0.1 and its reserved port.
    REQUIRE(x.tf_config);
    CHECK(x.tf_config->find("127.0.0.1:" + std::to_string(x.port)) != std::string::npos);
  }
  CHECK(sums.size() == 1);
  // The chief's output is on stdout, its model and metrics on the volume.
  CHECK(out.str().find("epoch 2/2") != std::string::npos);
  auto metrics = nlohmann::json::parse(tfjob::test::read_text(r.state_dir + "/volumes/tfjob-hello/out/metrics.json"));
  CHECK(metrics["replicas"] == 3);
  CHECK(metrics["model_checksum"] == *sums.begin());
  CHECK(metrics["test_accuracy"].get<double>() > 0.70);  // 2 epochs on 6000 examples: ~0.77
  CHECK(metrics["epochs"].size() == 2);
}

// What a release archive unpacked on RHEL or Ubuntu does (no MNIST files, no Debian
// dataset-fashion-mnist): every replica generates the same set (synthetic.hpp), so the ring
// all-reduce still ends in one model, and a linear model learns it. --data-dir=synthetic asks
// for that set here, where Fashion-MNIST is installed.
TEST_CASE("with no MNIST files the replicas train on one generated set and agree", "[local][e2e]") {
  std::ostringstream out, err;
  auto o = options("e2e-synthetic", out, err);
  auto r = run(hello_job("hello", 1, "Never", {"--data-dir=synthetic"}), o);
  INFO(err.str() << out.str());
  REQUIRE(r.state == "Succeeded");
  std::set<std::string> sums;
  for (const auto& x : r.replicas) sums.insert(checksum_in(tfjob::test::read_text(x.log_file)));
  CHECK(sums.size() == 1);
  CHECK(sums.begin()->size() == 16);
  CHECK(out.str().find("data: generated (no MNIST-format files) (6000 train, 1000 test examples)") != std::string::npos);
  auto metrics = nlohmann::json::parse(tfjob::test::read_text(r.state_dir + "/volumes/tfjob-hello/out/metrics.json"));
  CHECK(metrics["data_dir"] == "generated");
  CHECK(metrics["replicas"] == 2);
  CHECK(metrics["test_accuracy"].get<double>() > 0.80);  // 2 epochs on 6000 examples
}

TEST_CASE("a worker killed mid-run is restarted under OnFailure and the job still agrees", "[local][e2e]") {
  std::ostringstream out, err;
  auto o = options("e2e-kill", out, err);
  std::string w1 = o.state_dir + "/logs/worker-1.log";
  std::thread killer([&] {
    if (wait_for_text(w1, "epoch 1/3", std::chrono::seconds(60))) ::kill(first_pid(w1), SIGKILL);
  });
  auto r = run(hello_job("hello-kill", 2, "OnFailure", {"--epochs=3", "--step-delay-ms=15"}), o);
  killer.join();
  INFO(err.str());
  REQUIRE(r.state == "Succeeded");
  for (const auto& x : r.replicas) CHECK(x.restarts == (x.name == "worker-1" ? 1 : 0));
  std::set<std::string> sums;
  for (const auto& x : r.replicas) sums.insert(checksum_in(tfjob::test::read_text(x.log_file)));
  CHECK(sums.size() == 1);
  CHECK(tfjob::test::read_text(r.state_dir + "/logs/chief-0.log").find("ring formed again") != std::string::npos);
  CHECK(err.str().find("worker-1 exited with code 137 (SIGKILL); restarting") != std::string::npos);
}

TEST_CASE("a worker killed under Never fails the job and nothing is left running", "[local][e2e]") {
  std::ostringstream out, err;
  auto o = options("e2e-never", out, err);
  std::string w0 = o.state_dir + "/logs/worker-0.log";
  std::thread killer([&] {
    if (wait_for_text(w0, "first training step", std::chrono::seconds(60))) ::kill(first_pid(w0), SIGKILL);
  });
  auto r = run(hello_job("hello-never", 2, "Never", {"--epochs=50", "--step-delay-ms=5"}), o);
  killer.join();
  CHECK(r.state == "Failed");
  CHECK(r.message == "TFJob default/hello-never has failed because 1 Worker replica(s) failed.");
  for (const auto& x : r.replicas) CHECK(tfjob::test::process_gone(first_pid(x.log_file)));
}

TEST_CASE("SIGINT to the runner stops every replica, no process is left", "[local][e2e]") {
  std::ostringstream out, err;
  auto o = options("e2e-sigint", out, err);
  o.handle_signals = true;
  std::string chief = o.state_dir + "/logs/chief-0.log";
  std::thread ctrl_c([&] {
    if (wait_for_text(chief, "first training step", std::chrono::seconds(60))) ::kill(::getpid(), SIGINT);
  });
  auto r = run(hello_job("hello-int", 2, "OnFailure", {"--epochs=50", "--step-delay-ms=5"}), o);
  ctrl_c.join();
  CHECK(r.state == "Failed");
  CHECK(r.reason == "Interrupted");
  CHECK(r.exit_code() == 1);
  for (const auto& x : r.replicas) {
    int pid = first_pid(x.log_file);
    CHECK(pid > 0);
    CHECK(tfjob::test::process_gone(pid));
  }
}

TEST_CASE("the trainer runs even when the first port the runner tries is taken", "[local][e2e]") {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0);
  REQUIRE(::listen(fd, 4) == 0);  // someone else's server, which would answer the trainer
  socklen_t len = sizeof sa;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  std::ostringstream out, err;
  auto o = options("e2e-port", out, err);
  o.first_port = ntohs(sa.sin_port);
  auto r = run(hello_job("hello-port", 1, "Never", {"--epochs=1"}), o);
  ::close(fd);
  INFO(err.str());
  CHECK(r.state == "Succeeded");
  for (const auto& x : r.replicas) CHECK(x.port != o.first_port);
}
