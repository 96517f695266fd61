# ASan + UBSan for the dev preset. UBSan stays recoverable so that its suppressions file works;
# UBSAN_OPTIONS=halt_on_error=1 (tests/CMakeLists.txt) still makes any report fail the test.
# Only C/C++ translation units get the flags: nvcc cannot take them.
if(PIPESCOPE_SANITIZE)
  set(_san -fsanitize=address,undefined -fno-omit-frame-pointer)
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${_san}>")
  add_link_options(-fsanitize=address,undefined)
endif()
