// Manifests read from a stream a document at a time (tfjob/api/manifest_stream.hpp): a
// document is given before the next is read (a stream that breaks after the first still
// gives the first), the objects are those parse_objects() reads from the whole text, and
// errors name the place in the whole stream (line, byte, document number). A List's items are
// given one at a time (each()), each bounded alone, and an error inside one names the item.
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
  // a key given twice (the last value would win unseen): refused where the second begins, streamed
  // or whole, at the top, nested, in a List's item, and with quotes escaped in the key
  for (const std::string& dup : {std::string("{\"kind\": \"A\"}\n{\"kind\": \"B\",\n  \"spec\": {\"replicas\": 2, \"replicas\": 3}}\n"),
                                 std::string("{\"kind\": \"List\", \"items\": [{\"a\": 1},\n {\"b\": {\"c\\\"\": 1, \"c\\\"\": 2}}]}")}) {
    const std::string streamed = error_of([&] { read_all(dup, "d.json"); });
    CHECK(streamed.find("duplicate key \"") != std::string::npos);
    CHECK(streamed.find(": give each key once") != std::string::npos);
    CHECK(streamed.find(error_of([&] { tfjob::parse_objects(dup, "d.json"); }).substr(std::string("d.json: ").size())) !=
          std::string::npos);
  }
  CHECK(error_of([&] { read_all("{\"a\": 1,\n \"a\": 2}", "d.json"); }) ==
        "d.json: invalid JSON at line 2, column 2: duplicate key \"a\": give each key once");

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

namespace {

/// A List as `kubectl get pods -o yaml` writes it (items before `kind: List`), of pods named
/// p1, p2...; `extra` is added under each pod's metadata (two spaces in).
std::string pod_list(int n, const std::string& extra = "") {
  std::string s = "apiVersion: v1\nitems:\n";
  for (int i = 1; i <= n; ++i)
    s += "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p" + std::to_string(i) + "\n" + extra;
  return s + "kind: List\nmetadata:\n  resourceVersion: \"\"\n";
}

std::vector<std::string> names_of(const std::vector<json>& objects) {
  std::vector<std::string> names;
  for (const auto& o : objects) names.push_back(o["metadata"]["name"]);
  return names;
}

/// Every object each() gives, with its place.
std::vector<std::pair<json, tfjob::ObjectPlace>> each_of(std::istream& in, const std::string& source,
                                                          std::size_t max_object = tfjob::limits::max_document_bytes) {
  std::vector<std::pair<json, tfjob::ObjectPlace>> out;
  tfjob::ManifestReader r(in, source, max_object);
  r.each([&](json&& o, const tfjob::ObjectPlace& at) { out.emplace_back(std::move(o), at); });
  return out;
}

/// A JSON List of `n` pods, each `pad` bytes of annotation, written as it is read: the text is
/// never held (a List bigger than any bound on a document costs no memory to give).
class ListBuf : public std::streambuf {
 public:
  ListBuf(std::size_t n, std::size_t pad) : n_(n), pad_(pad, 'x') { next_chunk(); }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (!next_chunk()) return traits_type::eof();
    return traits_type::to_int_type(*gptr());
  }

 private:
  bool next_chunk() {
    if (i_ > n_ + 1) return false;
    if (i_ == 0) chunk_ = R"({"apiVersion": "v1", "items": [)";
    else if (i_ <= n_)
      chunk_ = std::string(i_ > 1 ? ", " : "") + R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p)" +
               std::to_string(i_) + R"(", "annotations": {"pad": ")" + pad_ + "\"}}}";
    else chunk_ = R"(], "kind": "List", "metadata": {"resourceVersion": ""}})" "\n";
    ++i_;
    setg(chunk_.data(), chunk_.data(), chunk_.data() + chunk_.size());
    return true;
  }
  std::size_t n_, i_ = 0;
  std::string pad_, chunk_;
};

}  // namespace

