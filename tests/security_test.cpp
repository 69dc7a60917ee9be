// What a cluster or a kubeconfig sends never becomes a command, a path outside its folder,
// or an open door (issue 37). Each case failed on the code before its fix: names from the
// cluster made into paths, files opened following links and truncating, a predictable
// staging folder, a proxy that answered any Host, a CN-only certificate accepted, an exec
// plugin run from ".", URLs with passwords and plugin output printed, cluster info built
// by concatenation, a signed --model-url stored in an annotation, bare pod names handed to
// kubectl, completion scripts that evaluate candidates, raw control characters in tables.
#include <catch2/catch.hpp>

#include <tfjob/detail/files.hpp>
#include <tfjob/detail/table.hpp>
#include <tfjob/kube/kube.hpp>
#include <tfjob/local/runner.hpp>
#include <tfjob/serving/manifests.hpp>
#include <tfjob/serving/model_config.hpp>
#include <tfjob/workflow/archive.hpp>
#include <tfjob/workflow/logs.hpp>
#include <tfjob/workflow/preflight.hpp>

#include "support/fake_apiserver.hpp"
#include "support/fake_cluster.hpp"
#include "support/fake_pki.hpp"
#include "support/kube_test_util.hpp"
#include "support/paths.hpp"
#include "support/workflow_run.hpp"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using nlohmann::json;
using tfjob::test::FakeApiServer;
using tfjob::test::FakeApiServerOptions;
using tfjob::test::RunResult;

namespace {

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

using tfjob::test::kube::error_of;

/// Every file and link below `root` (paths relative to it), without following links.
std::set<std::string> tree(const std::string& root) {
  std::set<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::none, ec); it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (ec) break;
    if (!it->is_directory() || it->is_symlink()) out.insert(fs::relative(it->path(), root).string());
  }
  return out;
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

std::string slurp(const std::string& path) { return tfjob::test::slurp(path); }

void write_exec(const std::string& path, const std::string& text) {
  tfjob::test::write_file(path, text);
  ::chmod(path.c_str(), 0755);
}

