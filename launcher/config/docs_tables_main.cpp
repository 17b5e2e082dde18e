// raylaunch-docs-tables: prints or rewrites docs/run.md's generated tables (settings, exit codes).
//   raylaunch-docs-tables settings|exit-codes   print one table (markdown)
//   raylaunch-docs-tables --write docs/run.md   regenerate both tables in place
// The unit test "docs/run.md's generated tables match the code" fails while they differ.
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "config/docs_tables.hpp"
#include "util/exit_codes.hpp"

int main(int argc, char** argv) {
  using namespace launcher;
  const std::string what = argc > 1 ? argv[1] : "";
  try {
    if (argc == 2 && what == "settings") {
      std::cout << settings_markdown();
    } else if (argc == 2 && what == "exit-codes") {
      std::cout << exit_codes_markdown();
    } else if (argc == 3 && what == "--write") {
      std::ifstream in(argv[2]);
      std::stringstream doc;
      doc << in.rdbuf();
      if (!in) {
        std::cerr << "raylaunch-docs-tables: cannot read " << argv[2] << "\n";
        return 66;  // EX_NOINPUT
      }
      const std::string updated = with_generated_tables(doc.str());
      std::ofstream(argv[2], std::ios::trunc) << updated;
    } else {
      std::cerr << "usage: raylaunch-docs-tables settings|exit-codes|--write docs/run.md\n";
      return exit_code::usage;
    }
  } catch (const std::exception& e) {
    std::cerr << "raylaunch-docs-tables: " << argv[argc - 1] << ": " << e.what() << "\n";
    return exit_code::software;
  }
  return std::fflush(stdout) == 0 ? 0 : exit_code::io_error;
}
