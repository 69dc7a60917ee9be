#pragma once
/// \file One scenario suite run against both the fake API server and the real kube-apiserver
/// 1.20 (issue 4: "the fake and the real server agree"). Every scenario sends requests
/// through the SDK's request builder and client and records only what a client may rely on,
/// in a normalised form (HTTP status, Status reason, details kind/group/name, causes' fields,
/// which metadata fields the server set, list paging, watch event types, log text with the
/// timestamps replaced). Both runners compare the record with tests/data/parity/expected.json,
/// so a divergence fails one of them. See docs/parity.md.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <tfjob/kube/client.hpp>

namespace tfjob::test {

/// What a server under test offers the scenarios.
struct ParityTarget {
  std::string name;                                ///< "fake" or "real" (for messages)
  std::function<tfjob::kube::Client()> admin;      ///< full rights
  std::function<tfjob::kube::Client()> limited;    ///< may use `limited_ns` only
  std::string limited_ns = "team-a";
  std::string forbidden_ns = "team-b";             ///< the limited user gets 403 here
  std::string suffix;                              ///< appended to namespace names (unique per run)
  /// Makes pod `pod` in `ns` Running with container `container` whose log holds `lines`
  /// (one write each, in order); returns the client that reads its logs.
  std::function<tfjob::kube::Client(const std::string& ns, const std::string& pod, const std::string& container,
                                    const std::vector<std::string>& lines)>
      pod_with_log;
};

/// Runs every scenario; returns {scenario name: normalised record}.
nlohmann::json run_parity_scenarios(const ParityTarget& target);

/// The checked-in expectation (tests/data/parity/expected.json).
nlohmann::json parity_expected();

/// Known gaps of the fake, as prefixes of record keys the fake runner does not compare
/// (each documented in docs/parity.md). None at present: managedFields are compared too.
inline const std::vector<std::string> kParityFakeGaps = {};

/// Lines describing where `got` differs from `expected` (empty when they agree); keys that
/// start with one of `skip` are left out.
std::vector<std::string> parity_diff(const nlohmann::json& expected, const nlohmann::json& got,
                                     const std::vector<std::string>& skip = {});

}  // namespace tfjob::test
