// What a command costs as the cluster grows (issue 32): lists are read page by page
// (kubectl's --chunk-size), a command about one job asks for that job's pods and events by
// selector and never for the namespace's, and `-v=6` ends with the number of requests. Each
// command runs in-process (run_cli) against the fake API server, once beside no other job and
// once beside 1,000 other jobs, pods and events: it must send the same requests both times.
#include <catch2/catch.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_cluster.hpp"

#if __has_include("cli.hpp")
#include "cli.hpp"               // plugin/cli.hpp: linked from the plugin's objects (tests/cmake/plugin.cmake)
#include "common/output.hpp"     // ListWriter, print_objects
#define TFJOB_HAVE_PLUGIN_CLI 1
#endif

#include <tfjob/kube/api.hpp>
#include <tfjob/kube/core.hpp>
#include <tfjob/kube/pager.hpp>
#include <tfjob/workflow/cluster.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <regex>
#include <filesystem>
#include <unistd.h>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using nlohmann::json;

namespace {

using tfjob::test::FakeApiServer;
using tfjob::test::FakeCluster;

/// A fake API server without controllers: what is there is what a test put there.
struct Quiet : FakeCluster {
  Quiet() : FakeCluster(tfjob::test::with_controllers({}, false), "scale") {}
};

json tfjob_obj(const std::string& ns, const std::string& name, const std::string& state = "Running") {
  json c = {{"name", "tensorflow"}, {"image", "tensorflow/tensorflow:2.15.0"},
            {"resources", {{"limits", {{"nvidia.com/gpu", "1"}}}}}};
  json spec = {{"replicas", 1}, {"restartPolicy", "Never"}, {"template", {{"spec", {{"containers", json::array({c})}}}}}};
  const std::string now = "2024-01-01T00:00:00Z";
  return {{"apiVersion", "kubeflow.org/v1"},
          {"kind", "TFJob"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec", {{"runPolicy", {{"cleanPodPolicy", "None"}}}, {"tfReplicaSpecs", {{"Chief", spec}, {"Worker", spec}}}}},
          {"status", {{"conditions", json::array({{{"type", "Created"}, {"status", "True"}, {"lastTransitionTime", now}},
                                                  {{"type", state}, {"status", "True"}, {"lastTransitionTime", now}}})},
                      {"replicaStatuses", {{"Chief", {{"active", 1}}}, {"Worker", {{"active", 1}}}}},
                      {"startTime", now}}}};
}

json pod_obj(const std::string& ns, const std::string& job, const std::string& type, const std::string& node,
             const std::string& phase = "Running") {
  const std::string name = job + "-" + type + "-0";
  json labels = {{"training.kubeflow.org/job-name", job},
                 {"training.kubeflow.org/replica-type", type},
                 {"training.kubeflow.org/replica-index", "0"},
                 {"training.kubeflow.org/operator-name", "tfjob-controller"}};
  if (type == "chief") labels["training.kubeflow.org/job-role"] = "master";
  json c = {{"name", "tensorflow"}, {"image", "tensorflow/tensorflow:2.15.0"},
            {"resources", {{"limits", {{"nvidia.com/gpu", "1"}}}, {"requests", {{"nvidia.com/gpu", "1"}}}}}};
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}},
            {"spec", {{"containers", json::array({c})}, {"restartPolicy", "Never"}}},
            {"status", {{"phase", phase}}}};
  if (!node.empty()) p["spec"]["nodeName"] = node;
  if (phase == "Running")
    p["status"]["containerStatuses"] = json::array(
        {{{"name", "tensorflow"}, {"ready", true}, {"restartCount", 0}, {"state", {{"running", {{"startedAt", "2024-01-01T00:00:01Z"}}}}}}});
  return p;
}

/// An event about `about` (an object as the server returned it, with its uid), as the
/// operator, scheduler or kubelet records one.
json event_obj(const json& about, const std::string& reason, const std::string& message, int n) {
  const auto& md = about["metadata"];
  return {{"apiVersion", "v1"},
          {"kind", "Event"},
          {"metadata", {{"name", md["name"].get<std::string>() + "." + std::to_string(n)}, {"namespace", md["namespace"]}}},
          {"involvedObject", {{"apiVersion", about["apiVersion"]}, {"kind", about["kind"]}, {"name", md["name"]},
                              {"namespace", md["namespace"]}, {"uid", md["uid"]}}},
          {"reason", reason}, {"message", message}, {"type", "Normal"},
          {"firstTimestamp", "2024-01-01T00:00:0" + std::to_string(n % 10) + "Z"},
          {"lastTimestamp", "2024-01-01T00:00:0" + std::to_string(n % 10) + "Z"}, {"count", 1}};
}

/// The job the tests look at, "mine" in namespace "crowd", with its two pods and events.
void put_mine(FakeApiServer& s) {
  auto job = s.put_object(tfjob_obj("crowd", "mine"));
  auto chief = s.put_object(pod_obj("crowd", "mine", "chief", "fake-node-0"));
  auto worker = s.put_object(pod_obj("crowd", "mine", "worker", "fake-node-0"));
  s.put_object(event_obj(job, "SuccessfulCreatePod", "Created pod: mine-chief-0", 1));
  s.put_object(event_obj(chief, "Started", "Started container tensorflow", 2));
  s.put_object(event_obj(worker, "Started", "Started container tensorflow", 3));
}

