// Unit tests of the GCS client's pure pieces (launcher/gcs/); no network, no real time.
#define CATCH_CONFIG_RUNNER
#include <spdlog/spdlog.h>

#include <catch2/catch.hpp>

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::off);  // the loops log progress; tests assert on results
  return Catch::Session().run(argc, argv);
}
