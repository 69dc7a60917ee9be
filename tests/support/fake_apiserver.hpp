#pragma once
/// \file A test Kubernetes API server: loopback HTTPS with its own CA, client-certificate
/// and bearer-token auth, an in-memory store with resourceVersions, list/watch, server-side
/// apply and patches, Status errors shaped like kube-apiserver's, discovery and OpenAPI v3
/// good enough for the real kubectl, pod logs, a service proxy, TFJob validation against
/// the official CRD schema, and small controllers acting like the training operator, the
/// kubelet and the deployment controller. Fault knobs let tests break it on purpose.
/// See docs/fake-apiserver.md.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/fake_pki.hpp"

namespace tfjob::test {

/// How the server is started.
struct FakeApiServerOptions {
  int port = 0;                    ///< 0 = pick a free loopback port
  std::string host = "127.0.0.1";  ///< listen address (the serving cert covers 127.0.0.1 and localhost)
  bool controllers = true;         ///< run the operator, kubelet and deployment controllers
  std::string crd_file;            ///< TFJob CRD for validation; "" = tests/data/crds copy
  int nodes = 1;                   ///< seed this many Ready CPU nodes ("fake-node-<i>")
  int gpu_nodes = 0;               ///< and this many GPU nodes ("fake-gpu-node-<i>", nvidia.com/gpu)
  int gpus_per_node = 1;           ///< nvidia.com/gpu capacity of each GPU node
  std::chrono::milliseconds bookmark_interval{1000};  ///< BOOKMARK cadence when allowWatchBookmarks
  std::chrono::milliseconds controller_interval{25};  ///< controllers' reconcile tick
  std::chrono::milliseconds pod_start_delay{150};     ///< Pending → Running for each pod
  std::chrono::milliseconds default_job_pod_runtime{1500};  ///< unscripted TFJob pods exit 0 after this
  std::size_t watch_history = 200000;  ///< events kept for watch resume; older → 410 Expired
  bool log_requests = false;           ///< one line per request on stderr
  /// A default dynamic provisioner (StorageClass "standard"): a claim without a class (it
  /// gets "standard", as the DefaultStorageClass admission plugin gives it) is Bound to a new
  /// PersistentVolume at once. Off: claims stay Pending with the PV controller's reason, as
  /// on a cluster without a default StorageClass. Either way the scheduler keeps a pod whose
  /// claim is missing or unbound Pending, with its reason.
  bool provision_volumes = true;
  /// For this long after a pod's containers start, the kubelet reports phase Running but
  /// no containerStatuses yet (a status update that lags, as a busy kubelet's does).
  std::chrono::milliseconds container_status_lag{0};
  /// From when a container's run ends until this long after the kubelet restarted it, the
  /// API keeps showing the container as it was while that run ran: the real kubelet serves
  /// logs by its own status, which reaches the API later (its status manager syncs apart).
  std::chrono::milliseconds restart_status_lag{0};
  /// Serve KServe's serving.kserve.io/v1beta1 InferenceService, with a stand-in for its
  /// controller in RawDeployment mode (a Deployment and Service NAME-predictor whose TF
  /// Serving FakeTfServing answers; the status follows the Deployment). Off: the group is
  /// not served (404), as on a cluster without KServe.
  bool kserve = false;
};

/// One request as the server saw it (for assertions such as "the create was sent once").
struct RecordedRequest {
  std::string method;
  std::string path;        ///< decoded path, no query
  std::string query;       ///< raw query string ("" when none)
  std::string user;        ///< authenticated user name, "" when refused
  std::string user_agent;
  std::string content_type;
  std::string accept;
  int status = 0;          ///< the status sent (or that the stream began with)
  /// When the server began handling it and when its answer was made (a stream's: when it
  /// began): requests whose spans overlap were in flight at once.
  std::chrono::steady_clock::time_point received, answered;
};

/// Fault knobs. Each arms a rule consumed by the next `count` matching requests; `path`
/// is a substring of the request path ("" = any path). Rules fire in the order armed.
class Faults {
 public:
  /// Answer with `status` (a kube-apiserver shaped Status; reason from the code).
  void fail_next(int status, int count = 1, const std::string& path = "", const std::string& method = "");
  /// 429 TooManyRequests with `Retry-After: seconds`.
  void throttle_next(int retry_after_seconds, int count = 1, const std::string& path = "");
  /// 503 ServiceUnavailable.
  void unavailable_next(int count = 1, const std::string& path = "");
  /// 410 Gone/Expired: a list answers HTTP 410; a watch answers 200 and then an ERROR event
  /// carrying the 410 Status (as a real apiserver's watch cache does).
  void gone_next(int count = 1, const std::string& path = "");
  /// The next `count` watches end after `events` events (not counting BOOKMARKs):
  /// `abrupt` closes the connection without the final chunk, else the stream ends cleanly.
  void drop_watch_after(int events, int count = 1, bool abrupt = true);
  /// The next `count` streamed responses (watch, logs) and proxied answers (services/pods
  /// proxy) are cut (connection closed without the terminating chunk) after `bytes` bytes
  /// of body.
  void cut_body_after(std::size_t bytes, int count = 1, const std::string& path = "");
  /// Sleep `delay` before answering the next `count` matching requests (stall past a timeout).
  void stall_next(std::chrono::milliseconds delay, int count = 1, const std::string& path = "");
  /// A bad server on purpose: answer the next `count` matching requests with exactly
  /// `body` (a deep JSON answer, one of the wrong shape, invalid UTF-8, a watch that ends at
  /// once with an empty 200 when `body` is ""). `query` is a substring the raw query must
  /// hold ("watch=true" singles out watches of a list path).
  void answer_next(int status, const std::string& body, int count = 1, const std::string& path = "",
                   const std::string& query = "", const std::string& method = "GET",
                   const std::string& content_type = "application/json");
  /// Forget the watch history: a watch from any resourceVersion before now gets 410.
  void compact_history();
  /// Disarm everything armed and not yet consumed.
  void clear();
  /// How many times a rule has fired since start.
  std::size_t fired() const;

