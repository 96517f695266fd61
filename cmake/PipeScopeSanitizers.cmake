# ASan + UBSan for the dev preset. UBSan stays recoverable so that its suppressions file works;
# halt_on_error=1 (tests/sanitizer/SanitizerDefaults.cpp, linked into every executable) still
# makes any report fail the program. Only C/C++ translation units get the flags: nvcc cannot
# take them.
if(PIPESCOPE_SANITIZE)
  set(_san -fsanitize=address,undefined -fno-omit-frame-pointer)
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${_san}>")
  add_link_options(-fsanitize=address,undefined)
  add_library(pipescope_sanitizer_defaults OBJECT
    ${CMAKE_CURRENT_SOURCE_DIR}/tests/sanitizer/SanitizerDefaults.cpp)
  target_compile_definitions(pipescope_sanitizer_defaults PRIVATE
    PIPESCOPE_SANITIZER_DIR="${CMAKE_CURRENT_SOURCE_DIR}/tests/sanitizer")
endif()

# Every executable calls this: under the dev preset it gets the default sanitizer options.
function(pipescope_executable_defaults target)
  if(PIPESCOPE_SANITIZE)
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:pipescope_sanitizer_defaults>)
  endif()
endfunction()
