# Installs BUILD into PREFIX (emptied first) and fails unless every file DESIGN §1 names is there:
# the two binaries, the desktop entry, the icon, the presets and the sample cost files.
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD}" --prefix "${PREFIX}"
  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${err}")
endif()
set(expected bin/pipescope-cli share/pipescope/presets/1f1b.json share/pipescope/presets/zb-v.json
    share/pipescope/costs/skewed-transformer.json)
if(GUI)
  list(APPEND expected bin/pipescope share/applications/pipescope.desktop
       share/icons/hicolor/scalable/apps/pipescope.svg)
endif()
foreach(f IN LISTS expected)
  if(NOT EXISTS "${PREFIX}/${f}")
    file(GLOB_RECURSE have RELATIVE "${PREFIX}" "${PREFIX}/*")
    message(FATAL_ERROR "missing after install: ${f}\ninstalled: ${have}")
  endif()
endforeach()
file(GLOB presets "${PREFIX}/share/pipescope/presets/*.json")
list(LENGTH presets n)
if(n LESS 10)
  message(FATAL_ERROR "expected the 10 classic presets or more, installed ${n}")
endif()
file(REMOVE_RECURSE "${PREFIX}")
message(STATUS "install layout ok (${n} presets)")
