#pragma once
/// \file Fuzz target: one kubeconfig file as client-go's loader reads it
/// (`kube::parse_kubeconfig`). Files it names are not read (that would be I/O on paths
/// the fuzzer made up); their resolution against the file's directory is exercised.
#include "common.hpp"

#include <tfjob/kube/config.hpp>

namespace tfjob::fuzz {

inline int kubeconfig(const std::uint8_t* data, std::size_t size) {
  expect_sdk_errors_only([&] {
    kube::Kubeconfig kc = kube::parse_kubeconfig(std::string(text_of(data, size)), "/fuzz/home/.kube/config");
    (void)kc.current_context;
  });
  return 0;
}

}  // namespace tfjob::fuzz
