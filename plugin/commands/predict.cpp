// kubectl tfjob predict NAME --image cat.jpg [--top 5] | --json FILE: a prediction from the
// TF Serving that `serve NAME` started, through the API server's service proxy.
#include "commands.hpp"
#include "../common/context.hpp"
#include "../common/flag_values.hpp"
#include "../common/image_decode.hpp"
#include "../common/output.hpp"

#include <tfjob/kube/detail/util.hpp>
#include <tfjob/serving/image.hpp>
#include <tfjob/serving/kserve.hpp>
#include <tfjob/serving/serving.hpp>
#include <tfjob/serving/top_k.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace tfjob::cli {
namespace {

struct PredictCommand {
  std::string name;
  std::vector<std::string> images;
  std::string json_file;
  int top = 5;
  std::string output;
  std::string signature, version, label;
  std::string model;  ///< --model-name: one of a several-model server's models
  const CLI::App* sub = nullptr;  ///< its command, to tell which flags were given

  void validate() {
    if (images.empty() == json_file.empty())
      throw flag::usage("--image", images.empty() ? "nothing to send" : "--image and --json were both given",
                        "give --image FILE (repeatable) or --json FILE, not both");
    if (!json_file.empty())
      flag::refuse_given(*sub, {"--top", "--output"}, "with --json, which prints TF Serving's response as it came", "leave out one of them");
    if (!version.empty() && !label.empty()) throw flag::exclusive("--version", "--label");
    serving::validate_version(version);
    fmt = parse_output_format(output, {"json"});
    // what is sent is read now: a file that cannot be used is refused before any request
    body = json_file.empty() ? nlohmann::json() : request_body();
    image_bytes = image_files();
  }
  int run(Context& ctx) const;

 private:
  /// --json FILE: TF Serving's request body, checked for "instances" or "inputs".
  nlohmann::json request_body() const;
  /// --image FILEs: the bytes of each, checked to be a JPEG or PNG.
  std::vector<std::string> image_files() const;
  /// The instances for the images, in the form the signature takes.
  nlohmann::json image_body(kube::Client& client, const serving::Endpoint& ep, const serving::PredictTarget& target,
                            const std::vector<std::string>& image_bytes) const;
  void print(Context& ctx, const nlohmann::json& response) const;
  OutputFormat fmt = OutputFormat::table;
  nlohmann::json body;                  ///< --json FILE's request body
  std::vector<std::string> image_bytes;  ///< --image FILEs
};

std::string read_file(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw tfjob::error(std::string("cannot read ") + what + " \"" + path + "\": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw tfjob::error(std::string("cannot read ") + what + " \"" + path + "\": read error");
  return ss.str();
}

nlohmann::json PredictCommand::request_body() const {
  std::string text = read_file(json_file, "request file");
  auto body = nlohmann::json::parse(text, nullptr, false);
  if (body.is_discarded())
    throw flag::usage("--json", "\"" + json_file + "\" is not JSON", "give TF Serving's REST request body, e.g. {\"instances\": [...]}");
  if (body.is_array()) body = {{"instances", body}};
  if (!body.is_object() || !(body.contains("instances") || body.contains("inputs")))
    throw flag::usage("--json", "\"" + json_file + "\" has no \"instances\" (row format) or \"inputs\" (columnar format)",
                      "give one of them: TF Serving's predict API needs it");
  return body;
}

std::vector<std::string> PredictCommand::image_files() const {
  std::vector<std::string> image_bytes;
  for (const auto& path : images) {
    std::string bytes = read_file(path, "image");
    if (bytes.empty()) throw flag::usage("--image", "\"" + path + "\" is empty", "give a PNG or JPEG image");
    if (!serving::looks_like_image(bytes)) throw flag::usage("--image", "\"" + path + "\" is not a JPEG or PNG file", "give a PNG or JPEG image");
    image_bytes.push_back(std::move(bytes));
  }
  return image_bytes;
}

nlohmann::json PredictCommand::image_body(kube::Client& client, const serving::Endpoint& ep, const serving::PredictTarget& target,
                                          const std::vector<std::string>& image_bytes) const {
  // what the signature takes: the encoded bytes (DT_STRING) or decoded, resized pixels (DT_FLOAT)
  const std::string& ns = client.namespace_();
  const std::string m = target.model.empty() ? serving::served_model(client, ns, ep.service) : target.model;  // --model-name
  const auto meta = serving::get_model_metadata(client, ns, ep.service, m, target.ref);
  const auto plan = serving::plan_image_input(serving::pick_signature(meta, signature));
  nlohmann::json instances = nlohmann::json::array();
  for (std::size_t i = 0; i < image_bytes.size(); ++i) {
    if (plan.kind == serving::ImageInput::Kind::bytes) {
      instances.push_back(serving::image_instance(plan, kube::detail::base64_encode(image_bytes[i]), nullptr));
    } else {
      auto decoded = decode_image(image_bytes[i], images[i]);
      instances.push_back(serving::image_instance(plan, "", &decoded));
    }
  }
  return {{"instances", instances}};
}

int PredictCommand::run(Context& ctx) const {
  nlohmann::json body = this->body;
  auto& client = ctx.client();
  const std::string& ns = client.namespace_();
  const auto ep = serving::endpoint(client, ns, name);  // serve's Service, or a KServe predictor's
  serving::PredictTarget target;
  target.model = model.empty() ? ep.model : model;
  target.ref = {version, label};
  target.signature = signature;
  if (!images.empty()) body = image_body(client, ep, target, image_bytes);
  auto r = serving::predict(client, ns, ep.service, body, target);
  print(ctx, r.response);
  return exit_code::ok;
}

void PredictCommand::print(Context& ctx, const nlohmann::json& response) const {
  if (!json_file.empty()) {
    ctx.out << response.dump(4) << "\n";
    return;
  }
  const auto& preds = serving::predictions_of(response, images.size());
  if (fmt == OutputFormat::json) {
    // -o json with images: the top classes as JSON
    nlohmann::json out = nlohmann::json::array();
    for (std::size_t i = 0; i < preds.size(); ++i) {
      nlohmann::json classes = nlohmann::json::array();
      for (const auto& c : serving::top_k(serving::prediction_scores(preds[i]), top))
        classes.push_back({{"index", c.index}, {"label", c.label}, {"score", c.score}});
      out.push_back({{"image", images[i]}, {"top", classes}});
    }
    ctx.out << out.dump(4) << "\n";
    return;
  }
  for (std::size_t i = 0; i < preds.size(); ++i) {
    if (images.size() > 1) ctx.out << (i ? "\n" : "") << images[i] << ":\n";
    Table t({"rank", "class", "label", "score"});
    int rank = 1;
    for (const auto& c : serving::top_k(serving::prediction_scores(preds[i]), top)) {
      std::ostringstream score;
      score << std::fixed << std::setprecision(4) << c.score;
      t.add_row({std::to_string(rank++), std::to_string(c.index), c.label, score.str()});
    }
    t.print(ctx.out);
  }
}

}  // namespace

