# Every dependency comes from Debian 12's packages (see scripts/deps).
find_package(PkgConfig REQUIRED)
pkg_check_modules(GRPCPP REQUIRED grpc++_unsecure protobuf libcares)  # c-ares: also used directly (launcher/gcs/dns_lookup.cpp)
find_program(PROTOC protoc REQUIRED)
find_program(GRPC_CPP_PLUGIN grpc_cpp_plugin REQUIRED)
find_package(Threads REQUIRED)

# Header-only use of spdlog and fmt: nothing of them to link, statically or not.
add_library(deps_headers INTERFACE)
target_compile_definitions(deps_headers INTERFACE SPDLOG_HEADER_ONLY SPDLOG_FMT_EXTERNAL FMT_HEADER_ONLY)
target_link_libraries(deps_headers INTERFACE Threads::Threads)

add_library(deps_grpc_headers INTERFACE)
target_include_directories(deps_grpc_headers SYSTEM INTERFACE ${GRPCPP_INCLUDE_DIRS})
target_compile_options(deps_grpc_headers INTERFACE ${GRPCPP_CFLAGS_OTHER})

# Shared linking, for the test programs (links in a second instead of fifteen).
add_library(deps_grpc_shared INTERFACE)
target_link_libraries(deps_grpc_shared INTERFACE ${GRPCPP_LINK_LIBRARIES} Threads::Threads)

# Fully static: Debian's .a archives of grpc++_unsecure, protobuf, absl, upb, re2, c-ares,
# address_sorting and zlib. pkg-config's --static list misses upb/re2/cares/address_sorting
# (Debian 12's grpc.pc), so they are named here; the group resolves the cycles among them.
function(raylaunch_link_static target)
  target_link_options(${target} PRIVATE -static -s -Wl,--gc-sections)
  target_link_libraries(${target} PRIVATE
    -Wl,--start-group ${GRPCPP_STATIC_LDFLAGS} -lupb -lre2 -lcares -laddress_sorting
    -Wl,--end-group Threads::Threads)
endfunction()

# How a shipped program links: fully static by default (RAYLAUNCH_STATIC), else shared.
function(raylaunch_link_program target)
  if(RAYLAUNCH_STATIC)
    raylaunch_link_static(${target})
  else()
    target_link_libraries(${target} PRIVATE deps_grpc_shared)
  endif()
endfunction()
