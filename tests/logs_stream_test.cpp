// The log stream against the fake kubelet, which answers as the real one does (CRI
// records of 16 KiB, with timestamps=true a timestamp on each record: where a line starts
// and on each further 16 KiB record of a long line, as kubelet 1.20 writes them): exactly
// the bytes written (an unterminated last line, '\r', invalid UTF-8, a 1 MiB line), plain
// reads without timestamps=true resumed by bytes, timestamped reads resumed by time, long
// lines in bounded pieces, and a follow that keeps reading a Running pod whose container
// status is not reported yet.
#include <catch2/catch.hpp>

#include <tfjob/kube/kube.hpp>
#include <tfjob/workflow/logs.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_cluster.hpp"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

using namespace tfjob::kube;
using tfjob::test::ContainerScript;
using tfjob::test::FakeApiServer;
using tfjob::test::FakeApiServerOptions;
using tfjob::test::RecordedRequest;

namespace {

FakeApiServer& server() {
  static FakeApiServer s([] {
    FakeApiServerOptions o;
    o.pod_start_delay = std::chrono::milliseconds(20);
    return o;
  }());
  return s;
}

Client client() { return Client(tfjob::test::admin_config(server())); }

nlohmann::json pod(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", {{"restartPolicy", "Never"}, {"containers", {{{"name", "main"}, {"image", "busybox"}}}}}}};
}

void start_pod(const std::string& name, const ContainerScript& script) {
  server().kubelet().script(name, script);
  server().put_object(pod(name));
  REQUIRE(server().wait_for([&] {
    auto p = server().get_object("pods", "default", name);
    return p && p->value("/status/phase"_json_pointer, std::string()) == "Succeeded";
  }));
}

/// A text a process might write: CR progress, invalid UTF-8, a 1 MiB line, no final '\n'.
std::string awkward_output() {
  std::string s = "epoch 1\r\n";
  s += "progress 10%\rprogress 100%\n";
  s += "bytes \xff\xfe\x80 not utf-8\n";
  s += "\n";  // an empty line
  std::string big(1 << 20, 'x');
  for (std::size_t i = 0; i < big.size(); i += 997) big[i] = static_cast<char>('a' + i % 26);
  s += big + "\n";
  s += "last line without newline";
  return s;
}

std::size_t count_of(const std::vector<RecordedRequest>& rs, const std::string& path_part, const std::string& query_part) {
  std::size_t n = 0;
  for (const auto& r : rs)
    if (r.path.find(path_part) != std::string::npos && r.query.find(query_part) != std::string::npos) ++n;
  return n;
}

}  // namespace

TEST_CASE("a plain read is the container's bytes exactly, asked without timestamps", "[logs][exact]") {
  ContainerScript sc;
  sc.output = awkward_output();
  start_pod("exact-plain", sc);
  REQUIRE(server().kubelet().log("default", "exact-plain", "main") == sc.output);
  server().clear_requests();
  CHECK(get_logs(client(), "default", "exact-plain") == sc.output);
  auto rs = server().requests();
  CHECK(count_of(rs, "/pods/exact-plain/log", "") == 1);
  CHECK(count_of(rs, "/pods/exact-plain/log", "timestamps=true") == 0);

  SECTION("pieces: the same bytes, the last line marked unterminated, long lines bounded") {
    LogStreamer s(client(), "default", "exact-plain", {});
    s.max_line_bytes = 64 * 1024;
    std::string got;
    std::size_t biggest = 0, pieces_of_big = 0;
    bool last_terminated = true;
    s.run_pieces([&](const LogPiece& pc) {
      biggest = std::max(biggest, pc.text.size());
      if (!(pc.first && pc.last)) ++pieces_of_big;
      got.append(pc.text);
      if (pc.last && pc.terminated) got.push_back('\n');
      if (pc.last) last_terminated = pc.terminated;
      return true;
    });
    CHECK(got == sc.output);
    CHECK_FALSE(last_terminated);
    CHECK(biggest <= 64 * 1024 + 64);
    CHECK(pieces_of_big >= 16);  // the 1 MiB line came in bounded pieces
    CHECK_FALSE(s.stats().wire_timestamps);
  }
}

