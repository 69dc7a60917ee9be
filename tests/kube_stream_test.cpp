// Watch and logs against the fake API server: resume after a dropped stream, relist after
// 410 Gone, bookmarks, and followed logs that survive cut streams without losing or
// repeating a line.
#include <catch2/catch.hpp>

#include <tfjob/kube/kube.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_cluster.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace tfjob::kube;
using tfjob::k8s::Service;
using tfjob::test::FakeApiServer;
using tfjob::test::FakeApiServerOptions;

namespace {

FakeApiServer& server() {
  static FakeApiServer s([] {
    FakeApiServerOptions o;
    o.bookmark_interval = std::chrono::milliseconds(100);
    o.pod_start_delay = std::chrono::milliseconds(20);
    return o;
  }());
  return s;
}

Client client() { return Client(tfjob::test::admin_config(server())); }

/// Joins a thread on scope exit (a failed REQUIRE must not leave it joinable).
struct Joiner {
  std::thread& t;
  std::atomic<bool>& cancel;
  ~Joiner() {
    cancel = true;
    if (t.joinable()) t.join();
  }
};

void ensure_namespace(const std::string& ns) {
  server().put_object({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
}

nlohmann::json service(const std::string& name, const std::string& ns, const std::string& note = "") {
  ensure_namespace(ns);
  nlohmann::json s = {{"apiVersion", "v1"},
                      {"kind", "Service"},
                      {"metadata", {{"name", name}, {"namespace", ns}}},
                      {"spec", {{"ports", {{{"port", 80}}}}}}};
  if (!note.empty()) s["metadata"]["annotations"]["note"] = note;
  return s;
}

using Events = std::vector<std::string>;  // "TYPE name[:note]"

/// The steps of a watch answered 410 before any event: a pause, then the relist (which ends
/// in a watch, or done when the caller stops among the replayed changes).
const std::string kGoneAtOnce[] = {"watch->back_off", "back_off->relist"};

std::string describe(const WatchEvent<Service>& e) {
  auto notes = e.object.metadata.annotations;
  std::string s = std::string(to_string(e.type)) + " " + e.object.metadata.name;
  if (notes.count("note")) s += ":" + notes["note"];
  return s;
}

/// Run the watcher until `n` events arrived (or 10 s passed), keeping each; bookmarks are
/// not delivered.
template <class T>
std::vector<WatchEvent<T>> gather(Watcher<T>& w, size_t n) {
  std::vector<WatchEvent<T>> ev;
  std::atomic<bool> cancel{false};
  std::thread guard([&] {
    for (int i = 0; i < 1000 && !cancel; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    cancel = true;
  });
  StreamOptions so;
  so.cancel = &cancel;
  w.run(
      [&](const WatchEvent<T>& e) {
        ev.push_back(e);
        return ev.size() < n;
      },
      so);
  cancel = true;
  guard.join();
  return ev;
}

/// gather's events, each described.
Events collect(Watcher<Service>& w, size_t n) {
  Events ev;
  for (const auto& e : gather(w, n)) ev.push_back(describe(e));
  return ev;
}

}  // namespace

TEST_CASE("watch: list first, then live events", "[kube][watch]") {
  Client c = client();
  const std::string ns = "watch-live";
  server().put_object(service("a", ns));
  server().put_object(service("b", ns));
  Api<Service> svc(c, ns);
  Events ev;
  std::atomic<bool> cancel{false};
  std::thread t([&] {
    StreamOptions so;
    so.cancel = &cancel;
    svc.watch({}, [&](const WatchEvent<Service>& e) {
      ev.push_back(describe(e));
      return ev.size() < 5;
    }, so);
  });
  Joiner j{t, cancel};
  REQUIRE(server().wait_for([&] { return ev.size() >= 2; }));
  svc.create(Service(service("c", ns)));
  svc.patch("a", {{"metadata", {{"annotations", {{"note", "v2"}}}}}});
  svc.remove("b");
  bool done = server().wait_for([&] { return ev.size() >= 5; }, std::chrono::seconds(10));
  cancel = true;
  t.join();
  REQUIRE(done);
  CHECK(ev == Events{"ADDED a", "ADDED b", "ADDED c", "MODIFIED a:v2", "DELETED b"});
}

TEST_CASE("watch: stopped while its list is being retried, it stops there and asks no more", "[kube][watch]") {
  // a watch's owner stops it (Ctrl-C, a wait decided elsewhere) while the API server answers
  // its list 503: the client's own retries of that list end with it, not 4 pauses later
  Client c = client();
  const std::string ns = "watch-stop-list";
  const std::string path = "/api/v1/namespaces/" + ns + "/services";
  ensure_namespace(ns);
  server().faults().fail_next(503, 20, path);
  auto asked = [&] {
    auto rs = server().requests();
    return std::count_if(rs.begin(), rs.end(), [&](const auto& r) { return r.path == path; });
  };
  std::atomic<bool> cancel{false};
  std::atomic<bool> ended{false};
  std::thread t([&] {
    StreamOptions so;
    so.cancel = &cancel;
    Api<Service>(c, ns).watch({}, [&](const WatchEvent<Service>&) { return true; }, so);
    ended = true;
  });
  Joiner j{t, cancel};
  REQUIRE(server().wait_for([&] { return asked() >= 1; }));
  const auto before = asked();
  cancel = true;
  t.join();
  CHECK(ended);
  CHECK(asked() <= before + 1);  // at most the retry already under way; before: every retry (5 in all)
  server().faults().clear();
}

TEST_CASE("watch: a dropped stream resumes from the last version, nothing lost or repeated", "[kube][watch]") {
  Client c = client();
  for (bool abrupt : {true, false}) {
    const std::string ns = abrupt ? "watch-drop-abrupt" : "watch-drop-clean";
    server().put_object(service("x", ns));
    Api<Service> svc(c, ns);
    auto w = svc.watcher({});
    std::vector<std::string> steps;
    w.on_step = [&](WatchState from, WatchEnd how, WatchState to) {
      steps.push_back(std::string(to_string(from)) + "->" + to_string(to));
    };
    CHECK(collect(w, 1) == Events{"ADDED x"});
    std::string rv0 = w.resource_version();

    server().faults().drop_watch_after(2, 1, abrupt);
    for (int i = 1; i <= 5; ++i) svc.patch("x", {{"metadata", {{"annotations", {{"note", std::to_string(i)}}}}}});
    Events ev = collect(w, 5);
    CHECK(ev == Events{"MODIFIED x:1", "MODIFIED x:2", "MODIFIED x:3", "MODIFIED x:4", "MODIFIED x:5"});
    CHECK(w.stats().connections >= 2);  // the dropped one and the resumed one
    CHECK(w.stats().lists == 1);        // resumed, not relisted
    CHECK(w.resource_version() != rv0);
    INFO([&] { std::string all; for (auto& x : steps) all += x + " "; return all; }());
    // the states it went through: listed once (the caller stopped at the list's one object,
    // so with nothing of it left untold the next run watches from its version); a cut stream
    // is a failure (a pause, then a watch from the same version), a clean end with events a
    // watch at once; never a relist
    CHECK(steps.front() == "list->done");
    CHECK(std::count_if(steps.begin(), steps.end(), [](const std::string& x) { return x.rfind("list->", 0) == 0; }) == 1);
    CHECK(std::count_if(steps.begin(), steps.end(), [](const std::string& x) { return x.find("relist") != std::string::npos; }) == 0);
    CHECK(std::count(steps.begin(), steps.end(), abrupt ? "watch->back_off" : "watch->watch") >= 1);
  }
}

TEST_CASE("watch: 410 Gone relists and replays only the difference", "[kube][watch]") {
  Client c = client();
  const std::string ns = "watch-gone";
  server().put_object(service("keep", ns));
  server().put_object(service("change", ns));
  server().put_object(service("drop", ns));
  Api<Service> svc(c, ns);
  auto w = svc.watcher({});
  std::vector<std::string> steps;
  w.on_step = [&](WatchState from, WatchEnd how, WatchState to) {
    if (how != WatchEnd::stopped) steps.push_back(std::string(to_string(from)) + "->" + to_string(to));
  };
  CHECK(collect(w, 3).size() == 3);

  // While nobody watches: one change, one delete, one add; then history is compacted.
  svc.patch("change", {{"metadata", {{"annotations", {{"note", "new"}}}}}});
  svc.remove("drop");
  svc.create(Service(service("fresh", ns)));
  server().faults().compact_history();

  Events ev = collect(w, 3);
  std::multiset<std::string> got(ev.begin(), ev.end());
  CHECK(got == std::multiset<std::string>{"MODIFIED change:new", "DELETED drop", "ADDED fresh"});
  CHECK(w.stats().lists == 2);
  // 410 at once (no event): a pause, then the relist
  INFO([&] { std::string all; for (auto& x : steps) all += x + " "; return all; }());
  CHECK(std::search(steps.begin(), steps.end(), std::begin(kGoneAtOnce), std::end(kGoneAtOnce)) != steps.end());

  // A 410 sent as an ERROR event inside an open watch relists too; nothing changed, so
  // nothing is replayed, and the next real change arrives once.
  server().faults().gone_next(1, "/namespaces/" + ns + "/services");
  std::atomic<bool> unused{false};
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    svc.patch("keep", {{"metadata", {{"annotations", {{"note", "after-410"}}}}}});
  });
  Joiner jl{later, unused};
  Events ev2 = collect(w, 1);
  later.join();
  CHECK(ev2 == Events{"MODIFIED keep:after-410"});
  CHECK(w.stats().lists == 3);
}

TEST_CASE("watch: the fields a caller omits are in no list item or event, and a relist tells a deletion as its tombstone",
          "[kube][watch]") {
  Client c = client();
  const std::string ns = "watch-omit";
  server().put_object(service("stay", ns, "a"));
  nlohmann::json gone_svc = service("gone", ns, "b");
  gone_svc["metadata"]["labels"] = {{"team", "vision"}};
  server().put_object(gone_svc);
  const ResourceInfo services{"", "v1", "services", "Service", true};
  const auto lacks_omitted = [](const nlohmann::json& o) {
    return !o.contains("spec") && !o["metadata"].contains("annotations") && o["metadata"].contains("uid") &&
           o["metadata"].contains("resourceVersion");
  };
  // the pager, alone
  ListParams lp;
  lp.omit = {"spec", "metadata.annotations"};
  int items = 0;
  list_pages(c, RequestBuilder(services, ns), lp, [&](ListPage& page) {
    for (const auto& o : page.items) {
      ++items;
      CHECK(lacks_omitted(o));
      CHECK(o["metadata"]["name"].is_string());
    }
    return true;
  });
  CHECK(items == 2);

  WatchParams wp;
  wp.omit = lp.omit;
  auto w = Api<DynamicObject>(c, services, ns).watcher(wp);
  auto listed = gather(w, 2);
  REQUIRE(listed.size() == 2);
  nlohmann::json gone_listed;
  for (const auto& e : listed) {
    CHECK(lacks_omitted(e.object.json));
    CHECK_FALSE(e.final_state_unknown);
    if (e.object.name() == "gone") gone_listed = e.object.json;
  }
  REQUIRE(gone_listed.is_object());

  Api<Service> svc(c, ns);
  svc.patch("stay", {{"metadata", {{"annotations", {{"note", "changed"}}}}}});
  auto changed = gather(w, 1);
  REQUIRE(changed.size() == 1);
  CHECK(changed[0].type == EventType::modified);
  CHECK(changed[0].object.name() == "stay");
  CHECK(lacks_omitted(changed[0].object.json));

  // while nobody watches: a deletion, and history compacted, so only a relist can tell it:
  // with what the watcher remembered of it (client-go's DeletedFinalStateUnknown), its
  // identity and last version, the labels a selector matched and its creation time
  svc.remove("gone");
  server().faults().compact_history();
  auto gone = gather(w, 1);
  REQUIRE(gone.size() == 1);
  CHECK(gone[0].type == EventType::deleted);
  CHECK(gone[0].final_state_unknown);
  const auto& md = gone_listed["metadata"];
  nlohmann::json want_md = {{"name", "gone"}, {"namespace", ns}, {"uid", md["uid"]}, {"resourceVersion", md["resourceVersion"]},
                            {"labels", {{"team", "vision"}}}};
  if (md.contains("creationTimestamp")) want_md["creationTimestamp"] = md["creationTimestamp"];
  CHECK(gone[0].object.json == nlohmann::json{{"apiVersion", "v1"}, {"kind", "Service"}, {"metadata", want_md}});
  CHECK(w.stats().lists == 2);
  CHECK(w.remembered().objects == 1);  // "stay"
}

TEST_CASE("watch: what the watcher remembers of each object is a few hundred bytes, whatever the object holds", "[kube][watch]") {
  Client c = client();
  const std::string ns = "watch-remembers";
  // objects of about 20 KB each (what a TFJob's pod templates weigh), none of it left out
  const std::string big(20000, 'x');
  const int n = 40;
  for (int i = 0; i < n; ++i) {
    nlohmann::json s = service("s" + std::to_string(i), ns, big);
    s["metadata"]["labels"] = {{"app", "serving"}, {"index", std::to_string(i)}};
    server().put_object(s);
  }
  auto w = Api<DynamicObject>(c, ResourceInfo{"", "v1", "services", "Service", true}, ns).watcher({});
  auto listed = gather(w, n);
  REQUIRE(listed.size() == static_cast<std::size_t>(n));
  CHECK(listed[0].object.json["metadata"]["annotations"]["note"] == big);  // the caller was told the whole object
  const WatchMemory m = w.remembered();
  CHECK(m.objects == static_cast<std::size_t>(n));
  INFO("bytes remembered per object: " << m.bytes / m.objects);
  CHECK(m.bytes / m.objects < 512);  // uid, resourceVersion, namespace/name, creationTimestamp, labels: not 20 KB

  // a change does not make it grow either, and a deletion frees what it held
  Api<Service> svc(c, ns);
  svc.patch("s0", {{"metadata", {{"annotations", {{"note", big + "y"}}}}}});
  svc.remove("s1");
  auto changes = gather(w, 2);
  REQUIRE(changes.size() == 2);
  CHECK(w.remembered().objects == static_cast<std::size_t>(n - 1));
  CHECK(w.remembered().bytes / w.remembered().objects < 512);
}

TEST_CASE("watch: bookmarks advance the resourceVersion", "[kube][watch]") {
  Client c = client();
  const std::string ns = "watch-bookmarks";
  server().put_object(service("only", ns));
  Api<Service> svc(c, ns);
  WatchParams wp;
  wp.deliver_bookmarks = true;
  auto w = svc.watcher(wp);
  int bookmarks = 0;
  std::atomic<bool> cancel{false};
  std::thread guard([&] {
    for (int i = 0; i < 500 && !cancel; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    cancel = true;
  });
  StreamOptions so;
  so.cancel = &cancel;
  std::string list_rv;
  w.run([&](const WatchEvent<Service>& e) {
    if (e.type == EventType::added) list_rv = w.resource_version();
    if (e.type == EventType::bookmark) ++bookmarks;
    return bookmarks < 1;
  }, so);
  cancel = true;
  guard.join();
  CHECK(bookmarks == 1);
  CHECK_FALSE(w.resource_version().empty());
}

// ---- logs ------------------------------------------------------------------------------

namespace {

nlohmann::json pod(const std::string& name, const std::string& ns = "default") {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec", {{"restartPolicy", "Never"}, {"containers", {{{"name", "main"}, {"image", "busybox"}}}}}}};
}

void start_pod(const std::string& name, const tfjob::test::ContainerScript& script) {
  server().kubelet().script(name, script);
  server().put_object(pod(name));
  REQUIRE(server().wait_for([&] {
    auto p = server().get_object("pods", "default", name);
    if (!p) return false;
    std::string phase = p->value("/status/phase"_json_pointer, std::string());
    return !phase.empty() && phase != "Pending";
  }));
}

std::vector<std::string> read_lines(const LogParams& p, const std::string& name, LogStats* stats = nullptr) {
  std::vector<std::string> out;
  LogStreamer s(client(), "default", name, p);
  s.run([&](std::string_view l) {
    out.emplace_back(l);
    return true;
  });
  if (stats) *stats = s.stats();
  return out;
}

}  // namespace

TEST_CASE("logs: container, tailLines, timestamps", "[kube][logs]") {
  tfjob::test::ContainerScript sc;
  sc.lines = {"one", "two", "three", "four"};
  start_pod("logs-basic", sc);
  LogParams p;
  p.container = "main";
  p.follow = true;  // the container exits after its lines: the stream ends
  CHECK(read_lines(p, "logs-basic") == std::vector<std::string>{"one", "two", "three", "four"});
  p.tail_lines = 2;
  CHECK(read_lines(p, "logs-basic") == std::vector<std::string>{"three", "four"});
  p.tail_lines.reset();
  p.timestamps = true;
  auto ts = read_lines(p, "logs-basic");
  REQUIRE(ts.size() == 4);
  std::int64_t s = 0, ns = 0;
  CHECK(detail::parse_rfc3339(ts[0].substr(0, ts[0].find(' ')), s, ns));
  CHECK(ts[3].substr(ts[3].find(' ') + 1) == "four");
  p.timestamps = false;
  p.since_seconds = 3600;
  CHECK(read_lines(p, "logs-basic").size() == 4);
  CHECK(get_logs(client(), "default", "logs-basic") == "one\ntwo\nthree\nfour\n");
  LogParams bad;
  bad.container = "nope";
  CHECK_THROWS_AS(get_logs(client(), "default", "logs-basic", bad), tfjob::api_error);
}

TEST_CASE("logs: follow sees appended lines until the container ends", "[kube][logs]") {
  tfjob::test::ContainerScript sc;
  sc.lines = {"start"};
  sc.exit_code = std::nullopt;  // runs until finish()
  start_pod("logs-follow", sc);
  std::vector<std::string> got;
  std::atomic<bool> done{false}, cancel{false};
  std::thread t([&] {
    LogParams p;
    p.follow = true;
    StreamOptions so;
    so.cancel = &cancel;
    stream_logs(client(), "default", "logs-follow", p, [&](std::string_view l) {
      got.emplace_back(l);
      return true;
    }, so);
    done = true;
  });
  Joiner j{t, cancel};
  REQUIRE(server().wait_for([&] { return got.size() >= 1; }));
  server().kubelet().append_log("default", "logs-follow", "main", {"a", "b"});
  REQUIRE(server().wait_for([&] { return got.size() >= 3; }));
  CHECK_FALSE(done);
  server().kubelet().append_log("default", "logs-follow", "main", {"c"});
  server().kubelet().finish("default", "logs-follow", "main", 0);
  REQUIRE(server().wait_for([&] { return done.load(); }));
  t.join();
  CHECK(got == std::vector<std::string>{"start", "a", "b", "c"});
}

TEST_CASE("logs: a followed stream that is cut resumes without loss or repetition", "[kube][logs]") {
  tfjob::test::ContainerScript sc;
  sc.lines = {"header line"};
  sc.generated_lines = 30000;  // all with one timestamp: dedupe must count, not compare times
  sc.generated_line_bytes = 100;
  start_pod("logs-cut", sc);
  for (bool with_ts : {false, true}) {
    server().faults().cut_body_after(250000, 3, "/pods/logs-cut/log");
    LogParams p;
    p.follow = true;
    p.timestamps = with_ts;
    LogStats st;
    auto lines = read_lines(p, "logs-cut", &st);
    INFO("connections=" << st.connections << " resumes=" << st.resumes << " skipped=" << st.skipped_on_resume << " first=" << lines[0].substr(0, 60) << " second=" << lines[1].substr(0,60));
    CHECK(st.resumes == 3);
    REQUIRE(lines.size() == 30001);
    auto text = [&](size_t i) { return with_ts ? lines[i].substr(lines[i].find(' ') + 1) : lines[i]; };
    CHECK(text(0) == "header line");
    bool in_order = true;
    for (size_t i = 1; i < lines.size() && in_order; ++i) {
      char want[32];
      std::snprintf(want, sizeof want, "line %012zu ", i - 1);
      in_order = text(i).rfind(want, 0) == 0 && text(i).size() == 100;
      if (!in_order) FAIL_CHECK("line " << i << " is \"" << lines[i].substr(0, 40) << "\"");
    }
    if (with_ts) CHECK(lines[5].find('T') == 10);
  }
}

TEST_CASE("watch: event types are an enum with the wire's spelling", "[kube][watch]") {
  for (EventType t : {EventType::added, EventType::modified, EventType::deleted, EventType::bookmark, EventType::error})
    CHECK(parse_event_type(to_string(t)) == t);
  CHECK(std::string(to_string(EventType::deleted)) == "DELETED");
  CHECK_FALSE(parse_event_type("added"));  // the wire's spelling is upper case
  CHECK_FALSE(parse_event_type("SYNC"));
  CHECK_FALSE(parse_event_type(""));
}
