// `kubectl tfjob logs` and `archive` as a user runs them (the real binary), against the
// fake API server's operator and kubelet: exact bytes, reading order and prefixes, merge
// order, state lines, filters and their errors, the JSON schema, --save across a deleted
// pod, and an archive of a job whose pods cleanPodPolicy: All deleted.
#include <catch2/catch.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_cluster.hpp"
#include "support/paths.hpp"
#include "support/workflow_run.hpp"


#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <regex>
#include <sstream>
#include <functional>
#include <thread>

using nlohmann::json;
using tfjob::test::ContainerScript;
using tfjob::test::FakeApiServer;
using tfjob::test::FakeApiServerOptions;
using tfjob::test::run_plugin;
using tfjob::test::RunResult;

namespace {

struct Cluster : tfjob::test::FakeCluster {
  explicit Cluster(FakeApiServerOptions o = {}) : FakeCluster(tfjob::test::with_controllers(o), "logs-cli") {}
  /// Submit and wait until it Succeeded.
  void submit_done(std::vector<std::string> args) {
    std::vector<std::string> a = {"submit", "--image", "tensorflow/tensorflow:2.15.0", "--gpus", "0", "--wait", "--timeout", "60s"};
    a.insert(a.end(), args.begin(), args.end());
    auto r = run(a);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
  }
};

ContainerScript says(std::vector<std::string> lines, std::chrono::milliseconds interval = std::chrono::milliseconds(0)) {
  ContainerScript s;
  s.lines = std::move(lines);
  s.line_interval = interval;
  s.exit_code = 0;
  return s;
}

std::string awkward_output() {
  std::string s = "epoch 1\r\nprogress 10%\rprogress 100%\nbytes \xff\xfe not utf-8\n\n";
  s += std::string(1 << 20, 'z') + "\n";
  s += "last line without newline";
  return s;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

/// How many times `what` occurs in `text`.
std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("logs prints exactly the container's bytes, read or followed", "[logs][e2e][exact]") {
  Cluster c;
  ContainerScript sc;
  sc.output = awkward_output();
  c.server->kubelet().script("exact-chief-0", sc);
  c.submit_done({"--name", "exact", "--chief", "--workers", "1"});
  auto r = c.run({"logs", "exact"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.size() == sc.output.size());
  CHECK(r.out == sc.output);
  r = c.run({"logs", "exact", "-f", "-q"});
  CHECK(r.exit_code == 0);
  CHECK(r.out == sc.output);
  r = c.run({"logs", "exact", "--replica", "Chief"});
  CHECK(r.out == sc.output);
  // none asked for timestamps: the container had ended, so even -f read it plainly
  int plain = 0, with_ts = 0;
  for (const auto& q : c.server->requests())
    if (q.path.find("/pods/exact-chief-0/log") != std::string::npos)
      (q.query.find("timestamps=true") != std::string::npos ? with_ts : plain)++;
  CHECK(plain == 3);
  CHECK(with_ts == 0);
}

TEST_CASE("logs -f of a running container prints exactly its bytes too (timestamps on the wire, stripped)", "[logs][e2e][exact]") {
  Cluster c;
  ContainerScript sc;
  sc.output = awkward_output();
  sc.exit_code = std::nullopt;  // runs until finish()
  c.server->kubelet().script("live-chief-0", sc);
  auto r = c.run({"submit", "--name", "live", "--image", "tensorflow/tensorflow:2.15.0", "--chief", "--gpus", "0", "-o", "name"});
  REQUIRE(r.exit_code == 0);
  auto follower = std::async(std::launch::async, [&] { return c.run({"logs", "live", "-f", "-q"}); });
  auto following = [&] {
    for (const auto& q : c.server->requests())
      if (q.path.find("/pods/live-chief-0/log") != std::string::npos && q.query.find("follow=true") != std::string::npos &&
          q.query.find("timestamps=true") != std::string::npos)
        return true;
    return false;
  };
  REQUIRE(c.server->wait_for(following, std::chrono::seconds(20)));
  c.server->kubelet().write("default", "live-chief-0", "tensorflow", " and more\nwritten later");
  c.server->kubelet().finish("default", "live-chief-0", "tensorflow", 0);
  auto f = follower.get();
  INFO(f.err);
  CHECK(f.exit_code == 0);
  CHECK(f.out == sc.output + " and more\nwritten later");
}

TEST_CASE("logs --all reads a job in order: chief, workers, PS, evaluator, each by index", "[logs][e2e][order]") {
  Cluster c;
  for (const char* p : {"ord-chief-0", "ord-worker-0", "ord-worker-1", "ord-worker-2", "ord-ps-0", "ord-ps-1", "ord-evaluator-0"})
    c.server->kubelet().script(p, says({std::string("hello from ") + p, "bye"}));
  c.submit_done({"--name", "ord", "--chief", "--workers", "3", "--ps", "2", "--evaluator"});
  auto r = c.run({"logs", "ord", "--all", "--color", "never"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> prefixes;
  for (const auto& l : lines_of(r.out)) {
    std::string p = l.substr(0, l.find(']') + 1);
    if (prefixes.empty() || prefixes.back() != p) prefixes.push_back(p);
  }
  CHECK(prefixes == std::vector<std::string>{"[chief-0]", "[worker-0]", "[worker-1]", "[worker-2]", "[ps-0]", "[ps-1]", "[evaluator-0]"});
  CHECK(r.out.find("[worker-1] hello from ord-worker-1\n") != std::string::npos);

  // -o wide names the pod too; colours are stable per replica and NO_COLOR turns them off
  r = c.run({"logs", "ord", "--replica", "Worker", "-o", "wide", "--color", "never"});
  CHECK(r.out.find("[worker-2 ord-worker-2] hello from ord-worker-2\n") != std::string::npos);
  CHECK(r.out.find("chief") == std::string::npos);
  auto a = c.run({"logs", "ord", "--all", "--color", "always"});
  auto b = c.run({"logs", "ord", "--all", "--color", "always"});
  CHECK(a.out.find("\033[") != std::string::npos);
  CHECK(a.out == b.out);
  auto nc = run_plugin({"logs", "ord", "--all"}, c.kubeconfig, 60, {"NO_COLOR=1"});
  CHECK(nc.out.find("\033[") == std::string::npos);

  // --replica TYPE[,TYPE] and --index N[,N|A-B]
  r = c.run({"logs", "ord", "--replica", "Worker,PS", "--index", "1-2", "--color", "never"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  prefixes.clear();
  for (const auto& l : lines_of(r.out)) {
    std::string p = l.substr(0, l.find(']') + 1);
    if (prefixes.empty() || prefixes.back() != p) prefixes.push_back(p);
  }
  CHECK(prefixes == std::vector<std::string>{"[worker-1]", "[worker-2]", "[ps-1]"});
}

TEST_CASE("bad input says what is wrong and what exists", "[logs][e2e][errors]") {
  Cluster c;
  c.submit_done({"--name", "two", "--workers", "2"});
  auto r = c.run({"logs", "two", "--replica", "Worker", "--index", "7"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("has no replica with index 7: its replicas are Worker 0-1") != std::string::npos);
  r = c.run({"logs", "two", "--replica", "PS"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("has no ps replicas; it has Worker") != std::string::npos);
  r = c.run({"logs", "two", "--since", "5"});
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("error: --since: \"5\" has no unit; give a duration with a unit") != std::string::npos);  // Go: missing unit
  r = c.run({"logs", "two", "--since", "5m", "--since-time", "2026-01-01T00:00:00Z"});
  CHECK(r.exit_code == 64);
  r = c.run({"logs", "two", "--since-time", "yesterday"});
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("not an RFC 3339 time") != std::string::npos);
  r = c.run({"logs", "two", "--all", "--include", "(unclosed"});
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("invalid regular expression \"(unclosed\"") != std::string::npos);
  r = c.run({"logs", "two", "--index", "x"});
  CHECK(r.exit_code == 64);
  r = c.run({"logs", "two", "--all", "-f", "--max-log-requests", "1"});
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("you are attempting to follow 2 log streams, but maximum allowed concurrency is 1") != std::string::npos);
}

TEST_CASE("filters: include, exclude, highlight, tail, since, timestamps", "[logs][e2e][filters]") {
  Cluster c;
  c.server->kubelet().script("flt-chief-0", says({"step 1 loss 0.9", "step 2 loss 0.5", "warning: slow", "step 3 loss 0.1"}));
  c.server->kubelet().script("flt-worker-0", says({"worker step 1", "worker warning"}));
  c.submit_done({"--name", "flt", "--chief", "--workers", "1"});
  auto r = c.run({"logs", "flt", "--all", "--include", "step", "--exclude", "worker", "--color", "never"});
  CHECK(r.out == "[chief-0] step 1 loss 0.9\n[chief-0] step 2 loss 0.5\n[chief-0] step 3 loss 0.1\n");
  r = c.run({"logs", "flt", "--replica", "Chief", "--highlight", "loss [0-9.]+", "--color", "always"});
  CHECK(r.out.find("step 1 \033[1m\033[31mloss 0.9\033[0m") != std::string::npos);
  r = c.run({"logs", "flt", "--tail", "1"});
  CHECK(r.out == "step 3 loss 0.1\n");
  r = c.run({"logs", "flt", "--since", "1h"});
  CHECK(lines_of(r.out).size() == 4);
  // a container named twice is read once: the chief's log, not every replica's twice
  r = c.run({"logs", "flt", "-c", "tensorflow", "-c", "tensorflow"});
  CHECK(lines_of(r.out).size() == 4);
  CHECK(r.out.find("worker") == std::string::npos);
  // --since 0 is no bound, as kubectl logs: no sinceSeconds is sent (it was 1: the last second)
  c.server->clear_requests();
  r = c.run({"logs", "flt", "--since", "0s"});
  CHECK(lines_of(r.out).size() == 4);
  for (const auto& q : c.server->requests()) CHECK(q.query.find("sinceSeconds") == std::string::npos);
  r = c.run({"logs", "flt", "--since-time", "2000-01-01T00:00:00Z"});
  CHECK(lines_of(r.out).size() == 4);
  r = c.run({"logs", "flt", "--timestamps"});
  auto ls = lines_of(r.out);
  REQUIRE(ls.size() == 4);
  CHECK(std::regex_match(ls[0], std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z step 1 loss 0\.9)")));
}

TEST_CASE("logs -o json: one object per line with a stable schema", "[logs][e2e][json]") {
  Cluster c;
  c.server->kubelet().script("js-chief-0", says({"chief says \"hi\""}));
  c.server->kubelet().script("js-worker-0", says({"w0", "w0 again"}));
  c.submit_done({"--name", "js", "--chief", "--workers", "1"});
  auto r = c.run({"logs", "js", "--all", "-o", "json"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto ls = lines_of(r.out);
  REQUIRE(ls.size() == 3);
  auto first = json::parse(ls[0]);
  CHECK(first["line"] == "chief says \"hi\"");
  CHECK(first["job"] == "js");
  CHECK(first["namespace"] == "default");
  CHECK(first["replicaType"] == "chief");
  CHECK(first["index"] == 0);
  CHECK(first["pod"] == "js-chief-0");
  CHECK(first["container"] == "tensorflow");
  CHECK(first["attempt"] == 0);
  CHECK(first["stream"] == "all");
  std::int64_t s = 0;
  CHECK(first["time"].get<std::string>().size() == 30);  // 2026-...T..:..:...nnnnnnnnnZ
  (void)s;
  for (const auto& l : ls) {
    auto j = json::parse(l);
    for (const char* k : {"time", "job", "namespace", "replicaType", "index", "pod", "container", "attempt", "stream", "line"})
      CHECK(j.contains(k));
  }
  CHECK(json::parse(ls[2])["replicaType"] == "worker");
}

TEST_CASE("logs --merge: one timeline by the kubelet's timestamps", "[logs][e2e][merge]") {
  Cluster c;
  std::vector<std::string> a, b;
  for (int i = 0; i < 12; ++i) {
    a.push_back("chief line " + std::to_string(i));
    b.push_back("worker line " + std::to_string(i));
  }
  c.server->kubelet().script("mg-chief-0", says(a, std::chrono::milliseconds(30)));
  c.server->kubelet().script("mg-worker-0", says(b, std::chrono::milliseconds(30)));
  c.submit_done({"--name", "mg", "--chief", "--workers", "1"});
  for (bool follow : {false, true}) {
    std::vector<std::string> args = {"logs", "mg", "--all", "--merge", "--timestamps", "--color", "never", "-q"};
    if (follow) args.push_back("-f");
    auto r = c.run(args);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    auto ls = lines_of(r.out);
    REQUIRE(ls.size() == 24);
    std::string prev;
    int switches = 0;
    std::string who;
    for (const auto& l : ls) {
      auto sp = l.find("] ");
      std::string ts = l.substr(sp + 2, 30);
      CHECK(ts >= prev);
      prev = ts;
      std::string w = l.substr(0, sp);
      if (w != who) ++switches;
      who = w;
    }
    CHECK(switches > 4);  // the replicas wrote in turns, and the timeline shows it
    // without --merge: one replica after the other
    if (!follow) {
      auto plain = c.run({"logs", "mg", "--all", "--color", "never"});
      auto pl = lines_of(plain.out);
      REQUIRE(pl.size() == 24);
      CHECK(pl[11].rfind("[chief-0]", 0) == 0);
      CHECK(pl[12].rfind("[worker-0]", 0) == 0);
    }
  }
}

TEST_CASE("logs -f says each state change once: terminated with its reason, restarted, attempt N", "[logs][e2e][events]") {
  FakeApiServerOptions o;
  o.pod_start_delay = std::chrono::milliseconds(1500);
  Cluster c(o);
  ContainerScript sc = says({"attempt line"}, std::chrono::milliseconds(20));
  sc.restart_exit_codes = {137};
  sc.exit_reason = "OOMKilled";
  sc.run_for = std::chrono::milliseconds(400);
  c.server->kubelet().script("ev-chief-0", sc);
  auto r = c.run({"submit", "--name", "ev", "--image", "tensorflow/tensorflow:2.15.0", "--chief", "--gpus", "0",
                  "--restart-policy", "OnFailure", "-o", "name"});
  REQUIRE(r.exit_code == 0);
  r = c.run({"logs", "ev", "-f", "--color", "never"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "attempt line\nattempt line\n");
  CHECK(occurrences(r.err, "terminated: exit code 137 (OOMKilled)") == 1);
  CHECK(occurrences(r.err, "restarted (restart 1, attempt 2)") == 1);
  CHECK(occurrences(r.err, "terminated: exit code 0 (Completed)") == 1);
  CHECK(r.err.find("TFJob ev Succeeded") != std::string::npos);

  // the same as JSON lines, marked as events
  r = c.run({"logs", "ev", "-o", "json"});
  CHECK(r.exit_code == 0);
}

TEST_CASE("logs -f of a container restarted before the API says so shows each attempt once and in order", "[logs][e2e][events]") {
  // The kubelet serves a pod's current log by its own status, which reaches the API later: a
  // container OOM-killed and restarted at once is still shown running its first attempt
  // while the log endpoint serves the second (realnode.logs-states met it on CI: the second
  // attempt shown twice, the first never)
  FakeApiServerOptions o;
  o.restart_status_lag = std::chrono::milliseconds(2500);
  Cluster c(o);
  ContainerScript sc = says({"attempt line"});
  sc.exit_code = std::nullopt;  // runs until finish()
  sc.exit_reason = "OOMKilled";
  c.server->kubelet().script("lag-chief-0", sc);
  auto r = c.run({"submit", "--name", "lag", "--image", "tensorflow/tensorflow:2.15.0", "--chief", "--gpus", "0",
                  "--restart-policy", "OnFailure", "-o", "name"});
  REQUIRE(r.exit_code == 0);
  auto& kl = c.server->kubelet();
  auto wait_for = [](const std::function<bool()>& ok) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    auto now_ok = [&] {
      try {
        return ok();
      } catch (const std::exception&) {
        return false;  // no pod yet
      }
    };
    while (!now_ok() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return now_ok();
  };
  REQUIRE(wait_for([&] { return kl.log("default", "lag-chief-0", "tensorflow") == "attempt line\n"; }));
  kl.finish("default", "lag-chief-0", "tensorflow", 137);  // killed: the kubelet restarts it 100 ms later
  REQUIRE(wait_for([&] { return !kl.log("default", "lag-chief-0", "tensorflow", true).empty(); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  kl.append_log("default", "lag-chief-0", "tensorflow", {"second attempt"});
  REQUIRE(kl.log("default", "lag-chief-0", "tensorflow") == "attempt line\nsecond attempt\n");
  auto pod = c.server->get_object("pods", "default", "lag-chief-0");
  REQUIRE(pod);
  REQUIRE((*pod)["status"]["containerStatuses"][0].value("restartCount", -1) == 0);  // the API is behind
  std::thread ender([&] {
    std::this_thread::sleep_for(std::chrono::seconds(4));
    kl.finish("default", "lag-chief-0", "tensorflow", 0);
  });
  r = c.run({"logs", "lag", "-f", "--color", "never"});
  ender.join();
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "attempt line\nattempt line\nsecond attempt\n");
  CHECK(occurrences(r.err, "terminated: exit code 137 (OOMKilled)") == 1);
  CHECK(occurrences(r.err, "restarted (restart 1, attempt 2)") == 1);
  CHECK(occurrences(r.err, "terminated: exit code 0 (Completed)") == 1);
}

TEST_CASE("logs --save keeps what a pod wrote after it is deleted and wait --save too", "[logs][e2e][save]") {
  Cluster c;
  ContainerScript chief = says({"chief starts"});
  chief.exit_code = std::nullopt;  // runs until finish()
  ContainerScript worker = says({"worker wrote this before being deleted"});
  worker.exit_code = std::nullopt;
  c.server->kubelet().script("sv-chief-0", chief);
  c.server->kubelet().script("sv-worker-0", worker);
  auto r = c.run({"submit", "--name", "sv", "--image", "tensorflow/tensorflow:2.15.0", "--chief", "--workers", "1",
                  "--gpus", "0", "-o", "name"});
  REQUIRE(r.exit_code == 0);
  const std::string dir = tfjob::test::temp_dir("logs-save") + "/saved";
  const std::string wdir = tfjob::test::temp_dir("logs-save-wait") + "/saved";
  auto follower = std::async(std::launch::async, [&] { return c.run({"logs", "sv", "--all", "-f", "--save", dir, "--color", "never"}); });
  auto waiter = std::async(std::launch::async, [&] { return c.run({"wait", "sv", "--timeout", "60s", "--save", wdir}); });
  const std::string wfile = dir + "/sv-worker-0.tensorflow.log";
  REQUIRE(c.server->wait_for([&] { return slurp(wfile).find("before being deleted") != std::string::npos; }, std::chrono::seconds(20)));
  REQUIRE(c.server->wait_for([&] { return slurp(wdir + "/sv-worker-0.tensorflow.log").find("before being deleted") != std::string::npos; },
                             std::chrono::seconds(20)));
  auto old_uid = c.server->get_object("pods", "default", "sv-worker-0")->at("metadata").at("uid");
  REQUIRE(c.server->delete_object("pods", "default", "sv-worker-0"));
  // the operator makes it again; its log starts afresh
  REQUIRE(c.server->wait_for([&] {
    auto p = c.server->get_object("pods", "default", "sv-worker-0");
    return p && p->at("metadata").at("uid") != old_uid && p->value("/status/phase"_json_pointer, std::string()) == "Running";
  }, std::chrono::seconds(20)));
  c.server->kubelet().finish("default", "sv-chief-0", "tensorflow", 0);
  auto fr = follower.get();
  auto wr = waiter.get();
  INFO(fr.out << fr.err << wr.out << wr.err);
  CHECK(fr.exit_code == 0);
  CHECK(wr.exit_code == 0);
  for (const auto& d : {dir, wdir}) {
    std::string saved = slurp(d + "/sv-worker-0.tensorflow.log");
    CHECK(saved.find("worker wrote this before being deleted\n") != std::string::npos);
    CHECK(slurp(d + "/sv-chief-0.tensorflow.log") == "chief starts\n");
    std::string events = slurp(d + "/events.log");
    CHECK((events.find("recreated sv-worker-0") != std::string::npos || events.find("deleted sv-worker-0") != std::string::npos));
  }
  CHECK(fr.out.find("[worker-0] worker wrote this before being deleted") != std::string::npos);
}

TEST_CASE("logs -f says a followed pod that is being deleted once, and ends with the job it fails", "[logs][e2e][events]") {
  // `kubectl delete pod` (graceful) or a finalizer: the pod object stays, with a
  // deletionTimestamp, after the job has failed (the operator counts a Running pod being
  // deleted as failed); the note must not wait for the object to go
  Cluster c;
  ContainerScript worker = says({"worker runs"});
  worker.exit_code = std::nullopt;  // runs until finish()
  c.server->kubelet().script("dg-worker-0", worker);
  auto r = c.run({"submit", "--name", "dg", "--image", "tensorflow/tensorflow:2.15.0", "--workers", "1", "--gpus", "0",
                  "--restart-policy", "Never", "-o", "name"});
  REQUIRE(r.exit_code == 0);
  const std::string dir = tfjob::test::temp_dir("logs-deleting") + "/saved";
  auto follower = std::async(std::launch::async, [&] { return c.run({"logs", "dg", "-f", "--save", dir, "--color", "never"}); });
  REQUIRE(c.server->wait_for([&] { return slurp(dir + "/dg-worker-0.tensorflow.log") == "worker runs\n"; }, std::chrono::seconds(20)));
  REQUIRE(c.server->mark_deleting("pods", "default", "dg-worker-0"));
  REQUIRE(c.server->wait_for([&] {
    auto j = c.server->get_object("tfjobs", "default", "dg");
    if (!j) return false;
    for (const auto& cond : j->value("/status/conditions"_json_pointer, json::array()))
      if (cond.value("type", "") == "Failed" && cond.value("status", "") == "True") return true;
    return false;
  }, std::chrono::seconds(20)));
  // the kubelet kills and removes the container: the stream ends with the runtime's error
  // after the log, which is not the container's output
  c.server->kubelet().remove("default", "dg-worker-0", "tensorflow");
  auto fr = follower.get();
  INFO(fr.out << fr.err);
  CHECK(fr.exit_code == 1);
  CHECK(fr.out == "worker runs\n");
  std::size_t said = 0;
  for (auto p = fr.err.find("pod dg-worker-0 was deleted"); p != std::string::npos; p = fr.err.find("pod dg-worker-0 was deleted", p + 1)) ++said;
  CHECK(said == 1);
  CHECK(fr.err.find("TFJob dg Failed") != std::string::npos);
  CHECK(c.server->get_object("pods", "default", "dg-worker-0"));  // still there: said before it went
  CHECK(slurp(dir + "/events.log").find("deleted dg-worker-0") != std::string::npos);
}

TEST_CASE("archive: the job, pods, logs, events, describe, TF_CONFIG, nodes and a manifest", "[logs][e2e][archive]") {
  Cluster c;
  ContainerScript sc = says({"chief log line"});
  sc.output = "raw start\r\n";
  c.server->kubelet().script("ar-chief-0", sc);
  c.server->kubelet().script("ar-worker-0", says({"worker log line"}));
  c.submit_done({"--name", "ar", "--chief", "--workers", "1"});
  const std::string dir = tfjob::test::temp_dir("archive") + "/ar";
  auto r = c.run({"archive", "ar", "-o", dir});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(slurp(dir + "/logs/ar-chief-0/tensorflow.log") == "raw start\r\nchief log line\n");
  CHECK(slurp(dir + "/logs/ar-worker-0/tensorflow.log") == "worker log line\n");
  CHECK(slurp(dir + "/tfjob.yaml").find("name: ar") != std::string::npos);
  CHECK(slurp(dir + "/pods/ar-worker-0.yaml").find("training.kubeflow.org/replica-type: worker") != std::string::npos);
  CHECK(slurp(dir + "/describe.txt").find("ar-chief-0") != std::string::npos);
  CHECK(json::parse(slurp(dir + "/tf_config/worker-0.json"))["task"] == json({{"type", "worker"}, {"index", 0}}));
  CHECK(slurp(dir + "/events.yaml").find("Started") != std::string::npos);
  CHECK(slurp(dir + "/nodes/fake-node-0.yaml").find("capacity") != std::string::npos);
  auto manifest = json::parse(slurp(dir + "/manifest.json"));
  CHECK(manifest["missing"].empty());
  CHECK(std::find(manifest["files"].begin(), manifest["files"].end(), "logs/ar-chief-0/tensorflow.log") != manifest["files"].end());

  SECTION("a .tar.gz that tar reads, after cleanPodPolicy: All deleted the pods") {
    c.server->kubelet().script("gone-chief-0", says({"never archived"}));
    c.submit_done({"--name", "gone", "--chief", "--workers", "1", "--clean-pod-policy", "All"});
    REQUIRE(c.server->wait_for([&] { return c.server->list_objects("pods", "default").size() == 2; }));  // ar's pods only
    const std::string tgz = tfjob::test::temp_dir("archive-tgz") + "/gone.tar.gz";
    r = c.run({"archive", "gone", "-o", tgz});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.find("not archived: pods: none left: the job is Succeeded and its cleanPodPolicy is All") != std::string::npos);
    const std::string out = tfjob::test::temp_dir("archive-untar");
    auto t = tfjob::test::run_program("/bin/tar", {"-xzf", tgz, "-C", out});
    INFO(t.out << t.err);
    REQUIRE(t.exit_code == 0);
    auto m = json::parse(slurp(out + "/gone-archive/manifest.json"));
    CHECK(m["state"] == "Succeeded");
    REQUIRE(m["missing"].size() == 1);
    CHECK(m["missing"][0]["what"] == "pods");
    CHECK(slurp(out + "/gone-archive/tfjob.yaml").find("cleanPodPolicy: All") != std::string::npos);
    CHECK(std::filesystem::exists(out + "/gone-archive/describe.txt"));
    CHECK(std::filesystem::exists(out + "/gone-archive/events.yaml"));
    CHECK_FALSE(std::filesystem::exists(out + "/gone-archive/logs"));
  }
}

TEST_CASE("a 128 MiB line does not take 128 MiB of the plugin's memory", "[logs][e2e][memory]") {
  Cluster c;
  ContainerScript sc;
  sc.output = "short\n" + std::string(128u << 20, 'm') + "\nend\n";
  c.server->kubelet().script("mem-chief-0", sc);
  c.server->kubelet().script("mem-worker-0", says({"w"}));
  c.submit_done({"--name", "mem", "--chief", "--workers", "1"});
  sc.output.clear();
  sc.output.shrink_to_fit();
  // prefixed and followed: the line-splitting path, with timestamps on the wire. Peak
  // memory by GNU time (this process is large, and a forked child counts its pages).
  REQUIRE(std::filesystem::exists("/usr/bin/time"));  // Debian's time, from scripts/install-deps.sh
  const std::string rss = tfjob::test::temp_dir("logs-mem") + "/rss";
  auto r = tfjob::test::run_program("/usr/bin/time", {"-f", "%M", "-o", rss, tfjob::test::plugin_path(), "--kubeconfig", c.kubeconfig,
                                                       "logs", "mem", "--all", "-f", "-q", "--color", "never"}, 120);
  REQUIRE(r.exit_code == 0);
  const long peak_kib = std::stol(slurp(rss));
  CHECK(static_cast<std::size_t>(std::count(r.out.begin(), r.out.end(), 'm')) == (128u << 20));  // every byte of it, once
  CHECK(r.out.find("[chief-0] " + std::string(1000, 'm')) != std::string::npos);
  CHECK(peak_kib < 64 * 1024);  // pieces of 1 MiB, never the whole line
}

TEST_CASE("logs --all-containers reads sidecars too and -l reads several jobs", "[logs][e2e][filters]") {
  Cluster c;
  json job = {{"apiVersion", "kubeflow.org/v1"},
              {"kind", "TFJob"},
              {"metadata", {{"name", "side"}, {"namespace", "default"}, {"labels", {{"team", "x"}}}}},
              {"spec",
               {{"tfReplicaSpecs",
                 {{"Worker",
                   {{"replicas", 1},
                    {"template",
                     {{"spec", {{"containers", {{{"name", "tensorflow"}, {"image", "tf"}}, {{"name", "sidecar"}, {"image", "proxy"}}}}}}}}}}}}}}};
  c.server->kubelet().script("side-worker-0", says({"from tensorflow"}), "tensorflow");
  c.server->kubelet().script("side-worker-0", says({"from sidecar"}), "sidecar");
  c.server->put_object(job);
  REQUIRE(c.server->wait_for([&] {
    auto j = c.server->get_object("tfjobs", "default", "side");
    return j && j->dump().find("\"Succeeded\"") != std::string::npos;
  }, std::chrono::seconds(20)));
  auto r = c.run({"logs", "side", "--all-containers", "--color", "never"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "[worker-0/tensorflow] from tensorflow\n[worker-0/sidecar] from sidecar\n");
  r = c.run({"logs", "side", "-c", "sidecar"});
  CHECK(r.out == "from sidecar\n");

  c.submit_done({"--name", "other", "--workers", "1", "--label", "team=x"});
  r = c.run({"logs", "-l", "team=x", "--all", "--color", "never"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("[other/worker-0] ") != std::string::npos);
  CHECK(r.out.find("[side/worker-0] from tensorflow\n") != std::string::npos);
  r = c.run({"logs", "-l", "team=nobody"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("no TFJobs in namespace \"default\" match the selector \"team=nobody\"") != std::string::npos);
}

TEST_CASE("logs --all-containers -f follows a native sidecar beside the trainer and ends with the job", "[logs][e2e][filters][sidecar]") {
  Cluster c;
  // an init container with restartPolicy: Always (Kubernetes 1.28+): it runs beside the
  // trainer, never exits on its own, and the kubelet stops it once the trainer has ended
  json job = {{"apiVersion", "kubeflow.org/v1"},
              {"kind", "TFJob"},
              {"metadata", {{"name", "native"}, {"namespace", "default"}}},
              {"spec",
               {{"tfReplicaSpecs",
                 {{"Worker",
                   {{"replicas", 1},
                    {"restartPolicy", "OnFailure"},
                    {"template",
                     {{"spec", {{"initContainers", {{{"name", "proxy"}, {"image", "proxy"}, {"restartPolicy", "Always"}}}},
                                {"containers", {{{"name", "tensorflow"}, {"image", "tf"}}}}}}}}}}}}}}};
  ContainerScript proxy = says({"proxy up", "proxy still up"});
  proxy.line_interval = std::chrono::milliseconds(300);
  proxy.exit_code = std::nullopt;  // a sidecar: runs until stopped
  c.server->kubelet().script("native-worker-0", proxy, "proxy");
  ContainerScript trainer = says({"step 1", "step 2", "done"});
  trainer.line_interval = std::chrono::milliseconds(400);
  c.server->kubelet().script("native-worker-0", trainer, "tensorflow");
  c.server->put_object(job);
  auto r = c.run({"logs", "native", "--all-containers", "-f", "--color", "never"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  // both followed while they ran, each line once; the sidecar's stream ended with the job
  CHECK(r.out.find("[worker-0/proxy] proxy up\n") != std::string::npos);
  CHECK(r.out.find("[worker-0/proxy] proxy still up\n") != std::string::npos);
  const auto s1 = r.out.find("[worker-0/tensorflow] step 1\n"), s2 = r.out.find("[worker-0/tensorflow] step 2\n"),
             s3 = r.out.find("[worker-0/tensorflow] done\n");
  CHECK(s1 != std::string::npos);
  CHECK(s2 != std::string::npos);
  CHECK(s3 != std::string::npos);
  CHECK((s1 < s2 && s2 < s3));
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 5);
  // the pod succeeded although its sidecar was stopped, not finished; the sidecar is no container of the pod's status
  auto pod = c.server->get_object("pods", "default", "native-worker-0");
  REQUIRE(pod);
  CHECK((*pod)["status"]["phase"] == "Succeeded");
  REQUIRE((*pod)["status"].contains("initContainerStatuses"));
  CHECK((*pod)["status"]["initContainerStatuses"][0]["name"] == "proxy");
  CHECK((*pod)["status"]["initContainerStatuses"][0]["state"].contains("terminated"));
  CHECK((*pod)["status"]["containerStatuses"].size() == 1);
  // explain: nothing keeps it running, nothing failed
  auto x = c.run({"explain", "native", "-o", "json"});
  INFO(x.out << x.err);
  CHECK(x.out.find("SidecarKeepsPodRunning") == std::string::npos);
  CHECK(x.out.find("FirstFailure") == std::string::npos);
  // -c names it as any container
  r = c.run({"logs", "native", "-c", "proxy"});
  CHECK(r.out == "proxy up\nproxy still up\n");
}

TEST_CASE("logs --previous reads the attempt before the restart, and says so when there is none", "[logs][e2e][previous]") {
  Cluster c;
  // attempt 1 says its line and crashes (exit 3, OnFailure restarts it); attempt 2 says the
  // same line, then a line of its own, and runs until finished
  ContainerScript sc = says({"attempt line"});
  sc.restart_exit_codes = {3};
  sc.exit_code = std::nullopt;
  c.server->kubelet().script("prev-chief-0", sc);
  c.server->kubelet().script("prev-worker-0", says({"worker never restarted"}));
  auto r = c.run({"submit", "--name", "prev", "--image", "tensorflow/tensorflow:2.15.0", "--chief", "--workers", "1", "--gpus", "0",
                  "--restart-policy", "OnFailure", "-o", "name"});
  REQUIRE(r.exit_code == 0);
  auto running_again = [&] {
    auto p = c.server->get_object("pods", "default", "prev-chief-0");
    if (!p) return false;
    for (const auto& cs : p->value("/status/containerStatuses"_json_pointer, json::array()))
      if (cs.value("restartCount", 0) == 1 && cs.contains("state") && cs["state"].contains("running")) return true;
    return false;
  };
  REQUIRE(c.server->wait_for(running_again, std::chrono::seconds(20)));
  c.server->kubelet().write("default", "prev-chief-0", "tensorflow", "only in attempt 2\n");

  r = c.run({"logs", "prev", "--previous"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "attempt line\n");  // attempt 1 alone
  r = c.run({"logs", "prev"});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "attempt line\nonly in attempt 2\n");
  // --all --previous: each replica's previous attempt; a replica that never restarted says so
  r = c.run({"logs", "prev", "--all", "--previous", "--color", "never"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out == "[chief-0] attempt line\n");
  CHECK(r.err.find("previous terminated container \"tensorflow\" in pod \"prev-worker-0\" not found") != std::string::npos);
  c.server->kubelet().finish("default", "prev-chief-0", "tensorflow", 0);
}

TEST_CASE("submit --follow --save DIR: every replica's whole log in DIR, not just the chief's", "[logs][e2e][save]") {
  Cluster c;
  ContainerScript chief = says({"chief 1", "chief 2", "chief 3"}, std::chrono::milliseconds(100));
  chief.run_for = std::chrono::milliseconds(500);
  c.server->kubelet().script("sf-chief-0", chief);
  ContainerScript w0;
  w0.output = "worker 0 raw\r\nno newline at the end";
  c.server->kubelet().script("sf-worker-0", w0);
  ContainerScript w1;
  w1.generated_lines = 20000;  // 2 MB: more than one read of the stream
  c.server->kubelet().script("sf-worker-1", w1);
  const std::string dir = tfjob::test::temp_dir("submit-follow-save") + "/saved";
  auto r = c.run({"submit", "--name", "sf", "--image", "tensorflow/tensorflow:2.15.0", "--chief", "--workers", "2", "--gpus", "0",
                  "--follow", "--save", dir, "--timeout", "60s"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("chief 3") != std::string::npos);  // the chief on stdout
  CHECK(r.out.find("worker 0 raw") == std::string::npos);
  // every replica's whole log, byte for byte, as the kubelet has it
  for (const auto& pod : {"sf-chief-0", "sf-worker-0", "sf-worker-1"}) {
    INFO(pod);
    const std::string saved = slurp(dir + "/" + pod + ".tensorflow.log");
    CHECK(saved.size() == c.server->kubelet().log("default", pod, "tensorflow").size());
    CHECK(saved == c.server->kubelet().log("default", pod, "tensorflow"));
  }
  CHECK(slurp(dir + "/sf-chief-0.tensorflow.log") == "chief 1\nchief 2\nchief 3\n");
  CHECK(slurp(dir + "/sf-worker-0.tensorflow.log") == "worker 0 raw\r\nno newline at the end");
  const std::string w1_saved = slurp(dir + "/sf-worker-1.tensorflow.log");
  CHECK(std::count(w1_saved.begin(), w1_saved.end(), '\n') == 20000);
  const std::string events = slurp(dir + "/events.log");
  CHECK(events.find("terminated sf-worker-1 tensorflow") != std::string::npos);
}
