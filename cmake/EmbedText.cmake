# rl_embed_text(<output.cpp> <symbol> <base_dir> <files...>)
# Generates a C++ file defining `const rl::EmbeddedText <symbol>[]` (name relative to base_dir, text)
# so the binary carries the exact text of the repo's shaders and kernel sources.
set(_RL_EMBED_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/EmbedTextScript.cmake")
function(rl_embed_text out symbol base_dir)
  set(files ${ARGN})
  add_custom_command(
    OUTPUT "${out}"
    COMMAND "${CMAKE_COMMAND}" -DOUT=${out} -DSYMBOL=${symbol} -DBASE=${base_dir}
            "-DFILES=${files}" -P "${_RL_EMBED_SCRIPT}"
    DEPENDS ${files} "${_RL_EMBED_SCRIPT}"
    COMMENT "Embedding ${symbol}" VERBATIM)
endfunction()
