#pragma once
/// \file The bodies of <tfjob/kube/local_proxy.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/local_proxy.hpp>, never this file.

namespace tfjob::kube {

TFJOB_INLINE LocalProxy::LocalProxy(Client c, std::string prefix, int port) : client_(std::move(c)), prefix_(std::move(prefix)) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw tfjob::error(std::string("local proxy: socket: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<std::uint16_t>(port));
  ::inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);  // loopback only
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || ::listen(fd_, 64) != 0) {
    const int e = errno;
    ::close(fd_);
    throw tfjob::error("local proxy: cannot listen on 127.0.0.1:" + std::to_string(port) + ": " + std::strerror(e) +
                       (e == EADDRINUSE ? " (pick another port)" : ""));
  }
  socklen_t len = sizeof sa;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&sa), &len);
  port_ = ntohs(sa.sin_port);
  for (int i = 0; i < max_active_connections; ++i) workers_.emplace_back([this] { worker(); });
  loop_ = std::thread([this] { accept_loop(); });
}

TFJOB_INLINE LocalProxy::~LocalProxy() { stop(); }

TFJOB_INLINE std::string LocalProxy::url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/"; }

TFJOB_INLINE int LocalProxy::requests() const { return requests_.load(); }

TFJOB_INLINE void LocalProxy::stop() {
  if (stopping_.exchange(true)) return;
  if (loop_.joinable()) loop_.join();
  { std::lock_guard<std::mutex> lk(mu_); }  // a worker between its check and its wait sees stopping_ now
  cv_.notify_all();
  for (auto& t : workers_)
    if (t.joinable()) t.join();
  for (int fd : waiting_) ::close(fd);
  waiting_.clear();
  ::close(fd_);
}

TFJOB_INLINE void LocalProxy::accept_loop() {
  while (!stopping_.load()) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    int cfd = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (cfd < 0) continue;
    std::unique_lock<std::mutex> lk(mu_);
    if (waiting_.size() >= max_waiting_connections) {
      lk.unlock();
      reply(cfd, 503, "Service Unavailable", "text/plain", "too many connections\n");
      ::close(cfd);
      continue;
    }
    waiting_.push_back(cfd);
    lk.unlock();
    cv_.notify_one();
  }
}

TFJOB_INLINE void LocalProxy::worker() {
  for (;;) {
    int cfd = -1;
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [this] { return stopping_.load() || !waiting_.empty(); });
      if (stopping_.load()) return;
      cfd = waiting_.front();
      waiting_.pop_front();
    }
    try {
      serve(cfd);
    } catch (const std::exception&) {
    }
    ::close(cfd);
  }
}

TFJOB_INLINE bool LocalProxy::host_accepted(const std::string& host) {
  // kubectl's extractHost: the Host without its port (net.SplitHostPort), then the regexps
  std::string h = host;
  if (!h.empty() && h.front() == '[') {
    const auto close = h.find(']');
    if (close == std::string::npos) return false;
    const std::string rest = h.substr(close + 1);
    if (!rest.empty() && (rest[0] != ':' || rest.size() == 1 || rest.find_first_not_of("0123456789", 1) != std::string::npos))
      return false;
    return h.substr(0, close + 1) == "[::1]";
  }
  if (const auto colon = h.find(':'); colon != std::string::npos) {
    const std::string port = h.substr(colon + 1);
    if (port.empty() || port.find_first_not_of("0123456789") != std::string::npos) return false;
    h = h.substr(0, colon);
  }
  return h == "localhost" || h == "127.0.0.1";
}

TFJOB_INLINE bool LocalProxy::write_all(int fd, const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<std::size_t>(n);
  }
  return true;
}

