// Unit tests of GCS fault tolerance's pure pieces: launcher/redis (RESP, key rules, error
// classes, the wait loop on a fake clock), its settings and its part of the plan. No server.
#define CATCH_CONFIG_RUNNER
#include <spdlog/spdlog.h>

#include <catch2/catch.hpp>

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::off);  // the wait loop logs progress; tests assert on results
  return Catch::Session().run(argc, argv);
}