/// `n` other jobs in the same namespace, each with a pod and an event about the job and the pod.
void put_crowd(FakeApiServer& s, int n) {
  for (int i = 0; i < n; ++i) {
    const std::string name = "other-" + std::to_string(i);
    auto job = s.put_object(tfjob_obj("crowd", name));
    auto pod = s.put_object(pod_obj("crowd", name, "chief", "fake-node-0"));
    s.put_object(event_obj(job, "SuccessfulCreatePod", "Created pod: " + name + "-chief-0", i));
    s.put_object(event_obj(pod, "Started", "Started container tensorflow", i));
  }
}

#ifdef TFJOB_HAVE_PLUGIN_CLI
struct Ran {
  int rc = -1;
  std::string out, err;
};

Ran call(const FakeCluster& c, std::vector<std::string> args) {
  args.push_back("--kubeconfig");
  args.push_back(c.kubeconfig);
  std::ostringstream out, err;
  Ran r;
  r.rc = tfjob::cli::run_cli(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

/// The number `-v=6` ends with ("requests: N"), -1 when the line is missing.
int logged_requests(const std::string& err) {
  std::smatch m;
  static const std::regex last("(^|\n)requests: ([0-9]+)\n$");
  return std::regex_search(err, m, last) ? std::stoi(m[2]) : -1;
}

/// The requests the server saw, as "METHOD path?query" with what differs between two servers
/// (resource versions, continue tokens, uids) masked, for the report and for comparing runs.
std::vector<std::string> seen(const FakeApiServer& s) {
  static const std::regex rv("resourceVersion=[0-9]+"), cont("continue=[^&]*"), uid("uid%3D[0-9a-fA-F-]+");
  std::vector<std::string> out;
  for (const auto& q : s.requests()) {
    std::string line = q.method + " " + q.path + (q.query.empty() ? "" : "?" + q.query);
    line = std::regex_replace(line, rv, "resourceVersion=N");
    line = std::regex_replace(line, cont, "continue=C");
    out.push_back(std::regex_replace(line, uid, "uid%3DU"));
  }
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

/// Every list of events names one object (kubectl describe's field selector); every list of
/// the namespace's pods selects them by label or field.
void check_selective(const FakeApiServer& s) {
  for (const auto& q : s.requests()) {
    INFO(q.method << " " << q.path << "?" << q.query);
    if (q.path == "/api/v1/namespaces/crowd/events") {
      CHECK(q.query.find("fieldSelector=involvedObject.kind%3D") != std::string::npos);
      CHECK(q.query.find("involvedObject.name%3D") != std::string::npos);
    }
    if (q.path == "/api/v1/namespaces/crowd/pods" || q.path == "/api/v1/pods")
      CHECK((q.query.find("labelSelector=") != std::string::npos || q.query.find("fieldSelector=") != std::string::npos));
  }
}

/// Runs `args` beside no other job and beside 1,000: same exit code, the same requests (by
/// count and by what they ask), the count `-v=6` logs equal to what the server saw.
void same_cost_in_a_crowd(const std::vector<std::string>& args, int expected_rc = 0) {
  Quiet alone, crowded;
  put_mine(*alone.server);
  put_mine(*crowded.server);
  put_crowd(*crowded.server, 1000);
  std::vector<std::string> with_v = args;
  with_v.insert(with_v.end(), {"-v", "6"});
  std::vector<std::vector<std::string>> reqs;
  for (auto* c : {&alone, &crowded}) {
    c->server->clear_requests();
    Ran r = call(*c, with_v);
    INFO("kubectl tfjob " << joined(args) << "stdout:\n" << r.out << "\nstderr:\n" << r.err);
    CHECK(r.rc == expected_rc);
    reqs.push_back(seen(*c->server));
    INFO("requests:\n" << joined(reqs.back()));
    CHECK(logged_requests(r.err) == static_cast<int>(reqs.back().size()));
    check_selective(*c->server);
  }
  INFO("alone:\n" << joined(reqs[0]) << "beside 1,000 other jobs:\n" << joined(reqs[1]));
  CHECK(reqs[0].size() == reqs[1].size());
  std::multiset<std::string> a(reqs[0].begin(), reqs[0].end()), b(reqs[1].begin(), reqs[1].end());
  CHECK(a == b);
}
#endif

}  // namespace

TEST_CASE("list_pages hands over pages of the chunk size, each item once, and resumes after an expired continue token",
          "[scale][kube]") {
  Quiet c;
  for (int i = 0; i < 23; ++i) c.server->put_object(tfjob_obj("paged", "job-" + std::string(i < 10 ? "0" : "") + std::to_string(i)));
  auto rc = tfjob::test::admin_config(*c.server);
  rc.chunk_size = 5;
  tfjob::kube::Client client(rc);
  const auto res = tfjob::workflow::resources::tfjobs();
  tfjob::kube::RequestBuilder rb(res, "paged");

  c.server->clear_requests();
  std::vector<std::string> names;
  std::vector<std::size_t> sizes;
  tfjob::kube::list_pages(client, rb, {}, [&](tfjob::kube::ListPage& page) {
    sizes.push_back(page.items.size());
    for (const auto& j : page.items) {
      CHECK(j["kind"] == "TFJob");
      names.push_back(j["metadata"]["name"]);
    }
    return true;
  });
  CHECK(sizes == std::vector<std::size_t>{5, 5, 5, 5, 3});  // the client's chunk size: 5 per request
  CHECK(names.size() == 23);
  CHECK(std::set<std::string>(names.begin(), names.end()).size() == 23);
  for (const auto& q : c.server->requests()) CHECK(q.query.find("limit=5") != std::string::npos);

  // the continue token of the third page expires: the list starts over and skips what it gave
  names.clear();
  int pages = 0;
  tfjob::kube::list_pages(client, rb, {}, [&](tfjob::kube::ListPage& page) {
    if (++pages == 2) c.server->faults().gone_next(1, "/namespaces/paged/tfjobs");
    for (const auto& j : page.items) names.push_back(j["metadata"]["name"]);
    return true;
  });
  CHECK(names.size() == 23);
  CHECK(std::set<std::string>(names.begin(), names.end()).size() == 23);
  CHECK(c.server->faults().fired() >= 1);

  // a caller may stop early; an explicit limit wins over the client's; 0 = all at once
  pages = 0;
  CHECK_FALSE(tfjob::kube::list_pages(client, rb, {}, [&](tfjob::kube::ListPage&) { return ++pages < 2; }));
  CHECK(pages == 2);
  tfjob::kube::ListParams whole;
  whole.limit = 0;
  sizes.clear();
  tfjob::kube::list_pages(client, rb, whole, [&](tfjob::kube::ListPage& page) {
    sizes.push_back(page.items.size());
    return true;
  });
  CHECK(sizes == std::vector<std::size_t>{23});
}

TEST_CASE("Api::list_pages decodes each page into typed objects before asking for the next", "[scale][kube]") {
  Quiet c;
  for (int i = 0; i < 7; ++i) c.server->put_object(pod_obj("typed", "j" + std::to_string(i), "chief", "fake-node-0"));
  tfjob::kube::Client client(tfjob::test::admin_config(*c.server));
  tfjob::kube::Api<tfjob::k8s::Pod> pods(client, "typed");
  tfjob::kube::ListParams lp;
  lp.limit = 3;
  std::vector<std::size_t> requests_before_page;
  int n = 0;
  c.server->clear_requests();
  pods.list_pages(lp, [&](tfjob::kube::ObjectList<tfjob::k8s::Pod>& page) {
    requests_before_page.push_back(c.server->requests().size());
    for (const auto& p : page.items) {
      CHECK(p.metadata.namespace_ == "typed");
      CHECK(p.spec.node_name == "fake-node-0");
      ++n;
    }
    return true;
  });
  CHECK(n == 7);
  CHECK(requests_before_page == std::vector<std::size_t>{1, 2, 3});  // one page asked for at a time
}

TEST_CASE("a list page is parsed item by item as its text arrives: the same answer, never the page's text held", "[scale][kube]") {
  using tfjob::kube::detail::ListBodyReader;
  // a page of 200 jobs of about 10 KB (bench/scale_bench.sh's), with managed fields and a continue token
  json page = {{"apiVersion", "kubeflow.org/v1"}, {"kind", "TFJobList"}, {"metadata", {{"continue", "abc"}, {"resourceVersion", "42"}}}};
  page["items"] = json::array();
  for (int i = 0; i < 200; ++i) {
    json j = tfjob_obj("paged", "job-" + std::to_string(i));
    j["metadata"]["managedFields"] = json::array({{{"manager", "kubectl"}, {"fieldsV1", {{"f:spec", json::object()}}}}});
    j["metadata"]["annotations"] = {{"note", "a \"quoted\" ] } , [ { value"}};  // brackets and commas in a string
    j["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["env"] = json::array();
    for (int e = 0; e < 20; ++e)
      j["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["env"].push_back(
          {{"name", "EXTRA_" + std::to_string(e)}, {"value", std::string(400, 'v')}});
    page["items"].push_back(j);
  }
  const std::string text = page.dump(2);  // with whitespace between the tokens, as some servers send
  REQUIRE(text.size() > 1700000);
  const std::vector<std::string> omit = {"metadata.managedFields", "spec"};
  tfjob::detail::JsonOmit whole_omit;
  whole_omit.add({"items", "*"}, omit);
  const json want = tfjob::detail::read_json(text, tfjob::limits::max_depth, &whole_omit).value;
  REQUIRE(want["items"].size() == 200);
  REQUIRE_FALSE(want["items"][0].contains("spec"));
  const tfjob::kube::Request req = tfjob::kube::RequestBuilder(tfjob::workflow::resources::tfjobs(), "paged").list({});
  for (std::size_t block : {std::size_t(1), std::size_t(7), std::size_t(4096), text.size()}) {
    INFO("blocks of " << block << " bytes");
    ListBodyReader r(omit);
    r.start();
    std::size_t held = 0;
    for (std::size_t at = 0; at < text.size(); at += block) {
      r.data(std::string_view(text).substr(at, block));
      held = std::max(held, r.text_held());
    }
    CHECK(held < 64 * 1024);  // the largest item's text and what is not an item: not the page's 1.7 MB
    CHECK(r.finish(req, 200) == want);
  }
  // a body cut and asked again (start) begins afresh; a Table's rows keep their cells, their objects lose what is omitted
  ListBodyReader r(omit);
  r.start();
  r.data(text.substr(0, 5000));
  r.start();
  const std::string table = R"({"kind":"Table","columnDefinitions":[{"name":"Name"}],"rows":[)"
                            R"({"cells":["a"],"object":{"metadata":{"name":"a","managedFields":[1]},"spec":{"x":1}}},)"
                            R"({"cells":["b"],"object":{"metadata":{"name":"b"}}}]})";
  r.data(table);
  CHECK(r.finish(req, 200) == json::parse(R"({"kind":"Table","columnDefinitions":[{"name":"Name"}],"rows":[)"
                                           R"({"cells":["a"],"object":{"metadata":{"name":"a"}}},{"cells":["b"],"object":{"metadata":{"name":"b"}}}]})"));
  // what is not JSON is said as a whole parse says it, with the body's first bytes
  for (const std::string& bad : {std::string(R"({"items":[{"a":1},,{"b":2}]})"), std::string(R"({"items":[{"a":1},]})"),
                                std::string(R"({"items":[{"a":}]})"), std::string(R"({"items":[{"a":1})"), std::string("<html>"),
                                std::string(R"({"kind":"List"} x)")}) {
    INFO(bad);
    ListBodyReader b(omit);
    b.start();
    b.data(bad);
    try {
      (void)b.finish(req, 200);
      FAIL("taken for JSON");
    } catch (const tfjob::decode_error& e) {
      CHECK(std::string(e.what()).find("the server answered 200 but its body is not valid JSON (") != std::string::npos);
      CHECK(std::string(e.what()).find("the body begins: " + bad.substr(0, 10)) != std::string::npos);
    }
  }
  ListBodyReader empty(omit);
  empty.start();
  CHECK(empty.finish(req, 200) == json::object());
  ListBodyReader none(omit);
  none.start();
  none.data(R"({"kind":"TFJobList","items":[]})");
  CHECK(none.finish(req, 200) == json::parse(R"({"kind":"TFJobList","items":[]})"));
}

#ifdef TFJOB_HAVE_PLUGIN_CLI

TEST_CASE("ListWriter writes a List item by item, byte for byte as the whole List prints", "[scale][output]") {
  using tfjob::cli::ListWriter;
  using tfjob::cli::OutputFormat;
  std::vector<json> items;
  items.push_back(tfjob_obj("ns", "a"));
  items.push_back(tfjob_obj("ns", "b"));
  items[1]["metadata"]["annotations"] = {{"note", "line one\nline two\n"}, {"empty", ""}, {"html", "<a & b>\u2028"}};
  items[1]["spec"]["tfReplicaSpecs"]["Chief"]["template"]["spec"]["containers"][0]["args"] =
      json::array({"--x", "", json::array({1, 2}), json::object(), json::array()});
  for (OutputFormat f : {OutputFormat::json, OutputFormat::yaml, OutputFormat::name}) {
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2)}) {
      std::vector<json> some(items.begin(), items.begin() + static_cast<long>(n));
      std::ostringstream whole, streamed;
      tfjob::cli::print_objects(whole, some, f, tfjob::cli::Many::list);
      {
        ListWriter w(streamed, f);
        for (const auto& i : some) w.add(i);
      }
      INFO("format " << static_cast<int>(f) << ", " << n << " items");
      CHECK(streamed.str() == whole.str());
      if (f == OutputFormat::json && n == 2) {  // Go's encoding/json escapes as kubectl prints
        CHECK(streamed.str().find(R"("html": "\u003ca \u0026 b\u003e\u2028")") != std::string::npos);
        CHECK(json::parse(streamed.str())["items"][1]["metadata"]["annotations"]["html"] == "<a & b>\u2028");
      }
    }
  }
}

