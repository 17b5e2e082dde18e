# Every dependency comes from Debian 12's packages (see scripts/deps). Libraries declare what
# they use through the INTERFACE targets below (headers and compile definitions only); what
# gets linked, statically or not, is decided once per program by raylaunch_link_program().
find_package(PkgConfig REQUIRED)
# The secure gRPC (grpc++, with OpenSSL 3's libssl/libcrypto): Ray's GCS speaks mutual TLS when
# RAY_USE_TLS is on (issue 9). Linked statically it adds ~6 MB (xDS and the TLS stack come with it).
pkg_check_modules(GRPCPP REQUIRED grpc++ protobuf libcares)
pkg_check_modules(OPENSSL REQUIRED libssl libcrypto)
pkg_check_modules(HIREDIS REQUIRED hiredis)
find_program(PROTOC protoc REQUIRED)
find_program(GRPC_CPP_PLUGIN grpc_cpp_plugin REQUIRED)
find_package(Threads REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)

# spdlog and fmt, header-only: nothing of them to link, statically or not.
add_library(deps_log INTERFACE)
target_compile_definitions(deps_log INTERFACE SPDLOG_HEADER_ONLY SPDLOG_FMT_EXTERNAL FMT_HEADER_ONLY)

add_library(deps_json INTERFACE)
target_link_libraries(deps_json INTERFACE nlohmann_json::nlohmann_json)

add_library(deps_cli INTERFACE)  # CLI11, header-only (/usr/include/CLI)

# Boost 1.74: Asio and Beast are header-only; Process (v1) needs Boost.Filesystem linked.
add_library(deps_boost INTERFACE)
target_compile_definitions(deps_boost INTERFACE BOOST_ASIO_NO_DEPRECATED BOOST_ERROR_CODE_HEADER_ONLY)

# GCC 12 at -O2 reports Asio's scheduler (thread_info after inlining) as a "potential null
# pointer dereference" inside /usr/include: a false positive in code that is not ours. Source
# options come after every target's, so this wins over standard_warnings for those files only.
function(raylaunch_asio_sources)
  set_source_files_properties(${ARGN} DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} PROPERTIES COMPILE_OPTIONS
                              -Wno-null-dereference)
endfunction()

add_library(deps_cares INTERFACE)  # c-ares: launcher/net/dns_lookup.cpp
target_include_directories(deps_cares SYSTEM INTERFACE ${GRPCPP_INCLUDE_DIRS})

add_library(deps_hiredis INTERFACE)  # hiredis: launcher/redis only (its RESP reader, <hiredis/read.h>)

add_library(deps_grpc_headers INTERFACE)
target_include_directories(deps_grpc_headers SYSTEM INTERFACE ${GRPCPP_INCLUDE_DIRS})
target_compile_options(deps_grpc_headers INTERFACE ${GRPCPP_CFLAGS_OTHER})

# What gets linked, decided per *program*: libraries that need grpc, protobuf, absl or c-ares
# link `deps_link`, which expands, in the context of the program being linked, to Debian's
# static archives when that program is linked fully static (raylaunch_link_program with
# RAYLAUNCH_STATIC), else to the shared libraries (tests, fakes: links in a second instead of
# fifteen). Being a dependency of those libraries, it lands after them on the link line.
# pkg-config's --static list misses upb/re2/cares/address_sorting (Debian 12's grpc.pc), so
# they are named here; the group resolves the cycles among them. libssl before libcrypto, and
# both after libgrpc, which needs them.
set(RAYLAUNCH_STATIC_LIBS -Wl,--start-group ${GRPCPP_STATIC_LDFLAGS} -lupb -lre2 -lcares -laddress_sorting
    -lssl -lcrypto -lz -lboost_filesystem -lhiredis -Wl,--end-group)
set(is_static "$<BOOL:$<TARGET_PROPERTY:RAYLAUNCH_FULLY_STATIC>>")
add_library(deps_link INTERFACE)
target_link_libraries(deps_link INTERFACE "$<${is_static}:${RAYLAUNCH_STATIC_LIBS}>"
                      "$<$<NOT:${is_static}>:${GRPCPP_LINK_LIBRARIES};${OPENSSL_LINK_LIBRARIES};-lboost_filesystem;${HIREDIS_LINK_LIBRARIES}>"
                      Threads::Threads)

# The old name, for programs that link gRPC directly (fakes, benchmarks).
add_library(deps_grpc_shared INTERFACE)
target_link_libraries(deps_grpc_shared INTERFACE ${GRPCPP_LINK_LIBRARIES} ${OPENSSL_LINK_LIBRARIES} Threads::Threads)

# OpenSSL's headers, for the code that reads and checks PEM files itself (gcs/tls_files.cpp).
add_library(deps_openssl INTERFACE)
target_include_directories(deps_openssl SYSTEM INTERFACE ${OPENSSL_INCLUDE_DIRS})

# How a shipped program links: fully static by default (RAYLAUNCH_STATIC), else shared.
function(raylaunch_link_program target)
  if(RAYLAUNCH_STATIC)
    set_target_properties(${target} PROPERTIES RAYLAUNCH_FULLY_STATIC ON)
    target_link_options(${target} PRIVATE -static -s -Wl,--gc-sections)
  endif()
  target_link_libraries(${target} PRIVATE deps_link)
endfunction()
