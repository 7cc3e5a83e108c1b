# Runs tpsim on one bad-input scenario and checks: exit status 2, stderr exactly the
# .expected text, and no output file. Called by CTest from the project root.
set(out "${WORK_DIR}/${NAME}.json")
file(REMOVE "${out}")
execute_process(COMMAND "${TPSIM}" "tests/bad_input/${NAME}.yaml" --json "${out}"
                WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
include("${SOURCE_DIR}/tests/expect_error.cmake")
expect_error("${NAME}" "${rc}" "${err}" "${SOURCE_DIR}/tests/bad_input/${NAME}.expected")
if(EXISTS "${out}")
  message(FATAL_ERROR "${NAME}: wrote ${out} despite the error")
endif()
