// The SDK's shared helpers, one of each (issue 13): the duration parser, the RFC 3339
// parser, the table renderer and the child-process helper; their edge cases, since each
// takes outside input or stands in for several former copies.
#include <catch2/catch.hpp>

#include <tfjob/detail/table.hpp>
#include <tfjob/detail/time.hpp>
#include <tfjob/kube/detail/process.hpp>
#include <tfjob/kube/detail/util.hpp>
#include <tfjob/kube/jsonpath.hpp>
#include <tfjob/workflow/status.hpp>

#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

using namespace std::chrono_literals;

TEST_CASE("duration: Go's time.ParseDuration forms and kubectl's bare seconds", "[helpers][duration]") {
  using tfjob::kube::detail::parse_duration;
  // held in whole milliseconds, rounded up: a positive duration never becomes 0 (no limit)
  CHECK(parse_duration("10\xc2\xb5s1s", "x") == 1001ms);  // micro sign
  CHECK(parse_duration("10\xce\xbcs1s", "x") == 1001ms);  // Greek mu
  CHECK(parse_duration("100ns", "x") == 1ms);
  CHECK(parse_duration("2562047h", "x") == std::chrono::hours(2562047));  // Go's maximum, whole hours
  CHECK_THROWS_WITH(parse_duration("2562048h", "--timeout"), Catch::Contains("out of range"));
  CHECK_THROWS_WITH(parse_duration("", "--timeout"), Catch::Contains("invalid --timeout \"\""));
  CHECK_THROWS_WITH(parse_duration("1m 30s", "--timeout"), Catch::Contains("unknown unit \"m \""));
  CHECK_THROWS_WITH(parse_duration("s", "--since"), Catch::Contains("--since"));
  // a long input is shown cut, not whole
  CHECK_THROWS_WITH(parse_duration(std::string(500, 'x'), "--timeout"), Catch::Contains("...\"") && !Catch::Contains(std::string(100, 'x')));
}

TEST_CASE("RFC 3339: one parser for metav1.Time, log timestamps and expirationTimestamp", "[helpers][time]") {
  using tfjob::detail::parse_rfc3339;
  using tfjob::detail::rfc3339_seconds;
  std::int64_t s = 0, ns = 0;
  REQUIRE(parse_rfc3339("1970-01-01T00:00:00Z", s, ns));
  CHECK(s == 0);
  CHECK(rfc3339_seconds("2024-02-29T23:59:59Z") == 1709251199);  // a leap day
  CHECK(rfc3339_seconds("2000-03-01T00:00:00Z") == 951868800);    // after 2000's leap day (a 400-year leap)
  CHECK(rfc3339_seconds("1969-12-31T23:59:59Z") == -1);
  CHECK(rfc3339_seconds("2024-05-01T12:00:00+02:00") == rfc3339_seconds("2024-05-01T10:00:00Z"));
  CHECK(rfc3339_seconds("2024-05-01T10:00:00-00:30") == rfc3339_seconds("2024-05-01T10:30:00Z"));
  REQUIRE(parse_rfc3339("2024-05-01T10:00:00.5Z", s, ns));
  CHECK(ns == 500000000);
  REQUIRE(parse_rfc3339("2024-05-01T10:00:00.1234567891234Z", s, ns));  // past nanoseconds: dropped
  CHECK(ns == 123456789);
  // Go's time.Parse refuses what is out of range instead of rolling it over
  for (const char* bad : {"2024-13-01T00:00:00Z", "2024-00-10T00:00:00Z", "2023-02-29T00:00:00Z", "2024-04-31T00:00:00Z",
                          "2024-01-01T24:00:00Z", "2024-01-01T00:60:00Z", "2024-01-01T00:00:60Z", "2024-01-01T00:00:00+24:00",
                          "2024-01-01T00:00:00", "2024-01-01T00:00:00Zjunk", "2024-01-01", "", "+024-01-01T00:00:00Z",
                          "2024-01-01T00:00:00+0100"})
    CHECK_FALSE(rfc3339_seconds(bad));
  // the workflow's reader of status times is the same parser
  CHECK(tfjob::workflow::parse_time("2024-05-01T12:00:00+02:00") == rfc3339_seconds("2024-05-01T10:00:00Z"));
  CHECK_FALSE(tfjob::workflow::parse_time("2024-05-01 garbage"));
  CHECK(tfjob::workflow::age("2024-05-01T10:00:00Z", *tfjob::workflow::parse_time("2024-05-01T10:05:30Z")) == "5m30s");
  CHECK(tfjob::detail::format_rfc3339(1709251199) == "2024-02-29T23:59:59Z");
}

TEST_CASE("table: columns padded to the widest cell by 3 spaces, UTF-8 counted as characters", "[helpers][table]") {
  using tfjob::detail::render_table;
  CHECK(render_table({{"NAME", "STATE"}, {"a", "Running"}, {"longer", ""}}) == "NAME     STATE\n"
                                                                                "a        Running\n"
                                                                                "longer\n");
  // rows of different lengths; an indent for nested tables (describe)
  CHECK(render_table({{"A", "B", "C"}, {"x"}}, "  ") == "  A   B   C\n  x\n");
  // a µ is one column, not two bytes
  CHECK(render_table({{"µs", "x"}, {"ab", "y"}}) == "µs   x\nab   y\n");
  // painted cells keep the alignment: escape codes are not counted
  auto painted = render_table({{"A", "B"}, {"x", "y"}}, "", [](std::size_t row, std::size_t col, const std::string& cell) {
    return row == 1 && col == 0 ? "\033[31m" + cell + "\033[0m" : cell;
  });
  CHECK(painted == "A   B\n\033[31mx\033[0m   y\n");
  CHECK(render_table({}).empty());
}

