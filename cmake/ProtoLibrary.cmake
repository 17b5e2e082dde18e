# proto_library(TARGET DIR STEM...): a static library of the C++ and gRPC code protoc generates
# from DIR/STEM.proto, with its generated headers on the include path.
function(proto_library target dir)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${target}_generated)
  file(MAKE_DIRECTORY ${out})
  set(srcs)
  foreach(stem ${ARGN})
    set(proto ${dir}/${stem}.proto)
    add_custom_command(
      OUTPUT ${out}/${stem}.pb.cc ${out}/${stem}.pb.h ${out}/${stem}.grpc.pb.cc ${out}/${stem}.grpc.pb.h
      COMMAND ${PROTOC} --proto_path=${dir} --cpp_out=${out} --grpc_out=${out}
              --plugin=protoc-gen-grpc=${GRPC_CPP_PLUGIN} ${proto}
      DEPENDS ${proto}
      COMMENT "protoc ${stem}.proto (${target})")
    list(APPEND srcs ${out}/${stem}.pb.cc ${out}/${stem}.grpc.pb.cc)
  endforeach()
  add_library(${target} STATIC ${srcs})
  target_include_directories(${target} SYSTEM PUBLIC ${out})
  target_link_libraries(${target} PUBLIC deps_grpc_headers PRIVATE deps_link)
endfunction()
