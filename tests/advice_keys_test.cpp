// Advice as data (tfjob/setting.hpp): the SDK names its settings by key inside a Text, errors
// and findings carry them, and an application words each key its own way without reading
// the SDK's sentences. The plugin's table for every key is checked in cli_inprocess_test.
#include <catch2/catch.hpp>

#include "support/paths.hpp"

#include <tfjob/api/findings.hpp>
#include <tfjob/error.hpp>
#include <tfjob/serving/operations.hpp>
#include <tfjob/setting.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using tfjob::setting;
using tfjob::Text;

namespace {

std::string shout(setting s) { return "<" + std::string(tfjob::to_string(s)) + ">"; }

/// The settings that C++ source names by their SDK name inside a string literal (comments
/// and keys are not read), as (line, name): text an application could only reword by
/// finding and replacing it. A name counts only as a whole token ("ModelSource::url" is not
/// in "ModelSource::url_secret").
std::vector<std::pair<int, std::string>> named_in_literals(const std::string& src) {
  std::vector<std::pair<int, std::string>> out;
  auto is_ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  auto judge = [&](const std::string& lit, int line) {
    for (setting s : tfjob::all_settings()) {
      const std::string n = tfjob::to_string(s);
      for (auto p = lit.find(n); p != std::string::npos; p = lit.find(n, p + 1))
        if ((p == 0 || !is_ident(lit[p - 1])) && (p + n.size() == lit.size() || !is_ident(lit[p + n.size()])))
          out.emplace_back(line, n);
    }
  };
  int line = 1;
  for (std::size_t i = 0; i < src.size(); ++i) {
    const char c = src[i];
    if (c == '\n') { ++line; continue; }
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '/') {  // to the end of the line
      while (i < src.size() && src[i] != '\n') ++i;
      --i;
      continue;
    }
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '*') {
      for (i += 2; i + 1 < src.size() && !(src[i] == '*' && src[i + 1] == '/'); ++i) line += src[i] == '\n';
      ++i;
      continue;
    }
    if (c == '\'') {  // a character literal ('"', '\''); a digit separator (1'000) has no closing quote nearby
      if (i + 2 < src.size() && src[i + 1] == '\\') i += 3;
      else if (i + 2 < src.size() && src[i + 2] == '\'') i += 2;
      continue;
    }
    if (c != '"') continue;
    const int at = line;
    std::string lit;
    if (i > 0 && src[i - 1] == 'R') {  // R"delim( ... )delim"
      const auto open = src.find('(', i);
      const std::string close = ")" + src.substr(i + 1, open - i - 1) + "\"";
      const auto end = src.find(close, open);
      lit = src.substr(open + 1, end - open - 1);
      for (char k : lit) line += k == '\n';
      i = end + close.size() - 1;
    } else {
      for (++i; i < src.size() && src[i] != '"'; ++i) {
        if (src[i] == '\\') {  // an escape: a separator, never part of a name ("\nServeSpec::cpu")
          ++i;
          lit += ' ';
          continue;
        }
        lit += src[i];
      }
    }
    judge(lit, at);
  }
  return out;
}

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

TEST_CASE("advice: the scan of string literals finds a setting named by text, and only there", "[advice]") {
  const std::string planted =
      "// a comment may say ServeSpec::cpu\n"
      "/* and ServeSpec::memory\n over lines */\n"
      "throw error(\"give more memory (ServeSpec::memory)\");\n"
      "f.fix = \"ask (\" + setting::builder_gpus + \")\";\n"
      "char q = '\"'; auto t = \"ModelSource::url_secret NAME\";\n"
      "auto r = R\"SH(echo TFJobBuilder::gpus)SH\";\n"
      "auto e = \"a \\\"quoted\\\" CheckOptions::gpus\";\n";
  const auto found = named_in_literals(planted);
  CHECK(found == std::vector<std::pair<int, std::string>>{{4, "ServeSpec::memory"},
                                                         {6, "ModelSource::url_secret"},
                                                         {7, "TFJobBuilder::gpus"},
                                                         {8, "CheckOptions::gpus"}});
}

TEST_CASE("advice: no SDK header names a setting by text: every one is a key", "[advice]") {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(tfjob::test::source_dir()) / "include" / "tfjob";
  REQUIRE(fs::is_directory(root));
  int headers = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || e.path().extension() != ".hpp" || e.path().filename() == "setting.hpp") continue;
    ++headers;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    for (const auto& [line, name] : named_in_literals(ss.str())) {
      INFO(e.path().string() << ":" << line);
      FAIL_CHECK(name << " is named by text; name it by its key (tfjob/setting.hpp) so an application can word it");
    }
  }
  CHECK(headers > 50);
}
