#pragma once
// What a command sent the fake API server: how many requests, and how many of them were
// watches (the long-lived kind). Tests of waits compare a short wait with a long one: a wait
// through watches sends as many requests however long it lasts; a polling one does not.
// Header-only so the support library needs no rebuild for it.
#include <catch2/catch.hpp>

#include "support/fake_apiserver.hpp"

#include <string>
#include <utility>

namespace tfjob::test {

struct RequestCount {
  int all = 0;
  int watches = 0;  ///< ?watch=true (or =1)
};

/// The requests the server recorded since its last clear_requests(); each one is named in
/// the test's report should a check after it fail.
inline RequestCount count_requests(const FakeApiServer& server) {
  RequestCount n;
  for (const auto& q : server.requests()) {
    UNSCOPED_INFO(q.method << " " << q.path << "?" << q.query);
    ++n.all;
    if (q.query.find("watch=true") != std::string::npos || q.query.find("watch=1") != std::string::npos) ++n.watches;
  }
  return n;
}

/// The requests of one wait run twice, `run(timeout)` with a short and a long timeout: a wait
/// through watches sends as many each time, with the same number of watches.
template <class Run>
std::pair<RequestCount, RequestCount> requests_of_short_and_long_wait(FakeApiServer& server, Run&& run,
                                                                       const std::string& short_timeout = "2s",
                                                                       const std::string& long_timeout = "5s") {
  server.clear_requests();
  run(short_timeout);
  const RequestCount short_wait = count_requests(server);
  server.clear_requests();
  run(long_timeout);
  return {short_wait, count_requests(server)};
}

}  // namespace tfjob::test
