// The process table the supervisor reads (/proc): group membership, and the rule that keeps a
// group signal off a reused process-group id.
#include <unistd.h>

#include <catch2/catch.hpp>

#include "supervisor/processes.hpp"

using namespace launcher::supervisor;

TEST_CASE("group_members: a group is its live members; a reused id is nobody's group", "[supervisor]") {
  const std::vector<ProcessInfo> all = {
      {100, 1, 100, "bash"}, {101, 100, 100, "python3"}, {102, 100, 100, "python3"}, {200, 1, 200, "other"}};
  CHECK(group_members(all, 100, false).size() == 3);
  SECTION("after the leader was reaped, its group lives on in its members") {
    const std::vector<ProcessInfo> left = {{101, 1, 100, "python3"}, {200, 1, 200, "other"}};
    CHECK(group_members(left, 100, true).size() == 1);
  }
  SECTION("a process whose pid is the old group id is a new one: the group is gone") {
    // The kernel keeps a group's id taken while any member lives, so a process with that pid
    // can only exist once every member is gone: signalling -100 would hit a stranger's group.
    const std::vector<ProcessInfo> reused = {{100, 1, 100, "stranger"}, {105, 100, 100, "its child"}};
    CHECK(group_members(reused, 100, true).empty());
  }
  CHECK(group_members(all, 300, false).empty());
}

TEST_CASE("children_of and describe_processes", "[supervisor]") {
  const std::vector<ProcessInfo> all = {{10, 1, 10, "a"}, {11, 1, 11, "b"}, {12, 10, 10, "c"}, {13, 1, 13, "d"},
                                        {14, 1, 14, "e"}};
  const auto kids = children_of(all, 1, {11});
  REQUIRE(kids.size() == 3);
  CHECK(describe_processes(kids) == "pid 10 (a), pid 13 (d), pid 14 (e)");
  CHECK(describe_processes(kids, 2) == "pid 10 (a), pid 13 (d), …");
}

TEST_CASE("list_processes sees this process in its own group", "[supervisor]") {
  const auto all = list_processes();
  const auto mine = group_members(all, ::getpgid(0), false);
  CHECK(std::any_of(mine.begin(), mine.end(), [](const ProcessInfo& p) { return p.pid == ::getpid(); }));
}
