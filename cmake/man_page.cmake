cmake_minimum_required(VERSION 3.20)
# Writes OUT from IN, replacing @HELP@ with `BIN --help` and @VERSION@ (run at
# build time so a man page always shows the options the binary has).
execute_process(COMMAND ${BIN} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${BIN} --help failed (${rc})")
endif()
# roff: a leading '.' or "'" would be a request; backslashes escape.
string(REPLACE "\\" "\\e" help "${help}")
string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
string(REPLACE "-" "\\-" help "${help}")
set(_at "@")
file(READ ${IN} page)
string(REPLACE "${_at}HELP${_at}" "${help}" page "${page}")
string(REPLACE "${_at}VERSION${_at}" "${VERSION}" page "${page}")
file(WRITE ${OUT} "${page}")
