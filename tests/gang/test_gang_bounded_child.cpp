#include <catch2/catch.hpp>

#include <thread>

#include "gang/bounded_child.hpp"

using namespace launcher::gang;
using std::chrono::milliseconds;

TEST_CASE("a bounded child: its output and its status", "[gang][child]") {
  const ChildResult r = run_bounded("/bin/echo", {"echo", "hello", "fabric"}, milliseconds(5'000), {});
  CHECK(r.end == ChildEnd::exited);
  CHECK(r.output == "hello fabric\n");
  CHECK(r.status == 0);
  const ChildResult failed = run_bounded("/bin/false", {"false"}, milliseconds(5'000), {});
  CHECK(failed.status == 1);
}

TEST_CASE("a bounded child that outlives its bound is killed at it", "[gang][child]") {
  const auto started = std::chrono::steady_clock::now();
  const ChildResult r = run_bounded("/bin/sleep", {"sleep", "30"}, milliseconds(300), {});
  CHECK(r.end == ChildEnd::timed_out);
  CHECK(r.status == 128 + 9);  // SIGKILL
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
}

TEST_CASE("a bounded child ends when its stop is requested", "[gang][child]") {
  std::stop_source stop;
  std::jthread stopper([&] {
    std::this_thread::sleep_for(milliseconds(200));
    stop.request_stop();
  });
  const ChildResult r = run_bounded("/bin/sleep", {"sleep", "30"}, milliseconds(30'000), stop.get_token());
  CHECK(r.end == ChildEnd::stopped);
}

TEST_CASE("a program that is not there does not start, and says why", "[gang][child]") {
  const ChildResult r = run_bounded("/opt/none/fi_pingpong", {"fi_pingpong"}, milliseconds(1'000), {});
  CHECK(r.end == ChildEnd::not_started);
  CHECK(r.output == "/opt/none/fi_pingpong: No such file or directory");
}
