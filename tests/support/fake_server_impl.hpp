#pragma once
// The fake API server's state (shared by fake_apiserver.cpp and fake_controllers.cpp).
#include <httplib.h>

#include "support/fake_internal.hpp"

namespace tfjob::test::fake {

/// One change, kept for watches.
struct Event {
  std::uint64_t rv;
  std::string type;  ///< ADDED, MODIFIED, DELETED
  std::string rkey;  ///< ResourceInfo::key()
  std::string ns;
  json object;
};

struct TokenInfo {
  std::string user;
  std::vector<std::string> namespaces;  ///< empty = all
};

/// One stored log line, or a run of synthetic lines generated on the fly.
struct LogEntry {
  Clock::time_point t;
  std::string text;            ///< without '\n'
  std::uint64_t gen_count = 0;  ///< > 0: this entry stands for gen_count synthetic lines
  std::size_t gen_bytes = 0;
  /// A CRI partial record ("P"): no '\n' after `text`; the next entry continues the line.
  bool partial = false;
};

/// Append `bytes` to a run's log as containerd's CRI logger records them (16 KiB records).
void append_output(std::vector<LogEntry>& log, Clock::time_point t, const std::string& bytes);

/// One attempt (run) of one container.
struct ContainerRun {
  std::vector<LogEntry> log;
  bool terminated = false;
  int exit_code = 0;
  Clock::time_point started_at, finished_at;
};

/// The kubelet's record of one container of one pod (keyed by pod uid + container).
struct ContainerState {
  std::string ns, pod, container, image;
  ContainerScript script;
  std::vector<ContainerRun> runs;
  std::size_t next_line = 0;
  bool generated_done = false;
  Clock::time_point next_due;
  Clock::time_point lines_done_at;
  bool lines_done = false;
  bool restart_pending = false;
  Clock::time_point restart_at;
  int global_attempt = 0;  ///< index into script.restart_exit_codes (persists across pod recreation)
  std::optional<int> finish_code;
  bool removed = false;  ///< Kubelet::remove: followers get the runtime's NotFound error after the log
  nlohmann::json published;  ///< the status last published (FakeApiServerOptions::restart_status_lag holds it)
  bool running() const { return !runs.empty() && !runs.back().terminated; }
};

/// Writes the fake server's synthetic line `index` (exactly `bytes` chars, no '\n').
std::string synthetic_line(std::uint64_t index, std::size_t bytes);
void append_synthetic_line(std::string& out, std::uint64_t index, std::size_t bytes);

}  // namespace tfjob::test::fake

namespace tfjob::test {

struct Kubelet::Impl {
  FakeApiServer::Impl* server = nullptr;
  mutable std::mutex mu;
  std::condition_variable cv;
  struct Scripted {
    std::string glob, container;
    ContainerScript script;
  };
  std::vector<Scripted> scripts;
  std::optional<ContainerScript> default_job;
  std::map<std::string, fake::ContainerState> containers;  ///< "uid/container"
  std::map<std::string, int> attempts_by_name;                ///< "ns/pod/container" → attempts used
};

struct FakeApiServer::Impl {
  FakeApiServerOptions opts;
  FakePki pki;
  std::string admin_token, limited_token;
  std::map<std::string, fake::TokenInfo> tokens;
  fake::SchemaValidator tfjob_schema;

  std::unique_ptr<httplib::SSLServer> server;
  std::thread server_thread;
  int port = 0;
  std::atomic<bool> stopping{false};

  // ---- the store (all under mu) ----
  mutable std::mutex mu;
  std::condition_variable cv;  ///< notified on every change and on stop
  std::uint64_t rv = 1000;
  std::map<std::string, std::map<std::string, fake::json>> objects;  ///< rkey → "ns/name" → object
  std::deque<fake::Event> history;
  std::uint64_t compacted_rv = 1000;  ///< watches from rv < this get 410
  std::map<std::string, fake::json> applied;  ///< "rkey/ns/name/manager" → last applied config
  std::uint64_t ip_counter = 10;

  // ---- requests, faults, kubelet, proxy ----
  mutable std::mutex req_mu;
  std::vector<RecordedRequest> recorded;
  Faults::Impl faults_impl;
  Faults faults{&faults_impl};
  Kubelet::Impl kubelet_impl;
  Kubelet kubelet{&kubelet_impl};
  std::mutex proxy_mu;
  std::vector<std::pair<std::string, ProxyHandler>> proxies;

  std::thread controller_thread;

  // store operations; *_locked expect mu held
  static std::string okey(const std::string& ns, const std::string& name) { return ns + "/" + name; }
  fake::json* find_locked(const fake::ResourceInfo& ri, const std::string& ns, const std::string& name);
  fake::json create_locked(const fake::ResourceInfo& ri, fake::json obj);
  /// Replaces the stored object; keeps status unless status_write; keeps it when nothing changed.
  fake::json update_locked(const fake::ResourceInfo& ri, fake::json obj, bool status_write);
  fake::json remove_locked(const fake::ResourceInfo& ri, const std::string& ns, const std::string& name,
                           const std::string& propagation);
  void emit_locked(const std::string& type, const fake::ResourceInfo& ri, const fake::json& obj);
  std::vector<fake::json> list_locked(const fake::ResourceInfo& ri, const std::string& ns) const;

  void start();
  void stop();
  void seed();
  void controller_loop();
  // controllers (fake_controllers.cpp), called with mu held
  void reconcile_tfjobs_locked();
  void reconcile_deployments_locked();
  void reconcile_pods_locked();
  void reconcile_jobs_locked();
  void reconcile_volumes_locked();
  void reconcile_inferenceservices_locked();  ///< KServe's RawDeployment controller (opts.kserve)
  std::set<std::string> explained_claims;  ///< uids of claims whose Pending reason has an event
  std::string pod_ip_locked();
};

}  // namespace tfjob::test
