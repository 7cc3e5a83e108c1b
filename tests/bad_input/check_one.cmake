# Runs tpsim on one bad-input scenario and checks: exit status 2, stderr exactly the
# .expected text, and no output file. Called by CTest from the project root.
set(out "${WORK_DIR}/${NAME}.json")
file(REMOVE "${out}")
execute_process(COMMAND "${TPSIM}" "tests/bad_input/${NAME}.yaml" --json "${out}"
                WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
file(READ "${SOURCE_DIR}/tests/bad_input/${NAME}.expected" expected)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "${NAME}: exit ${rc}, expected 2; stderr: ${err}")
endif()
if(NOT err STREQUAL expected)
  message(FATAL_ERROR "${NAME}: stderr\n  ${err}differs from the expected\n  ${expected}")
endif()
if(EXISTS "${out}")
  message(FATAL_ERROR "${NAME}: wrote ${out} despite the error")
endif()
