# Runs one command-line case from the project root: tpsim with the arguments in <name>.args
# (one per line). With <name>.expected: exit status 2 and stderr exactly that text (an error
# path). With <name>.match: exit status 0 and every line of that file, a regular expression,
# found in stdout (lines starting with // are comments; a line starting with `stderr:` is looked for in
# stderr).
file(STRINGS "${SOURCE_DIR}/tests/cli/${NAME}.args" args)
execute_process(COMMAND "${TPSIM}" ${args} WORKING_DIRECTORY "${SOURCE_DIR}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(EXISTS "${SOURCE_DIR}/tests/cli/${NAME}.expected")
  include("${SOURCE_DIR}/tests/expect_error.cmake")
  expect_error("${NAME}" "${rc}" "${err}" "${SOURCE_DIR}/tests/cli/${NAME}.expected")
else()
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NAME}: exit ${rc}; stderr: ${err}")
  endif()
  file(STRINGS "${SOURCE_DIR}/tests/cli/${NAME}.match" patterns)
  foreach(p ${patterns})
    if(p MATCHES "^//")
      continue()
    endif()
    if(p MATCHES "^stderr:(.*)$")
      if(NOT err MATCHES "${CMAKE_MATCH_1}")
        message(FATAL_ERROR "${NAME}: stderr lacks /${CMAKE_MATCH_1}/:\n${err}")
      endif()
      continue()
    endif()
    if(NOT out MATCHES "${p}")
      message(FATAL_ERROR "${NAME}: stdout lacks /${p}/:\n${out}")
    endif()
  endforeach()
endif()