TEST_CASE("the kubelet's timestamps inside a long line (one per 16 KiB CRI entry) are taken out", "[logs][exact]") {
  using detail::PartialEntryTimestamps;
  const std::string ts = "2026-12-01T14:20:15.166197899Z ";
  const std::string zoned = "2026-12-01T15:20:15.166197899+01:00 ";
  std::string a(16384, 'a'), b(16384, 'b');
  b[100] = '\r';
  // what the kubelet sends for "short\n", a 40000-byte line, a line of exactly 16 KiB, and an
  // unterminated tail (seen on the real node: the second line's further entries start at
  // 16384-byte steps of its text)
  const std::string wire = ts + "short\n" + ts + a + ts + b + zoned + "ccc\n" + ts + a + "\n" + ts + a + ts + "tail";
  const std::string want = ts + "short\n" + ts + a + b + "ccc\n" + ts + a + "\n" + ts + a + "tail";
  for (std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{31}, std::size_t{4096}, std::size_t{16384}, wire.size()}) {
    INFO("chunks of " << chunk);
    PartialEntryTimestamps f(16384);
    std::string got;
    auto out = [&](std::string_view d) {
      got.append(d);
      return true;
    };
    for (std::size_t i = 0; i < wire.size(); i += chunk) REQUIRE(f.push(std::string_view(wire).substr(i, chunk), out));
    REQUIRE(f.finish(out));
    CHECK(got.size() == want.size());
    CHECK(got == want);
  }
  SECTION("text that only looks like a timestamp at an entry boundary is the container's") {
    // a line of 16384 + 20 bytes whose bytes after the boundary start like a time but stop
    const std::string line = ts + a + "2026-12-01T14:20:1x rest\n";
    PartialEntryTimestamps f(16384);
    std::string got;
    f.push(line, [&](std::string_view d) {
      got.append(d);
      return true;
    });
    CHECK(got == line);
    // held at the end of the body: handed on
    PartialEntryTimestamps g(16384);
    got.clear();
    auto out = [&](std::string_view d) {
      got.append(d);
      return true;
    };
    g.push(ts + a + "2026-12-01T", out);
    g.finish(out);
    CHECK(got == ts + a + "2026-12-01T");
  }
}

TEST_CASE("the kubelet's in-band 'unable to retrieve container logs' is an error, not a log", "[logs][exact]") {
  using detail::kubelet_log_unavailable;
  using detail::may_be_kubelet_no_log;
  // what kubelet 1.20 wrote on the real node for --previous of a garbage-collected attempt
  const std::string seen = "unable to retrieve container logs for containerd://6a5ebaff8cd0585c6394197bd49b94ca69c207b25fecebd9eace15fd3c6753e7";
  CHECK(kubelet_log_unavailable(seen));
  CHECK(kubelet_log_unavailable(seen + "\n"));
  CHECK_FALSE(kubelet_log_unavailable(seen + "\nand a second line"));
  CHECK_FALSE(kubelet_log_unavailable("unable to retrieve container logs for lunch"));
  CHECK_FALSE(kubelet_log_unavailable("epoch 1\n"));
  CHECK(may_be_kubelet_no_log("unable to re"));
  CHECK(may_be_kubelet_no_log(seen));
  CHECK_FALSE(may_be_kubelet_no_log("unable to reach"));
  CHECK_FALSE(may_be_kubelet_no_log(seen + "\nmore"));
  CHECK_FALSE(may_be_kubelet_no_log("epoch"));
}

