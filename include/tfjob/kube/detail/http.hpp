#pragma once
/// \file A small HTTP/1.1 client over POSIX sockets and OpenSSL, written for the API server's
/// needs that cpp-httplib 0.11 cannot meet together: an SNI/verification name different
/// from the dialled host (tls-server-name), HTTPS through an HTTP CONNECT proxy, chunked
/// streams delivered as they arrive with cancellation, and deadlines on every wait.
/// Internal: nothing here is part of the public API.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/detail/input.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/detail/tls.hpp>
#include <tfjob/kube/detail/util.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tfjob::kube::detail {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;
Deadline no_deadline();
Deadline deadline_after(std::chrono::milliseconds ms);

/// The connection could not be set up; the request was never sent, so repeating is safe.
class connect_failure : public transport_error {
 public:
  using transport_error::transport_error;
};
/// A deadline passed while waiting for the server.
class timeout_failure : public transport_error {
 public:
  using transport_error::transport_error;
};
/// A streamed body broke after delivery began (the caller resumes; never retried blindly).
class stream_broken : public transport_error {
 public:
  using transport_error::transport_error;
};
/// The server's answer broke a bound (size, header bytes): not repeated, reported as is.
class answer_refused : public transport_error {
 public:
  using transport_error::transport_error;
};
/// The caller's cancel flag was raised.
class cancelled : public transport_error {
 public:
  cancelled() : transport_error("cancelled") {}
};

bool is_ip_literal(const std::string& h);

/// SSL_CTX built once per Client from its TlsConfig-like inputs.
class TlsContext {
 public:
  TlsContext(const std::string& ca_pem, const std::string& ca_source, bool insecure,
             const std::string& client_cert_pem, const std::string& client_key_pem);

  /// Install a client certificate (chain) and key on a context or one connection.
  void set_client_cert(SSL_CTX* ctx, SSL* ssl, const std::string& cert_pem, const std::string& key_pem);

  SSL_CTX* get() const { return ctx_.get(); }
  bool insecure() const { return insecure_; }
  const std::string& ca_source() const { return ca_source_; }
  std::time_t client_not_after() const { return client_not_after_; }

 private:
  SSL_CTX_ptr ctx_;
  bool insecure_;
  std::string ca_source_;
  std::time_t client_not_after_ = 0;
};

/// Wait until fd is ready for `events`; throws on deadline or cancel.
void wait_fd(int fd, short events, Deadline dl, const std::atomic<bool>* cancel, const std::string& what);

/// One TCP (and optionally TLS) connection.
class Conn {
 public:
  Conn() = default;
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;
  ~Conn();

  /// Dial host:port with a deadline.
  static std::unique_ptr<Conn> dial(const std::string& host, int port, Deadline dl, const std::atomic<bool>* cancel);

  /// TLS handshake over the connected socket; `verify_name` is the SNI and the name checked.
  void start_tls(TlsContext& tls, const std::string& verify_name, Deadline dl,
                 const std::string& client_cert_pem = {}, const std::string& client_key_pem = {});

  /// Process records already received without consuming application data; throws when
  /// they hold a fatal alert.
  void check_alert(const std::string& prefix);

  /// Read up to n bytes; 0 means the peer closed the connection.
  size_t read(char* buf, size_t n, Deadline dl);

  void write_all(std::string_view data, Deadline dl);

  const std::string& peer() const { return peer_; }
  void set_cancel(const std::atomic<bool>* c) { cancel_ = c; }
  int fd() const { return fd_; }

 private:
  Text describe_tls_failure(const std::string& prefix, int ret);
  /// The verify callback: keeps the server's certificate so that a failure can say what it
  /// names (OpenSSL keeps no peer certificate for a handshake whose verification failed).
  static int keep_server_cert(int ok, X509_STORE_CTX* x);

  int fd_ = -1;
  SSL_ptr ssl_;
  X509_ptr server_cert_;  ///< set by keep_server_cert during the handshake
  TlsContext* tls_ = nullptr;
  std::string peer_, verify_name_;
  const std::atomic<bool>* cancel_ = nullptr;
};

/// Buffered reader for one response over a Conn.
class Reader {
 public:
  explicit Reader(Conn& c) : c_(c) {}
  /// Read more bytes into the buffer; false on EOF.
  bool fill(Deadline dl);
  /// One CRLF- (or LF-) terminated line without the terminator; throws at EOF.
  std::string line(Deadline dl, const char* what);
  size_t available() const { return buf_.size() - pos_; }
  std::string_view peek() const { return std::string_view(buf_).substr(pos_); }
  void consume(size_t n) { pos_ += n; }
  bool received_any() const { return any_; }
  /// Limit each wait for more data to `idle` (0 = only the deadline given).
  void set_idle(std::chrono::milliseconds idle) { idle_ = idle; }

 private:
  std::chrono::milliseconds idle_{0};
  Conn& c_;
  std::string buf_;
  size_t pos_ = 0;
  bool any_ = false;
};

/// Status line and headers (names lower-cased).
struct ResponseHead {
  int status = 0;
  std::string reason;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string header(const std::string& lname) const;
};

ResponseHead read_head(Reader& r, Deadline dl);

/// Deliver the body to `sink` as it arrives; returns false when the sink stopped early
/// (the connection is then unusable). Throws transport_error when the body is cut short.
bool read_body(Reader& r, const ResponseHead& h, bool head_request, Deadline dl,
               const std::function<bool(std::string_view)>& sink, bool& reusable);

/// Which proxy (if any) to use for a target, from HTTPS_PROXY/HTTP_PROXY/NO_PROXY (lower-case
/// variants too) as Go's httpproxy does: loopback and localhost are never proxied.
std::string proxy_from_env(const Url& target,
                           const std::function<const char*(const char*)>& env = [](const char* n) {
                             return std::getenv(n);
                           });

/// Open a connection to `target` (directly or through an HTTP proxy with CONNECT for https),
/// and complete the TLS handshake for https.
std::unique_ptr<Conn> open_connection(const Url& target, const std::string& proxy, TlsContext* tls,
                                      const std::string& tls_server_name, Deadline dl,
                                      const std::atomic<bool>* cancel,
                                      const std::string& client_cert_pem = {},
                                      const std::string& client_key_pem = {});

}  // namespace tfjob::kube::detail

#if TFJOB_SDK_DEFINE_KUBE
#include <tfjob/kube/detail/impl/http_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
