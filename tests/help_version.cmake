# BIN --help and BIN --version both exit 0; --version prints VERSION.
foreach(arg --help --version)
  execute_process(COMMAND ${BIN} ${arg} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err TIMEOUT 20)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${BIN} ${arg}: exit ${rc}\n${out}${err}")
  endif()
  if(out STREQUAL "")
    message(FATAL_ERROR "${BIN} ${arg}: printed nothing on stdout")
  endif()
endforeach()
if(NOT out MATCHES "${VERSION}")
  message(FATAL_ERROR "${BIN} --version: '${out}' does not name version ${VERSION}")
endif()
