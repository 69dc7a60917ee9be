// Following a job's logs while its pods are Pending, through the SDK in-process against the
// fake API server: the follow learns of changes from one JobWatch per job (the job, its
// pods, events: three long-lived watches) and makes no request while it waits, a cancel
// ends it at once, and `job_logs` shares the job's watches between all its streams.
#include <catch2/catch.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_cluster.hpp"

#include <tfjob/workflow/logs.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using tfjob::test::FakeApiServerOptions;
using tfjob::test::FakeCluster;

namespace {

bool is_watch(const tfjob::test::RecordedRequest& q) {
  return q.query.find("watch=true") != std::string::npos || q.query.find("watch=1") != std::string::npos;
}

/// A cluster whose pods stay Pending (the fake kubelet starts them after an hour), with a
/// job `name` of a chief and `workers` workers submitted and its pods made.
struct PendingCluster : FakeCluster {
  explicit PendingCluster(const std::string& name, int workers = 0)
      : FakeCluster(tfjob::test::with_controllers([] {
          FakeApiServerOptions o;
          o.pod_start_delay = std::chrono::hours(1);
          return o;
        }()), "wf-follow") {
    std::vector<std::string> a = {"submit", "--name", name, "--image", "tensorflow/tensorflow:2.15.0", "--chief", "--gpus", "0", "-o", "name"};
    if (workers) {
      a.push_back("--workers");
      a.push_back(std::to_string(workers));
    }
    auto r = run(a);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    REQUIRE(server->wait_for([&] { return server->get_object("pods", "default", name + "-chief-0").has_value(); }, 30s));
  }
  int watches() const {
    int n = 0;
    for (const auto& q : server->requests()) n += is_watch(q) ? 1 : 0;
    return n;
  }
};

}  // namespace

TEST_CASE("logs -f of a Pending chief: three watches, no request while it waits, cancel ends it", "[workflow][logs][follow]") {
  PendingCluster c("pend");
  tfjob::kube::Client client(tfjob::test::admin_config(*c.server));
  c.server->clear_requests();
  std::atomic<bool> cancel{false};
  std::atomic<int> progress{0};
  tfjob::workflow::JobLogOptions lo;
  lo.follow = true;
  lo.cancel = &cancel;
  lo.on_progress = [&](const tfjob::workflow::Progress& p) {
    if (p.line().find("1 pending") != std::string::npos) ++progress;
  };
  int lines = 0;
  auto follow = std::async(std::launch::async, [&] {
    return tfjob::workflow::replica_log_records(client, "default", "pend", "", 0, lo, [&](const tfjob::workflow::LogRecord&) {
      ++lines;
      return true;
    });
  });
  REQUIRE(c.server->wait_for([&] { return c.watches() == 3 && progress.load() > 0; }, 30s));
  const auto before = c.server->requests().size();
  // The old follow listed the pods, got the job and listed the namespace's events every
  // 0.5 s: 12 requests in these 2 s. Now the watches tell it when something changes.
  std::this_thread::sleep_for(2s);
  const auto during = c.server->requests().size() - before;
  for (const auto& q : c.server->requests()) UNSCOPED_INFO(q.method << " " << q.path << "?" << q.query);
  CHECK(during == 0);
  CHECK(c.watches() == 3);  // the job, its pods, the job's events
  // Ctrl-C: the caller's cancel ends the wait for the pod, and its watches, at once
  cancel = true;
  REQUIRE(follow.wait_for(30s) == std::future_status::ready);
  auto res = follow.get();
  CHECK(res.streams == 0);
  CHECK(lines == 0);
  CHECK(res.job_state.empty());  // not ended: interrupted
}

