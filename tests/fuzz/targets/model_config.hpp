#pragma once
/// \file Fuzz target: TF Serving's text-format model config as `serve label` reads it back
/// from a ConfigMap anyone may edit (serving/model_config_text.hpp parse_model_config), and the
/// flags that build one (--model NAME=SOURCE, --version-policy, --version-label). What
/// parses must render and parse again to the same models, policies and labels.
#include "common.hpp"

#include <tfjob/serving/model_config.hpp>
#include <tfjob/serving/model_config_text.hpp>

#include <stdexcept>

namespace tfjob::fuzz {

inline int model_config(const std::uint8_t* data, std::size_t size) {
  const std::string text(text_of(data, size));
  expect_sdk_errors_only([&] {
    serving::ModelServerConfig c = serving::parse_model_config(text);
    for (auto& m : c.models) (void)m.policy.select({1, 2, 3, 9});
    serving::ModelServerConfig again = serving::parse_model_config(serving::render_model_config(c));
    if (again.models.size() != c.models.size()) throw std::logic_error("the rendered model config lost models");
    for (std::size_t i = 0; i < c.models.size(); ++i)
      if (again.models[i].name != c.models[i].name || !(again.models[i].policy == c.models[i].policy) ||
          again.models[i].labels != c.models[i].labels || again.models[i].base_path != c.models[i].base_path)
        throw std::logic_error("the rendered model config reads back differently");
  });
  expect_sdk_errors_only([&] { (void)serving::parse_model_flag(text); });
  expect_sdk_errors_only([&] { (void)serving::parse_version_policy_flag(text); });
  expect_sdk_errors_only([&] { (void)serving::parse_label_assignment(text, "--version-label"); });
  return 0;
}

}  // namespace tfjob::fuzz