std::string env_path() { return std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin"; }

// ---- hostile objects on the fake API server ------------------------------------------------

/// A TFJob that the fake operator leaves alone (managed by another controller, as MultiKueue
/// does), so the test places its pods itself, with the names a real server would refuse.
json unmanaged_job(const std::string& name, const std::vector<std::string>& replica_types,
                   const std::vector<std::string>& containers = {"tensorflow"}) {
  json cs = json::array();
  for (const auto& c : containers) cs.push_back({{"name", c}, {"image", "tensorflow/tensorflow:2.15.0"}});
  json specs = json::object();
  for (const auto& t : replica_types)
    specs[t] = {{"replicas", t == "Worker" ? 3 : 1}, {"restartPolicy", "Never"}, {"template", {{"spec", {{"containers", cs}}}}}};
  return {{"apiVersion", "kubeflow.org/v1"},
          {"kind", "TFJob"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", {{"runPolicy", {{"managedBy", "kueue.x-k8s.io/multikueue"}}}, {"tfReplicaSpecs", specs}}}};
}

json job_pod(const std::string& job, const std::string& name, const std::string& type, int index, bool chief,
             const std::vector<std::string>& containers, const std::string& node) {
  json cs = json::array();
  for (const auto& c : containers) cs.push_back({{"name", c}, {"image", "busybox"}});
  json labels = {{"training.kubeflow.org/job-name", job},
                 {"training.kubeflow.org/replica-type", type},
                 {"training.kubeflow.org/replica-index", std::to_string(index)},
                 {"training.kubeflow.org/operator-name", "tfjob-controller"}};
  if (chief) labels["training.kubeflow.org/job-role"] = "master";
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", labels}}},
          {"spec", {{"containers", cs}, {"nodeName", node}, {"restartPolicy", "Never"}}}};
}

json node_named(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}},
          {"status", {{"capacity", {{"cpu", "4"}}}, {"allocatable", {{"cpu", "4"}}},
                      {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

/// Names with "../", "$(...)", a leading '-' and control characters, as a hostile or
/// intercepted server may send them.
const std::string kEscape = "../../../escape";
const std::string kRun = "$(touch RAN)";
const std::string kCtl = "esc\x1b]0;pwned\x07\x1b[31m\r";

/// The fake server with a job "h" whose replica types, pods, containers and node carry
/// hostile names; the kubelet runs the pods (their logs say "hello").
struct HostileCluster : tfjob::test::FakeCluster {
  HostileCluster() : FakeCluster(tfjob::test::with_controllers(FakeApiServerOptions{}), "security") {
    tfjob::test::ContainerScript say;
    say.lines = {"hello"};
    say.exit_code = std::nullopt;  // keeps running: its log can be read
    server->kubelet().script("*", say);
    server->put_object(node_named("-node" + kRun));
    const std::vector<std::string> containers = {"tensorflow", kEscape + "-c", kRun, "-c"};
    server->put_object(unmanaged_job("h", {"Worker", kEscape + "-rt"}, containers));
    server->put_object(job_pod("h", "-chief" + kRun, "worker", 0, true, containers, "-node" + kRun));
    server->put_object(job_pod("h", kEscape + "-pod", "worker", 1, false, containers, "fake-node-0"));
    server->put_object(job_pod("h", "ctl-" + std::string("x\x1b[2Jy"), "worker", 2, false, containers, "fake-node-0"));
    REQUIRE(server->wait_for([&] {
      auto p = server->get_object("pods", "default", "-chief" + kRun);
      return p && p->value("status", json::object()).value("phase", "") == "Running";
    }, std::chrono::seconds(20)));
  }
  /// The plugin with `--kubeconfig` first (so nothing lands after a `--` or a partial word).
  RunResult run(std::vector<std::string> args, const std::vector<std::string>& env = {}) const {
    args.insert(args.begin(), {"--kubeconfig", kubeconfig});
    return tfjob::test::run_plugin(args, "", 90, env);
  }
};

}  // namespace

// ---- 1. one path part per name, files made without following links -------------------------

TEST_CASE("security: path_part keeps a name from the cluster one path part", "[security][paths]") {
  using tfjob::detail::path_part;
  CHECK(path_part("mnist-worker-0") == "mnist-worker-0");
  CHECK(path_part("a.b_c") == "a.b_c");
  CHECK(path_part("../../../escape") == "..%2F..%2F..%2Fescape");
  CHECK(path_part("..") == "%2E%2E");
  CHECK(path_part(".") == "%2E");
  CHECK(path_part("") == "%");
  CHECK(path_part(std::string("a\0b", 3)) == "a%00b");
  CHECK(path_part("a\nb\x1b") == "a%0Ab%1B");
  CHECK(path_part("100%") == "100%25");  // '%' escaped too: two names never share a part
  CHECK(path_part("a/b") != path_part("a%2Fb"));
  const std::string long_name(400, 'x');
  const std::string p = path_part(long_name);
  CHECK(p.size() <= tfjob::detail::max_path_part_bytes);
  CHECK(p != path_part(long_name + "y"));
  CHECK(path_part(std::string(300, '/')).find('/') == std::string::npos);
}

TEST_CASE("security: files are made inside their folder, never through a link, never truncated", "[security][paths]") {
  const std::string base = tfjob::test::temp_dir("security-folder");
  const std::string victim = base + "/victim";
  tfjob::test::write_file(victim, "keep me");
  tfjob::detail::Folder f(base + "/out");
  CHECK(mode_of(base + "/out") == 0700);
  auto a = f.create("logs/p/c.log");
  a.write("x");
  a.close();
  CHECK(mode_of(base + "/out/logs/p/c.log") == 0600);
  CHECK(has(error_of([&] { f.create("logs/p/c.log"); }), "exists already"));  // not truncated
  CHECK(slurp(base + "/out/logs/p/c.log") == "x");
  REQUIRE(::symlink(victim.c_str(), (base + "/out/link.log").c_str()) == 0);
  CHECK(has(error_of([&] { f.create("link.log"); }), "exists already"));
  CHECK(has(error_of([&] { f.append("link.log"); }), "symbolic link"));
  REQUIRE(::symlink(base.c_str(), (base + "/out/dirlink").c_str()) == 0);
  CHECK(has(error_of([&] { f.create("dirlink/victim"); }), "symbolic link or not a folder"));
  CHECK(has(error_of([&] { f.create("../victim"); }), "not a plain path"));
  f.replace("link.log").close();  // the link removed, its target untouched
  CHECK(slurp(victim) == "keep me");
  CHECK(mode_of(base + "/out/link.log") == 0600);
  auto b = f.append("logs/p/c.log");
  b.write("y");
  b.close();
  CHECK(slurp(base + "/out/logs/p/c.log") == "xy");
}

TEST_CASE("security: private folders: mkdtemp names, mode 0700, and what a shared fallback must be", "[security][tmp]") {
  tfjob::test::kube::EnvGuard env;
  const std::string base = tfjob::test::temp_dir("security-tmp");
  env.set("TMPDIR", base);
  const std::string a = tfjob::detail::make_temp_dir("kubectl-tfjob-archive-");
  const std::string b = tfjob::detail::make_temp_dir("kubectl-tfjob-archive-");
  CHECK(a != b);
  CHECK(a.rfind(base + "/kubectl-tfjob-archive-", 0) == 0);
  CHECK(mode_of(a) == 0700);
  CHECK(tfjob::detail::private_dir_fault(a).empty());
  ::chmod(b.c_str(), 0755);
  CHECK(has(tfjob::detail::private_dir_fault(b), "others may use it (mode 0755)"));
  REQUIRE(::symlink(a.c_str(), (base + "/link").c_str()) == 0);
  CHECK(tfjob::detail::private_dir_fault(base + "/link") == "it is a symbolic link");
}

// ---- 2. archive and logs --save write inside the folder given ------------------------------

TEST_CASE("security: archive of a hostile job writes only inside -o, each name one escaped part", "[security][archive][e2e]") {
  HostileCluster c;
  const std::string base = tfjob::test::temp_dir("security-archive");
  const std::string out = base + "/a/b/out";
  auto r = c.run({"archive", "h", "-o", out});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  for (const auto& f : tree(base)) {
    INFO(f);
    CHECK(f.rfind("a/b/out/", 0) == 0);  // nothing outside the folder given
  }
  auto files = tree(out);
  CHECK(files.count("pods/..%2F..%2F..%2Fescape-pod.yaml"));
  CHECK(files.count("pods/-chief$(touch RAN).yaml"));
  CHECK(files.count("tf_config/..%2F..%2F..%2Fescape-rt-0.json"));
  CHECK(files.count("logs/-chief$(touch RAN)/..%2F..%2F..%2Fescape-c.log"));
  CHECK(files.count("logs/-chief$(touch RAN)/$(touch RAN).log"));
  CHECK(files.count("nodes/-node$(touch RAN).yaml"));
  CHECK(slurp(out + "/logs/-chief$(touch RAN)/tensorflow.log") == "hello\n");
  CHECK(mode_of(out) == 0700);
  CHECK(mode_of(out + "/pods/..%2F..%2F..%2Fescape-pod.yaml") == 0600);
  CHECK_FALSE(fs::exists(base + "/RAN"));
  // describe.txt and the tables hold no raw ESC or CR from the names
  const std::string d = slurp(out + "/describe.txt");
  CHECK(d.find('\x1b') == std::string::npos);
  CHECK(d.find('\r') == std::string::npos);
  CHECK(has(d, "ctl-x^[[2Jy"));
  // read back by explain -f: the escaped names are found again
  auto in = tfjob::workflow::read_archive(out);
  CHECK(in.pods.size() == 3);
}

TEST_CASE("security: archive stages a .tar.gz in a private folder of an unpredictable name", "[security][archive][tmp][e2e]") {
  HostileCluster c;
  const std::string base = tfjob::test::temp_dir("security-archive-tgz");
  const std::string tmp = base + "/tmp";
  fs::create_directories(tmp);
  // hold one log request while the staging folder exists, and look at it meanwhile
  c.server->faults().stall_next(std::chrono::milliseconds(1500), 1, "/log");
  RunResult r;
  std::thread t([&] { r = tfjob::test::run_plugin({"archive", "h", "-o", base + "/h.tar.gz"}, c.kubeconfig, 90, {"TMPDIR=" + tmp}); });
  std::string staged;
  for (int i = 0; i < 300 && staged.empty(); ++i) {
    for (const auto& e : fs::directory_iterator(tmp)) staged = e.path().string();
    if (staged.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  mode_t staged_mode = staged.empty() ? 0 : mode_of(staged);
  t.join();
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE_FALSE(staged.empty());
  CHECK(staged_mode == 0700);
  const std::string staged_name = fs::path(staged).filename().string(), prefix = "kubectl-tfjob-archive-";
  CHECK(staged_name.rfind(prefix, 0) == 0);
  // not <pid>-<job>: mkdtemp's six random letters and digits (a check for "-h" anywhere failed
  // whenever the random part began with an h)
  const std::string suffix = staged_name.substr(std::min(prefix.size(), staged_name.size()));
  CHECK(suffix.size() == 6);
  CHECK(std::all_of(suffix.begin(), suffix.end(), [](unsigned char ch) { return std::isalnum(ch) != 0; }));
  CHECK(tree(tmp).empty());                                       // removed afterwards
  CHECK(mode_of(base + "/h.tar.gz") == 0600);
  auto list = tfjob::test::run_program("/bin/tar", {"-tzf", base + "/h.tar.gz"});
  REQUIRE(list.exit_code == 0);
  std::istringstream lines(list.out);
  for (std::string l; std::getline(lines, l);) {
    INFO(l);
    CHECK(l.rfind("h-archive/", 0) == 0);
    CHECK_FALSE(has("/" + l + "/", "/../"));
  }
  // a file already there is never overwritten
  r = c.run({"archive", "h", "-o", base + "/h.tar.gz"});
  CHECK(r.exit_code != 0);
}

TEST_CASE("security: logs --save writes each stream inside the folder, and refuses a link in a file's place",
          "[security][logs]") {
  const std::string base = tfjob::test::temp_dir("security-save");
  const std::string dir = base + "/save";
  fs::create_directories(dir);
  tfjob::test::write_file(base + "/victim", "keep me");
  REQUIRE(::symlink((base + "/victim").c_str(), (dir + "/linked.tensorflow.log").c_str()) == 0);
  {
    tfjob::workflow::LogSaver saver(dir);
    tfjob::workflow::LogSource s;
    s.pod = kEscape + "-pod";
    s.container = kEscape + "-c";
    saver.bytes(s, "one\n");
    s.pod = "..";
    s.container = "..";
    saver.bytes(s, "two\n");
    s.pod = "linked";
    s.container = "tensorflow";
    CHECK(has(error_of([&] { saver.bytes(s, "three\n"); }), "symbolic link"));
  }
  CHECK(slurp(base + "/victim") == "keep me");
  for (const auto& f : tree(base)) {
    INFO(f);
    CHECK((f == "victim" || f.rfind("save/", 0) == 0));
  }
  CHECK(slurp(dir + "/..%2F..%2F..%2Fescape-pod...%2F..%2F..%2Fescape-c.log") == "one\n");
  CHECK(slurp(dir + "/%2E%2E.%2E%2E.log") == "two\n");
  CHECK(mode_of(dir + "/%2E%2E.%2E%2E.log") == 0600);
}

TEST_CASE("security: logs --save of a hostile job through the plugin stays in its folder", "[security][logs][e2e]") {
  HostileCluster c;
  const std::string base = tfjob::test::temp_dir("security-save-e2e");
  auto r = c.run({"logs", "h", "--all", "--all-containers", "--save", base + "/s"});
  INFO(r.out << r.err);
  std::string saved;
  for (const auto& f : tree(base)) saved += f + "\n";
  INFO("saved:\n" << saved);
  for (const auto& f : tree(base)) {
    INFO(f);
    CHECK(f.rfind("s/", 0) == 0);
  }
  CHECK(tree(base + "/s").count("-chief$(touch RAN).tensorflow.log"));
  CHECK(tree(base + "/s").count("-chief$(touch RAN)...%2F..%2F..%2Fescape-c.log"));
}

// ---- 3. the local runner's state folder ---------------------------------------------------

TEST_CASE("security: the local runner's /tmp fallback is private, and a folder another user could make is not used",
          "[security][local][tmp]") {
  tfjob::test::kube::EnvGuard env;
  const std::string base = tfjob::test::temp_dir("security-local");
  env.set("HOME", std::nullopt);
  env.set("XDG_STATE_HOME", std::nullopt);
  env.set("TMPDIR", base);
  tfjob::TFJob job;
  job.metadata.name = "st";
  job.metadata.namespace_ = "ns";
  const std::string fallback = base + "/kubectl-tfjob-" + std::to_string(::geteuid());
  CHECK(tfjob::local::default_state_dir(job) == fallback + "/local/ns/st");
  job.metadata.namespace_ = kEscape;
  CHECK(tfjob::local::default_state_dir(job) == fallback + "/local/..%2F..%2F..%2Fescape/st");
  job.metadata.namespace_ = "ns";

  auto run_sh = [&](const std::string& script) {
    tfjob::TFJob j = job;
    tfjob::ReplicaSpec w;
    w.replicas = 1;
    w.template_ = {{"spec", {{"containers", json::array({{{"name", "tensorflow"}, {"image", "x"}, {"command", json::array({"/bin/sh", "-c", script})}}})}}}};
    j.spec.tf_replica_specs["Worker"] = w;
    tfjob::local::RunOptions o;
    std::ostringstream out, err;
    o.out = &out;
    o.err = &err;
    o.handle_signals = false;
    auto r = tfjob::local::run(j, o);
    return std::make_pair(r, err.str());
  };
  SECTION("a fresh fallback is made 0700, its log 0600") {
    auto [r, err] = run_sh("echo hi");
    INFO(err);
    CHECK(r.state == "Succeeded");
    CHECK(r.state_dir == fallback + "/local/ns/st");
    CHECK(mode_of(fallback) == 0700);
    CHECK(mode_of(r.state_dir) == 0700);
    CHECK(mode_of(r.state_dir + "/logs/worker-0.log") == 0600);
  }
  SECTION("a fallback others may write to is not used: a fresh private folder instead, and said") {
    fs::create_directories(fallback);
    ::chmod(fallback.c_str(), 0777);
    auto [r, err] = run_sh("echo hi");
    INFO(err);
    CHECK(r.state == "Succeeded");
    CHECK(r.state_dir.rfind(fallback + "/", 0) != 0);
    CHECK(r.state_dir.rfind(fallback + "-", 0) == 0);
    CHECK(has(err, "not using " + fallback + " (others may use it (mode 0777))"));
    CHECK(tree(fallback).empty());
  }
  SECTION("a link at the fallback is not followed") {
    const std::string elsewhere = base + "/elsewhere";
    fs::create_directories(elsewhere);
    REQUIRE(::symlink(elsewhere.c_str(), fallback.c_str()) == 0);
    auto [r, err] = run_sh("echo hi");
    INFO(err);
    CHECK(has(err, "(it is a symbolic link)"));
    CHECK(tree(elsewhere).empty());
  }
}

// ---- 4. the TensorBoard proxy refuses what kubectl proxy refuses ---------------------------

namespace {
/// One raw HTTP exchange with 127.0.0.1:port ("" when nothing came back).
std::string raw_http(int port, const std::string& request) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<std::uint16_t>(port));
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    ::close(fd);
    return "";
  }
  (void)!::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string out;
  char buf[4096];
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return out;
}
int status_of(const std::string& answer) { return answer.size() > 12 ? std::atoi(answer.c_str() + 9) : 0; }
}  // namespace

namespace {
/// A Service "tb" (TensorBoard's port) for the fake's service proxy to answer for.
void put_tb_service(FakeApiServer& s) {
  s.put_object({{"apiVersion", "v1"},
                {"kind", "Service"},
                {"metadata", {{"name", "tb"}, {"namespace", "default"}}},
                {"spec", {{"ports", json::array({{{"name", "http"}, {"port", 6006}, {"protocol", "TCP"}}})}}}});
}
}  // namespace

TEST_CASE("security: the local proxy answers 403 to a Host other than localhost, 127.0.0.1 or ::1 in brackets", "[security][proxy]") {
  FakeApiServer s;
  put_tb_service(s);
  s.set_proxy_handler("tb", [](const tfjob::test::ProxyRequest& r) {
    tfjob::test::ProxyResponse p;
    p.body = "tensorboard " + r.path;
    return p;
  });
  tfjob::kube::LocalProxy proxy(tfjob::kube::Client(tfjob::test::admin_config(s)), "/api/v1/namespaces/default/services/tb:6006/proxy");
  const std::string port = std::to_string(proxy.port());
  auto get = [&](const std::string& host_lines, const std::string& path = "/x") {
    return raw_http(proxy.port(), "GET " + path + " HTTP/1.1\r\n" + host_lines + "Connection: close\r\n\r\n");
  };
  for (const std::string& h : std::vector<std::string>{"localhost", "localhost:" + port, "127.0.0.1", "127.0.0.1:" + port, "[::1]", "[::1]:" + port}) {
    INFO(h);
    auto a = get("Host: " + h + "\r\n");
    CHECK(status_of(a) == 200);
    CHECK(has(a, "tensorboard /x"));
  }
  for (const std::string& h : std::vector<std::string>{"evil.example", "evil.example:" + port, "localhost.evil.example", "127.0.0.1.nip.io",
                                                        "LOCALHOST", "[::2]:" + port, "localhost:80x", "127.0.0.1:" + port + "@evil"}) {
    INFO(h);
    auto a = get("Host: " + h + "\r\n");
    CHECK(status_of(a) == 403);
    CHECK_FALSE(has(a, "tensorboard"));
  }
  CHECK(status_of(get("")) == 403);                                           // no Host
  CHECK(status_of(get("Host: localhost\r\nHost: evil.example\r\n")) == 403);  // two
  CHECK(status_of(get("Host: localhost\r\n", "/../../../pods/p/exec")) == 400);
  CHECK(status_of(get("Host: localhost\r\n", "/a/%2e%2E/b")) == 400);
  CHECK(proxy.requests() == 6);
}

TEST_CASE("security: the local proxy serves a bounded number of connections, the rest wait or get 503", "[security][proxy]") {
  FakeApiServer s;
  put_tb_service(s);
  s.set_proxy_handler("tb", [](const tfjob::test::ProxyRequest&) { return tfjob::test::ProxyResponse{200, "text/plain", "ok"}; });
  tfjob::kube::LocalProxy proxy(tfjob::kube::Client(tfjob::test::admin_config(s)), "/api/v1/namespaces/default/services/tb:6006/proxy");
  // idle connections that never send a request: a thread each, before the pool
  const int idle = tfjob::kube::LocalProxy::max_active_connections + static_cast<int>(tfjob::kube::LocalProxy::max_waiting_connections) + 8;
  std::vector<int> fds;
  for (int i = 0; i < idle; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<std::uint16_t>(proxy.port()));
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0);
    fds.push_back(fd);
  }
  // the ones beyond the pool and its queue are answered 503 at once; the others wait
  int refused = 0;
  std::set<int> answered;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (std::chrono::steady_clock::now() < until) {
    std::vector<pollfd> ps;
    for (int fd : fds)
      if (!answered.count(fd)) ps.push_back({fd, POLLIN, 0});
    if (::poll(ps.data(), ps.size(), 100) <= 0) continue;
    for (const auto& p : ps) {
      if (!(p.revents & POLLIN)) continue;
      char buf[64] = {};
      if (::recv(p.fd, buf, sizeof buf - 1, 0) > 0 && has(buf, " 503 ")) ++refused;
      answered.insert(p.fd);
    }
  }
  CHECK(refused >= 8);
  CHECK(refused < idle - tfjob::kube::LocalProxy::max_active_connections);  // the pool's are served, not refused
  for (int fd : fds) ::close(fd);
  // the pool is free again once they are gone
  std::string a;
  for (int i = 0; i < 50 && status_of(a) != 200; ++i) {
    a = raw_http(proxy.port(), "GET /x HTTP/1.1\r\nHost: localhost\r\n\r\n");
    if (status_of(a) != 200) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(status_of(a) == 200);
}

// ---- 5. TLS, exec credential plugins, URLs --------------------------------------------------

TEST_CASE("security: a server certificate that names the host only in its CN is refused, as Go does since 1.15",
          "[security][tls]") {
  const auto pki = tfjob::test::FakePki::generate();
  auto serve_with = [&](const tfjob::test::PemPair& cert) {
    auto srv = std::make_unique<httplib::SSLServer>([cert](SSL_CTX& ctx) {
      BIO* b = BIO_new_mem_buf(cert.cert.data(), static_cast<int>(cert.cert.size()));
      X509* x = PEM_read_bio_X509(b, nullptr, nullptr, nullptr);
      BIO_free(b);
      b = BIO_new_mem_buf(cert.key.data(), static_cast<int>(cert.key.size()));
      EVP_PKEY* k = PEM_read_bio_PrivateKey(b, nullptr, nullptr, nullptr);
      BIO_free(b);
      const bool ok = x && k && SSL_CTX_use_certificate(&ctx, x) == 1 && SSL_CTX_use_PrivateKey(&ctx, k) == 1;
      X509_free(x);
      EVP_PKEY_free(k);
      return ok;
    });
    srv->Get("/version", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content(std::string(R"({"gitVersion":"v1.30.0","auth":")") + req.get_header_value("Authorization") + "\"}",
                      "application/json");
    });
    return srv;
  };
  for (bool san : {false, true}) {
    auto srv = serve_with(pki.issue_server("localhost", san ? "DNS:localhost" : ""));
    const int port = srv->bind_to_any_port("127.0.0.1");
    std::thread t([&] { srv->listen_after_bind(); });
    while (!srv->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    tfjob::kube::RestConfig rc;
    rc.server = "https://localhost:" + std::to_string(port);
    rc.tls.ca_pem = pki.ca.cert;
    rc.auth.token = "secret-token";
    tfjob::kube::Client c(rc);
    tfjob::kube::Request req;
    req.path = "/version";
    req.what = "get the server version";
    auto e = error_of([&] { c.send(req); });
    INFO(e);
    if (san) {
      CHECK(e.empty());
    } else {
      CHECK(has(e, "x509: certificate relies on legacy Common Name field, use SANs instead"));
      CHECK(has(e, "subjectAltName for localhost"));
    }
    srv->stop();
    t.join();
  }
}

TEST_CASE("security: an exec plugin found through a dot or an empty PATH entry is not run (Go's ErrDot)", "[security][exec]") {
  const std::string dir = tfjob::test::temp_dir("security-errdot");
  write_exec(dir + "/cred-plugin", "#!/bin/sh\ntouch \"$0.ran\"\necho '{\"kind\":\"ExecCredential\",\"apiVersion\":"
                                   "\"client.authentication.k8s.io/v1\",\"status\":{\"token\":\"t\"}}'\n");
  tfjob::test::write_file(dir + "/kubeconfig", R"(apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: u
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: cred-plugin, interactiveMode: Never}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
)");
  const std::string plugin = tfjob::test::plugin_path();
  for (const std::string path : {":/usr/bin:/bin", ".:/usr/bin:/bin", "/usr/bin:/bin:"}) {
    INFO(path);
    auto r = tfjob::test::run_program("/bin/sh", {"-c", "cd \"$1\" && exec \"$2\" get --kubeconfig kubeconfig --request-timeout 5s", "_", dir, plugin},
                                      60, {"PATH=" + path});
    CHECK(r.exit_code != 0);
    CHECK(has(r.err, "cannot run executable found relative to current directory"));
    CHECK_FALSE(fs::exists(dir + "/cred-plugin.ran"));
  }
  // on PATH as an absolute folder, the same plugin runs (the rule is about ".", not the plugin)
  auto r = tfjob::test::run_program("/bin/sh", {"-c", "cd \"$1\" && exec \"$2\" get --kubeconfig kubeconfig --request-timeout 5s", "_", dir, plugin},
                                    60, {"PATH=" + dir + ":/usr/bin:/bin"});
  CHECK(fs::exists(dir + "/cred-plugin.ran"));
  CHECK_FALSE(has(r.err, "relative to current directory"));
}

