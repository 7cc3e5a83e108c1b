# A committed calibration (calibrate/fitted/<NAME>.yaml) is what `tpsim fit` writes today from
# the inputs its first line names: refit them and compare the bytes.
file(STRINGS "${SOURCE_DIR}/calibrate/fitted/${NAME}.yaml" first LIMIT_COUNT 1)
string(REGEX REPLACE "^# written by tpsim fit from: " "" inputs "${first}")
separate_arguments(inputs)
set(out "${WORK_DIR}/fitted-${NAME}.yaml")
execute_process(COMMAND "${TPSIM}" fit ${inputs} -o "${out}" WORKING_DIRECTORY "${SOURCE_DIR}"
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tpsim fit ${inputs}: exit ${rc}: ${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${out}" "${SOURCE_DIR}/calibrate/fitted/${NAME}.yaml" RESULT_VARIABLE same)
if(NOT same EQUAL 0)
  message(FATAL_ERROR "calibrate/fitted/${NAME}.yaml is stale: refit with\n  tpsim fit ${inputs} -o calibrate/fitted/${NAME}.yaml")
endif()
