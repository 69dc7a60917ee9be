#pragma once
/// \file `Client`: sends `Request`s to one API server with the credentials of a RestConfig
/// (client-go rest.RESTClient + transport). Retries follow client-go rest/request.go: a 429
/// is retried after Retry-After for any verb (the server did not process it); 5xx answers
/// and broken connections are retried with backoff only for requests that are safe to
/// repeat; a connection that could not even be opened is retried for any verb. `-v=6`+
/// logs each request, credentials redacted, to the application's `RestConfig::log`.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/input.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/config.hpp>
#include <tfjob/kube/detail/http.hpp>
#include <tfjob/kube/exec.hpp>
#include <tfjob/kube/request.hpp>
#include <tfjob/kube/response.hpp>
#include <tfjob/kube/side_task.hpp>  // sleep_for: retries' pauses end on cancel

#include <nlohmann/json.hpp>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tfjob::kube {

/// Options for a streamed response (watch, follow logs).
struct StreamOptions {
  const std::atomic<bool>* cancel = nullptr;  ///< raise to stop the stream promptly
  /// Fail (so the caller can resume) when no byte arrives for this long; 0 = never.
  std::chrono::milliseconds idle_timeout{0};
  /// The stream ends (as if cancelled) when this passes; max() = never. kubectl's
  /// --request-timeout bounds a whole watch this way (http.Client.Timeout).
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

/// How retries are paced (client-go defaults: up to 10 Retry-After retries).
struct RetryPolicy {
  int max_retry_after = 10;  ///< 429 (any verb) / 5xx with Retry-After (safe verbs)
  int max_failures = 4;      ///< 5xx or broken connection (safe verbs), unopened connection (any)
  std::chrono::milliseconds base_backoff{200};
  std::chrono::milliseconds max_backoff{5000};
  std::chrono::seconds max_retry_after_wait{60};
};

/// A connection to one API server; cheap to copy (copies share connections and caches).
class Client {
 public:
  explicit Client(RestConfig cfg);

  /// Load the default configuration (KUBECONFIG, ~/.kube/config, in-cluster).
  static Client from_default();

  /// The namespace requests use when none is given (flag, context, then "default").
  const std::string& namespace_() const { return s_->cfg.namespace_; }
  const RestConfig& config() const { return s_->cfg; }
  RetryPolicy& retry_policy() { return s_->retry; }
  /// How many times the exec credential plugin ran (0 without one).
  int exec_runs() const;
  /// HTTP requests this client and its copies have sent so far (each attempt of a retried
  /// request, each watch or log stream opened): what the server saw, for -v logs and tests.
  std::uint64_t requests_sent() const { return s_->sent.load(); }

  /// Keep discovery answers (api_resources) for the life of this client and its copies,
  /// as kubectl's cached discovery client keeps them for a run: a command that checks the
  /// same groups for many objects (submit -f of many jobs) asks once. Off by default.
  void cache_discovery(bool on = true);
  /// The discovery answer for `path` (nullopt: not served): `fetch()`, or with discovery
  /// kept, what it gave before; callers of the same path at once wait for one fetch.
  std::optional<nlohmann::json> discovery(const std::string& path,
                                          const std::function<std::optional<nlohmann::json>()>& fetch);

  /// Send a request and return the final response whatever its status (after retries).
  /// Throws transport_error when the server cannot be reached or the deadline passes, and
  /// auth_error when credentials cannot be obtained.
  Response send(const Request& req);

  /// Send and return the body of a 2xx response; any other status throws api_error with the
  /// server's Status (auth_error for 401).
  std::string request_text(const Request& req);

  /// Like request_text, decoded as JSON.
  /// The answer's nesting is bounded (limits::max_depth); a 2xx answer whose body is not
  /// JSON, or too deep, throws decode_error saying so, where, and how the body begins.
  /// What `omit` names is left out as the body is read (never built).
  nlohmann::json request_json(const Request& req, const tfjob::detail::JsonOmit* omit = nullptr);

  /// Like request_text, with a 2xx body handed to `body` block by block as it is read (its
  /// `start` called at each attempt, so a body cut and asked again begins afresh), within the
  /// bound on one answer; never held whole. Any other status throws as request_text does.
  /// Returns the answer's status. Raising `cancel` ends it (a retry's pause included; a
  /// watch's list stops when its owner does): it throws transport_error ("cancelled").
  int request_into(const Request& req, BodyConsumer& body, const std::atomic<bool>* cancel = nullptr);

  /// The JSON of a 2xx body (empty = `{}`), without what `omit` names; decode_error when it is not JSON.
  static nlohmann::json decode_json(const Request& req, int http_status, const std::string& body,
                                    const tfjob::detail::JsonOmit* omit = nullptr);

  /// Why this client sends no credentials ("" when it sends those it has): client-go's
  /// clientcmd sends none to a server that is not https.
  const std::string& credentials_withheld() const { return s_->withheld; }

  /// Stream a 2xx response body to `on_data` as it arrives. Returns true when the body ended
  /// normally, false when on_data returned false or `cancel` was raised. Failures before the
  /// first byte are retried like send(); a non-2xx answer throws api_error; a stream that
  /// breaks afterwards throws transport_error (watch and logs resume from there).
  bool stream(const Request& req, const std::function<bool(std::string_view)>& on_data,
              const StreamOptions& opts = {});

  [[noreturn]] void throw_for(const Request& req, int code, const std::string& reason, const std::string& body,
                              const std::string& retry_after = {}) const;