TEST_CASE("security: no part of an exec plugin's output is quoted in an error", "[security][exec]") {
  tfjob::kube::ExecConfig e;
  e.command = "/bin/sh";
  e.api_version = "client.authentication.k8s.io/v1beta1";
  for (const std::string out : {
           R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","status":{"token":"SECRET-TOKEN-PART)",
           R"(SECRET-TOKEN-PART)",
           R"({"kind":"SECRET-TOKEN-PART","apiVersion":"client.authentication.k8s.io/v1beta1","status":{"token":"t"}})",
           R"({"kind":"ExecCredential","apiVersion":"SECRET-TOKEN-PART","status":{"token":"t"}})",
           R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","status":{"token":"t","expirationTimestamp":"SECRET-TOKEN-PART"}})",
           R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","status":{"token":12345678}})",
           R"(["SECRET-TOKEN-PART"])"}) {
    INFO(out);
    tfjob::test::kube::TempDir d;
    const std::string file = d.write("out", out);
    e.args = {"-c", "cat '" + file + "'"};
    auto m = error_of([&] { tfjob::kube::run_exec_plugin(e, {}, false); });
    CHECK_FALSE(m.empty());
    CHECK_FALSE(has(m, "SECRET"));
    CHECK_FALSE(has(m, "12345678"));
  }
  e.args = {"-c", "printf '%s' 'not json'"};
  CHECK(has(error_of([&] { tfjob::kube::run_exec_plugin(e, {}, false); }), "(it printed 8 bytes that are not JSON"));
}