  struct Impl;
  explicit Faults(Impl* impl) : impl_(impl) {}

 private:
  Impl* impl_;
};

/// What one container does when it runs (the fake kubelet follows it).
struct ContainerScript {
  /// Written first, byte for byte, as a process writes to stdout: '\r', invalid UTF-8 and
  /// an unterminated last line kept (see Kubelet::write).
  std::string output;
  std::vector<std::string> lines;           ///< printed at start, one log line each
  std::uint64_t generated_lines = 0;        ///< then this many synthetic lines, made on the fly
  std::size_t generated_line_bytes = 100;   ///< length of each synthetic line (without '\n')
  std::chrono::milliseconds line_interval{0};  ///< pause between lines (0 = all at once)
  std::optional<int> exit_code = 0;         ///< exit with this code after the lines; nullopt = run until finish()
  std::chrono::milliseconds run_for{0};     ///< extra time running after the last line before exiting
  std::vector<int> restart_exit_codes;      ///< exit codes of earlier attempts (each one crash → restart)
  /// The terminated reason of a non-zero exit (the kubelet's "Error" by default; "OOMKilled"
  /// when the kernel's OOM killer ended it).
  std::string exit_reason = "Error";
};

/// The fake kubelet: pod phases, container statuses and scriptable log streams.
class Kubelet {
 public:
  /// Script containers of pods whose name matches `pod_glob` (`*`, `?`); `container` ""
  /// = every container. The latest matching script wins. Set before the pod starts.
  void script(const std::string& pod_glob, const ContainerScript& script, const std::string& container = "");
  /// The script used for TFJob pods with no matching script (default: a few lines, exit 0
  /// after FakeApiServerOptions::default_job_pod_runtime).
  void set_default_job_script(const ContainerScript& script);
  /// Append lines to a running container's log now (followers see them at once).
  void append_log(const std::string& ns, const std::string& pod, const std::string& container,
                  const std::vector<std::string>& lines);
  /// Write `bytes` to a running container's stdout as containerd's CRI logger records it:
  /// split at '\n', lines over 16 KiB in 16 KiB partial records, an unterminated tail a
  /// partial record the next write continues. The log endpoint then answers as the kubelet
  /// does: exactly these bytes, a timestamp only at the start of each line when asked.
  void write(const std::string& ns, const std::string& pod, const std::string& container, const std::string& bytes);
  /// Terminate a running container with `exit_code` (its followed log stream ends).
  void finish(const std::string& ns, const std::string& pod, const std::string& container, int exit_code = 0);
  /// The kubelet kills and removes a running container (its pod was deleted): it ends with
  /// `exit_code`, and a followed log stream ends as the real kubelet's does then, with the
  /// runtime's NotFound error written after the log's bytes (kuberuntime waitLogs; server.go
  /// getContainerLogs WriteError after the 200).
  void remove(const std::string& ns, const std::string& pod, const std::string& container, int exit_code = 137);
  /// The log text of a container attempt as stored (previous = the attempt before).
  std::string log(const std::string& ns, const std::string& pod, const std::string& container,
                  bool previous = false) const;

