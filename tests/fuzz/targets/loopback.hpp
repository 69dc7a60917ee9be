#pragma once
/// \file A loopback HTTP server for the stream targets (watch, logs): the first request of
/// each run gets the fuzzer's bytes as a chunked 200 body (chunks of a size the input
/// chooses, so lines break at every place a network may break them); every later request
/// of the run gets a 403 Status, which ends the SDK's resume loop deterministically. The
/// server lives for the whole process (one per target), on 127.0.0.1 only.
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

namespace tfjob::fuzz {

class LoopbackServer {
 public:
  LoopbackServer() {
    auto handler = [this](const httplib::Request&, httplib::Response& res) {
      if (requests_++ > 0) {
        res.status = 403;
        res.set_content(R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,)"
                        R"("message":"fuzz run over"})",
                        "application/json");
        return;
      }
      res.status = 200;
      // The provider gets its own copy: a client that stops reading early leaves it writing
      // (into a closed socket) while the next run arms a new body.
      auto body = std::make_shared<const std::string>(body_);
      const std::size_t chunk = chunk_;
      res.set_chunked_content_provider("application/json", [body, chunk](std::size_t, httplib::DataSink& sink) {
        for (std::size_t at = 0; at < body->size(); at += chunk)
          if (!sink.write(body->data() + at, std::min(chunk, body->size() - at))) return false;
        sink.done();
        return true;
      });
    };
    server_.Get(".*", handler);
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ <= 0) std::abort();
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~LoopbackServer() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  /// The next run: the first request gets `body` in chunks of `chunk` bytes (at least 1).
  void arm(std::string body, std::size_t chunk) {
    body_ = std::move(body);
    chunk_ = std::max<std::size_t>(chunk, 1);
    requests_ = 0;
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int requests() const { return requests_; }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::string body_;
  std::size_t chunk_ = 1;
  std::atomic<int> requests_{0};
};

}  // namespace tfjob::fuzz
