// docs/run.md's settings and exit-code tables are generated from the code
// (config/settings.cpp, util/exit_codes.cpp); this fails while the document differs.
#include <catch2/catch.hpp>
#include <algorithm>
#include <fstream>
#include <sstream>

#include "config/docs_tables.hpp"
#include "util/exit_codes.hpp"

using namespace launcher;

namespace {

std::string run_md() {
  std::ifstream in(RAYLAUNCH_TESTS_DIR "/../docs/run.md");
  std::stringstream text;
  text << in.rdbuf();
  REQUIRE(in);
  return text.str();
}

}  // namespace

TEST_CASE("docs/run.md's generated tables match the code (help, config)", "[config][docs]") {
  const std::string doc = run_md();
  const std::string generated = with_generated_tables(doc);
  INFO("docs/run.md's settings or exit-code table differs from the code: regenerate it with "
       "`build/raylaunch-docs-tables --write docs/run.md` (the tables come from launcher/config/settings.cpp and "
       "launcher/util/exit_codes.cpp) and commit the result");
  CHECK(generated == doc);
}

TEST_CASE("the generated tables replace only what lies between their markers", "[config][docs]") {
  const std::string doc =
      "intro\n<!-- generated: settings table (x) -->\nold\n<!-- end: settings table -->\nmiddle\n"
      "<!-- generated: exit codes table (y) -->\n| stale |\n<!-- end: exit codes table -->\noutro\n";
  const std::string out = with_generated_tables(doc);
  CHECK(out.starts_with("intro\n<!-- generated: settings table (x) -->\n| flag | environment |"));
  CHECK(out.find("\n<!-- end: settings table -->\nmiddle\n<!-- generated: exit codes table (y) -->\n| code |") !=
        std::string::npos);
  CHECK(out.ends_with("|\n<!-- end: exit codes table -->\noutro\n"));
  CHECK(out.find("old") == std::string::npos);
  CHECK(out.find("stale") == std::string::npos);
  CHECK(with_generated_tables(out) == out);
  CHECK_THROWS_WITH(with_generated_tables("no markers"), Catch::Contains("<!-- generated: settings table"));
}

TEST_CASE("every code raylaunch returns is in the one exit-code list, once", "[config][docs]") {
  std::vector<int> codes;
  for (const ExitCodeInfo& e : exit_code_list()) {
    codes.push_back(e.code);
  }
  using namespace exit_code;
  for (int code : {ok, unhealthy, usage, unavailable, software, os_error, io_error, temp_fail, no_permission, config,
                   not_executable, not_found, killed_by(0)}) {
    INFO(code);
    CHECK(std::count(codes.begin(), codes.end(), code) == 1);
  }
  const std::string help = exit_codes_help();
  std::string one_line = help;
  std::replace(one_line.begin(), one_line.end(), '\n', ' ');
  CHECK(one_line.find("71 a system call raylaunch cannot do without failed") != std::string::npos);
  for (std::string_view rest = help; !rest.empty();) {  // --help's lines fit a terminal
    const std::size_t line = rest.find('\n');
    CHECK(rest.substr(0, line).size() <= 100);
    rest.remove_prefix(line == std::string_view::npos ? rest.size() : line + 1);
  }
}