  struct Impl;
  explicit Kubelet(Impl* impl) : impl_(impl) {}

 private:
  Impl* impl_;
};

/// Handler for /api/v1/namespaces/NS/services/NAME:PORT/proxy/REST (e.g. a simulated TF
/// Serving REST API) and /api/v1/namespaces/NS/pods/NAME:PORT/proxy/REST (e.g. an exporter
/// pod's metrics). Gets method, the path after `proxy` (starting with '/'), the query
/// and body; returns status, content type and body.
struct ProxyRequest {
  std::string method, ns, service, port, path, query, body, content_type;
  std::string resource = "services";  ///< "services" or "pods" (`service` is then the pod's name)
};
struct ProxyResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};
using ProxyHandler = std::function<ProxyResponse(const ProxyRequest&)>;

/// The server. Starts listening in the constructor; stops in the destructor.
class FakeApiServer {
 public:
  explicit FakeApiServer(FakeApiServerOptions options = {});
  ~FakeApiServer();
  FakeApiServer(const FakeApiServer&) = delete;
  FakeApiServer& operator=(const FakeApiServer&) = delete;

  std::string url() const;  ///< "https://127.0.0.1:<port>"
  int port() const;

  /// Writes a kubeconfig: contexts "fake-cert" (current; admin client certificate),
  /// "fake-token" (admin bearer token) and "fake-limited" (token limited to "team-a");
  /// cluster "fake" with the CA inline; default namespace "default".
  void write_kubeconfig(const std::string& path) const;
  std::string kubeconfig_yaml() const;  ///< the same text

  const FakePki& pki() const;
  std::string ca_pem() const;
  std::string client_cert_pem() const;
  std::string client_key_pem() const;
  std::string admin_token() const;
  std::string limited_token() const;  ///< user "team-a-dev": only namespace "team-a"
  /// Accept another bearer token as `user`; `namespaces` empty = everything (admin).
  void add_token(const std::string& token, const std::string& user,
                 const std::vector<std::string>& namespaces = {});
  /// Stop accepting `token` (it gets 401 from now on), e.g. to expire an exec credential.
  void remove_token(const std::string& token);

  /// Create or replace an object as-is (apiVersion, kind, metadata.name required; no
  /// validation). Sets uid/resourceVersion/creationTimestamp; returns what is stored.
  nlohmann::json put_object(const nlohmann::json& object);
  /// `resource` is a plural, optionally with its group ("tfjobs", "tfjobs.kubeflow.org").
  std::optional<nlohmann::json> get_object(const std::string& resource, const std::string& ns,
                                           const std::string& name) const;
  bool delete_object(const std::string& resource, const std::string& ns, const std::string& name);
  /// A graceful deletion in progress (or one a finalizer holds): sets deletionTimestamp and
  /// deletionGracePeriodSeconds and keeps the object, as kube-apiserver does until the
  /// kubelet confirms the pod stopped. False when there is no such object.
  bool mark_deleting(const std::string& resource, const std::string& ns, const std::string& name,
                     int grace_period_seconds = 30);
  std::vector<nlohmann::json> list_objects(const std::string& resource, const std::string& ns = "") const;
  std::uint64_t resource_version() const;  ///< the current global resourceVersion
  /// Polls `pred` (every 10 ms) until it is true or `timeout` passes; returns the last value.
  bool wait_for(const std::function<bool()>& pred,
                std::chrono::milliseconds timeout = std::chrono::seconds(10)) const;

  Faults& faults();
  Kubelet& kubelet();
  /// Serve /api/v1/namespaces/*/services/NAME:PORT/proxy/... for services (and
  /// .../pods/NAME:PORT/proxy/... for pods) named like `service_glob`.
  void set_proxy_handler(const std::string& service_glob, ProxyHandler handler);

  std::vector<RecordedRequest> requests() const;
  void clear_requests();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace tfjob::test
