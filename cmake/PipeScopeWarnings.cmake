# One place for the project's warning flags; applied per target so third-party code is untouched.
function(pipescope_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wnon-virtual-dtor -Wno-missing-field-initializers>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wshadow=local>
    # GCC 12 at -O2 reports -Wrestrict inside libstdc++'s own std::string concatenation
    # (char_traits.h memcpy "may overlap"; GCC bug 105329, fixed in 13): noise in every Release
    # build that would hide a real warning.
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>)
endfunction()