TEST_CASE("security: KUBERNETES_EXEC_INFO's cluster is built by the JSON library", "[security][exec]") {
  tfjob::kube::RestConfig rc;
  rc.server = "https://127.0.0.1:6443/a\"b\\c";
  rc.tls.server_name = "x\"y";
  const auto j = json::parse(tfjob::kube::detail::exec_cluster_json(rc));
  CHECK(j["server"] == rc.server);
  CHECK(j["tls-server-name"] == "x\"y");
  // and what the plugin is given parses, with the cluster in it
  tfjob::kube::ExecConfig e;
  e.command = "/bin/sh";
  e.api_version = "client.authentication.k8s.io/v1";
  e.provide_cluster_info = true;
  tfjob::test::kube::TempDir d;
  const std::string seen = d.path + "/info";
  e.args = {"-c", "printf '%s' \"$KUBERNETES_EXEC_INFO\" > '" + seen +
                      "'; echo '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\",\"status\":{\"token\":\"t\"}}'"};
  tfjob::kube::run_exec_plugin(e, tfjob::kube::detail::exec_cluster_json(rc), false);
  auto info = json::parse(slurp(seen));
  CHECK(info["spec"]["cluster"]["server"] == rc.server);
}

TEST_CASE("security: a password in a server or proxy URL is redacted in every message", "[security][redact]") {
  using tfjob::kube::detail::parse_url;
  for (const std::string u : {"https://u:hunter2@host:99999", "ftp://u:hunter2@host", "https://u:hunter2@[::1", "https://u:hunter2@"}) {
    auto m = error_of([&] { parse_url(u, "server"); });
    INFO(m);
    CHECK_FALSE(m.empty());
    CHECK_FALSE(has(m, "hunter2"));
    CHECK(has(m, "u:xxxxx@"));
  }
  CHECK_FALSE(has(tfjob::workflow::crd_missing_message("https://u:hunter2@host:6443"), "hunter2"));
  // a proxy of an unsupported scheme, and a server that cannot be reached
  tfjob::kube::RestConfig rc;
  rc.server = "https://u:hunter2@127.0.0.1:1";
  rc.proxy_url = "socks5://p:hunter2@127.0.0.1:2";
  rc.timeout = std::chrono::seconds(3);
  tfjob::kube::Request req;
  req.path = "/version";
  req.what = "get the server version";
  auto m = error_of([&] { tfjob::kube::Client(rc).send(req); });
  INFO(m);
  CHECK_FALSE(m.empty());
  CHECK_FALSE(has(m, "hunter2"));
  rc.proxy_url.clear();
  m = error_of([&] { tfjob::kube::Client(rc).send(req); });
  INFO(m);
  CHECK_FALSE(has(m, "hunter2"));
  // the plugin's words for a kubeconfig whose server has a password
  const std::string dir = tfjob::test::temp_dir("security-redact");
  tfjob::test::write_file(dir + "/kubeconfig", R"(apiVersion: v1
kind: Config
clusters:
- {name: c, cluster: {server: "https://u:hunter2@127.0.0.1:99999"}}
users:
- {name: u, user: {token: t}}
contexts:
- {name: x, context: {cluster: c, user: u}}
current-context: x
)");
  auto r = tfjob::test::run_plugin({"get"}, dir + "/kubeconfig");
  CHECK(r.exit_code != 0);
  CHECK_FALSE(has(r.out + r.err, "hunter2"));
}

