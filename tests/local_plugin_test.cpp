// `kubectl tfjob submit hello --local` as a user runs it: the real plugin binary finds the
// hello-tfjob trainer in the build tree; Ctrl-C (SIGINT to the plugin) stops every replica
// and the plugin exits 130 (128 + SIGINT).
#include <catch2/catch.hpp>

#include "support/local_jobs.hpp"
#include "support/paths.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace {

bool wait_for_text(const std::string& path, const std::string& needle, std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (tfjob::test::read_text(path).find(needle) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

}  // namespace

TEST_CASE("submit hello --local: Ctrl-C stops every replica and exits 130, as a shell reports SIGINT", "[local][plugin]") {
  const std::string plugin = tfjob::test::plugin_path();
  REQUIRE(!plugin.empty());
  const std::string dir = tfjob::test::scratch_dir("plugin-sigint");
  const std::string out = dir + "/stdout.txt";
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execl(plugin.c_str(), plugin.c_str(), "submit", "hello", "--local", "--workers", "2", "--state-dir",
            (dir + "/state").c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  bool training = wait_for_text(dir + "/state/logs/chief-0.log", "first training step", std::chrono::seconds(120));
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  INFO(tfjob::test::read_text(out));
  REQUIRE(training);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  std::string text = tfjob::test::read_text(out);
  CHECK(text.find("stopped by SIGINT") != std::string::npos);
  CHECK(text.find("hello   Failed") != std::string::npos);  // the job is named as the sample
  for (const char* r : {"chief-0", "worker-0", "worker-1"}) {
    auto pids = tfjob::test::pids_in_file(dir + "/state/logs/" + r + ".log");
    REQUIRE_FALSE(pids.empty());
    for (int p : pids) CHECK(tfjob::test::process_gone(p));
  }
}