namespace {
struct Ran {
  tfjob::kube::detail::Child child;
  std::string out;
  int code = -1;
};
Ran run(const tfjob::kube::detail::ChildSpec& spec) {
  Ran r;
  r.child = tfjob::kube::detail::start_child(spec);
  REQUIRE(r.child.pid > 0);
  tfjob::kube::detail::read_to_end(r.child.out_fd, r.out);
  ::close(r.child.out_fd);
  r.code = tfjob::kube::detail::exit_code_of(tfjob::kube::detail::wait_child(r.child.pid));
  return r;
}
}  // namespace

TEST_CASE("child process: argv without a shell, environment overrides, exec failures told to the parent", "[helpers][process]") {
  using tfjob::kube::detail::ChildSpec;
  ::setenv("TFJOB_HELPERS_KEEP", "kept", 1);
  ::setenv("TFJOB_HELPERS_OVERRIDE", "old", 1);
  ChildSpec spec;
  spec.program = "sh";  // found on PATH
  spec.argv = {"sh", "-c", "printf '%s|%s|%s|' \"$1\" \"$TFJOB_HELPERS_KEEP\" \"$TFJOB_HELPERS_OVERRIDE\"; "
                           "env | grep -c '^TFJOB_HELPERS_OVERRIDE='; exit 3",
               "arg0", "a b;$(no shell)"};
  spec.env = {{"TFJOB_HELPERS_OVERRIDE", "new"}};
  auto r = run(spec);
  CHECK(r.child.exec_errno == 0);
  CHECK(r.out == "a b;$(no shell)|kept|new|1\n");  // the variable once, with the new value
  CHECK(r.code == 3);

  // stderr: inherited unless asked onto the pipe
  spec.argv = {"sh", "-c", "echo out; echo err >&2"};
  spec.stderr_to_pipe = true;
  CHECK(run(spec).out == "out\nerr\n");

  // a signal is 128 + its number, as a shell reports it
  spec.argv = {"sh", "-c", "kill -TERM $$"};
  CHECK(run(spec).code == 128 + SIGTERM);

  // a program that is not there: the parent learns ENOENT, the child exits 127 and can say why
  ChildSpec missing;
  missing.program = "tfjob-no-such-program-here";
  missing.stderr_to_pipe = true;
  missing.exec_failure_prefix = "exec tfjob-no-such-program-here: ";
  auto m = run(missing);
  CHECK(m.child.exec_errno == ENOENT);
  CHECK(m.code == 127);
  CHECK_THAT(m.out, Catch::StartsWith("exec tfjob-no-such-program-here: No such file or directory"));
  ChildSpec path;
  path.program = "/nonexistent/dir/prog";
  CHECK(run(path).child.exec_errno == ENOENT);

  // a working directory of its own; a bad one is a failure told to both
  ChildSpec cwd;
  cwd.program = "/bin/sh";
  cwd.argv = {"sh", "-c", "pwd"};
  cwd.cwd = "/";
  CHECK(run(cwd).out == "/\n");
  cwd.cwd = "/nonexistent-dir-for-tfjob";
  cwd.stderr_to_pipe = true;
  auto bad = run(cwd);
  CHECK(bad.child.exec_errno == ENOENT);
  CHECK_THAT(bad.out, Catch::StartsWith("chdir failed: "));

  // a process group of its own
  ChildSpec group;
  group.program = "/bin/sh";
  group.argv = {"sh", "-c", "cut -d' ' -f5 /proc/$$/stat; echo $$"};  // field 5: the process group
  group.own_process_group = true;
  auto g = run(group);
  CHECK(g.out == std::to_string(g.child.pid) + "\n" + std::to_string(g.child.pid) + "\n");

  // a bounded read stops at the bound
  std::string text;
  ChildSpec big;
  big.program = "/bin/sh";
  big.argv = {"sh", "-c", "head -c 200000 /dev/zero"};
  auto c = tfjob::kube::detail::start_child(big);
  REQUIRE(c.pid > 0);
  CHECK_FALSE(tfjob::kube::detail::read_to_end(c.out_fd, text, 1000));
  CHECK(text.size() <= 1000);
  ::close(c.out_fd);
  tfjob::kube::detail::wait_child(c.pid);
}

TEST_CASE("relaxed JSONPath: kubectl's forms for custom-columns and --sort-by, and its refusals", "[helpers][jsonpath]") {
  using tfjob::kube::relaxed_jsonpath;
  for (const char* e : {"metadata.name", ".metadata.name", "{metadata.name}", "{.metadata.name}"})
    CHECK(relaxed_jsonpath(e) == "{.metadata.name}");
  // kubectl's jsonRegexp takes one path, no brace inside: {.a, {{.a}, .a}.b are not one
  for (const char* e : {"{.a", "{{.a}", ".a}.b", "{.a}{.b}"}) {
    INFO(e);
    CHECK_THROWS_WITH(relaxed_jsonpath(e), Catch::Contains("unexpected path string, expected a 'name1.name2'"));
  }
  CHECK_THROWS(relaxed_jsonpath(""));
  CHECK_THROWS(relaxed_jsonpath("{}"));
}
