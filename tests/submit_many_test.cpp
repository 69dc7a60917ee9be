// submit -f of many documents against the fake API server: the jobs are applied a bounded
// number at a time (workflow::apply_concurrency), each document's result said in the order of
// the file, a refused one does not hide the others (exit 1 at the end), and a document over
// the bound on one object (limits::max_document_bytes) is refused by its place, beside
// small ones. The manifests are read once: each job judged is kept in a spool (an unlinked
// temporary file, detail::Spool) and sent from there; nothing of it is left behind, whatever the
// outcome; stdin works as a file does; -o json|yaml prints each as its turn comes.
#include <catch2/catch.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_cluster.hpp"
#include "support/paths.hpp"
#include "support/workflow_run.hpp"

#include "../plugin/common/job_spool.hpp"

#include <tfjob/api/manifest.hpp>
#include <tfjob/detail/files.hpp>
#include <tfjob/detail/input.hpp>
#include <tfjob/workflow/cluster.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
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

/// The names in `dir` (a spool left behind would be one).
std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.push_back(e.path().filename().string());
  return out;
}

/// What this process holds open in `dir`: "N -> target" per descriptor (/proc/self/fd).
std::vector<std::string> open_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const std::string target = std::filesystem::read_symlink(e.path(), ec).string();
    if (!ec && target.rfind(dir + "/", 0) == 0) out.push_back(e.path().filename().string() + " -> " + target);
  }
  return out;
}

/// TMPDIR set to `dir` for a scope (this process's: detail::Spool reads it).
struct ScopedTmpdir {
  explicit ScopedTmpdir(const std::string& dir) {
    if (const char* t = std::getenv("TMPDIR")) old = t;
    ::setenv("TMPDIR", dir.c_str(), 1);
  }
  ~ScopedTmpdir() {
    if (old.empty()) ::unsetenv("TMPDIR");
    else ::setenv("TMPDIR", old.c_str(), 1);
  }
  std::string old;
};

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