TEST_CASE("get -A pages the list, writes -o json without managedFields, and logs its requests at -v=6", "[scale][get]") {
  Quiet c;
  for (int i = 0; i < 12; ++i) {
    json j = tfjob_obj(i % 2 ? "team-a" : "team-b", "j" + std::to_string(i));
    j["metadata"]["managedFields"] = json::array({{{"manager", "kubectl"}, {"operation", "Apply"}, {"fieldsV1", {{"f:spec", json::object()}}}}});
    c.server->put_object(j);
  }
  c.server->clear_requests();
  Ran t = call(c, {"get", "-A", "--chunk-size", "5", "-v", "6"});
  REQUIRE(t.rc == 0);
  CHECK(std::count(t.out.begin(), t.out.end(), '\n') == 13);  // the header and 12 rows, aligned as one table
  int lists = 0;
  for (const auto& q : c.server->requests())
    if (q.path == "/apis/kubeflow.org/v1/tfjobs") {
      ++lists;
      CHECK(q.query.find("limit=5") != std::string::npos);
    }
  CHECK(lists == 3);  // 12 jobs in pages of 5
  CHECK(logged_requests(t.err) == static_cast<int>(c.server->requests().size()));
  for (const auto& q : c.server->requests())  // the plain table is the server's, as kubectl get asks
    if (q.path == "/apis/kubeflow.org/v1/tfjobs") CHECK(q.accept.find("as=Table;v=v1;g=meta.k8s.io") != std::string::npos);
  CHECK(std::regex_search(t.out, std::regex("\nteam-a +j1 +Running +[0-9]+s\n")));

  // a Table without the State column (a CRD without printer columns): the jobs themselves
  c.server->clear_requests();
  c.server->faults().answer_next(200, R"({"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},)"
                                      R"("columnDefinitions":[{"name":"Name","type":"string"},{"name":"Age","type":"date"}],)"
                                      R"("rows":[{"cells":["j1","5m"],"object":{"metadata":{"name":"j1","namespace":"team-a"}}}]})",
                                 1, "/apis/kubeflow.org/v1/tfjobs", "limit=");
  Ran f = call(c, {"get", "-A"});
  REQUIRE(f.rc == 0);
  CHECK(std::regex_search(f.out, std::regex("\nteam-a +j1 +Running +[0-9]+s\n")));
  CHECK(std::count(f.out.begin(), f.out.end(), '\n') == 13);
  int plain = 0;
  for (const auto& q : c.server->requests())
    if (q.path == "/apis/kubeflow.org/v1/tfjobs" && q.accept.find("as=Table") == std::string::npos) ++plain;
  CHECK(plain == 1);

  Ran j = call(c, {"get", "-A", "-o", "json", "--chunk-size", "5"});
  REQUIRE(j.rc == 0);
  auto list = json::parse(j.out);
  CHECK(list["kind"] == "List");
  REQUIRE(list["items"].size() == 12);
  for (const auto& i : list["items"]) {
    CHECK(i["kind"] == "TFJob");
    CHECK_FALSE(i["metadata"].contains("managedFields"));  // kubectl's --show-managed-fields=false
  }
  Ran m = call(c, {"get", "-A", "-o", "json", "--show-managed-fields"});
  REQUIRE(m.rc == 0);
  CHECK(json::parse(m.out)["items"][0]["metadata"].contains("managedFields"));
  Ran y = call(c, {"get", "-A", "-o", "yaml", "--chunk-size", "5"});
  REQUIRE(y.rc == 0);
  CHECK(y.out.rfind("apiVersion: v1\nitems:\n- apiVersion: kubeflow.org/v1\n", 0) == 0);
  CHECK(y.out.find("managedFields") == std::string::npos);
  Ran none = call(c, {"get", "-n", "empty"});
  CHECK(none.rc == 0);
  CHECK(none.err.find("No resources found in empty namespace.") != std::string::npos);
}

