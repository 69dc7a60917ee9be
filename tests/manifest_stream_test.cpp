// Manifests read from a stream a document at a time (tfjob/api/manifest_stream.hpp): a
// document is given before the next is read (a stream that breaks after the first still
// gives the first), the objects are those parse_objects() reads from the whole text, and
// errors name the place in the whole stream (line, byte, document number).
#include <catch2/catch.hpp>

#include "support/paths.hpp"

#include <tfjob/api/manifest.hpp>
#include <tfjob/api/manifest_stream.hpp>
#include <tfjob/detail/input.hpp>
#include <tfjob/error.hpp>

#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <vector>

using nlohmann::json;

namespace {

/// Gives `text`, then fails as a broken pipe or disk would: any further read throws.
class BreakingBuf : public std::streambuf {
 public:
  explicit BreakingBuf(std::string text) : text_(std::move(text)) { setg(text_.data(), text_.data(), text_.data() + text_.size()); }
  std::size_t reads_after_end = 0;

 protected:
  int_type underflow() override {
    ++reads_after_end;
    throw std::runtime_error("the stream broke after the first document");
  }

 private:
  std::string text_;
};

std::string job(const std::string& name) {
  return "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata:\n  name: " + name +
         "\nspec:\n  tfReplicaSpecs:\n    Worker:\n      replicas: 1\n      template:\n        spec:\n"
         "          containers:\n          - name: tensorflow\n            image: tensorflow/tensorflow:2.20.0\n";
}

std::vector<json> read_all(const std::string& text, const std::string& source = "input") {
  std::istringstream in(text);
  tfjob::ManifestReader r(in, source);
  std::vector<json> out;
  while (auto o = r.next()) out.push_back(std::move(*o));
  return out;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("a manifest stream gives each document before it reads the next", "[api][manifest][stream]") {
  // the first document and the `---` line that ends it; the stream breaks after that
  BreakingBuf buf(job("first") + "---\n");
  std::istream in(&buf);
  tfjob::ManifestReader reader(in, "jobs.yaml");
  auto first = reader.next();
  REQUIRE(first);
  CHECK((*first)["metadata"]["name"] == "first");
  CHECK(reader.count() == 1);
  CHECK_THROWS_WITH(reader.next(), "the stream broke after the first document");

  // for_each_tfjob hands the first job over before the failure ends the reading
  BreakingBuf buf2(job("a") + "---\n" + job("b"));
  std::istream in2(&buf2);
  std::vector<std::string> seen;
  CHECK_THROWS_WITH(tfjob::for_each_tfjob(in2, "jobs.yaml", tfjob::FieldValidation::strict, nullptr,
                                          [&](tfjob::TFJob&& j) { seen.push_back(j.metadata.name); }),
                    "the stream broke after the first document");
  CHECK(seen == std::vector<std::string>{"a"});
}

TEST_CASE("a manifest stream reads the objects parse_objects reads from the whole text", "[api][manifest][stream]") {
  const std::vector<std::string> texts = {
      job("a") + "---\n" + job("b"),
      // comments and a directive before the first `---`, an empty document, `...`, CRLF
      "# jobs\n%YAML 1.1\n---\n" + job("a") + "---\n---\n# nothing\n" + job("b") + "...\n---\r\nkind: X\r\nmetadata: {name: c}\r\n",
      // a List, a flow mapping after `---` on its line, a literal block holding `--- ` indented
      "apiVersion: v1\nkind: List\nitems:\n- {kind: A, metadata: {name: a}}\n- {kind: B, metadata: {name: b}}\n"
      "--- {kind: C, metadata: {name: c}}\n---\nkind: D\ndata:\n  script: |\n    --- not a marker\n    x\n",
      // JSON: a stream of values (a `}` and a `{` inside strings), then an array
      "{\"kind\": \"A\", \"s\": \"}{\\\"\"}\n{\"kind\": \"B\"}[{\"kind\": \"C\"}, {\"kind\": \"D\"}]",
      "",
      "\n# only a comment\n",
  };
  for (const auto& t : texts) {
    INFO(t);
    CHECK(read_all(t) == tfjob::parse_objects(t));
  }
  const std::string multi = slurp(tfjob::test::source_dir() + "/tests/data/api/multi.yaml");
  CHECK(read_all(multi) == tfjob::parse_objects(multi));
  const std::string full = slurp(tfjob::test::source_dir() + "/tests/data/api/full.yaml");
  CHECK(read_all(full) == tfjob::parse_objects(full));
}

TEST_CASE("a manifest stream's errors name the place in the whole stream", "[api][manifest][stream]") {
  // a YAML syntax error in the third document: its line in the file, as the whole text says it
  const std::string bad = job("a") + "---\n" + job("b") + "---\nkind: TFJob\nmetadata:\n  name: [x\n";
  const std::string whole = error_of([&] { tfjob::parse_objects(bad, "bad.yaml"); });
  const std::string streamed = error_of([&] { read_all(bad, "bad.yaml"); });
  CHECK(streamed == whole);
  CHECK(streamed.find("bad.yaml: line ") != std::string::npos);

  // a control byte in the second document: refused at once, by its byte, line and column
  const std::string bin = job("a") + "---\nkind: TFJob\nspec: \x01\n";
  CHECK(error_of([&] { read_all(bin, "ctl.yaml"); }) == error_of([&] { tfjob::parse_objects(bin, "ctl.yaml"); }));
  const std::string png = std::string("\x89PNG\r\n\x1a\n", 8) + std::string(100, 'x');
  CHECK(error_of([&] { read_all(png, "logo.png"); }) ==
        "logo.png: not YAML or JSON text (a binary file?): byte 0 (line 1, column 1) is 0x89, not UTF-8");

  // JSON: the fault's line and column in the stream, not in its value
  const std::string js = "{\"kind\": \"A\"}\n  {\"kind\": \"B\",, \"x\": 1}\n";
  CHECK(error_of([&] { read_all(js, "s.json"); }) == error_of([&] { tfjob::parse_objects(js, "s.json"); }));
  CHECK(error_of([&] { read_all(js, "s.json"); }).find("s.json: invalid JSON at line 2, column ") != std::string::npos);

  // every document over the bound on one object is named, by its number and line, as in a whole text
  const std::string big(tfjob::limits::max_document_bytes + (512 << 10), 'x');
  const std::string mixed = job("a") + "---\n" + job("b") + "  annotations: {big: " + big + "}\n---\n" + job("c") +
                            "---\n" + job("d") + "  annotations: {big: " + big + "}\n";
  const std::string m = error_of([&] { read_all(mixed, "mixed.yaml"); });
  CHECK(m == error_of([&] { tfjob::parse_objects(mixed, "mixed.yaml"); }));
  CHECK(m.find("mixed.yaml: document 2 (line 14): 3.5 MiB is more than the 3 MiB one object may have") != std::string::npos);
  CHECK(m.find("mixed.yaml: document 4 (line ") != std::string::npos);
  CHECK(m.find("document 3") == std::string::npos);
}

TEST_CASE("for_each_tfjob judges each job as parse_tfjobs does, every problem said after the last",
          "[api][manifest][stream]") {
  const std::string text = job("a") + "---\n" + job("b") + "  bogus: 1\n---\n" + job("c");
  std::vector<std::string> seen;
  std::istringstream in(text);
  const std::string streamed = error_of([&] {
    tfjob::for_each_tfjob(in, "jobs.yaml", tfjob::FieldValidation::strict, nullptr,
                          [&](tfjob::TFJob&& j) { seen.push_back(j.metadata.name); });
  });
  CHECK(streamed == error_of([&] { tfjob::parse_tfjobs(text, "jobs.yaml"); }));
  CHECK(streamed.find("jobs.yaml: TFJob b") != std::string::npos);
  CHECK(seen == std::vector<std::string>{"a", "c"});  // the good ones, in order

  // one unnamed document alone is the source; among several, `(document N)`
  std::istringstream one("apiVersion: kubeflow.org/v1\nkind: TFJob\nspec: 5\n");
  const std::string e1 = error_of([&] {
    tfjob::for_each_tfjob(one, "one.yaml", tfjob::FieldValidation::strict, nullptr, [](tfjob::TFJob&&) {});
  });
  CHECK(e1 == error_of([&] { tfjob::parse_tfjobs("apiVersion: kubeflow.org/v1\nkind: TFJob\nspec: 5\n", "one.yaml"); }));
  CHECK(e1.find("(document") == std::string::npos);
  const std::string two = job("a") + "---\napiVersion: kubeflow.org/v1\nkind: TFJob\nspec: 5\n";
  std::istringstream in2(two);
  const std::string e2 = error_of([&] {
    tfjob::for_each_tfjob(in2, "two.yaml", tfjob::FieldValidation::strict, nullptr, [](tfjob::TFJob&&) {});
  });
  CHECK(e2 == error_of([&] { tfjob::parse_tfjobs(two, "two.yaml"); }));
  CHECK(e2.find("two.yaml (document 2)") != std::string::npos);
}
