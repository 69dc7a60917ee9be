#pragma once
// A TCP ring between the chief and the workers of a TFJob, with the addresses TF_CONFIG
// gives: every rank listens on its own address, connects to its right neighbour and
// accepts its left one. Gradients are summed with a ring all-reduce (reduce-scatter, then
// all-gather); every wait is bounded, so a dead or wrong peer ends in an exception with a
// message, never a hang.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace hello {

using Clock = std::chrono::steady_clock;

/// A peer stopped answering or closed its connection: the ring can be formed again.
struct peer_lost : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// The cluster cannot work (bad address, peers never came up, mismatched TF_CONFIG).
struct ring_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Peer {
  std::string name;  ///< e.g. "worker:1" (TF_CONFIG type and index)
  std::string host;
  std::string port;
};

inline Peer split_address(const std::string& name, const std::string& addr) {
  auto colon = addr.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == addr.size())
    throw ring_error("TF_CONFIG address \"" + addr + "\" of " + name + " is not host:port");
  std::string host = addr.substr(0, colon), port = addr.substr(colon + 1);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  for (char c : port)
    if (c < '0' || c > '9') throw ring_error("TF_CONFIG address \"" + addr + "\" of " + name + " has a bad port");
  return {name, host, port};
}

inline std::string errno_text(int e = errno) { return std::strerror(e); }

