# The layer check (LayerIncludes.cmake) on a small tree (fixture/): it must fail, naming the
# direct include of app/cli/Direct.cpp and the chain from ui/Bad.cpp through two runtime headers,
# and must not name ui/Good.cpp, whose runtime header only declares a kernels type.
# cmake -DHERE=<this folder> -P LayerIncludesSelfTest.cmake
execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${HERE}/fixture -P ${HERE}/LayerIncludes.cmake
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(APPEND out "${err}")
string(REGEX REPLACE "\n +" " " flat "${out}")  # message() wraps long lines
set(problems "")
if(rc EQUAL 0)
  list(APPEND problems "the check passed a tree with two violations")
endif()
foreach(expected
    "2 include\\(s\\) reach kernels/ from ui app"
    "kernels/cpu/Private.h <- runtime/Leaky.h <- runtime/Clean.h <- ui/Bad.cpp"
    "kernels/cpu/Private.h <- app/cli/Direct.cpp")
  if(NOT flat MATCHES "${expected}")
    list(APPEND problems "missing: ${expected}")
  endif()
endforeach()
if(flat MATCHES "Good.cpp|Forward.h")
  list(APPEND problems "named ui/Good.cpp, which reaches no kernels header")
endif()
if(problems)
  list(JOIN problems "\n  " listed)
  message(FATAL_ERROR "LayerIncludes.cmake on fixture/:\n  ${listed}\nits output:\n${out}")
endif()