 private:
  struct Creds {
    std::string bearer;
    std::string cert_pem, key_pem;  ///< from an exec plugin
    std::optional<ExecCredential> exec;
  };

  struct State {
    explicit State(RestConfig c);
    RestConfig cfg;
    detail::Url server;
    std::unique_ptr<detail::TlsContext> tls;
    std::unique_ptr<ExecCredentialProvider> exec;
    std::string proxy;
    std::string withheld;  ///< why credentials are not sent, "" when they are
    RetryPolicy retry;
    std::atomic<std::uint64_t> sent{0};
    std::mutex pool_mu;
    std::mutex discovery_mu;  ///< held while a kept answer is fetched
    bool discovery_cached = false;
    std::map<std::string, std::optional<nlohmann::json>> discovery;  ///< by path, when discovery_cached
    struct Pooled {
      std::unique_ptr<detail::Conn> conn;
      std::string cert;  ///< exec client certificate it was opened with
    };
    std::vector<Pooled> pool;
  };

  Creds credentials();

  std::string build_head(const Request& req, const Creds& cr, bool via_http_proxy, bool redact) const;

  void log(const std::string& s) const;

  std::unique_ptr<detail::Conn> take_pooled(const Creds& cr);
  void give_back(std::unique_ptr<detail::Conn> c, const Creds& cr);

  /// One attempt. Returns the response head (+ body in `out` when buffered). Throws
  /// connect_failure before anything was sent, transport_error afterwards.
  struct Attempt {
    detail::ResponseHead head;
    bool complete = true;  ///< stream: body ended normally
    std::string error_body;
  };

  Attempt attempt(const Request& req, const Creds& cr, detail::Deadline dl, const std::function<bool(std::string_view)>* sink,
                  const StreamOptions& opts, Response* out);

  /// A fresh connection for an attempt (its connection phase bounded even without a deadline).
  std::unique_ptr<detail::Conn> open_for(const Creds& cr, detail::Deadline dl, bool stream, const StreamOptions& opts);

  /// Send the request on `conn` and read the answer (attempt() without the pooled retry); a
  /// reusable buffered connection goes back to the pool.
  Attempt exchange(const Request& req, const Creds& cr, detail::Deadline dl, const std::function<bool(std::string_view)>* sink,
                   const StreamOptions& opts, Response* out, std::unique_ptr<detail::Conn>& conn, bool pooled);

  /// Deliver a 2xx stream's body to `sink`; returns whether it ended normally.
  static bool read_stream_body(detail::Reader& rd, const detail::ResponseHead& head, const Request& req,
                               const std::function<bool(std::string_view)>& sink, const StreamOptions& opts);

  /// Why an answer larger than `cap` is refused.
  static std::string too_large(size_t cap);

  /// Read a body whole, within the bound on one answer (1 MiB for an error answer to a stream).
  std::string read_buffered_body(detail::Reader& rd, const detail::ResponseHead& head, const Request& req,
                                 detail::Deadline dl, bool stream, bool& reusable) const;

  static std::chrono::milliseconds backoff(const RetryPolicy& p, int n);

  /// The request as sent: a write that names no field manager gets the client's.
  Request with_field_manager(const Request& req) const;

  bool perform(const Request& req0, const std::function<bool(std::string_view)>* sink, const StreamOptions& opts,
               Response* out);

  /// Where one perform() call stands: its deadline and the retries it used; for the current
  /// attempt, when it began, its URL, and how long and why it waits before the next.
  struct Tries {
    detail::Deadline dl;
    int retry_after_count = 0, failure_count = 0;
    bool refreshed_after_401 = false;
    std::chrono::steady_clock::time_point t0;
    std::string url;
    std::chrono::milliseconds wait{0};
    std::string why;
    std::string why_reason;  ///< the reason of the last failure to connect ("" for another)
  };

  /// What perform() does after one of its steps.
  enum class Next {
    answered,     ///< the attempt has an answer to judge
    retry_now,    ///< repeat at once
    retry_later,  ///< repeat after Tries::wait
    stop_false,   ///< return false (cancelled, the caller's end, a stream stopped early)
    stop_true,    ///< return true
  };

  /// One attempt into `a`; a failure is thrown as the caller sees it, or marked for a retry.
  Next run_attempt(const Request& req, const Creds& cr, Tries& t, const std::function<bool(std::string_view)>* sink,
                   const StreamOptions& opts, Response* out, Attempt& a);

  /// An answer: refresh credentials once after a 401, retry a 429 or 5xx, or finish.
  Next judge_answer(const Request& req, const Creds& cr, Tries& t, const Attempt& a, bool stream, Response* out);

  /// Before a retry: stop when a deadline would pass during the wait, else log and wait.
  Next pause_before_retry(const Request& req, const Tries& t, bool stream, const StreamOptions& opts, Response* out);

  /// The start of a body for a message: control bytes and invalid UTF-8 shown as '?'.
  static std::string printable_prefix(const std::string& body, std::size_t n);

  static bool is_tls_verification(const std::string& m);
  /// The error of a connection that could not be opened: ConnectionRefused or
  /// ServerUnreachable, with the server's host[:port] as its subject.
  transport_error unreachable(const Request& req, const Text& what, bool refused) const;

  static std::string ms_since(std::chrono::steady_clock::time_point t0);

  std::shared_ptr<State> s_;
};

}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
#include <tfjob/kube/impl/client_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
