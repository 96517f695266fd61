# Layers point one way (DESIGN §1): kernels/ is private to runtime. Fails when a source under ui/
# or app/ reaches a kernels/ header, directly or through the headers it includes: a runtime header
# that ui or app includes is runtime's public face, so it may not include kernels/ either (it
# forward-declares what it names; ui and app ask runtime/run/BackendDescription.h).
#
# Why a walk over #include lines and not the include path: every library exports the project root
# (headers are spelled "kernels/cpu/Gemm.h" from it), so linking ps_kernels PRIVATE to ps_runtime
# does not hide its headers from ui or app, and a separate include root per layer would move every
# header of the project. The walk resolves quoted includes as the compiler does (the including
# file's folder, then the root) and <top/...> includes from the root, and ignores #if: a header
# behind PIPESCOPE_HAVE_MPI counts too, so the answer does not depend on what this machine builds.
#
# cmake -DROOT=<source tree> [-DFROM=ui;app] [-DPRIVATE=kernels] -P LayerIncludes.cmake
cmake_minimum_required(VERSION 3.25)
if(NOT ROOT)
  message(FATAL_ERROR "LayerIncludes.cmake: give -DROOT=<source tree>")
endif()
if(NOT FROM)
  set(FROM ui app)
endif()
if(NOT PRIVATE)
  set(PRIVATE kernels)
endif()

# Every file of the front-end layers starts the walk; parent__<file> is the file that first
# included it ("-" for a starting file), kept to print the chain that reaches a private header.
set(queue "")
foreach(top IN LISTS FROM)
  file(GLOB_RECURSE files RELATIVE "${ROOT}" "${ROOT}/${top}/*.h" "${ROOT}/${top}/*.hpp"
       "${ROOT}/${top}/*.cpp")
  foreach(file IN LISTS files)
    set("parent__${file}" "-")
    list(APPEND queue "${file}")
  endforeach()
endforeach()
list(LENGTH queue starts)

function(chain_of file out)
  set(chain "${file}")
  set(at "${file}")
  while(NOT "${parent__${at}}" STREQUAL "-")
    set(at "${parent__${at}}")
    string(APPEND chain " <- ${at}")
  endwhile()
  set(${out} "${chain}" PARENT_SCOPE)
endfunction()

set(violations "")
set(walked 0)
while(queue)
  list(POP_FRONT queue file)
  math(EXPR walked "${walked} + 1")
  get_filename_component(dir "${file}" DIRECTORY)
  file(STRINGS "${ROOT}/${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "#[ \t]*include[ \t]*([\"<])([^\">]+)")
      continue()
    endif()
    set(name "${CMAKE_MATCH_2}")
    set(found "")
    if(CMAKE_MATCH_1 STREQUAL "\"" AND EXISTS "${ROOT}/${dir}/${name}"
       AND NOT IS_DIRECTORY "${ROOT}/${dir}/${name}")
      set(found "${ROOT}/${dir}/${name}")
    elseif(EXISTS "${ROOT}/${name}" AND NOT IS_DIRECTORY "${ROOT}/${name}")
      set(found "${ROOT}/${name}")
    endif()
    if(NOT found)
      continue()  # a system or third-party header
    endif()
    get_filename_component(found "${found}" ABSOLUTE)
    file(RELATIVE_PATH included "${ROOT}" "${found}")
    if(included MATCHES "^\\.\\./")
      continue()
    endif()
    if(included MATCHES "^${PRIVATE}/")
      chain_of("${file}" chain)
      list(APPEND violations "${included} <- ${chain}")
    elseif(NOT DEFINED "parent__${included}")
      set("parent__${included}" "${file}")
      list(APPEND queue "${included}")
    endif()
  endforeach()
endwhile()

if(violations)
  list(REMOVE_DUPLICATES violations)
  list(LENGTH violations count)
  list(JOIN violations "\n  " listed)
  string(REPLACE ";" " " front "${FROM}")
  message(FATAL_ERROR
    "${count} include(s) reach ${PRIVATE}/ from ${front} (DESIGN §1: ${PRIVATE}/ is private to "
    "runtime):\n  ${listed}\nui and app ask runtime instead (runtime/run/BackendDescription.h); "
    "a runtime header they include declares the ${PRIVATE} types it names instead of including "
    "their headers.")
endif()
message(STATUS "${starts} files of ${FROM} and ${walked} files they include: none reaches ${PRIVATE}/")
