# Run by ctest (through the include file pipescope_add_gtest_suites writes): lists a gtest
# executable's tests and declares one ctest test per gtest suite, named after the suite and run
# with --gtest_filter=<suite>.*. One process per suite instead of one per test case: a sanitized
# test binary takes about a second to start and exit, which was most of the suite's time.

function(pipescope_write_suite_tests exe workdir tests_file timeout environment)
  execute_process(COMMAND "${exe}" --gtest_list_tests
    WORKING_DIRECTORY "${workdir}"
    OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE rc TIMEOUT 120)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${exe} --gtest_list_tests failed (${rc}):\n${listing}\n${errors}")
  endif()
  # Suite lines start in column one ("Suite." or "Prefix/Suite.  # TypeParam = ..."); the test
  # lines under them are indented.
  string(REGEX MATCHALL "(^|\n)[A-Za-z0-9_/]+\\." suite_lines "${listing}")
  set(script "")
  foreach(line IN LISTS suite_lines)
    string(REGEX REPLACE "^\n?([A-Za-z0-9_/]+)\\.$" "\\1" suite "${line}")
    # Suites that compare real measured times (name ending in "Serial") run with nothing beside
    # them: another test on the same cores would move their numbers.
    set(serial "")
    if(suite MATCHES "Serial$")
      set(serial " RUN_SERIAL TRUE")
    endif()
    string(APPEND script
      "add_test([=[${suite}]=] \"${exe}\" [==[--gtest_filter=${suite}.*]==])\n"
      "set_tests_properties([=[${suite}]=] PROPERTIES WORKING_DIRECTORY \"${workdir}\""
      " TIMEOUT ${timeout} SKIP_RETURN_CODE 77${serial} ENVIRONMENT [==[${environment}]==])\n")
  endforeach()
  if(script STREQUAL "")
    message(FATAL_ERROR "${exe} lists no gtest suites:\n${listing}")
  endif()
  file(WRITE "${tests_file}" "${script}")
endfunction()
