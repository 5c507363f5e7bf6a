# rl_embed_binary(<output.cpp> <symbol> <file> [DEPENDS <target>])
# Generates a C++ file defining `const unsigned char <symbol>[]` (64-byte aligned: a module image
# the CUDA driver loads in place) and `const unsigned long long <symbol>Size`, in namespace rl:
# the binary carries the file (e.g. a fatbin built at build time) and needs nothing beside it.
set(_RL_EMBED_BINARY_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/EmbedBinaryScript.cmake")
function(rl_embed_binary out symbol file)
  add_custom_command(
    OUTPUT "${out}"
    COMMAND "${CMAKE_COMMAND}" -DOUT=${out} -DSYMBOL=${symbol} -DFILE=${file} -P "${_RL_EMBED_BINARY_SCRIPT}"
    DEPENDS "${file}" "${_RL_EMBED_BINARY_SCRIPT}"
    COMMENT "Embedding ${symbol}" VERBATIM)
endfunction()
