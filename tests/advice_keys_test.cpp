// Advice as data (tfjob/setting.hpp): the SDK names its settings by key inside a Text, errors
// and findings carry them, and an application words each key its own way without reading
// the SDK's sentences. The plugin's table for every key is checked in cli_inprocess_test.
#include <catch2/catch.hpp>

#include <tfjob/api/findings.hpp>
#include <tfjob/error.hpp>
#include <tfjob/serving/operations.hpp>
#include <tfjob/setting.hpp>

#include <set>
#include <string>

using tfjob::setting;
using tfjob::Text;

namespace {

std::string shout(setting s) { return "<" + std::string(tfjob::to_string(s)) + ">"; }

}  // namespace

TEST_CASE("advice: text names settings by key, in order, and words them either way", "[advice]") {
  const Text t = "ask for fewer GPUs (" + setting::builder_gpus + ") and more workers (" + setting::builder_workers + ")";
  CHECK(t.str() == "ask for fewer GPUs (TFJobBuilder::gpus) and more workers (TFJobBuilder::workers)");
  CHECK(t.str(shout) == "ask for fewer GPUs (<TFJobBuilder::gpus>) and more workers (<TFJobBuilder::workers>)");
  CHECK(t.settings() == std::vector<setting>{setting::builder_gpus, setting::builder_workers});
  // plain text is never read for names: only keys are worded
  const Text plain("TFJobBuilder::gpus in plain text");
  CHECK(plain.settings().empty());
  CHECK(plain.str(shout) == "TFJobBuilder::gpus in plain text");
  CHECK(Text().empty());
  CHECK(Text("").empty());
  CHECK_FALSE(Text(setting::gpu_check).empty());
  // equal by the SDK's wording
  CHECK(Text(setting::serve_cpu) == Text("ServeSpec::cpu"));
  Text grown = "a";
  grown += " b";
  grown += setting::serve_cpu;
  CHECK(grown.str() == "a bServeSpec::cpu");
}

TEST_CASE("advice: every key has one distinct SDK name", "[advice]") {
  std::set<std::string> names;
  for (setting s : tfjob::all_settings()) {
    const std::string n = tfjob::to_string(s);
    CHECK_FALSE(n.empty());
    CHECK(names.insert(n).second);
  }
  CHECK(names.size() == tfjob::all_settings().size());
}

TEST_CASE("advice: an error keeps the keys of its problem and advice and what() is the SDK's wording", "[advice]") {
  tfjob::error e("SomeReason", "it went wrong with " + setting::config_context, "; pick one with " + setting::config_context);
  CHECK(std::string(e.what()) == "it went wrong with ConfigOverrides::context; pick one with ConfigOverrides::context");
  CHECK(e.problem() == "it went wrong with ConfigOverrides::context");
  CHECK(e.advice() == "; pick one with ConfigOverrides::context");
  CHECK(e.text().str(shout) == "it went wrong with <ConfigOverrides::context>; pick one with <ConfigOverrides::context>");
  CHECK(e.problem_text().settings().size() == 1);
  CHECK_FALSE(e.setting());
  // a plain error is its own problem, with no advice
  tfjob::config_error plain("plain words");
  CHECK(plain.problem() == "plain words");
  CHECK(plain.advice().empty());
  CHECK(plain.text().settings().empty());
}

TEST_CASE("advice: an invalid setting's error carries the setting as a key", "[advice]") {
  try {
    tfjob::serving::parse_autoscale("10:2:70%");
    FAIL("no error");
  } catch (const tfjob::error& e) {
    CHECK(e.reason() == tfjob::reasons::invalid_setting);
    REQUIRE(e.setting());
    CHECK(*e.setting() == setting::serve_autoscale);
    CHECK(e.subject() == "ServeOperations::autoscale");
    CHECK(e.text().settings().front() == setting::serve_autoscale);  // the message begins with it
    CHECK(e.text().str(shout).rfind("<ServeOperations::autoscale> \"10:2:70%\"", 0) == 0);
  }
}

TEST_CASE("advice: a finding's message and fix carry keys and its JSON is the SDK's wording", "[advice]") {
  tfjob::Finding f{tfjob::Finding::Severity::error, "no GPU node"};
  f.code = "NoGpuNodes";
  f.fix = "diagnose the GPU nodes (" + setting::gpu_check + ")";
  CHECK(f.fix.settings() == std::vector<setting>{setting::gpu_check});
  CHECK(tfjob::to_json_value(f)["fix"] == "diagnose the GPU nodes (gpu::run_gpu_check)");
  CHECK(tfjob::to_json_value(f)["message"] == "no GPU node");
}