TEST_CASE("describe asks for its job's pods and events only: the same requests beside 1,000 other jobs", "[scale][describe]") {
  same_cost_in_a_crowd({"describe", "mine", "-n", "crowd"});
}

TEST_CASE("explain asks for its job's pods and events only: the same requests beside 1,000 other jobs", "[scale][explain]") {
  same_cost_in_a_crowd({"explain", "mine", "-n", "crowd"});
}

TEST_CASE("top job NAME asks for its job's pods only: the same requests beside 1,000 other jobs", "[scale][top]") {
  same_cost_in_a_crowd({"top", "job", "mine", "-n", "crowd", "--no-metrics"});
}

TEST_CASE("wait watches its job's pods and events only: the same requests beside 1,000 other jobs", "[scale][wait]") {
  // Running, so the wait times out: its three watches (job, pods, the job's events) all run
  same_cost_in_a_crowd({"wait", "mine", "-n", "crowd", "--for", "condition=Succeeded", "--timeout", "2s"}, 2);
}

TEST_CASE("describe shows the events of its job and its pods, found by their field selectors", "[scale][describe]") {
  Quiet c;
  put_mine(*c.server);
  put_crowd(*c.server, 20);
  Ran d = call(c, {"describe", "mine", "-n", "crowd"});
  REQUIRE(d.rc == 0);
  CHECK(d.out.find("Created pod: mine-chief-0") != std::string::npos);
  CHECK(d.out.find("pod/mine-chief-0") != std::string::npos);
  CHECK(d.out.find("pod/mine-worker-0") != std::string::npos);
  CHECK(d.out.find("other-") == std::string::npos);  // nothing of the other jobs
}

