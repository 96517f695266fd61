# Fails when any tracked C++ source differs from what .clang-format produces.
file(GLOB_RECURSE sources
  ${ROOT}/trace/*.h ${ROOT}/trace/*.cpp ${ROOT}/runtime/*.h ${ROOT}/runtime/*.cpp
  ${ROOT}/kernels/*.h ${ROOT}/kernels/*.cpp ${ROOT}/kernels/*.cu ${ROOT}/ui/*.h ${ROOT}/ui/*.cpp
  ${ROOT}/app/*.h ${ROOT}/app/*.cpp ${ROOT}/tests/*.h ${ROOT}/tests/*.cpp)
list(FILTER sources EXCLUDE REGEX "/build/")
execute_process(COMMAND ${CLANG_FORMAT} --dry-run -Werror --style=file ${sources}
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "clang-format: these files need formatting (run scripts/format):\n${err}")
endif()