class Ring {
 public:
  Ring(std::vector<Peer> peers, int rank, std::chrono::milliseconds connect_timeout,
       std::chrono::milliseconds peer_timeout)
      : peers_(std::move(peers)), rank_(rank), size_(int(peers_.size())),
        connect_timeout_(connect_timeout), peer_timeout_(peer_timeout) {}
  ~Ring() {
    close_peers();
    if (listen_fd_ >= 0) ::close(listen_fd_);
  }
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  /// Binds this rank's own address: a loopback/literal IPv4 host is bound as is (so
  /// 127.0.0.1 replicas never clash with other interfaces); a name (a cluster's
  /// `{job}-worker-0.{ns}.svc`) binds every interface, as TensorFlow's servers do.
  void listen() {
    if (size_ == 1) return;
    const Peer& me = peers_[rank_];
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(std::uint16_t(std::stoi(me.port)));
    if (::inet_pton(AF_INET, me.host.c_str(), &sa.sin_addr) != 1) sa.sin_addr.s_addr = htonl(INADDR_ANY);
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) throw ring_error("socket: " + errno_text());
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
      int e = errno;
      throw ring_error("cannot listen on " + me.host + ":" + me.port + " (my own address, " + me.name +
                       " in TF_CONFIG): " + errno_text(e) +
                       (e == EADDRNOTAVAIL ? " - that host is not an address of this machine" : "") +
                       (e == EADDRINUSE ? " - another process holds that port" : ""));
    }
    if (::listen(listen_fd_, 16) != 0) throw ring_error("listen: " + errno_text());
  }

  /// Connects to the right neighbour and accepts the left one, retrying until `timeout`.
  void form(std::chrono::milliseconds timeout) {
    if (size_ == 1) return;
    close_peers();
    auto deadline = Clock::now() + timeout;
    right_fd_ = connect_right(deadline);
    left_fd_ = accept_left(deadline);
  }

  void close_peers() {
    if (left_fd_ >= 0) ::close(left_fd_);
    if (right_fd_ >= 0) ::close(right_fd_);
    left_fd_ = right_fd_ = -1;
  }

  /// Sum (or another element-wise `op`) of `v` over every rank; every rank ends with the
  /// identical result (each chunk is reduced once, in ring order, then copied around).
  template <class T, class Op = std::plus<T>>
  void allreduce(std::vector<T>& v, Op op = Op{}) {
    if (size_ == 1) return;
    const size_t n = v.size();
    auto chunk_begin = [&](int c) { return n * size_t(c) / size_t(size_); };
    auto chunk_len = [&](int c) { return chunk_begin(c + 1) - chunk_begin(c); };
    auto mod = [&](int x) { return ((x % size_) + size_) % size_; };
    std::vector<T> tmp(n / size_ + 1);
    for (int k = 0; k < size_ - 1; ++k) {  // reduce-scatter
      int sc = mod(rank_ - k), rc = mod(rank_ - k - 1);
      exchange(v.data() + chunk_begin(sc), chunk_len(sc) * sizeof(T), tmp.data(), chunk_len(rc) * sizeof(T));
      T* dst = v.data() + chunk_begin(rc);
      for (size_t i = 0; i < chunk_len(rc); ++i) dst[i] = op(dst[i], tmp[i]);
    }
    for (int k = 0; k < size_ - 1; ++k) {  // all-gather
      int sc = mod(rank_ - k + 1), rc = mod(rank_ - k);
      exchange(v.data() + chunk_begin(sc), chunk_len(sc) * sizeof(T), v.data() + chunk_begin(rc),
               chunk_len(rc) * sizeof(T));
    }
  }

  /// Copies `root`'s `v` to every rank, passing it around the ring.
  template <class T>
  void broadcast(std::vector<T>& v, int root) {
    if (size_ == 1) return;
    int right = (rank_ + 1) % size_;
    if (rank_ != root) recv_all(left_fd_, v.data(), v.size() * sizeof(T));
    if (right != root) send_all(right_fd_, v.data(), v.size() * sizeof(T));
  }

  /// A clean goodbye: stop sending, then read the left neighbour until it is done too, so
  /// no byte is in flight when the process exits.
  void shutdown() {
    if (size_ == 1) return;
    if (right_fd_ >= 0) ::shutdown(right_fd_, SHUT_WR);
    if (left_fd_ >= 0) {
      char buf[256];
      auto deadline = Clock::now() + peer_timeout_;
      for (;;) {
        pollfd p{left_fd_, POLLIN, 0};
        int ms = remaining_ms(deadline);
        if (ms <= 0 || ::poll(&p, 1, ms) <= 0) break;
        ssize_t r = ::recv(left_fd_, buf, sizeof buf, 0);
        if (r <= 0) break;
      }
    }
    close_peers();
  }

 private:
  static int remaining_ms(Clock::time_point deadline) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return ms < 0 ? 0 : int(std::min<long long>(ms, 1 << 30));
  }

  struct Hello {
    std::uint32_t magic, rank, size;
  };
  static constexpr std::uint32_t kMagic = 0x48544a31;  // "HTJ1"

  int connect_right(Clock::time_point deadline) {
    const Peer& p = peers_[(rank_ + 1) % size_];
    std::string last = "no attempt";
    int attempts = 0;
    auto delay = std::chrono::milliseconds(50);
    for (;;) {
      ++attempts;
      addrinfo hints{};
      hints.ai_family = AF_INET;
      hints.ai_socktype = SOCK_STREAM;
      addrinfo* res = nullptr;
      int rc = ::getaddrinfo(p.host.c_str(), p.port.c_str(), &hints, &res);
      if (rc != 0) {
        last = std::string("cannot resolve host: ") + ::gai_strerror(rc);
      } else {
        int fd = ::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && ::connect(fd, res->ai_addr, res->ai_addrlen) == 0) {
          ::freeaddrinfo(res);
          int one = 1;
          ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          Hello h{htonl(kMagic), htonl(std::uint32_t(rank_)), htonl(std::uint32_t(size_))};
          try {
            send_all(fd, &h, sizeof h, deadline);
          } catch (const peer_lost&) {
            ::close(fd);
            continue;
          }
          return fd;
        }
        last = errno_text();
        if (fd >= 0) ::close(fd);
        ::freeaddrinfo(res);
      }
      if (Clock::now() + delay >= deadline)
        throw ring_error("cannot reach " + p.name + " at " + p.host + ":" + p.port + " after " +
                         std::to_string(attempts) + " attempts (" + last +
                         "); check TF_CONFIG and that every replica is running");
      std::this_thread::sleep_for(delay);
      delay = std::min(delay * 2, std::chrono::milliseconds(1000));
    }
  }

  int accept_left(Clock::time_point deadline) {
    const int left = (rank_ + size_ - 1) % size_;
    const Peer& p = peers_[left];
    for (;;) {
      pollfd pf{listen_fd_, POLLIN, 0};
      int ms = remaining_ms(deadline);
      int r = ms > 0 ? ::poll(&pf, 1, ms) : 0;
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0)
        throw ring_error(p.name + " (" + p.host + ":" + p.port + ") never connected to " + peers_[rank_].name +
                         "; check TF_CONFIG and that every replica is running");
      int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      Hello h{};
      try {
        recv_all(fd, &h, sizeof h, std::min(deadline, Clock::now() + std::chrono::seconds(5)));
      } catch (const peer_lost&) {
        ::close(fd);  // a stale connection from an earlier ring: the peer went away
        continue;
      }
      if (ntohl(h.magic) != kMagic) {
        ::close(fd);
        continue;  // not one of ours (a port scanner, a health check)
      }
      if (ntohl(h.size) != std::uint32_t(size_))
        throw ring_error("a peer sees " + std::to_string(ntohl(h.size)) + " ranks but my TF_CONFIG has " +
                         std::to_string(size_) + "; every replica must get the same cluster");
      if (ntohl(h.rank) != std::uint32_t(left)) {
        ::close(fd);
        continue;
      }
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      return fd;
    }
  }

  void send_all(int fd, const void* buf, size_t len, Clock::time_point deadline) {
    const char* p = static_cast<const char*>(buf);
    while (len > 0) {
      pollfd pf{fd, POLLOUT, 0};
      int ms = remaining_ms(deadline);
      int r = ms > 0 ? ::poll(&pf, 1, ms) : 0;
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) throw peer_lost("timed out sending to " + right_name());
      ssize_t s = ::send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (s < 0) {
        if (errno == EAGAIN || errno == EINTR) continue;
        throw peer_lost("sending to " + right_name() + ": " + errno_text());
      }
      p += s;
      len -= size_t(s);
    }
  }
  void send_all(int fd, const void* buf, size_t len) { send_all(fd, buf, len, Clock::now() + peer_timeout_); }

  void recv_all(int fd, void* buf, size_t len, Clock::time_point deadline) {
    char* p = static_cast<char*>(buf);
    while (len > 0) {
      pollfd pf{fd, POLLIN, 0};
      int ms = remaining_ms(deadline);
      int r = ms > 0 ? ::poll(&pf, 1, ms) : 0;
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) throw peer_lost("timed out waiting for " + left_name());
      ssize_t s = ::recv(fd, p, len, MSG_DONTWAIT);
      if (s == 0) throw peer_lost(left_name() + " closed the connection");
      if (s < 0) {
        if (errno == EAGAIN || errno == EINTR) continue;
        throw peer_lost("receiving from " + left_name() + ": " + errno_text());
      }
      p += s;
      len -= size_t(s);
    }
  }
  void recv_all(int fd, void* buf, size_t len) { recv_all(fd, buf, len, Clock::now() + peer_timeout_); }

  /// Sends to the right and receives from the left at once (no deadlock whatever the
  /// socket buffer sizes); the timeout restarts whenever bytes move.
  void exchange(const void* sbuf, size_t slen, void* rbuf, size_t rlen) {
    const char* sp = static_cast<const char*>(sbuf);
    char* rp = static_cast<char*>(rbuf);
    auto deadline = Clock::now() + peer_timeout_;
    while (slen > 0 || rlen > 0) {
      pollfd pf[2] = {{right_fd_, short(slen > 0 ? POLLOUT : 0), 0}, {left_fd_, short(rlen > 0 ? POLLIN : 0), 0}};
      int ms = remaining_ms(deadline);
      int r = ms > 0 ? ::poll(pf, 2, ms) : 0;
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0)
        throw peer_lost("no progress with " + right_name() + "/" + left_name() + " for " +
                        std::to_string(peer_timeout_.count() / 1000) + " s");
      if (slen > 0 && (pf[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
        ssize_t s = ::send(right_fd_, sp, slen, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (s < 0 && errno != EAGAIN && errno != EINTR) throw peer_lost("sending to " + right_name() + ": " + errno_text());
        if (s > 0) sp += s, slen -= size_t(s), deadline = Clock::now() + peer_timeout_;
      }
      if (rlen > 0 && (pf[1].revents & (POLLIN | POLLERR | POLLHUP))) {
        ssize_t s = ::recv(left_fd_, rp, rlen, MSG_DONTWAIT);
        if (s == 0) throw peer_lost(left_name() + " closed the connection");
        if (s < 0 && errno != EAGAIN && errno != EINTR) throw peer_lost("receiving from " + left_name() + ": " + errno_text());
        if (s > 0) rp += s, rlen -= size_t(s), deadline = Clock::now() + peer_timeout_;
      }
    }
  }

  std::string right_name() const { return peers_[(rank_ + 1) % size_].name; }
  std::string left_name() const { return peers_[(rank_ + size_ - 1) % size_].name; }

  std::vector<Peer> peers_;
  int rank_, size_;
  std::chrono::milliseconds connect_timeout_, peer_timeout_;
  int listen_fd_ = -1, left_fd_ = -1, right_fd_ = -1;
};

}  // namespace hello
