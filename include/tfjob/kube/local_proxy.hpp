#pragma once
/// \file A local HTTP proxy to one path of the API server, as `kubectl proxy` is
/// (k8s.io/kubectl/pkg/proxy): it listens on 127.0.0.1 only and sends every request it gets
/// to PREFIX + its path on the API server through the client (its TLS and credentials), so a
/// browser reaches e.g. a service's proxy at http://127.0.0.1:PORT/. HTTP/1.1, one request
/// per connection (Connection: close), bounded headers and bodies. As `kubectl proxy`'s
/// filter (k8s.io/kubectl/pkg/proxy/proxy_server.go, DefaultHostAcceptRE
/// `^localhost$,^127\.0\.0\.1$,^\[::1\]$` on the Host without its port) it answers 403 to a
/// request whose Host names anything else: a web page that rebinds its own name to 127.0.0.1
/// cannot use the user's credentials through it. Connections are served by a fixed pool of
/// threads; a request must arrive whole within a deadline.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>
#include <tfjob/kube/client.hpp>

#include <arpa/inet.h>   // inet_pton
#include <netinet/in.h>  // sockaddr_in
#include <poll.h>        // poll: the accept loop sees stop()
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tfjob::kube {

class LocalProxy {
 public:
  static constexpr std::size_t max_header_bytes = 64 * 1024;
  static constexpr std::size_t max_body_bytes = 16u << 20;
  /// Connections served at once (the pool's threads); a browser opens six per host.
  static constexpr int max_active_connections = 16;
  /// Connections accepted and waiting for a thread; beyond that a new one is answered 503.
  static constexpr std::size_t max_waiting_connections = 64;
  /// How long a request may take to arrive whole (headers and body).
  static constexpr std::chrono::seconds request_deadline{30};

  /// Whether `host` (a Host header) names this machine's loopback as kubectl proxy's default
  /// filter accepts it: localhost, 127.0.0.1 or [::1], with or without a port.
  static bool host_accepted(const std::string& host);

  /// Listens on 127.0.0.1:`port` (0 = a free port) and forwards to `prefix` (no trailing
  /// '/'), e.g. /api/v1/namespaces/NS/services/NAME:6006/proxy. Throws tfjob::error when
  /// the port cannot be bound.
  LocalProxy(Client c, std::string prefix, int port = 0);
  LocalProxy(const LocalProxy&) = delete;
  LocalProxy& operator=(const LocalProxy&) = delete;
  ~LocalProxy();

  int port() const { return port_; }
  /// http://127.0.0.1:PORT/
  std::string url() const;
  /// Requests answered so far.
  int requests() const;

  /// Stops listening and waits for the connections in flight.
  void stop();

 private:
  void accept_loop();
  void worker();

  static bool write_all(int fd, const std::string& s);

  static void reply(int fd, int status, const std::string& reason, const std::string& type, const std::string& body);

  void serve(int fd);

  Client client_;
  std::string prefix_;
  int fd_ = -1, port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> requests_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<int> waiting_;  ///< accepted connections no thread has taken yet
  std::vector<std::thread> workers_;
  std::thread loop_;
};

}  // namespace tfjob::kube

#if TFJOB_SDK_DEFINE_KUBE
#include <tfjob/kube/impl/local_proxy_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
