#pragma once
/// \file Fuzz target: what serve's export check reads from a claim anyone may write to: the
/// check pod's log (serving/export_check.hpp parse_export_check_log, judge_export) and the
/// first bytes of a saved_model.pb (serving/saved_model.hpp saved_model_info, a protobuf
/// wire reader). The input is read both ways; counts stay within the parser's bounds.
#include "common.hpp"

#include <tfjob/serving/export_check.hpp>
#include <tfjob/serving/saved_model.hpp>

#include <stdexcept>

namespace tfjob::fuzz {

inline int export_check(const std::uint8_t* data, std::size_t size) {
  const std::string text(text_of(data, size));
  expect_sdk_errors_only([&] {
    auto info = serving::saved_model_info(text);
    if (info.tensorflow_version.size() > 64 || info.tensorflow_git_version.size() > 64)
      throw std::logic_error("a version string longer than the reader's bound");
    (void)serving::tf_version_warning(info.tensorflow_version, "fuzz", "2.16.1", "tensorflow/serving:2.16.1");
  });
  expect_sdk_errors_only([&] {
    auto l = serving::parse_export_check_log(text);
    if (l.versions.size() > serving::export_check_max_entries || l.files.size() > serving::export_check_max_entries ||
        l.other_dirs.size() > serving::export_check_max_entries)
      throw std::logic_error("the listing kept more entries than its bound");
    for (const auto& v : l.versions)
      if (v.head.size() > serving::export_check_head_bytes) throw std::logic_error("a head longer than its bound");
    auto v = serving::judge_export(l, "export/m", "model \"m\"");
    (void)serving::export_tf_warning(v, "tensorflow/tensorflow:2.18.0", "2.16.1", "tensorflow/serving:2.16.1");
  });
  return 0;
}

}  // namespace tfjob::fuzz
