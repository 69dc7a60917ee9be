// kubectl tfjob predict NAME --image cat.jpg [--top 5] | --json FILE: a prediction from the
// TF Serving that `serve NAME` started, through the API server's service proxy.
#include "../common/command.hpp"
#include "../common/kube.hpp"
#include "../common/image_decode.hpp"
#include "../common/output.hpp"

#include <tfjob/kube/detail/util.hpp>
#include <tfjob/serving/image.hpp>
#include <tfjob/serving/kserve.hpp>
#include <tfjob/serving/serving.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace tfjob::cli {
namespace {

struct PredictOptions {
  std::string name;
  std::vector<std::string> images;
  std::string json_file;
  int top = 5;
  std::string output;
  std::string signature, version, label;
  std::string model;  ///< --model-name: one of a several-model server's models
};

std::string read_file(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw tfjob::error(std::string("cannot read ") + what + " \"" + path + "\": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw tfjob::error(std::string("cannot read ") + what + " \"" + path + "\": read error");
  return ss.str();
}

int run_predict(const PredictOptions& o, const Globals& g) {
  if (o.name.empty()) throw CLI::ValidationError("name", "give the NAME given to `kubectl tfjob serve`");
  if (o.images.empty() == o.json_file.empty())
    throw CLI::ValidationError("--image", "give --image FILE (repeatable) or --json FILE, not both");
  if (o.top < 1) throw CLI::ValidationError("--top", "must be 1 or more");
  if (!o.version.empty() && !o.label.empty()) throw CLI::ValidationError("--version", "give --version or --label, not both");
  serving::validate_version(o.version);
  OutputFormat fmt = parse_output_format(o.output, {"json"});

  nlohmann::json body;
  if (!o.json_file.empty()) {
    std::string text = read_file(o.json_file, "request file");
    body = nlohmann::json::parse(text, nullptr, false);
    if (body.is_discarded())
      throw tfjob::error("\"" + o.json_file + "\" is not JSON: give TF Serving's REST request body, e.g. {\"instances\": [...]}");
    if (body.is_array()) body = {{"instances", body}};
    if (!body.is_object() || !(body.contains("instances") || body.contains("inputs")))
      throw tfjob::error("\"" + o.json_file + "\" has no \"instances\" (row format) or \"inputs\" (columnar format): "
                         "TF Serving's predict API needs one of them");
  }
  std::vector<std::string> image_bytes;
  for (const auto& path : o.images) {
    std::string bytes = read_file(path, "image");
    if (bytes.empty()) throw tfjob::error("cannot use image \"" + path + "\": the file is empty");
    if (!serving::looks_like_image(bytes))
      throw tfjob::error("cannot use image \"" + path + "\": it is not a JPEG or PNG file");
    image_bytes.push_back(std::move(bytes));
  }

  auto client = make_client(g);
  const std::string ns = client.namespace_();
  const auto ep = serving::endpoint(client, ns, o.name);  // serve's Service, or a KServe predictor's
  serving::PredictTarget target;
  target.model = o.model.empty() ? ep.model : o.model;
  target.ref = {o.version, o.label};
  target.signature = o.signature;
  if (!o.images.empty()) {
    // what the signature takes: the encoded bytes (DT_STRING) or decoded, resized pixels (DT_FLOAT)
    const std::string model = target.model.empty() ? serving::served_model(client, ns, ep.service) : target.model;  // --model-name
    const auto meta = serving::get_model_metadata(client, ns, ep.service, model, target.ref);
    const auto plan = serving::plan_image_input(serving::pick_signature(meta, o.signature));
    nlohmann::json instances = nlohmann::json::array();
    for (std::size_t i = 0; i < image_bytes.size(); ++i) {
      if (plan.kind == serving::ImageInput::Kind::bytes) {
        instances.push_back(serving::image_instance(plan, kube::detail::base64_encode(image_bytes[i]), nullptr));
      } else {
        auto decoded = decode_image(image_bytes[i], o.images[i]);
        instances.push_back(serving::image_instance(plan, "", &decoded));
      }
    }
    body = {{"instances", instances}};
  }
  auto r = serving::predict(client, ns, ep.service, body, target);
  if (!o.json_file.empty() || fmt == OutputFormat::json) {
    if (!o.json_file.empty() || fmt == OutputFormat::json) {
      if (o.json_file.empty()) {
        // -o json with images: the top classes as JSON
        nlohmann::json out = nlohmann::json::array();
        const auto& preds = serving::predictions_of(r.response, o.images.size());
        for (std::size_t i = 0; i < preds.size(); ++i) {
          nlohmann::json classes = nlohmann::json::array();
          for (const auto& c : serving::top_k(serving::prediction_scores(preds[i]), o.top))
            classes.push_back({{"index", c.index}, {"label", c.label}, {"score", c.score}});
          out.push_back({{"image", o.images[i]}, {"top", classes}});
        }
        std::cout << out.dump(4) << "\n";
      } else {
        std::cout << r.response.dump(4) << "\n";
      }
    }
    return exit_code::ok;
  }
  const auto& preds = serving::predictions_of(r.response, o.images.size());
  for (std::size_t i = 0; i < preds.size(); ++i) {
    if (o.images.size() > 1) std::cout << (i ? "\n" : "") << o.images[i] << ":\n";
    Table t({"rank", "class", "label", "score"});
    int rank = 1;
    for (const auto& c : serving::top_k(serving::prediction_scores(preds[i]), o.top)) {
      std::ostringstream score;
      score << std::fixed << std::setprecision(4) << c.score;
      t.add_row({std::to_string(rank++), std::to_string(c.index), c.label, score.str()});
    }
    t.print(std::cout);
  }
  return exit_code::ok;
}

void setup_predict(CLI::App& app, Globals& g) {
  auto o = std::make_shared<PredictOptions>();
  auto* sub = app.add_subcommand("predict", "Send a prediction to a model served with `serve` (through the API server's service proxy)");
  sub->add_option("name", o->name, "NAME given to serve")->required();
  sub->add_option("--image", o->images,
                  "PNG or JPEG image (repeatable), converted to what the signature takes: its bytes as {\"b64\": ...} for a "
                  "DT_STRING input, decoded and resized to H x W, scaled to [0,1], for a DT_FLOAT [N,H,W,C] or [N,H,W] input");
  sub->add_option("--top", o->top, "How many classes to print per image")->capture_default_str();
  sub->add_option("--json", o->json_file, "Send this TF Serving request body ({\"instances\": [...]}) and print the raw response");
  sub->add_option("-o,--output", o->output, "json: print JSON instead of the table");
  sub->add_option("--signature", o->signature, "The signature to call (default: serving_default); `kubectl tfjob models NAME` lists them");
  sub->add_option("--version", o->version, "Send to this model version (TF Serving's /versions/N; default: the latest)");
  sub->add_option("--label", o->label, "Send to the version with this label (TF Serving's /labels/L, e.g. stable)");
  sub->add_option("--model-name", o->model, "Which model of a server serving several (serve --model NAME=SOURCE); default: its first");
  sub->footer(R"(Examples:
  kubectl tfjob predict resnet --image cat.jpg --top 5
  kubectl tfjob predict resnet --image cat.jpg --image dog.jpg -o json
  kubectl tfjob predict mnist --json samples/mnist/digit-1.json
  kubectl tfjob predict mnist --image digit.png                 # decoded, resized to 28 x 28, gray, [0,1]
  kubectl tfjob predict mnist --json digit.json --version 2 --signature serving_default

The request is checked against the signature (from TF Serving's metadata API) before it is
sent: a missing input, or a value of the wrong rank, size or dtype, is an error naming what
the signature takes.

The ResNet model answers 1001 probabilities with class 0 = background; labels are the
ImageNet class names at the same index.

Exit codes: 0 a prediction was printed, 1 the service is missing, the model is not loaded
yet, the request does not fit the signature, TF Serving refused the request or the image
cannot be read, 64 usage error.)");
  sub->callback([o, &g] { g.run = [o, &g] { return run_predict(*o, g); }; });
}

}  // namespace
TFJOB_REGISTER_COMMAND("predict", 310, setup_predict);
}  // namespace tfjob::cli
