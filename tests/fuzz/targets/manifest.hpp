#pragma once
/// \file Fuzz target: `submit -f` input, YAML (one or more documents) or JSON (one value or
/// a stream), through the manifest reader (`parse_objects`, `parse_tfjobs`), then what
/// submit does with a TFJob it read: defaults, validation, every replica's TF_CONFIG and
/// the YAML written back for `-o yaml`.
#include "common.hpp"

#include <tfjob/api/defaults.hpp>
#include <tfjob/api/manifest.hpp>
#include <tfjob/api/tf_config.hpp>
#include <tfjob/api/validation.hpp>

namespace tfjob::fuzz {

inline int manifest(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = text_of(data, size);
  expect_sdk_errors_only([&] {
    auto objs = parse_objects(text, "fuzz.yaml");
    (void)to_yaml_documents(objs);
  });
  expect_sdk_errors_only([&] {
    for (TFJob& job : parse_tfjobs(text, "fuzz.yaml")) {
      set_defaults(job);
      (void)validate(job);
      (void)gen_all_tf_configs(job);
      (void)to_yaml(nlohmann::json(job));
    }
  });
  return 0;
}

}  // namespace tfjob::fuzz
