#pragma once
// Helpers shared by the kube_* tests: temp dirs, environment guards, stderr capture, and a
// tiny HTTP CONNECT proxy. Header-only so the support library needs no rebuild for them.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>

namespace tfjob::test::kube {

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/kube-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
  std::string write(const std::string& name, const std::string& text) const {
    std::string p = path + "/" + name;
    auto slash = p.rfind('/');
    std::system(("mkdir -p '" + p.substr(0, slash) + "'").c_str());
    std::ofstream(p) << text;
    return p;
  }
  std::string read(const std::string& name) const {
    std::ifstream f(path + "/" + name);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
};

/// What `f` threw (its what()), "" when it did not throw.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

struct EnvGuard {
  std::map<std::string, std::optional<std::string>> saved;
  void set(const std::string& k, const std::optional<std::string>& v) {
    if (!saved.count(k)) {
      const char* old = std::getenv(k.c_str());
      saved[k] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    if (v) ::setenv(k.c_str(), v->c_str(), 1);
    else ::unsetenv(k.c_str());
  }
  ~EnvGuard() {
    for (auto& [k, v] : saved) {
      if (v) ::setenv(k.c_str(), v->c_str(), 1);
      else ::unsetenv(k.c_str());
    }
  }
};

/// Captures everything written to fd 2 while alive.
class StderrCapture {
 public:
  StderrCapture() {
    std::cerr.flush();
    std::fflush(stderr);
    char tmpl[] = "/tmp/kube-stderr-XXXXXX";
    fd_ = ::mkstemp(tmpl);
    path_ = tmpl;
    saved_ = ::dup(2);
    ::dup2(fd_, 2);
  }
  std::string finish() {
    if (saved_ >= 0) {
      std::cerr.flush();
      std::fflush(stderr);
      ::dup2(saved_, 2);
      ::close(saved_);
      saved_ = -1;
    }
    std::ifstream f(path_);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  ~StderrCapture() {
    finish();
    ::close(fd_);
    ::unlink(path_.c_str());
  }

 private:
  int fd_ = -1, saved_ = -1;
  std::string path_;
};

/// A minimal HTTP CONNECT proxy on 127.0.0.1 (records the CONNECT lines it served).
class ConnectProxy {
 public:
  ConnectProxy() {
    lfd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(lfd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(lfd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(lfd_, 16);
    socklen_t len = sizeof a;
    ::getsockname(lfd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { loop(); });
  }
  ~ConnectProxy() {
    stop_ = true;
    thread_.join();
    for (auto& t : workers_) t.join();
    ::close(lfd_);
  }
  int port() const { return port_; }
  std::vector<std::string> lines() const {
    std::lock_guard<std::mutex> lk(mu_);
    return lines_;
  }

 private:
  void loop() {
    while (!stop_) {
      pollfd p{lfd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int c = ::accept(lfd_, nullptr, nullptr);
      if (c < 0) continue;
      workers_.emplace_back([this, c] { serve(c); });
    }
  }
  void serve(int c) {
    std::string head;
    char ch;
    while (head.find("\r\n\r\n") == std::string::npos && ::read(c, &ch, 1) == 1) head += ch;
    std::string line = head.substr(0, head.find("\r\n"));
    {
      std::lock_guard<std::mutex> lk(mu_);
      lines_.push_back(line);
    }
    std::istringstream ls(line);
    std::string method, target;
    ls >> method >> target;
    auto colon = target.rfind(':');
    int up = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(std::atoi(target.c_str() + colon + 1)));
    ::inet_pton(AF_INET, target.substr(0, colon) == "localhost" ? "127.0.0.1" : target.substr(0, colon).c_str(), &a.sin_addr);
    if (method != "CONNECT" || ::connect(up, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      const char* bad = "HTTP/1.1 502 Bad Gateway\r\n\r\n";
      ::write(c, bad, std::strlen(bad));
      ::close(c);
      ::close(up);
      return;
    }
    const char* ok = "HTTP/1.1 200 Connection established\r\n\r\n";
    ::write(c, ok, std::strlen(ok));
    pollfd fds[2] = {{c, POLLIN, 0}, {up, POLLIN, 0}};
    char buf[65536];
    while (!stop_) {
      if (::poll(fds, 2, 50) <= 0) continue;
      bool done = false;
      for (int i = 0; i < 2 && !done; ++i) {
        if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
          ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
          if (n <= 0) { done = true; break; }
          ::write(fds[1 - i].fd, buf, static_cast<size_t>(n));
        }
      }
      if (done) break;
    }
    ::close(c);
    ::close(up);
  }
  int lfd_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::vector<std::thread> workers_;
  mutable std::mutex mu_;
  std::vector<std::string> lines_;
};

}  // namespace tfjob::test::kube
