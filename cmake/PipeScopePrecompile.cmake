# pipescope_precompile(TARGET HEADERS...): precompiled headers for a target whose sources all
# include the same heavy headers (GoogleTest, Qt's widgets), in builds made one source at a time.
# A unity build (the dev preset) already parses them once per batch of 8 sources: there a
# precompiled header saved only 1.3-2.2 s a batch, its own compile cost about as much, and its
# .gch embeds the checkout's absolute paths, so that ccache missed every source using it in a
# fresh clone elsewhere (40 of 89 compiles).
function(pipescope_precompile target)
  if(NOT CMAKE_UNITY_BUILD)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()
