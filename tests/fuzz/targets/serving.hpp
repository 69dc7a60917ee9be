#pragma once
/// \file Fuzz target: what TF Serving and the cluster answer `serve` and `predict`
/// (serving/status.hpp): the model status, TF Serving's error body, a prediction's class
/// scores with top-k, and the Deployment / pod JSON read for rollout status and problems.
/// The first byte picks which reader gets the rest (so one corpus holds all shapes).
#include "common.hpp"

#include <tfjob/serving/status.hpp>

namespace tfjob::fuzz {

inline int serving(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const unsigned which = data[0] % 4;
  const std::string body(text_of(data + 1, size - 1));
  expect_sdk_errors_only([&] {
    switch (which) {
      case 0: {  // GET /v1/models/NAME
        serving::ModelStatus m = serving::parse_model_status(body);
        (void)m.available_version();
        (void)m.failed_version();
        (void)m.summary();
        break;
      }
      case 1:  // an error answer
        (void)serving::tf_serving_error(body);
        break;
      case 2: {  // POST :predict, read as predict does: predictions[i] -> scores -> top 5
        auto j = nlohmann::json::parse(body, nullptr, false);
        if (j.is_discarded() || !j.is_object()) break;
        for (const auto& p : serving::predictions_of(j)) (void)serving::top_k(serving::prediction_scores(p), 5);
        break;
      }
      default: {  // a Deployment (rollout status) or a pod (problems)
        auto j = nlohmann::json::parse(body, nullptr, false);
        if (j.is_discarded()) break;
        (void)serving::rollout_status(j);
        (void)serving::pod_problems(j);
        break;
      }
    }
  });
  return 0;
}

}  // namespace tfjob::fuzz
