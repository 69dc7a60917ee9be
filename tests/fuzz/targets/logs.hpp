#pragma once
/// \file Fuzz target: a pod's log stream as the kubelet sends it (`timestamps=true`),
/// through the SDK's log streamer (`kube::LogStreamer`: the line splitter, the RFC 3339
/// prefix, resume bookkeeping), over loopback HTTP. Byte 0 chooses the chunk size, byte 1
/// whether the caller keeps the timestamps; the rest is the body.
#include "common.hpp"
#include "loopback.hpp"

#include <tfjob/kube/logs.hpp>

namespace tfjob::fuzz {

inline int logs(const std::uint8_t* data, std::size_t size) {
  static LoopbackServer server;
  static kube::Client client = [] {
    kube::RestConfig cfg;
    cfg.server = server.url();
    cfg.use_env_proxy = false;
    cfg.timeout = std::chrono::seconds(20);
    return kube::Client(cfg);
  }();
  if (size < 2) return 0;
  server.arm(std::string(text_of(data + 2, size - 2)), std::size_t(data[0]) + 1);
  expect_sdk_errors_only([&] {
    kube::LogParams p;
    p.follow = true;
    p.timestamps = data[1] & 1;
    kube::LogStreamer s(client, "default", "fuzz-pod", p);
    s.max_failures = 0;  // a broken stream ends the run instead of sleeping before a resume
    s.run([](std::string_view line) { return line.size() < (std::size_t(1) << 30); });
  });
  return 0;
}

}  // namespace tfjob::fuzz