TEST_CASE("logs -f --all through Pending: one JobWatch for all of a job's streams", "[workflow][logs][follow]") {
  PendingCluster c("pall", 2);
  tfjob::kube::Client client(tfjob::test::admin_config(*c.server));
  auto job = c.server->get_object("tfjobs", "default", "pall");
  REQUIRE(job);
  tfjob::workflow::LogTargetFilter f;
  auto targets = tfjob::workflow::log_targets(tfjob::workflow::decode_tfjob(*job), {}, f, true);
  REQUIRE(targets.size() == 3);  // chief-0, worker-0, worker-1
  c.server->clear_requests();
  std::atomic<bool> cancel{false};
  tfjob::workflow::JobLogOptions lo;
  lo.follow = true;
  lo.cancel = &cancel;
  auto follow = std::async(std::launch::async, [&] {
    return tfjob::workflow::job_logs(client, "default", targets, lo, {}, [](const tfjob::workflow::LogRecord&) { return true; });
  });
  REQUIRE(c.server->wait_for([&] { return c.watches() >= 3; }, 30s));
  const auto before = c.server->requests().size();
  std::this_thread::sleep_for(2s);
  for (const auto& q : c.server->requests()) UNSCOPED_INFO(q.method << " " << q.path << "?" << q.query);
  CHECK(c.server->requests().size() == before);
  CHECK(c.watches() == 3);  // not three per stream, nor a fourth for the guard of the job's end
  cancel = true;
  REQUIRE(follow.wait_for(30s) == std::future_status::ready);
  auto r = follow.get();
  for (const auto& e : r.errors) CHECK(e.empty());
}

TEST_CASE("JobWatch decodes each object once as it arrives, keeping what it does not model or has of the wrong type",
          "[workflow][logs][follow]") {
  PendingCluster c("typed");
  tfjob::kube::Client client(tfjob::test::admin_config(*c.server));
  // the chief pod with a field of the wrong type and one no type models, as a hostile or newer server sends them
  auto pod = c.server->get_object("pods", "default", "typed-chief-0");
  REQUIRE(pod);
  (*pod)["spec"]["priorityClassName"] = 7;
  (*pod)["spec"]["futureField"] = {{"a", 1}};
  c.server->put_object(*pod);
  // an event about the job whose count is not a number
  c.server->put_object({{"apiVersion", "v1"}, {"kind", "Event"}, {"metadata", {{"name", "typed.odd"}, {"namespace", "default"}}},
                        {"involvedObject", {{"kind", "TFJob"}, {"name", "typed"}, {"namespace", "default"}}},
                        {"reason", "Odd"}, {"message", "counted oddly"}, {"count", "many"}, {"lastTimestamp", "2024-01-01T00:00:00Z"}});
  tfjob::workflow::JobWatch watch(client, "default", "typed");
  auto seen = [&](const tfjob::workflow::JobWatch::View& v) {
    if (!v.synced || !v.job || v.pods.empty()) return false;
    for (const auto& e : v.events)
      if (e.reason == "Odd") return true;
    return false;
  };
  auto v = watch.view();
  for (auto until = std::chrono::steady_clock::now() + 30s; !seen(v) && std::chrono::steady_clock::now() < until; v = watch.view())
    watch.wait(v.generation, 100ms);
  REQUIRE(seen(v));
  // the job, as its fields
  CHECK(v.job->metadata.name == "typed");
  CHECK(tfjob::workflow::summarize(*v.job).spec_replicas.at("Chief") == 1);
  // the pod: modeled fields read, the wrong-typed and unknown ones kept as they came
  REQUIRE(v.pods.size() == 1);
  const auto& p = v.pods[0];
  CHECK(p.metadata.name == "typed-chief-0");
  CHECK(p.spec.priority_class_name.empty());
  CHECK(p.spec.other.at("priorityClassName") == 7);
  const nlohmann::json back(p);
  CHECK(back["spec"]["priorityClassName"] == 7);
  CHECK(back["spec"]["futureField"] == nlohmann::json{{"a", 1}});
  // the event: its count of the wrong type kept, the rest read
  for (const auto& e : v.events)
    if (e.reason == "Odd") {
      CHECK(e.message == "counted oddly");
      CHECK(e.other.at("count") == "many");
    }
  // and progress reads them as fields: the Pending chief, counted once
  CHECK(v.progress().pending == 1);
}