void setup_predict(CLI::App& app, Globals& g) {
  auto o = std::make_shared<PredictCommand>();
  auto* sub = app.add_subcommand("predict", "Send a prediction to a model served with `serve` (through the API server's service proxy)");
  o->sub = sub;
  flag::text(*sub, "name", o->name, "NAME given to serve", "NAME")->required();
  flag::file(*sub, "--image", o->images,
             "PNG or JPEG image (repeatable), converted to what the signature takes: its bytes as {\"b64\": ...} for a "
             "DT_STRING input, decoded and resized to H x W, scaled to [0,1], for a DT_FLOAT [N,H,W,C] or [N,H,W] input",
             flag::Content::binary);
  flag::count(*sub, "--top", o->top, "How many classes to print per image", 1)->capture_default_str();
  flag::file(*sub, "--json", o->json_file, "Send this TF Serving request body ({\"instances\": [...]}) and print the raw response",
             flag::Content::text);
  flag::choice(*sub, "-o,--output", o->output, "json: print JSON instead of the table", {"json"});
  flag::text(*sub, "--signature", o->signature, "The signature to call (default: serving_default); `kubectl tfjob models NAME` lists them",
             "NAME");
  flag::count(*sub, "--version", o->version, "Send to this model version (TF Serving's /versions/N; default: the latest)", 1,
              std::numeric_limits<std::int64_t>::max(), "VERSION");
  flag::text(*sub, "--label", o->label, "Send to the version with this label (TF Serving's /labels/L, e.g. stable)", "LABEL");
  flag::text(*sub, "--model-name", o->model, "Which model of a server serving several (serve --model NAME=SOURCE); default: its first",
             "NAME");
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
yet, the request does not fit the signature or TF Serving refused the request, 64 usage
error (an image or request file that cannot be used included: nothing was sent). The table
for every command: kubectl tfjob --help.)");
  set_action(*sub, g, o);
}

}  // namespace tfjob::cli