TEST_CASE("Spool: records back by index from several threads, from an unlinked 0600 file in TMPDIR that goes with it",
          "[submit][many][spool]") {
  const std::string dir = tfjob::test::temp_dir("spool");
  ScopedTmpdir tmpdir(dir);
  std::vector<std::string> records;
  std::uint64_t total = 0;
  for (int i = 0; i < 300; ++i) {
    // an empty one, one larger than the write buffer, the rest of many sizes
    std::string r = i == 7 ? std::string() : std::string(i == 100 ? (3u << 20) : (i % 50) * 997u, static_cast<char>('a' + i % 26)) + std::to_string(i);
    total += r.size();
    records.push_back(std::move(r));
  }
  {
    tfjob::detail::Spool spool;
    REQUIRE(spool.in_memory().empty());
    for (const auto& r : records) spool.append(r);
    spool.finish();
    REQUIRE(spool.size() == records.size());
    // in TMPDIR, with no name there, only its owner may read it, the records' bytes in it
    const auto open = open_in(dir);
    INFO(open.size() << " open");
    REQUIRE(open.size() == 1);
    CHECK(open[0].find("(deleted)") != std::string::npos);
    struct stat st {};
    REQUIRE(::fstat(spool.fd(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0600);
    CHECK(st.st_nlink == 0);
    CHECK(static_cast<std::uint64_t>(st.st_size) == total);
    CHECK(entries(dir).empty());
    // four readers at once, each in its own order
    std::atomic<int> wrong{0};
    std::vector<std::thread> readers;
    for (std::size_t t = 0; t < 4; ++t)
      readers.emplace_back([&, t] {
        for (std::size_t k = 0; k < records.size(); ++k) {
          const std::size_t i = (k * (2 * t + 1) + t) % records.size();
          if (spool.at(i) != records[i]) ++wrong;
        }
      });
    for (auto& r : readers) r.join();
    CHECK(wrong == 0);
  }
  // gone with the spool: nothing open, nothing left
  CHECK(open_in(dir).empty());
  CHECK(entries(dir).empty());
}

TEST_CASE("Spool: no folder to write in: the records are held in memory, and it says why", "[submit][many][spool]") {
  const std::string dir = tfjob::test::temp_dir("spool") + "/missing";
  ScopedTmpdir tmpdir(dir);
  tfjob::detail::Spool spool;
  CHECK(spool.in_memory() == "cannot create a file in \"" + dir + "\": No such file or directory");
  spool.append("one");
  spool.append("");
  spool.append(std::string(2u << 20, 'z'));
  spool.finish();
  REQUIRE(spool.size() == 3);
  CHECK(spool.at(0) == "one");
  CHECK(spool.at(1).empty());
  CHECK(spool.at(2) == std::string(2u << 20, 'z'));
  tfjob::cli::JobSpool jobs;
  CHECK(jobs.warning() == "the jobs read are held in memory (cannot create a file in \"" + dir +
                              "\": No such file or directory); set TMPDIR to a writable folder");
}

TEST_CASE("JobSpool: each job back as it was added, byte for byte once printed", "[submit][many][spool]") {
  ScopedTmpdir tmpdir(tfjob::test::temp_dir("spool"));
  const json a = json::parse(R"J({"apiVersion":"kubeflow.org/v1","kind":"TFJob","metadata":{"name":"a","labels":{"k":"v"}},
    "spec":{"runPolicy":{"backoffLimit":-3,"activeDeadlineSeconds":600},"tfReplicaSpecs":{"Worker":{"replicas":2,
    "template":{"spec":{"containers":[{"name":"tensorflow","args":["--lr","0.5"],"env":[{"name":"S","value":"s\u00e9cret \"q\"\n"}],
    "resources":{"limits":{"nvidia.com/gpu":1}}}],"x":0.25,"y":1e300,"z":null,"t":true}}}}}})J");
  json b = a;
  b["metadata"]["name"] = "b";
  b["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["env"][0]["value"] = std::string(600 * 1024, 'x');
  tfjob::cli::JobSpool jobs;
  jobs.add(a);
  jobs.add(b);
  jobs.finish();
  REQUIRE(jobs.size() == 2);
  CHECK(jobs.warning().empty());
  CHECK(jobs.at(1) == b);
  CHECK(jobs.at(0) == a);
  CHECK(jobs.at(0).dump() == a.dump());
}

TEST_CASE("submit -f leaves nothing in TMPDIR: after success, a refused document and a server's refusal, and without a "
          "folder, said, and sent all the same", "[submit][many][spool]") {
  Cluster c;
  const std::string tmp = tfjob::test::temp_dir("submit-many-tmp");
  const std::vector<std::string> env = {"TMPDIR=" + tmp};
  const std::string file = tfjob::test::temp_dir("submit-many") + "/jobs.yaml";
  auto manifest = [](int from, int n, int workers) {
    std::string m;
    for (int i = from; i < from + n; ++i) m += (i > from ? "---\n" : "") + job_doc(name_of(i), workers, std::string(50 * 1024, 's'));
    return m;
  };
  tfjob::test::write_file(file, manifest(0, 6, 1));
  auto r = tfjob::test::run_plugin({"submit", "-f", file, "--skip-gpu-check"}, c.kubeconfig, 120, env);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(lines_of(r.out).size() == 6);
  CHECK(r.err.find("held in memory") == std::string::npos);
  CHECK(entries(tmp).empty());

  // the server refuses them (each exists with another spec): exit 1, nothing left
  tfjob::test::write_file(file, manifest(0, 6, 2));
  r = tfjob::test::run_plugin({"submit", "-f", file, "--skip-gpu-check"}, c.kubeconfig, 120, env);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("6 of 6 TFJobs failed") != std::string::npos);
  CHECK(entries(tmp).empty());

  // the third document is refused after two good ones were kept: nothing sent, nothing left
  tfjob::test::write_file(file, manifest(10, 2, 1) + "---\n" + job_doc("bad", 1) + "  unknownField: 1\n---\n" + manifest(12, 1, 1));
  r = tfjob::test::run_plugin({"submit", "-f", file, "--skip-gpu-check"}, c.kubeconfig, 120, env);
  CHECK(r.exit_code == 64);
  CHECK(r.out.empty());
  CHECK(r.err.find("unknownField") != std::string::npos);
  CHECK(c.server->list_objects("tfjobs", "default").size() == 6);
  CHECK(entries(tmp).empty());

  // no such folder: one warning that says what to do, and the jobs are sent all the same
  tfjob::test::write_file(file, manifest(20, 3, 1));
  r = tfjob::test::run_plugin({"submit", "-f", file, "--skip-gpu-check"}, c.kubeconfig, 120, {"TMPDIR=" + tmp + "/missing"});
  CHECK(r.exit_code == 0);
  CHECK(r.err == "warning: the jobs read are held in memory (cannot create a file in \"" + tmp +
                     "/missing\": No such file or directory); set TMPDIR to a writable folder\n");
  CHECK(lines_of(r.out).size() == 3);
  CHECK(c.server->list_objects("tfjobs", "default").size() == 9);
}

TEST_CASE("submit -f - from a pipe: read once, each job sent and said in order, an invalid one sends nothing",
          "[submit][many][spool]") {
  Cluster c;
  std::string manifest;
  for (int i = 0; i < 10; ++i) manifest += (i ? "---\n" : "") + job_doc(name_of(i), 1);
  const std::string dir = tfjob::test::temp_dir("submit-many");
  const std::string file = dir + "/jobs.yaml";
  tfjob::test::write_file(file, manifest);
  // stdin is a pipe, as `cat jobs.yaml | kubectl tfjob submit -f -`: it can be read once only
  auto piped = [&](const std::string& path, const std::string& flags) {
    return tfjob::test::run_program("/bin/sh", {"-c", "cat \"$1\" | \"$0\" submit -f - " + flags, tfjob::test::plugin_path(), path},
                                    120);
  };
  // --dry-run=client: the bytes a file gives
  auto from_file = c.run({"submit", "-f", file, "--dry-run=client", "-o", "yaml"});
  REQUIRE(from_file.exit_code == 0);
  auto d = piped(file, "--dry-run=client -o yaml");
  INFO(d.err);
  REQUIRE(d.exit_code == 0);
  CHECK(d.out == from_file.out);
  auto docs = tfjob::parse_objects(d.out);
  REQUIRE(docs.size() == 10);
  for (int i = 0; i < 10; ++i) CHECK(docs[i]["metadata"]["name"] == name_of(i));

  auto r = piped(file, "--skip-gpu-check --kubeconfig " + c.kubeconfig);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto out = lines_of(r.out);
  REQUIRE(out.size() == 10);
  for (int i = 0; i < 10; ++i) CHECK(out[i] == "tfjob.kubeflow.org/" + name_of(i) + " created");
  CHECK(c.server->list_objects("tfjobs", "default").size() == 10);

  // the last document is invalid: judged before any is sent, as from a file
  tfjob::test::write_file(file, job_doc("piped-a", 1) + "---\n" + job_doc("piped-b", 1) + "---\n" + job_doc("piped-c", -1));
  r = piped(file, "--skip-gpu-check --kubeconfig " + c.kubeconfig);
  CHECK(r.exit_code == 64);
  CHECK(r.out.empty());
  CHECK(r.err.find("piped-c") != std::string::npos);
  CHECK(c.server->list_objects("tfjobs", "default").size() == 10);
}
