// submit -f of many documents against the fake API server: the jobs are applied a bounded
// number at a time (workflow::apply_concurrency), each document's result said in the order of
// the file, a refused one does not hide the others (exit 1 at the end), and a document over
// the bound on one object (limits::max_document_bytes) is refused by its place, beside
// small ones. The jobs of -f are read a second time while they are sent (JobFeed), a bounded
// number held; -o json|yaml prints each as its turn comes.
#include <catch2/catch.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_cluster.hpp"
#include "support/workflow_run.hpp"

#include "../plugin/common/job_feed.hpp"

#include <tfjob/api/manifest.hpp>
#include <tfjob/detail/input.hpp>
#include <tfjob/workflow/cluster.hpp>

#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>
#include <chrono>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using nlohmann::json;
using tfjob::test::FakeApiServerOptions;

namespace {

/// No operator, kubelet or scheduler: only the requests the plugin makes.
struct Cluster : tfjob::test::FakeCluster {
  Cluster() : FakeCluster(tfjob::test::with_controllers(FakeApiServerOptions{}, false), "submit-many") {}
};

std::string job_doc(const std::string& name, int workers, const std::string& extra_env = "") {
  std::string s = "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata:\n  name: " + name +
                  "\nspec:\n  tfReplicaSpecs:\n    Worker:\n      replicas: " + std::to_string(workers) +
                  "\n      restartPolicy: OnFailure\n      template:\n        spec:\n          containers:\n"
                  "          - name: tensorflow\n            image: tensorflow/tensorflow:2.20.0\n"
                  "            command: [python, -c, \"print(1)\"]\n";
  if (!extra_env.empty())
    s += "            env:\n            - name: BIG\n              value: \"" + extra_env + "\"\n";
  return s;
}

std::string name_of(int i) {
  std::string n = std::to_string(i);
  return "job-" + std::string(n.size() < 2 ? 2 - n.size() : 0, '0') + n;
}

/// The most requests in flight at one moment among `reqs` (each a span received..answered).
std::size_t max_in_flight(const std::vector<tfjob::test::RecordedRequest>& reqs) {
  std::vector<std::pair<std::chrono::steady_clock::time_point, int>> edges;
  for (const auto& r : reqs) {
    edges.emplace_back(r.received, +1);
    edges.emplace_back(r.answered, -1);
  }
  std::sort(edges.begin(), edges.end());  // at a tie the end (-1) comes first: touching spans do not overlap
  int now = 0, most = 0;
  for (const auto& e : edges) most = std::max(most, now += e.second);
  return static_cast<std::size_t>(most);
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("submit -f of 50 documents: all created, at most apply_concurrency requests at once, results in file order",
          "[submit][many]") {
  Cluster c;
  std::string manifest;
  for (int i = 0; i < 50; ++i) manifest += (i ? "---\n" : "") + job_doc(name_of(i), 1);
  const std::string file = tfjob::test::temp_dir("submit-many") + "/jobs.yaml";
  tfjob::test::write_file(file, manifest);
  // every request takes the server 60 ms: jobs sent one by one would never overlap
  c.server->faults().stall_next(std::chrono::milliseconds(60), 100000, "");
  c.server->clear_requests();

  auto r = c.run({"submit", "-f", file, "--skip-gpu-check"}, 240);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto out = lines_of(r.out);
  REQUIRE(out.size() == 50);
  for (int i = 0; i < 50; ++i) CHECK(out[i] == "tfjob.kubeflow.org/" + name_of(i) + " created");
  CHECK(c.server->list_objects("tfjobs", "default").size() == 50);

  const auto reqs = c.server->requests();
  // the applies themselves: PATCH without dryRun, one per job
  std::size_t applies = 0;
  for (const auto& q : reqs) applies += q.method == "PATCH" && q.query.find("dryRun") == std::string::npos;
  CHECK(applies == 50);
  // what is the same for every job is asked once, not 50 times: discovery, the namespace, the nodes
  auto count = [&](const std::string& method, const std::string& path) {
    return std::count_if(reqs.begin(), reqs.end(), [&](const auto& q) { return q.method == method && q.path == path; });
  };
  CHECK(count("GET", "/apis/kubeflow.org/v1") == 1);
  CHECK(count("GET", "/api/v1/namespaces/default") == 1);
  CHECK(count("GET", "/api/v1/nodes") == 1);
  // and per job: its GET and its apply (no dry run of it first: the apply is the server's answer)
  CHECK(reqs.size() < 50 * 2 + 20);
  // the bound holds over every request the submit made, and it is reached
  const auto most = max_in_flight(reqs);
  CHECK(most <= tfjob::workflow::apply_concurrency);
  CHECK(most == tfjob::workflow::apply_concurrency);
}

TEST_CASE("submit -f: a job the server refuses does not hide the others' results, exit 1", "[submit][many]") {
  Cluster c;
  // job-02 exists with another spec: without --replace it is refused (spec conflict)
  auto existing = json::parse(R"J({"apiVersion":"kubeflow.org/v1","kind":"TFJob","metadata":{"name":"job-02","namespace":"default"},
    "spec":{"tfReplicaSpecs":{"Worker":{"replicas":3,"restartPolicy":"OnFailure","template":{"spec":{"containers":[
    {"name":"tensorflow","image":"tensorflow/tensorflow:2.20.0","command":["python","-c","print(1)"]}]}}}}}})J");
  c.server->put_object(existing);
  std::string manifest;
  for (int i = 0; i < 6; ++i) manifest += (i ? "---\n" : "") + job_doc(name_of(i), 1);
  const std::string file = tfjob::test::temp_dir("submit-many") + "/jobs.yaml";
  tfjob::test::write_file(file, manifest);

  auto r = c.run({"submit", "-f", file, "--skip-gpu-check"}, 120);
  INFO(r.err);
  CHECK(r.exit_code == 1);
  auto out = lines_of(r.out);
  REQUIRE(out.size() == 5);
  const std::vector<int> applied = {0, 1, 3, 4, 5};
  for (std::size_t k = 0; k < applied.size(); ++k) CHECK(out[k] == "tfjob.kubeflow.org/" + name_of(applied[k]) + " created");
  CHECK(r.err.find("error: TFJob \"job-02\" already exists in namespace \"default\" with a different spec") != std::string::npos);
  CHECK(r.err.find("1 of 6 TFJobs failed") != std::string::npos);
  CHECK(c.server->list_objects("tfjobs", "default").size() == 6);
  auto kept = c.server->get_object("tfjobs", "default", "job-02");
  REQUIRE(kept);
  CHECK((*kept)["spec"]["tfReplicaSpecs"]["Worker"]["replicas"] == 3);  // left as it was
}

TEST_CASE("a document over the bound on one object is refused by its place, beside small ones", "[submit][many][hostile]") {
  Cluster c;
  const std::string big(tfjob::limits::max_document_bytes + (512 << 10), 'x');
  const std::string manifest = job_doc("small-a", 1) + "---\n" + job_doc("huge", 1, big) + "---\n" + job_doc("small-b", 1);
  const std::string file = tfjob::test::temp_dir("submit-many") + "/mixed.yaml";
  tfjob::test::write_file(file, manifest);
  // the whole file is far below the bound on a manifest: the document is what is refused
  REQUIRE(manifest.size() < tfjob::limits::max_manifest_bytes);

  auto r = c.run({"submit", "-f", file, "--dry-run=client"}, 120);
  CHECK(r.exit_code == 64);
  CHECK(r.out.empty());
  // the document is named by its number and the line of its `---`, the bound by its size and why
  CHECK(r.err.find(file + ": document 2 (line 16): " + "3.5 MiB is more than the 3 MiB one object may have (kube-apiserver's bound on a request body)") != std::string::npos);
  CHECK(r.err.find("document 1") == std::string::npos);
  CHECK(r.err.find("document 3") == std::string::npos);

  // sent to the server: nothing is created (an invalid input sends nothing)
  c.server->clear_requests();
  r = c.run({"submit", "-f", file}, 120);
  CHECK(r.exit_code == 64);
  CHECK(c.server->list_objects("tfjobs", "default").empty());

  // lint -f says the same of the same document
  r = c.run({"lint", "-f", file}, 120);
  CHECK(r.exit_code != 0);
  CHECK(r.out.find("document 2 (line 16)") != std::string::npos);

  // the same objects as small documents are read: the bound is per object, not per file
  std::string many;
  for (int i = 0; i < 8; ++i) many += (i ? "---\n" : "") + job_doc(name_of(i), 1, std::string(600 * 1024, 'y'));
  REQUIRE(many.size() > tfjob::limits::max_document_bytes);
  tfjob::test::write_file(file, many);
  r = c.run({"submit", "-f", file, "--dry-run=client", "-o", "name"}, 120);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(lines_of(r.out).size() == 8);
}

TEST_CASE("JobFeed: jobs by index in order, no more than the bound held, taken from several threads", "[submit][many][feed]") {
  const std::size_t n = 200, ahead = 3;
  tfjob::cli::JobFeed feed(n, ahead, [&](const std::function<void(json)>& give) {
    for (std::size_t i = 0; i < n; ++i) give(json{{"i", i}});
  });
  // four takers, each taking the next index as for_each_bounded hands them out
  std::atomic<std::size_t> next{0};
  std::vector<int> got(n, -1);
  std::vector<std::thread> takers;
  for (int t = 0; t < 4; ++t)
    takers.emplace_back([&] {
      for (std::size_t i; (i = next.fetch_add(1)) < n;) got[i] = feed.take(i)["i"].get<int>();
    });
  for (auto& t : takers) t.join();
  for (std::size_t i = 0; i < n; ++i) CHECK(got[i] == static_cast<int>(i));
  CHECK(feed.most_held() <= ahead);
  CHECK(feed.most_held() >= 1);
  CHECK_NOTHROW(feed.check_end());
}

TEST_CASE("JobFeed: a second reading that finds fewer or more jobs than the first is said and nothing is guessed",
          "[submit][many][feed]") {
  SECTION("fewer") {
    tfjob::cli::JobFeed feed(3, 2, [](const std::function<void(json)>& give) { give(json{{"i", 0}}); });
    CHECK(feed.take(0)["i"] == 0);
    try {
      (void)feed.take(1);
      FAIL("take(1) gave a job the reading never found");
    } catch (const tfjob::error& e) {
      CHECK(std::string(e.what()).find("the manifests changed while they were read: the first reading found 3 TFJobs, "
                                       "the second fewer (no job 2)") != std::string::npos);
    }
  }
  SECTION("more") {
    tfjob::cli::JobFeed feed(1, 2, [](const std::function<void(json)>& give) {
      give(json{{"i", 0}});
      give(json{{"i", 1}});
    });
    CHECK(feed.take(0)["i"] == 0);
    CHECK_THROWS_WITH(feed.check_end(), Catch::Contains("the second more"));
  }
  SECTION("the reading's own error reaches the job that waits for it") {
    tfjob::cli::JobFeed feed(2, 2, [](const std::function<void(json)>& give) {
      give(json{{"i", 0}});
      throw tfjob::error("jobs.yaml: cannot be read");
    });
    CHECK(feed.take(0)["i"] == 0);
    CHECK_THROWS_WITH(feed.take(1), Catch::Contains("jobs.yaml: cannot be read"));
  }
  SECTION("left before every job is taken: the reading stops, nothing hangs") {
    tfjob::cli::JobFeed feed(100, 2, [](const std::function<void(json)>& give) {
      for (int i = 0; i < 100; ++i) give(json{{"i", i}});
    });
    CHECK(feed.take(0)["i"] == 0);
  }
}

TEST_CASE("submit -f -o json of several documents: one List of the applied jobs in file order", "[submit][many]") {
  Cluster c;
  std::string manifest;
  for (int i = 0; i < 12; ++i) manifest += (i ? "---\n" : "") + job_doc(name_of(i), 1);
  const std::string file = tfjob::test::temp_dir("submit-many") + "/jobs.yaml";
  tfjob::test::write_file(file, manifest);
  auto r = c.run({"submit", "-f", file, "--skip-gpu-check", "-o", "json"}, 120);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json list = json::parse(r.out);
  CHECK(list["kind"] == "List");
  REQUIRE(list["items"].size() == 12);
  for (int i = 0; i < 12; ++i) {
    CHECK(list["items"][i]["metadata"]["name"] == name_of(i));
    CHECK(list["items"][i]["metadata"].contains("uid"));  // the server's answer, not the manifest
  }
  // -o yaml: the same jobs as documents
  auto y = c.run({"submit", "-f", file, "--skip-gpu-check", "-o", "yaml"}, 120);
  INFO(y.err);
  REQUIRE(y.exit_code == 0);
  auto docs = tfjob::parse_objects(y.out);
  REQUIRE(docs.size() == 12);
  for (int i = 0; i < 12; ++i) CHECK(docs[i]["metadata"]["name"] == name_of(i));
}