TEST_CASE("timestamps once per line from the SDK, though the kubelet sends one per CRI entry", "[logs][exact]") {
  ContainerScript sc;
  sc.output = awkward_output();
  start_pod("exact-ts", sc);
  LogParams p;
  p.timestamps = true;
  std::string with = get_logs(client(), "default", "exact-ts", p);
  // strip each line's prefix: what is left is the output exactly
  std::string stripped;
  std::size_t pos = 0, lines = 0;
  while (pos < with.size()) {
    auto sp = with.find(' ', pos);
    REQUIRE(sp != std::string::npos);
    std::int64_t s = 0, ns = 0;
    REQUIRE(detail::parse_rfc3339(with.substr(pos, sp - pos), s, ns));
    auto nl = with.find('\n', sp);
    std::size_t end = nl == std::string::npos ? with.size() : nl + 1;
    stripped += with.substr(sp + 1, end - sp - 1);
    pos = end;
    ++lines;
  }
  CHECK(stripped == sc.output);
  CHECK(lines == 6);  // one timestamp per line, none inside the 1 MiB line's 64 CRI records
  // on the wire (as the real kubelet): the 1 MiB line's 63 further entries carry one each
  Request raw = log_request("default", "exact-ts", p);
  std::string body;
  client().stream(raw, [&](std::string_view d) {
    body.append(d);
    return true;
  });
  std::size_t stamps = 0;
  for (std::size_t at = body.find("Z "); at != std::string::npos; at = body.find("Z ", at + 1)) ++stamps;
  CHECK(stamps == 6 + 63);
}

TEST_CASE("a cut plain read resumes by the bytes delivered: nothing lost or repeated", "[logs][resume]") {
  ContainerScript sc;
  sc.output = awkward_output();
  sc.generated_lines = 20000;
  start_pod("resume-plain", sc);
  const std::string want = server().kubelet().log("default", "resume-plain", "main");
  server().faults().cut_body_after(300000, 3, "/pods/resume-plain/log");
  LogStreamer s(client(), "default", "resume-plain", {});
  std::string got;
  s.run_bytes([&](std::string_view b) {
    got.append(b);
    return true;
  });
  CHECK(s.stats().resumes == 3);
  CHECK(s.stats().skipped_on_resume > 0);
  CHECK(got.size() == want.size());
  CHECK(got == want);
}

TEST_CASE("a cut timestamped follow resumes inside a long line without repeating its start", "[logs][resume]") {
  ContainerScript sc;
  sc.output = "before\n" + std::string(3 << 20, 'y') + "\nafter";
  start_pod("resume-long", sc);
  server().faults().cut_body_after(1500000, 1, "/pods/resume-long/log");
  LogParams p;
  p.follow = true;
  LogStreamer s(client(), "default", "resume-long", p);
  s.max_line_bytes = 256 * 1024;
  std::string got;
  s.run_pieces([&](const LogPiece& pc) {
    got.append(pc.text);
    if (pc.last && pc.terminated) got.push_back('\n');
    return true;
  });
  CHECK(s.stats().wire_timestamps);
  CHECK(s.stats().resumes == 1);
  CHECK(got == sc.output);
}

TEST_CASE("follow keeps reading a Running pod whose container status is not reported yet", "[logs][follow]") {
  FakeApiServerOptions o;
  o.pod_start_delay = std::chrono::milliseconds(20);
  o.container_status_lag = std::chrono::milliseconds(4000);
  FakeApiServer lagging(o);
  RestConfig rc;
  rc.server = lagging.url();
  rc.tls.ca_pem = lagging.ca_pem();
  rc.tls.client_cert_pem = lagging.client_cert_pem();
  rc.tls.client_key_pem = lagging.client_key_pem();
  Client c(rc);
  ContainerScript sc;
  sc.lines = {"first"};
  sc.exit_code = std::nullopt;  // runs until finish()
  lagging.kubelet().script("lag-chief-0", sc);
  nlohmann::json job = {{"apiVersion", "kubeflow.org/v1"},
                        {"kind", "TFJob"},
                        {"metadata", {{"name", "lag"}, {"namespace", "default"}}},
                        {"spec",
                         {{"tfReplicaSpecs",
                           {{"Chief",
                             {{"replicas", 1},
                              {"template", {{"spec", {{"containers", {{{"name", "tensorflow"}, {"image", "tf"}}}}}}}}}}}}}}};
  lagging.put_object(job);
  REQUIRE(lagging.wait_for([&] {
    auto p = lagging.get_object("pods", "default", "lag-chief-0");
    return p && p->value("/status/phase"_json_pointer, std::string()) == "Running";
  }));
  auto p = lagging.get_object("pods", "default", "lag-chief-0");
  REQUIRE_FALSE(p->at("status").contains("containerStatuses"));  // the state this test is about

  std::vector<std::string> got;
  std::mutex mu;
  std::atomic<bool> cancel{false};
  tfjob::workflow::JobLogOptions lo;
  lo.follow = true;
  lo.cancel = &cancel;
  lo.poll = std::chrono::milliseconds(50);
  std::thread t([&] {
    tfjob::workflow::replica_logs(c, "default", "lag", "", 0, lo, [&](const std::string&, std::string_view l) {
      std::lock_guard<std::mutex> lk(mu);
      got.emplace_back(l);
      return true;
    });
  });
  auto count = [&] {
    std::lock_guard<std::mutex> lk(mu);
    return got.size();
  };
  REQUIRE(lagging.wait_for([&] { return count() >= 1; }));
  lagging.kubelet().append_log("default", "lag-chief-0", "tensorflow", {"second", "third"});
  bool all = lagging.wait_for([&] { return count() >= 3; }, std::chrono::seconds(3));
  cancel = true;
  lagging.kubelet().finish("default", "lag-chief-0", "tensorflow", 0);
  t.join();
  CHECK(all);
  std::lock_guard<std::mutex> lk(mu);
  CHECK(got == std::vector<std::string>{"first", "second", "third"});
}