TEST_CASE("a List is given item by item, each item with its place", "[api][manifest][stream][list]") {
  // as kubectl writes it: items before `kind: List`; then a document of its own
  const std::string text = pod_list(2) + "---\n" + job("c");
  std::istringstream in(text);
  auto got = each_of(in, "state.yaml");
  REQUIRE(got.size() == 3);
  CHECK(got[0].first["metadata"]["name"] == "p1");
  CHECK(tfjob::to_string(got[0].second) == "document 1 (line 1), item 1 (line 3)");
  CHECK(tfjob::to_string(got[1].second) == "document 1 (line 1), item 2 (line 7)");
  CHECK(got[2].first["metadata"]["name"] == "c");
  CHECK(tfjob::to_string(got[2].second) == "document 2 (line 14)");
  CHECK_FALSE(got[2].second.item);
  // the objects are those the whole text holds; next() gives the same, with the same places
  std::vector<json> objects;
  for (auto& g : got) objects.push_back(g.first);
  CHECK(objects == tfjob::parse_objects(text));
  std::istringstream again(text);
  tfjob::ManifestReader r(again, "state.yaml");
  REQUIRE(r.next());
  REQUIRE(r.next());
  CHECK(tfjob::to_string(r.place()) == "document 1 (line 1), item 2 (line 7)");

  // an item is given as soon as it is read: the stream breaks inside the second item
  const std::string first_and_a_half = pod_list(2).substr(0, pod_list(2).find("  metadata:\n    name: p2"));
  BreakingBuf buf(first_and_a_half);
  std::istream broken(&buf);
  std::vector<std::string> seen;
  tfjob::ManifestReader reader(broken, "state.yaml");
  CHECK_THROWS_WITH(reader.each([&](json&& o, const tfjob::ObjectPlace&) { seen.push_back(o["metadata"]["name"]); }),
                    "the stream broke after the first document");
  CHECK(seen == std::vector<std::string>{"p1"});

  // JSON (`kubectl get -o json`): the same, a top-level array's items too
  const std::string js = R"({"apiVersion": "v1", "items": [{"kind": "Pod", "metadata": {"name": "p1"}},)" "\n"
                         R"(  {"kind": "Pod", "metadata": {"name": "p2"}}], "kind": "List"})" "\n"
                         R"([{"kind": "Pod", "metadata": {"name": "p3"}}])";
  std::istringstream jin(js);
  auto jgot = each_of(jin, "state.json");
  REQUIRE(jgot.size() == 3);
  CHECK(tfjob::to_string(jgot[1].second) == "document 1 (line 1), item 2 (line 2)");
  CHECK(tfjob::to_string(jgot[2].second) == "document 2 (line 3), item 1 (line 3)");
  std::vector<json> jobjects;
  for (auto& g : jgot) jobjects.push_back(g.first);
  CHECK(jobjects == tfjob::parse_objects(js));
  BreakingBuf jbuf(js.substr(0, js.find("{\"kind\": \"Pod\", \"metadata\": {\"name\": \"p2\"")));
  std::istream jbroken(&jbuf);
  seen.clear();
  tfjob::ManifestReader jreader(jbroken, "state.json");
  CHECK_THROWS_WITH(jreader.each([&](json&& o, const tfjob::ObjectPlace&) { seen.push_back(o["metadata"]["name"]); }),
                    "the stream broke after the first document");
  CHECK(seen == std::vector<std::string>{"p1"});

  // a List whose items an anchor names is read whole, and gives its items all the same
  const std::string anchored = "apiVersion: v1\nitems: &all\n- {kind: Pod, metadata: {name: p1}}\n- {kind: Pod, metadata: {name: p2}}\nkind: List\n";
  CHECK(names_of(read_all(anchored)) == std::vector<std::string>{"p1", "p2"});
  std::istringstream ain(anchored);
  auto agot = each_of(ain, "anchored.yaml");
  REQUIRE(agot.size() == 2);
  CHECK(tfjob::to_string(agot[1].second) == "document 1 (line 1), item 2");

  // kubectl reads any object with `items` as a List (its kind aside); `items` that is no list is a field
  CHECK(names_of(tfjob::parse_objects("kind: PodList\nitems:\n- {metadata: {name: a}}\n")) == std::vector<std::string>{"a"});
  CHECK(names_of(read_all("kind: X\nmetadata: {name: x}\nitems: {a: 1}\n")) == std::vector<std::string>{"x"});
}

TEST_CASE("a List is bounded per item, not as a whole", "[api][manifest][stream][list][hostile]") {
  // with a bound of 4 KiB on one object: 64 items of 1 KiB are read, the List being 70 KiB
  const std::string pad = "    annotations: {pad: " + std::string(1000, 'y') + "}\n";
  const std::string list = pod_list(64, pad);
  REQUIRE(list.size() > 64 * 1024);
  std::istringstream in(list);
  auto got = each_of(in, "big.yaml", 4096);
  CHECK(got.size() == 64);
  CHECK(got.back().first["metadata"]["name"] == "p64");
  // the same objects as one document of 70 KiB are refused: the bound is per object
  std::string one = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\ndata:\n";
  for (int i = 0; i < 64; ++i) one += "  k" + std::to_string(i) + ": " + std::string(1100, 'y') + "\n";
  std::istringstream whole(one);
  CHECK(error_of([&] { each_of(whole, "one.yaml", 4096); }) ==
        "one.yaml: document 1 (line 1): " + tfjob::detail::human_bytes(one.size()) +
            " is more than the 4 KiB one object may have (kube-apiserver's bound on a request body); split it or make it smaller");

  // at the real bounds: a List bigger than the bound on a whole document (128 MiB, what next()
  // holds), written as it is read, each item 64 KiB: each() gives every item
  const std::size_t n = tfjob::limits::max_manifest_bytes / (64 * 1024) + 16;
  ListBuf lb(n, 64 * 1024);
  std::istream huge(&lb);
  std::size_t count = 0;
  std::string last;
  tfjob::ManifestReader r(huge, "huge.json");
  r.each([&](json&& o, const tfjob::ObjectPlace& at) {
    ++count;
    last = o["metadata"]["name"];
    CHECK(at.item == count - 1);
  });
  CHECK(count == n);
  CHECK(last == "p" + std::to_string(n));
}