TEST_CASE("describe and explain send a job's lists at once and read events consistently unless asked for the cache", "[scale][describe]") {
  // each selector list is a scan of the namespace on a real server (BENCHMARKS.md, scale):
  // the pods go beside the job's events, then every pod's events together; events are a
  // consistent read (no resourceVersion) unless EventsFrom::cache asks for the watch cache
  Quiet c;
  put_mine(*c.server);
  auto overlap = [](const tfjob::test::RecordedRequest& a, const tfjob::test::RecordedRequest& b) {
    return std::max(a.received, b.received) < std::min(a.answered, b.answered);
  };
  for (const char* cmd : {"describe", "explain"}) {
    INFO(cmd);
    c.server->clear_requests();
    c.server->faults().stall_next(std::chrono::milliseconds(300), 8, "/namespaces/crowd/events");
    c.server->faults().stall_next(std::chrono::milliseconds(300), 2, "/namespaces/crowd/pods");
    Ran r = call(c, {cmd, "mine", "-n", "crowd"});
    INFO(r.out << r.err);
    REQUIRE(r.rc == 0);
    std::optional<tfjob::test::RecordedRequest> pods, job_events, chief, worker;
    for (const auto& q : c.server->requests()) {
      if (q.path == "/api/v1/namespaces/crowd/pods") pods = q;
      if (q.path != "/api/v1/namespaces/crowd/events") continue;
      CHECK(q.query.find("resourceVersion") == std::string::npos);
      if (q.query.find("involvedObject.kind%3DTFJob") != std::string::npos) job_events = q;
      if (q.query.find("involvedObject.name%3Dmine-chief-0") != std::string::npos) chief = q;
      if (q.query.find("involvedObject.name%3Dmine-worker-0") != std::string::npos) worker = q;
    }
    REQUIRE((pods && job_events && chief && worker));
    CHECK(overlap(*pods, *job_events));  // in flight together
    CHECK(overlap(*chief, *worker));
  }
  Ran d = call(c, {"describe", "mine", "-n", "crowd"});
  CHECK(d.out.find("Created pod: mine-chief-0") != std::string::npos);
  CHECK(d.out.find("pod/mine-worker-0") != std::string::npos);
  // the SDK's choice of the watch cache: resourceVersion=0 (as client-go's informers list)
  {
    tfjob::kube::Client client(tfjob::test::admin_config(*c.server));
    c.server->clear_requests();
    auto evs = tfjob::workflow::object_events(client, "crowd", "Pod", "mine-chief-0", "", tfjob::workflow::EventsFrom::cache);
    CHECK(evs.size() == 1);
    REQUIRE(c.server->requests().size() == 1);
    CHECK(c.server->requests()[0].query.find("resourceVersion=0") != std::string::npos);
  }
  // the archive is a record: its events are a consistent read (etcd)
  const auto dir = std::filesystem::temp_directory_path() / ("scale-archive-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  c.server->clear_requests();
  Ran a = call(c, {"archive", "mine", "-n", "crowd", "-o", dir.string()});
  INFO(a.out << a.err);
  CHECK(a.rc == 0);
  int event_lists = 0;
  for (const auto& q : c.server->requests())
    if (q.path == "/api/v1/namespaces/crowd/events") {
      ++event_lists;
      CHECK(q.query.find("resourceVersion=0") == std::string::npos);
    }
  CHECK(event_lists == 3);  // the job's and its two pods'
  std::filesystem::remove_all(dir);
}

TEST_CASE("top node counts the GPUs held per node in one pass over the pods that have not ended", "[scale][top]") {
  Quiet c;
  FakeApiServer& s = *c.server;
  for (int n = 0; n < 3; ++n)
    s.put_object({{"apiVersion", "v1"}, {"kind", "Node"},
                  {"metadata", {{"name", "gpu-" + std::to_string(n)}, {"labels", {{"nvidia.com/gpu.product", "Tesla-V100-SXM2-16GB"}}}}},
                  {"status", {{"capacity", {{"nvidia.com/gpu", "8"}}}, {"allocatable", {{"nvidia.com/gpu", "8"}}},
                              {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}});
  for (int i = 0; i < 30; ++i) s.put_object(pod_obj("team-" + std::to_string(i % 3), "j" + std::to_string(i), "chief", "gpu-" + std::to_string(i % 3)));
  s.put_object(pod_obj("team-0", "done", "chief", "gpu-0", "Succeeded"));  // ended: holds nothing
  s.clear_requests();
  Ran r = call(c, {"top", "node", "-o", "json", "--no-metrics", "--chunk-size", "7"});
  REQUIRE(r.rc == 0);
  auto j = json::parse(r.out);
  REQUIRE(j["nodes"].size() == 3);
  for (const auto& n : j["nodes"]) {
    CHECK(n["requested"] == 10);
    CHECK(n["pods"] == 10);
    CHECK(n["free"] == 0);
  }
  int pod_lists = 0;
  for (const auto& q : s.requests())
    if (q.path == "/api/v1/pods") {
      ++pod_lists;
      CHECK(q.query.find("fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed") != std::string::npos);
    }
  CHECK(pod_lists == 5);  // 30 pods that have not ended, 7 a page
}

TEST_CASE("get -A --watch takes its first listing from the watcher's list, then prints each change once", "[scale][get]") {
  Quiet c;
  for (int i = 0; i < 4; ++i) c.server->put_object(tfjob_obj("w", "j" + std::to_string(i)));
  std::ostringstream out, err;
  int rc = -1;
  std::thread t([&] {
    rc = tfjob::cli::run_cli({"get", "-A", "--watch", "--request-timeout", "3s", "--chunk-size", "3", "--kubeconfig", c.kubeconfig},
                             out, err);
  });
  REQUIRE(c.server->wait_for([&] {
    for (const auto& q : c.server->requests())
      if (q.query.find("watch=true") != std::string::npos) return true;
    return false;
  }, std::chrono::seconds(10)));
  c.server->delete_object("tfjobs", "w", "j1");
  t.join();
  CHECK(rc == 0);
  const std::string o = out.str();
  INFO(o << err.str());
  int lists = 0;
  for (const auto& q : c.server->requests())
    if (q.path == "/apis/kubeflow.org/v1/tfjobs" && q.query.find("watch=true") == std::string::npos) ++lists;
  CHECK(lists == 2);  // one list of 4 jobs in pages of 3: not a list and then the watcher's list again
  for (int i = 0; i < 4; ++i) CHECK(o.find("j" + std::to_string(i) + " ") != std::string::npos);
  CHECK(o.find("j1   Deleted") != std::string::npos);
  CHECK(o.find("NAMESPACE") == o.rfind("NAMESPACE"));  // one header
}

namespace {

/// `get -A --watch ARGS...` over 4 jobs of namespace `ns` (labelled team=tN) whose first watch
/// is answered 410 at once, and whose relist is held back a second while the test deletes j1:
/// so only the relist can tell that deletion. Returns the output; `lists`: the lists asked.
std::string watch_across_relist(Quiet& c, const std::string& ns, const std::vector<std::string>& args, int& lists) {
  for (int i = 0; i < 4; ++i) {
    json j = tfjob_obj(ns, "j" + std::to_string(i));
    j["metadata"]["labels"] = {{"team", "t" + std::to_string(i)}};
    c.server->put_object(j);
  }
  const std::string jobs = "/apis/kubeflow.org/v1/tfjobs";
  // the jobs' path is asked: the list's 2 pages, the watch, then the relist's first page,
  // held back a second (after the test deletes j1); the watch answers 410 at once
  c.server->faults().stall_next(std::chrono::milliseconds(0), 3, jobs);
  c.server->faults().stall_next(std::chrono::seconds(1), 1, jobs);
  c.server->faults().answer_next(
      200, R"({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410}})" "\n", 1,
      jobs, "watch=true");
  std::ostringstream out, err;
  int rc = -1;
  std::vector<std::string> argv = {"get", "-A", "--watch"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--request-timeout", "5s", "--chunk-size", "3", "--kubeconfig", c.kubeconfig});
  std::thread t([&] { rc = tfjob::cli::run_cli(argv, out, err); });
  const bool watched = c.server->wait_for([&] {
    for (const auto& q : c.server->requests())
      if (q.query.find("watch=true") != std::string::npos) return true;
    return false;
  }, std::chrono::seconds(10));
  c.server->delete_object("tfjobs", ns, "j1");
  t.join();
  INFO(out.str() << err.str());
  CHECK(watched);
  CHECK(rc == 0);
  lists = 0;
  for (const auto& q : c.server->requests())
    if (q.path == jobs && q.query.find("watch=true") == std::string::npos) ++lists;
  return out.str();
}

}  // namespace

TEST_CASE("get -A --watch tells a job deleted while its watch was away as Deleted in the row it had, after a relist",
          "[scale][get]") {
  Quiet c;
  int lists = 0;
  const std::string o = watch_across_relist(c, "r", {"--show-labels"}, lists);
  INFO(o);
  CHECK(lists == 3);  // the list's 2 pages and the relist's one (3 jobs left)
  // the deletion in the row the job had (its labels kept by the watcher), each other job once
  CHECK(std::regex_search(o, std::regex("\nr +j1 +Running +[0-9a-z]+ +team=t1\n")));
  CHECK(std::regex_search(o, std::regex("\nr +j1 +Deleted +[0-9a-z]+ +team=t1\n")));
  for (const char* other : {"j0 ", "j2 ", "j3 "}) CHECK(o.find(other) == o.rfind(other));
}

TEST_CASE("get -A --watch -o wide and -o json tell a deletion a relist found with what the watcher remembered, once",
          "[scale][get]") {
  SECTION("-o wide: the columns from the job's spec and status are <unknown>") {
    Quiet c;
    int lists = 0;
    const std::string o = watch_across_relist(c, "rw", {"-o", "wide"}, lists);
    INFO(o);
    CHECK(lists == 3);
    CHECK(std::regex_search(o, std::regex("\nrw +j1 +Running +[0-9a-z]+ +Chief:1/0/0,Worker:1/0/0 +2 ")));
    CHECK(std::regex_search(o, std::regex("\nrw +j1 +Deleted +[0-9a-z]+ +<unknown> +<unknown> +<unknown> +<none>\n")));
    for (const char* other : {"j0 ", "j2 ", "j3 "}) CHECK(o.find(other) == o.rfind(other));
  }
  SECTION("-o json: the job's tombstone (kind, name, namespace, uid, last resourceVersion, labels), after its whole object") {
    Quiet c;
    int lists = 0;
    const std::string o = watch_across_relist(c, "rj", {"-o", "json"}, lists);
    CHECK(lists == 3);
    std::vector<json> docs;
    std::istringstream in(o);
    for (;;) {  // the documents, one after another (kubectl's watch: an indented object each)
      in >> std::ws;
      if (in.peek() == EOF) break;
      json d;
      in >> d;
      docs.push_back(d);
    }
    INFO(o);
    REQUIRE(docs.size() == 5);  // 4 listed, 1 deleted
    const json& first = docs[1];
    const json& last = docs.back();
    REQUIRE(first["metadata"]["name"] == "j1");
    CHECK(first.contains("spec"));
    REQUIRE(first["metadata"].contains("creationTimestamp"));
    CHECK(last == json{{"apiVersion", "kubeflow.org/v1"}, {"kind", "TFJob"},
                       {"metadata", {{"name", "j1"}, {"namespace", "rj"}, {"uid", first["metadata"]["uid"]},
                                     {"resourceVersion", first["metadata"]["resourceVersion"]},
                                     {"creationTimestamp", first["metadata"]["creationTimestamp"]},
                                     {"labels", {{"team", "t1"}}}}}});
  }
}

TEST_CASE("get --show-labels and -L read the labels from the server's Table rows, and -o wide lists the jobs", "[scale][get]") {
  Quiet c;
  for (int i = 0; i < 3; ++i) {
    json j = tfjob_obj("l", "j" + std::to_string(i));
    if (i < 2) j["metadata"]["labels"] = {{"team", i == 0 ? "a" : "b"}, {"app.kubernetes.io/name", "mnist"}};
    c.server->put_object(j);
  }
  c.server->clear_requests();
  Ran t = call(c, {"get", "-n", "l", "--show-labels", "-L", "team", "--chunk-size", "2"});
  REQUIRE(t.rc == 0);
  INFO(t.out << t.err);
  int lists = 0;
  for (const auto& q : c.server->requests())
    if (q.path == "/apis/kubeflow.org/v1/namespaces/l/tfjobs") {
      ++lists;
      CHECK(q.accept.find("as=Table;v=v1;g=meta.k8s.io") != std::string::npos);  // the labels come with the Table's rows
    }
  CHECK(lists == 2);
  CHECK(std::regex_search(t.out, std::regex("^NAME +STATE +AGE +TEAM +LABELS\n")));
  CHECK(std::regex_search(t.out, std::regex("\nj0 +Running +[0-9a-z]+ +a +app.kubernetes.io/name=mnist,team=a\n")));
  CHECK(std::regex_search(t.out, std::regex("\nj2 +Running +[0-9a-z]+ +<none>\n")));  // no TEAM value, no labels

  c.server->clear_requests();
  Ran w = call(c, {"get", "-n", "l", "-o", "wide", "-L", "team"});
  REQUIRE(w.rc == 0);
  for (const auto& q : c.server->requests())  // -o wide's columns are the jobs' own: no Table
    if (q.path == "/apis/kubeflow.org/v1/namespaces/l/tfjobs") CHECK(q.accept.find("as=Table") == std::string::npos);
  CHECK(std::regex_search(w.out, std::regex("\nj1 +Running .*Chief:1/0/0,Worker:1/0/0 +2 .* b\n")));
}

TEST_CASE("get --watch prints each job as a document of its own, --watch-only none of the listed ones", "[scale][get]") {
  Quiet c;
  for (int i = 0; i < 3; ++i) c.server->put_object(tfjob_obj("d", "j" + std::to_string(i)));
  std::ostringstream yaml_out, yaml_err, name_out, name_err;
  int yaml_rc = -1, name_rc = -1;
  auto watch = [&](std::vector<std::string> args, std::ostringstream& out, std::ostringstream& err, int& rc) {
    args.insert(args.end(), {"-n", "d", "--request-timeout", "3s", "--chunk-size", "2", "--kubeconfig", c.kubeconfig});
    return std::thread([&out, &err, &rc, args] { rc = tfjob::cli::run_cli(args, out, err); });
  };
  std::thread y = watch({"get", "--watch", "-o", "yaml"}, yaml_out, yaml_err, yaml_rc);
  std::thread n = watch({"get", "--watch-only", "-o", "name"}, name_out, name_err, name_rc);
  REQUIRE(c.server->wait_for([&] {
    int watches = 0;
    for (const auto& q : c.server->requests()) watches += q.query.find("watch=true") != std::string::npos;
    return watches >= 2;
  }, std::chrono::seconds(10)));
  c.server->delete_object("tfjobs", "d", "j1");
  y.join();
  n.join();
  INFO(yaml_out.str() << yaml_err.str() << "\n--\n" << name_out.str() << name_err.str());
  CHECK(yaml_rc == 0);
  CHECK(name_rc == 0);
  // kubectl's watch: one document per job, "---" between them (YAMLPrinter), no List
  const std::string yo = yaml_out.str();
  CHECK(yo.find("kind: List") == std::string::npos);
  CHECK(yo.rfind("apiVersion: kubeflow.org/v1\n", 0) == 0);
  std::size_t separators = 0;
  for (std::size_t at = yo.find("\n---\n"); at != std::string::npos; at = yo.find("\n---\n", at + 1)) ++separators;
  CHECK(separators == 3);  // three listed, one deleted: four documents
  // --watch-only: the listed jobs say where the watch starts; the deletion is the one change
  CHECK(name_out.str() == "tfjob.kubeflow.org/j1\n");
}

#endif
