# Warnings for our own code (product, tests, fakes, benchmarks); never applied to third-party or
# generated code.
add_library(standard_warnings INTERFACE)
target_compile_options(standard_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                       -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Wunused
                       -Woverloaded-virtual -Wnull-dereference -Wformat=2
                       # GCC 12 false positive on std::string concatenation (GCC bug 105329)
                       -Wno-restrict)
if(RAYLAUNCH_WERROR)
  target_compile_options(standard_warnings INTERFACE -Werror)
endif()
# Smaller static binary: let the linker drop unused sections.
add_compile_options(-ffunction-sections -fdata-sections)

# ASan + UBSan for everything built here (mold's option): a dynamic build, since the
# sanitizers' runtimes cannot be linked fully static.
if(RAYLAUNCH_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# ThreadSanitizer (scripts/test-sanitize thread): the wait threads, the stderr writer and the
# probe thread beside PID 1's event loop. Dynamic, as ASan; gRPC and protobuf are Debian's
# uninstrumented shared libraries (scripts/tsan.supp).
if(RAYLAUNCH_TSAN)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()