TEST_CASE("an item over a bound is refused by its place in the List", "[api][manifest][stream][list][hostile]") {
  // too big: the item is named by its number and line, as is every other object over the bound
  // (4 KiB here; a parser reads a little ahead, so an object is refused once well past it)
  const std::string big = "    annotations: {pad: " + std::string(65536, 'y') + "}\n";
  std::string text = pod_list(1);
  text.insert(text.find("kind: List"), "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: big\n" + big +
                                           "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: after\n");
  const std::string cm = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  big: " + std::string(65536, 'z') + "\n";
  text += cm;
  std::istringstream in(text);
  std::vector<std::string> seen;
  tfjob::ManifestReader r(in, "state.yaml", 4096);
  const std::string e = error_of([&] { r.each([&](json&& o, const tfjob::ObjectPlace&) { seen.push_back(o["metadata"]["name"]); }); });
  CHECK(seen == std::vector<std::string>{"p1"});  // nothing after the first object over the bound
  CHECK(e == "state.yaml: document 1 (line 1), item 2 (line 7): more than the 4 KiB one object may have "
             "(kube-apiserver's bound on a request body); split it or make it smaller\n"
             "state.yaml: document 2 (line 19): " + tfjob::detail::human_bytes(cm.size()) + " is more than the 4 KiB one object may have "
             "(kube-apiserver's bound on a request body); split it or make it smaller");

  // too deep: yaml-cpp's bound, in the item that holds it
  std::string deep = pod_list(1);
  deep.insert(deep.find("kind: List"), "- kind: Pod\n  spec: " + std::string(600, '[') + std::string(600, ']') + "\n");
  std::istringstream din(deep);
  const std::string d = error_of([&] { each_of(din, "deep.yaml"); });
  CHECK(d.rfind("deep.yaml: document 1 (line 1), item 2 (line 7): line 8, column ", 0) == 0);
  CHECK(d.find(": exceeded max depth of 500 nested mappings and sequences (the YAML parser's bound)") != std::string::npos);
  std::string jdeep = R"({"items": [{"kind": "Pod"}, )" "\n" + std::string(10001, '[') + std::string(10001, ']') + "]}";
  std::istringstream jdin(jdeep);
  CHECK(error_of([&] { each_of(jdin, "deep.json"); }) ==
        "deep.json: document 1 (line 1), item 2 (line 2): invalid JSON at line 2, column 9999: exceeded max depth of 10000 "
        "nested arrays and objects");

  // a binary byte: refused by its byte, line and column, in the item that holds it
  std::string bin = pod_list(2);
  bin.replace(bin.find("name: p2"), 8, std::string("name: p\0", 8));
  std::istringstream bin_in(bin);
  CHECK(error_of([&] { each_of(bin_in, "bin.yaml"); }) ==
        "bin.yaml: document 1 (line 1), item 2 (line 7): not YAML or JSON text (a binary file?): byte " +
            std::to_string(bin.find('\0')) + " (line 10, column 12) is 0x00, a control character");

  // an alias bomb inside an item: go-yaml's ratio rule, in that item
  std::string bomb = "- kind: Pod\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'f'; ++c)
    bomb += std::string("  ") + c + ": &" + c + " [*" + static_cast<char>(c - 1) + ", *" + static_cast<char>(c - 1) + ", *" +
            static_cast<char>(c - 1) + ", *" + static_cast<char>(c - 1) + ", *" + static_cast<char>(c - 1) + ", *" +
            static_cast<char>(c - 1) + ", *" + static_cast<char>(c - 1) + ", *" + static_cast<char>(c - 1) + ", *" +
            static_cast<char>(c - 1) + ", *" + static_cast<char>(c - 1) + "]\n";
  std::string aliased = pod_list(1);
  aliased.insert(aliased.find("kind: List"), bomb);
  std::istringstream ain(aliased);
  const std::string a = error_of([&] { each_of(ain, "bomb.yaml"); });
  CHECK(a.rfind("bomb.yaml: document 1 (line 1), item 2 (line 7): line ", 0) == 0);
  CHECK(a.find("document contains excessive aliasing") != std::string::npos);
}
