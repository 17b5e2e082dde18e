# The version and git commit in `raylaunch version`, taken at *build* time (as mold's
# update-git-hash.cmake does): a configure-time commit goes stale with every new commit.
# cmake/UpdateGitHash.cmake rewrites version.hpp only when the text changes, so an unchanged
# commit rebuilds nothing.
set(RAYLAUNCH_VERSION_STRING "${PROJECT_VERSION}")
set(RAYLAUNCH_VERSION_DIR ${CMAKE_BINARY_DIR}/version)
file(MAKE_DIRECTORY ${RAYLAUNCH_VERSION_DIR})
add_custom_target(raylaunch_git_version
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DVERSION=${RAYLAUNCH_VERSION_STRING}
          -DOUTPUT=${RAYLAUNCH_VERSION_DIR}/version.hpp -P ${CMAKE_SOURCE_DIR}/cmake/UpdateGitHash.cmake
  BYPRODUCTS ${RAYLAUNCH_VERSION_DIR}/version.hpp
  COMMENT "" VERBATIM)
