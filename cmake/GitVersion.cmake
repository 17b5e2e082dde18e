# Bake the version and git commit into the binary (`raylaunch version`).
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                OUTPUT_VARIABLE RAYLAUNCH_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET RESULT_VARIABLE git_rc)
if(NOT git_rc EQUAL 0 OR RAYLAUNCH_GIT_COMMIT STREQUAL "")
  set(RAYLAUNCH_GIT_COMMIT "unknown")
endif()
set(RAYLAUNCH_VERSION_STRING "${PROJECT_VERSION}")
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/version)
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/version/version.hpp CONTENT
"#pragma once
namespace launcher {
inline constexpr const char* k_version = \"${RAYLAUNCH_VERSION_STRING}\";
inline constexpr const char* k_git_commit = \"${RAYLAUNCH_GIT_COMMIT}\";
}
")