TFJOB_INLINE void LocalProxy::reply(int fd, int status, const std::string& reason, const std::string& type, const std::string& body) {
  write_all(fd, "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\nContent-Type: " + type +
                    "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
}

TFJOB_INLINE void LocalProxy::serve(int fd) {
  std::string in;
  char buf[8192];
  std::size_t head_end = std::string::npos;
  const auto deadline = std::chrono::steady_clock::now() + request_deadline;
  auto wait_readable = [&] {  // false: the deadline passed, or the proxy stops
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || stopping_.load()) return false;
      pollfd p{fd, POLLIN, 0};
      const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 200)));
      if (r > 0) return true;
      if (r < 0 && errno != EINTR) return false;
    }
  };
  while ((head_end = in.find("\r\n\r\n")) == std::string::npos) {
    if (in.size() > max_header_bytes) return reply(fd, 431, "Request Header Fields Too Large", "text/plain", "headers too large\n");
    if (!wait_readable()) return;
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return;
    in.append(buf, static_cast<std::size_t>(n));
  }
  std::string head = in.substr(0, head_end), body = in.substr(head_end + 4);
  auto eol = head.find("\r\n");
  std::string line = head.substr(0, eol);
  auto sp1 = line.find(' '), sp2 = line.rfind(' ');
  if (sp1 == std::string::npos || sp2 == sp1) return reply(fd, 400, "Bad Request", "text/plain", "malformed request line\n");
  Request r;
  r.method = line.substr(0, sp1);
  std::string target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  if (target.empty() || target[0] != '/') return reply(fd, 400, "Bad Request", "text/plain", "the target must be a path\n");
  std::size_t content_length = 0;
  std::string host;
  int hosts = 0;
  r.accept = "*/*";
  std::size_t pos = eol == std::string::npos ? head.size() : eol + 2;
  while (pos < head.size()) {
    auto e = head.find("\r\n", pos);
    if (e == std::string::npos) e = head.size();
    std::string h = head.substr(pos, e - pos);
    pos = e + 2;
    auto colon = h.find(':');
    if (colon == std::string::npos) continue;
    std::string k = detail::lower(h.substr(0, colon)), v = h.substr(colon + 1);
    while (!v.empty() && v.front() == ' ') v.erase(0, 1);
    if (k == "content-length") {
      if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos)
        return reply(fd, 400, "Bad Request", "text/plain", "bad Content-Length\n");
      content_length = std::stoul(v);
    } else if (k == "content-type") {
      r.content_type = v;
    } else if (k == "accept") {
      r.accept = v;
    } else if (k == "host") {
      host = v;
      while (!host.empty() && (host.back() == ' ' || host.back() == '\t')) host.pop_back();
      ++hosts;
    }
  }
  // kubectl proxy's filter: 403 for a Host outside localhost, 127.0.0.1, [::1] (DNS rebinding)
  if (hosts != 1 || !host_accepted(host))
    return reply(fd, 403, "Forbidden", "text/plain", "the Host of this request is not localhost, 127.0.0.1 or [::1]\n");
  // a dot segment would climb out of the proxied path on the API server
  for (std::size_t a = 0; a < target.size();) {
    std::size_t b = target.find_first_of("/?#", a + 1);
    std::string seg = detail::lower(target.substr(a + 1, (b == std::string::npos ? target.size() : b) - a - 1));
    for (std::size_t at; (at = seg.find("%2e")) != std::string::npos;) seg.replace(at, 3, ".");
    if (seg == "." || seg == "..") return reply(fd, 400, "Bad Request", "text/plain", "the path must not hold . or .. segments\n");
    if (b == std::string::npos || target[b] != '/') break;
    a = b;
  }
  if (content_length > max_body_bytes) return reply(fd, 413, "Payload Too Large", "text/plain", "body too large\n");
  while (body.size() < content_length) {
    if (!wait_readable()) return;
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return;
    body.append(buf, static_cast<std::size_t>(n));
  }
  body.resize(content_length);
  r.path = prefix_ + target;  // the query string travels inside the path, as given
  r.body = body;
  if (r.body.empty()) r.content_type.clear();
  r.idempotent = r.method == "GET" || r.method == "HEAD";
  r.what = r.method + " " + target + " through the local proxy";
  Client c = client_;  // each connection its own
  Response resp = c.send(r);
  ++requests_;
  std::string type = resp.header("content-type");
  reply(fd, resp.status, resp.reason.empty() ? "OK" : resp.reason, type.empty() ? "application/octet-stream" : type, resp.body);
}

}  // namespace tfjob::kube
