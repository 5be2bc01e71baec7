# bb_embed(<target> <symbol> <file>): compile <file>'s text into <target> as
# `extern const char <symbol>[];` (namespace bb::embedded), re-embedded when the file changes.
function(bb_embed target symbol file)
  file(READ "${file}" content)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${file}")
  set(out "${CMAKE_CURRENT_BINARY_DIR}/embedded_${symbol}.cpp")
  file(CONFIGURE OUTPUT "${out}" CONTENT
"// Generated from ${file}; do not edit.
namespace bb::embedded {
extern const char ${symbol}[];
const char ${symbol}[] = R\"bbembed(@content@)bbembed\";
}
" @ONLY)
  target_sources(${target} PRIVATE "${out}")
endfunction()