// ---- 6. serve --model-url with credentials --------------------------------------------------

TEST_CASE("security: a --model-url with credentials is refused with advice, and from a Secret it is never written down",
          "[security][serving]") {
  for (const std::string u : {"https://user:pw-SECRET@host/m.tar.gz", "https://b.s3.amazonaws.com/m.tar.gz?X-Amz-Signature=SECRET",
                              "https://storage.googleapis.com/b/m.tar.gz?X-Goog-Signature=SECRET&X-Goog-Date=1",
                              "https://a.blob.core.windows.net/c/m.tar.gz?sv=1&sig=SECRET", "https://h/m.tar.gz?token=SECRET",
                              "https://TOKENSECRET@github.com/o/r/m.tar.gz"}) {
    INFO(u);
    CHECK_FALSE(tfjob::serving::url_credential(u).empty());
    auto r = tfjob::test::run_plugin({"serve", "m", "--model-url", u, "--dry-run=client", "-o", "yaml"});
    CHECK(r.exit_code == 64);  // the SDK's refusal of a value, before any request: a usage error (docs/cli.md)
    CHECK_FALSE(has(r.out + r.err, "SECRET"));
    CHECK(has(r.err, "--model-url-secret"));
  }
  CHECK(tfjob::serving::url_credential("https://h/m.tar.gz?version=2").empty());
  auto r = tfjob::test::run_plugin({"serve", "m", "--model-url-secret", "m-url:signed", "--gpus", "0", "--dry-run=client", "-o", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto objs = json::parse(r.out);
  json dep = objs.is_array() ? objs[0] : (objs.contains("items") ? objs["items"][0] : objs);
  const auto& init = dep["spec"]["template"]["spec"]["initContainers"][0];
  CHECK(init["env"][0] == json({{"name", "MODEL_URL"}, {"valueFrom", {{"secretKeyRef", {{"name", "m-url"}, {"key", "signed"}}}}}}));
  CHECK(has(init["command"][2].get<std::string>(), "downloading ${MODEL_SOURCE:-$MODEL_URL}"));
  CHECK(dep["metadata"]["annotations"]["serving.kubectl-tfjob.io/model"] == "url from secret m-url:signed");
  // several models: NAME=secret:SECRET[:KEY]
  r = tfjob::test::run_plugin({"serve", "two", "--model", "a=secret:a-url", "--model", "b=https://h/b.tar.gz?X-Amz-Signature=SECRET",
                               "--gpus", "0", "--dry-run=client", "-o", "json"});
  CHECK(r.exit_code == 64);  // a value refused before any request
  CHECK_FALSE(has(r.out + r.err, "SECRET"));
  r = tfjob::test::run_plugin({"serve", "two", "--model", "a=secret:a-url", "--model", "b=resnet", "--gpus", "0", "--dry-run=client", "-o", "json"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(has(r.out, "\"secretKeyRef\""));
}

// ---- 7. the hostile-server scenario: completion, exec/attach/port-forward, get/describe ------

namespace {
/// A kubectl on PATH that records its arguments (one a line) and exits 7.
std::string recording_kubectl(const std::string& dir) {
  write_exec(dir + "/kubectl", "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$KUBECTL_ARGS\"\nexit 7\n");
  return dir;
}
std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}
}  // namespace

TEST_CASE("security: a hostile server's pod names reach kubectl as pod/NAME, never as a flag", "[security][hostile][e2e]") {
  HostileCluster c;
  const std::string dir = recording_kubectl(tfjob::test::temp_dir("security-kubectl"));
  const std::string args = dir + "/args";
  const std::vector<std::string> env = {"PATH=" + dir + ":" + env_path(), "KUBECTL_ARGS=" + args};
  for (const auto& cmd : std::vector<std::vector<std::string>>{{"exec", "h", "--", "ls"}, {"attach", "h"}, {"port-forward", "h", "6006"}}) {
    INFO(cmd[0]);
    auto r = c.run(cmd, env);
    INFO(r.err);
    CHECK(r.exit_code == 7);
    auto a = lines_of(slurp(args));
    CHECK(std::count(a.begin(), a.end(), "pod/-chief" + kRun) == 1);
    CHECK(std::count(a.begin(), a.end(), "-chief" + kRun) == 0);
  }
  // a kubectl in the current folder, found through "." on PATH, is not run
  auto r = tfjob::test::run_program("/bin/sh", {"-c", "cd \"$1\" && exec \"$2\" exec h --kubeconfig \"$3\" -- ls", "_", dir,
                                               tfjob::test::plugin_path(), c.kubeconfig},
                                    60, {"PATH=.:/usr/bin:/bin", "KUBECTL_ARGS=" + args + ".dot"});
  CHECK(r.exit_code == 1);
  CHECK(has(r.err, "cannot run kubectl: it is found on PATH only through"));
  CHECK_FALSE(fs::exists(args + ".dot"));
}

TEST_CASE("security: get and describe print a hostile server's names without raw control characters", "[security][hostile][e2e]") {
  HostileCluster c;
  c.server->put_object(unmanaged_job("t" + kCtl, {"Worker"}));
  auto r = c.run({"get"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find('\x1b') == std::string::npos);
  CHECK(r.out.find('\x07') == std::string::npos);
  CHECK(r.out.find('\r') == std::string::npos);
  CHECK(has(r.out, "tesc^[]0;pwned\\x07^[[31m\\r"));  // ESC as kubectl shows it (^[), the rest as \xNN
  r = c.run({"describe", "h"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find('\x1b') == std::string::npos);
  CHECK(has(r.out, "ctl-x^[[2Jy"));
  CHECK(tfjob::detail::escape_terminal("a\xc2\x9b" "31mb\xff") == "a\\u009b31mb\\xff");
  CHECK(tfjob::detail::escape_terminal("caf\xc3\xa9") == "caf\xc3\xa9");
}

TEST_CASE("security: completion of a hostile server's names offers them as text, in bash, zsh and fish", "[security][completion][e2e]") {
  HostileCluster c;
  const std::vector<std::string> names = {"q" + kRun, "w`touch RAN2`", "e;touch RAN3", "r*", "t y", "u'\"\\"};
  for (const auto& n : names) c.server->put_object(unmanaged_job(n, {"Worker"}));
  c.server->put_object(unmanaged_job("-dash", {"Worker"}));
  c.server->put_object(unmanaged_job(":9", {"Worker"}));
  c.server->put_object(unmanaged_job("nl\nline", {"Worker"}));
  // the back end: one candidate a line; what cannot be carried or would be a flag is left out
  auto r = c.run({"__complete", "get", ""});  // --kubeconfig first: the partial word stays last
  INFO(r.out << r.err);
  for (const auto& n : names) CHECK(has(r.out, n + "\tTFJob\n"));
  CHECK_FALSE(has(r.out, "-dash"));
  CHECK_FALSE(has(r.out, "\n:9"));
  CHECK_FALSE(has(r.out, "nl\n"));
  CHECK_FALSE(has(r.out, "line\t"));

  // the shells, each with the script the plugin prints, pressing TAB for real
  const std::string work = tfjob::test::temp_dir("security-completion-work");
  const std::string py = "/usr/bin/python3";
  REQUIRE(fs::exists(py));
  json cases = json::array();
  for (const auto& n : names) cases.push_back({{"typed", "kubectl-tfjob get " + n.substr(0, 1)}});
  const std::string cases_file = work + "/../cases.json";
  tfjob::test::write_file(cases_file, cases.dump());
  const std::string bin = fs::path(tfjob::test::plugin_path()).parent_path().string();
  for (const std::string shell : {"bash", "zsh", "fish"}) {
    INFO(shell);
    auto which = tfjob::test::run_program("/bin/sh", {"-c", "command -v " + shell});
    REQUIRE(which.exit_code == 0);  // scripts/install-deps.sh installs all three: never skipped
    const std::string script = work + "/../completion." + shell;
    tfjob::test::write_file(script, tfjob::test::run_plugin({"completion", shell}).out);
    auto d = tfjob::test::run_program(py, {tfjob::test::source_dir() + "/tests/tools/completion_shells.py", shell, script, work, cases_file},
                                      180, {"PATH=" + bin + ":" + env_path(), "KUBECONFIG=" + c.kubeconfig});
    INFO(d.out << d.err);
    REQUIRE(d.exit_code == 0);
    auto res = json::parse(d.out);
    REQUIRE(res.size() == names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
      INFO(names[i] << " -> " << res[i]["line"].get<std::string>());
      REQUIRE(res[i]["words"].is_array());
      CHECK(res[i]["words"] == json::array({"kubectl-tfjob", "get", names[i]}));  // offered literally
    }
    CHECK(tree(work).empty());  // nothing ran: no RAN, RAN2, RAN3
  }
}

TEST_CASE("security: each shell's script offers any candidate literally or not at all, and runs none", "[security][completion]") {
  // a stand-in kubectl-tfjob that offers whatever the case says
  const std::string bin = tfjob::test::temp_dir("security-completion-bin");
  write_exec(bin + "/kubectl-tfjob", "#!/bin/sh\ncat \"$TFJOB_TEST_CANDIDATES\"\necho :4\n");
  const std::vector<std::string> cands = {kRun, "`touch RAN2`", "a;touch RAN3", "*", "with space", "-n", "-e", "it's",
                                          "a\"b", "x:y", "\\back", "a|b", "{a,b}", "!!", "$HOME", "a&touch RAN4", "<x>"};
  json cases = json::array();
  for (const auto& cand : cands) cases.push_back({{"typed", "kubectl-tfjob get "}, {"candidates", {cand}}});
  const std::string work = tfjob::test::temp_dir("security-completion-any");
  const std::string cases_file = bin + "/cases.json";
  tfjob::test::write_file(cases_file, cases.dump());
  for (const std::string shell : {"bash", "zsh", "fish"}) {
    INFO(shell);
    REQUIRE(tfjob::test::run_program("/bin/sh", {"-c", "command -v " + shell}).exit_code == 0);
    const std::string script = bin + "/completion." + shell;
    tfjob::test::write_file(script, tfjob::test::run_plugin({"completion", shell}).out);
    auto d = tfjob::test::run_program("/usr/bin/python3", {tfjob::test::source_dir() + "/tests/tools/completion_shells.py", shell,
                                                           script, work, cases_file},
                                      240, {"PATH=" + bin + ":" + env_path()});
    INFO(d.out << d.err);
    REQUIRE(d.exit_code == 0);
    auto res = json::parse(d.out);
    REQUIRE(res.size() == cands.size());
    for (std::size_t i = 0; i < cands.size(); ++i) {
      INFO(cands[i] << " -> " << res[i]["line"].get<std::string>());
      REQUIRE(res[i]["words"].is_array());
      const auto& w = res[i]["words"];
      const bool offered = w == json::array({"kubectl-tfjob", "get", cands[i]});
      const bool left_out = w == json::array({"kubectl-tfjob", "get"});
      CHECK((offered || left_out));
      if (cands[i] != "-n" && cands[i] != "-e") CHECK(offered);  // only what a shell cannot insert as text is left out
    }
    CHECK(tree(work).empty());
  }
}
