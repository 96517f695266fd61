# Runs one libFuzzer target for SECONDS seconds on a scratch corpus seeded from SEEDS.
# Fails when the fuzzer finds a crash, a leak, a timeout or a sanitizer report.
file(MAKE_DIRECTORY ${CORPUS})
file(GLOB seeds ${SEEDS}/*)
foreach(seed IN LISTS seeds)
  file(COPY ${seed} DESTINATION ${CORPUS})
endforeach()
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048 -max_len=65536
          -print_final_stats=1 -artifact_prefix=${CORPUS}/../ ${CORPUS}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${FUZZER} failed (exit ${rc}); the crashing input is next to ${CORPUS}")
endif()
