#pragma once
/// \file Fuzz target: a watch stream as an API server sends it, through the SDK's watcher
/// (`kube::Watcher<TFJob>`: the line splitter, event decoding, ERROR/410 handling, the
/// object decoder), over loopback HTTP. Byte 0 chooses the chunk size; the rest is the body.
#include "common.hpp"
#include "loopback.hpp"

#include <tfjob/kube/tfjob_resource.hpp>
#include <tfjob/api/types.hpp>
#include <tfjob/kube/api.hpp>

namespace tfjob::fuzz {

inline int watch(const std::uint8_t* data, std::size_t size) {
  static LoopbackServer server;
  static kube::Client client = [] {
    kube::RestConfig cfg;
    cfg.server = server.url();
    cfg.use_env_proxy = false;
    cfg.timeout = std::chrono::seconds(20);
    return kube::Client(cfg);
  }();
  if (size == 0) return 0;
  server.arm(std::string(text_of(data + 1, size - 1)), std::size_t(data[0]) + 1);
  expect_sdk_errors_only([&] {
    kube::WatchParams p;
    p.resource_version = "1";  // start at the stream (a 410 relists: that request gets the 403)
    p.deliver_bookmarks = true;
    auto w = kube::Api<TFJob>(client, "default").watcher(p);
    w.max_failures = 0;  // a broken stream ends the run instead of sleeping before a retry
    w.max_outage = std::chrono::milliseconds(0);
    w.run([](const kube::WatchEvent<TFJob>& ev) {
      (void)ev.object.metadata.name.size();
      return true;
    });
  });
  return 0;
}

}  // namespace tfjob::fuzz
