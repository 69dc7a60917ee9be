#pragma once
/// \file Fuzz target: what TF Serving and the cluster answer `serve` and `predict`
/// (serving/status.hpp): the model status, TF Serving's error body, a prediction's class
/// scores with top-k, the Deployment / pod JSON read for rollout status, problems and
/// blockers, the model's metadata (serving/signature.hpp) and a predict body checked
/// against a signature. The first byte picks which reader gets the rest (so one corpus
/// holds all shapes; '0'..'5' keep their meaning under % 12): '6' TF Serving's Prometheus
/// page (serving/metrics.hpp), '7' serve's --batching and --autoscale values
/// (serving/operations.hpp), '8' a metadata answer's signatures planned for --image and a
/// small image made of the bytes resized (serving/image.hpp), '9' an InferenceService as
/// serve --kserve reads it (serving/kserve.hpp: its status, its predictor for the GPU
/// preflight).
#include "common.hpp"

#include <tfjob/serving/image.hpp>
#include <tfjob/serving/kserve.hpp>
#include <tfjob/serving/metrics.hpp>
#include <tfjob/serving/operations.hpp>
#include <tfjob/serving/signature.hpp>
#include <tfjob/serving/status.hpp>
#include <tfjob/serving/top_k.hpp>

namespace tfjob::fuzz {

inline int serving(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const unsigned which = data[0] % 12;
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
      case 3: {  // a Deployment (rollout status) or a pod (problems, blockers)
        auto j = nlohmann::json::parse(body, nullptr, false);
        if (j.is_discarded()) break;
        (void)serving::rollout_status(j);
        const auto pod = tfjob::detail::decoded<k8s::Pod>(j);  // as a watch's pod is decoded (any shape)
        (void)serving::pod_problems(pod);
        (void)serving::blocker_hints(serving::pod_blockers({pod}), "m");
        break;
      }
      case 4: {  // GET /v1/models/NAME/metadata, then a request checked against each signature
        serving::ModelMetadata m = serving::parse_model_metadata(body);
        (void)m.keys();
        for (const auto& sig : m.signatures) {
          for (const auto& t : sig.inputs) (void)serving::describe_input(sig, t);
          for (const auto& t : sig.outputs) (void)serving::shape_text(t);
          try {
            serving::check_request(sig, nlohmann::json::parse(R"({"instances": [[1.5, 2], {"b64": "YQ=="}]})"));
          } catch (const tfjob::error&) {
          }
        }
        break;
      }
      case 6: {  // GET /monitoring/prometheus/metrics
        for (const auto& m : serving::request_metrics(serving::parse_prometheus_text(body))) {
          (void)m.requests();
          (void)m.errors();
          (void)m.latency.mean();
          for (double q : {0.0, 0.5, 0.99, 1.0}) (void)m.latency.quantile(q);
        }
        break;
      }
      case 7: {  // --batching VALUE, --autoscale VALUE
        try {
          (void)serving::batching_parameters_text(serving::parse_batching(body));
        } catch (const tfjob::error&) {
        }
        (void)serving::parse_autoscale(body);
        break;
      }
      case 8: {  // --image: the plan from each signature, then a W x H image from the bytes
        serving::ModelMetadata m = serving::parse_model_metadata(body);
        serving::DecodedImage img;
        img.width = 1 + static_cast<int>(body.size() % 7);
        img.height = 1 + static_cast<int>(body.size() % 5);
        img.channels = 1 + static_cast<int>(body.size() % 4);
        img.pixels.assign(static_cast<std::size_t>(img.width * img.height * img.channels), 0);
        for (std::size_t i = 0; i < img.pixels.size() && i < body.size(); ++i) img.pixels[i] = static_cast<unsigned char>(body[i]);
        for (const auto& sig : m.signatures) {
          try {
            auto plan = serving::plan_image_input(sig);
            if (plan.kind == serving::ImageInput::Kind::float_tensor && plan.height * plan.width <= 64 * 64)
              (void)serving::image_instance(plan, "", &img);
            else
              (void)serving::image_instance(plan, "QQ==", nullptr);
          } catch (const tfjob::error&) {
          }
        }
        break;
      }
      case 9: {  // GET .../inferenceservices/NAME: the status serve --kserve waits on, the predictor
        auto j = nlohmann::json::parse(body, nullptr, false);
        if (j.is_discarded()) break;
        (void)serving::kserve::read_state(j).summary();
        (void)serving::kserve::preflight_view(j);
        break;
      }
      default: {  // a predict body checked against the MNIST sample's signature
        auto j = nlohmann::json::parse(body, nullptr, false);
        if (j.is_discarded() || !j.is_object()) break;
        serving::Signature sig;
        sig.key = "serving_default";
        sig.inputs = {{"images", "DT_FLOAT", std::vector<long long>{-1, 28, 28}, "images:0"},
                      {"ids", "DT_INT64", std::vector<long long>{-1}, "ids:0"}};
        serving::check_request(sig, j);
        sig.inputs.resize(1);
        serving::check_request(sig, j);
        break;
      }
    }
  });
  return 0;
}

}  // namespace tfjob::fuzz