// The merger behind `logs --merge -f`, on its own: lines of live streams go out in the
// kubelet's timestamp order once every live stream has one waiting; a live stream with
// nothing to say holds the others up only for the window; a line written in pieces stays
// whole. No timing is asserted: the waits below are for a condition, with a far bound.
TEST_CASE("LogMerger: timestamp order across live streams, a silent stream holds no one forever", "[logs][merge]") {
  using tfjob::workflow::LogMerger;
  using tfjob::workflow::LogRecord;
  using tfjob::workflow::LogSource;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> out;
  auto sink = [&](const LogRecord& r) {
    std::lock_guard<std::mutex> lk(mu);
    out.push_back(r.source->pod + ":" + std::string(r.piece.text));
    cv.notify_all();
  };
  auto rec = [](const LogSource& s, const char* ts, const char* text, bool first = true, bool last = true) {
    LogRecord r;
    r.source = &s;
    r.piece.timestamp = ts;
    r.piece.text = text;
    r.piece.first = first;
    r.piece.last = last;
    return r;
  };
  LogSource a, b;
  a.pod = "a";
  b.pod = "b";

  SECTION("every live stream has a line waiting: the earliest goes first") {
    LogMerger m(2, std::chrono::milliseconds(60000), sink);  // a window no test run reaches
    // released only when both live streams have a line waiting: the order does not depend
    // on how the pushes and the releases interleave
    std::thread runner([&] { m.run(); });
    m.push(0, rec(a, "2026-01-01T00:00:03.000000000Z", "a3"));
    m.push(1, rec(b, "2026-01-01T00:00:01.000000000Z", "b1"));
    m.push(0, rec(a, "2026-01-01T00:00:04.000000000Z", "a4"));
    m.push(1, rec(b, "2026-01-01T00:00:02.000000000Z", "b2"));
    // a line in two pieces: its second piece has no timestamp of its own and follows the first
    m.push(1, rec(b, "2026-01-01T00:00:05.000000000Z", "b5-", true, false));
    m.push(1, rec(b, "", "rest", false, true));
    m.end(0);
    m.end(1);
    runner.join();
    CHECK(out == std::vector<std::string>{"b:b1", "b:b2", "a:a3", "a:a4", "b:b5-", "b:rest"});
  }

  SECTION("a live stream that says nothing does not hold the other up past the window") {
    LogMerger m(2, std::chrono::milliseconds(50), sink);
    std::thread runner([&] { m.run(); });
    m.push(0, rec(a, "2026-01-01T00:00:01.000000000Z", "a1"));  // stream 1 is live and silent
    {
      std::unique_lock<std::mutex> lk(mu);
      const bool released = cv.wait_for(lk, std::chrono::seconds(30), [&] { return !out.empty(); });
      CHECK(released);  // without a window it would wait for stream 1 for ever
    }
    m.push(1, rec(b, "2026-01-01T00:00:02.000000000Z", "b2"));
    m.end(0);
    m.end(1);
    runner.join();
    CHECK(out == std::vector<std::string>{"a:a1", "b:b2"});
  }
}
