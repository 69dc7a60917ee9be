// tfjob/detail/json.hpp: the readers of a server's answer never throw and never convert a
// number out of range (nlohmann's value() throws type_error 302/306 and parse_error 109);
// tfjob/detail/input.hpp's read_json leaves out what a JsonOmit names, and nothing else.
#include <catch2/catch.hpp>

#include <tfjob/detail/input.hpp>
#include <tfjob/detail/json.hpp>

#include <cstdint>
#include <limits>

using nlohmann::json;
using tfjob::detail::value_at;

TEST_CASE("value_at: a JSON pointer through a list or a primitive gives the fallback", "[json]") {
  const json cq = json::parse(R"({"spec": ["resourceGroups"], "status": 3})");
  CHECK_THROWS(cq.value("/spec/resourceGroups"_json_pointer, json::array()));  // what nlohmann does
  CHECK(value_at(cq, "/spec/resourceGroups"_json_pointer, json::array()) == json::array());
  CHECK(value_at(cq, "/status/x"_json_pointer, std::string("none")) == "none");
  CHECK(value_at(cq, "/spec/0"_json_pointer, std::string()) == "resourceGroups");  // an index step is taken
  CHECK(tfjob::detail::json_at(cq, "/spec/1"_json_pointer) == nullptr);
}

TEST_CASE("value_at: a value of another type, or a receiver that is not an object, gives the fallback", "[json]") {
  const json pod = json::parse(R"({"metadata": {"name": 5, "labels": ["a"]}, "spec": {"nodeName": "n1"}})");
  CHECK(value_at(pod, "/metadata/name"_json_pointer, std::string("?")) == "?");
  CHECK(value_at(pod, "/spec/nodeName"_json_pointer, std::string()) == "n1");
  CHECK(value_at(pod, "/metadata/labels"_json_pointer, json::object()) == json::object());  // a list is not an object
  CHECK(value_at(pod, "/metadata/labels"_json_pointer, json()) == json::array({"a"}));    // a null fallback takes anything
  CHECK(value_at(json(7), "name", "x") == "x");
  CHECK(value_at(json::array({1}), "name", 0) == 0);
  CHECK(tfjob::detail::str_at(json::parse(R"({"a": "b"})"), "a") == "b");
  CHECK_FALSE(tfjob::detail::bool_at(json::parse(R"({"suspend": "true"})"), "suspend"));
  CHECK(tfjob::detail::bool_at(json::parse(R"({"suspend": true})"), "suspend"));
}

TEST_CASE("value_at: numbers are read only within the target type's range", "[json]") {
  const json c = json::parse(R"({"big": 1e300, "neg": -1, "huge": 18446744073709551615, "two": 2.0, "half": 2.5,
                                 "i64": 9223372036854775807, "int": 2147483648})");
  CHECK(value_at(c, "big", 7) == 7);    // a float cast out of int's range would be UB
  CHECK(value_at(c, "two", 7) == 2);
  CHECK(value_at(c, "half", 7) == 7);
  CHECK(value_at(c, "neg", 7u) == 7u);  // no negative into an unsigned
  CHECK(value_at(c, "neg", 7) == -1);
  CHECK(value_at(c, "huge", 7LL) == 7LL);
  CHECK(value_at(c, "huge", std::uint64_t{7}) == std::numeric_limits<std::uint64_t>::max());
  CHECK(value_at(c, "i64", 7LL) == std::numeric_limits<long long>::max());
  CHECK(value_at(c, "int", 7) == 7);
  CHECK(value_at(c, "int", 7LL) == 2147483648LL);
  CHECK(value_at(c, "big", 0.0) == 1e300);
  CHECK(value_at(c, "neg", std::string("x")) == "x");
}

namespace {

/// read_json's value, REQUIREd to be read.
json read_omitting(const std::string& text, const tfjob::detail::JsonOmit& omit) {
  auto r = tfjob::detail::read_json(text, tfjob::limits::max_depth, &omit);
  INFO(r.error);
  REQUIRE(r.ok());
  return r.value;
}

}  // namespace

TEST_CASE("read_json: the fields a JsonOmit names are left out of each item, whatever their kind", "[json][omit]") {
  const std::string page = R"({"kind": "TFJobList", "metadata": {"resourceVersion": "7", "continue": ""},
    "items": [
      {"metadata": {"name": "a", "uid": "u1", "managedFields": [{"manager": "m", "fieldsV1": {"f:spec": {}}}],
                    "labels": {"spec": "kept"}},
       "spec": {"tfReplicaSpecs": {"Worker": {"replicas": 4, "template": {"spec": {"containers": [{"name": "t"}]}}}}},
       "status": {"conditions": [{"type": "Running", "status": "True"}]}},
      {"metadata": {"name": "b", "managedFields": null}, "spec": "a string", "status": {}},
      {"metadata": {"name": "c"}, "spec": [1, [2, {"spec": 3}]]},
      7
    ],
    "spec": {"not": "an item's"}})";
  tfjob::detail::JsonOmit omit;
  omit.add({"items", "*"}, {"spec", "metadata.managedFields"});
  REQUIRE(omit.paths.size() == 2);
  CHECK(omit.paths[1] == std::vector<std::string>{"items", "*", "metadata", "managedFields"});
  const json got = read_omitting(page, omit);

  // the same as the whole value with those fields erased, and nothing else touched
  json want = json::parse(page);
  for (auto& item : want["items"]) {
    if (!item.is_object()) continue;
    item.erase("spec");
    item["metadata"].erase("managedFields");
  }
  CHECK(got == want);
  CHECK(got["items"][0]["metadata"]["labels"]["spec"] == "kept");  // a key of that name elsewhere stays
  CHECK(got["spec"]["not"] == "an item's");
  CHECK(got["items"][1] == json::parse(R"({"metadata": {"name": "b"}, "status": {}})"));
  CHECK(got["items"][3] == 7);

  // "*" stands for any key as well as any element
  tfjob::detail::JsonOmit any_key;
  any_key.add({"*"}, {"spec"});
  CHECK(read_omitting(R"({"x": {"spec": 1, "k": 2}, "y": {"spec": [3]}})", any_key) ==
        json::parse(R"({"x": {"k": 2}, "y": {}})"));
  // nothing to leave out: the value as it was
  CHECK(read_omitting(page, tfjob::detail::JsonOmit{}) == json::parse(page));
}

TEST_CASE("read_json: a value left out is still read to its end: its syntax and its depth are judged", "[json][omit]") {
  tfjob::detail::JsonOmit omit;
  omit.add({"items", "*"}, {"spec"});
  const auto bad = tfjob::detail::read_json(R"({"items": [{"spec": {"a": [1, 2,]}}]})", tfjob::limits::max_depth, &omit);
  CHECK_FALSE(bad.ok());
  std::string deep = R"({"items": [{"spec": )";
  for (int i = 0; i < 40; ++i) deep += "[";
  for (int i = 0; i < 40; ++i) deep += "]";
  deep += "}]}";
  const auto too_deep = tfjob::detail::read_json(deep, 20, &omit);
  CHECK(too_deep.error.find("exceeded max depth of 20") != std::string::npos);
  CHECK(tfjob::detail::read_json(deep, 50, &omit).value == json::parse(R"({"items": [{}]})"));
}
