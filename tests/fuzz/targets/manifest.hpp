#pragma once
/// \file Fuzz target: `submit -f` input, YAML (one or more documents) or JSON (one value or
/// a stream), through the manifest reader (`parse_objects`, `parse_tfjobs` with the CRD's
/// schema and without; the stream reader `ManifestReader`, a document at a time, and its
/// `each()`, a List's items one at a time), then what
/// submit does with a TFJob it read: defaults, validation, every replica's TF_CONFIG and
/// the YAML written back for `-o yaml`.
#include "common.hpp"

#include <sstream>

#include <tfjob/api/defaults.hpp>
#include <tfjob/api/manifest.hpp>
#include <tfjob/api/manifest_stream.hpp>
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
    // -f's reader: the same text cut into documents before each is parsed
    std::istringstream in{std::string(text)};
    ManifestReader reader(in, "fuzz.yaml");
    while (auto o = reader.next()) (void)reader.more();
  });
  expect_sdk_errors_only([&] {
    // explain -f's reader: a List's items one at a time, from the parsers' events
    std::istringstream in{std::string(text)};
    ManifestReader(in, "fuzz.yaml").each([](nlohmann::json&&, const ObjectPlace&) {});
  });
  // strict (the default): the CRD's schema judges every document
  expect_sdk_errors_only([&] { (void)parse_tfjobs(text, "fuzz.yaml"); });
  expect_sdk_errors_only([&] {
    // the schema ignored, so that what the decoder accepts reaches the rest of submit
    for (TFJob& job : parse_tfjobs(text, "fuzz.yaml", FieldValidation::ignore)) {
      set_defaults(job);
      (void)validate(job);
      (void)gen_all_tf_configs(job);
      (void)to_yaml(nlohmann::json(job));
    }
  });
  return 0;
}

}  // namespace tfjob::fuzz
