// tfjob/detail/json.hpp: the readers of a server's answer never throw and never convert a
// number out of range (nlohmann's value() throws type_error 302/306 and parse_error 109).
#include <catch2/catch.hpp>

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
