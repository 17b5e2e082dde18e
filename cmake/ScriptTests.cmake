# raylaunch_script_tests(PREFIX DIR TIMEOUT [ENV...]): one ctest per DIR/test_*.sh, named
# PREFIX.<script>, run with bash and the ENV entries ("NAME=value"); exit 125 means skipped.
# Every end-to-end suite (one script per behaviour) registers this way.
function(raylaunch_script_tests prefix dir timeout)
  file(GLOB scripts CONFIGURE_DEPENDS ${dir}/test_*.sh)
  foreach(script ${scripts})
    get_filename_component(name ${script} NAME_WE)
    add_test(NAME ${prefix}.${name} COMMAND bash ${script})
    set_tests_properties(${prefix}.${name} PROPERTIES ENVIRONMENT "${ARGN}" SKIP_RETURN_CODE 125 TIMEOUT ${timeout})
  endforeach()
endfunction()
