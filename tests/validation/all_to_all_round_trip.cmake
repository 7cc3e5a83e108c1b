# tpsim fit reads an all-to-all sweep (nccl-tests layout, alltoall_perf's columns) and gives back
# what made it: tpsim collective simulates 8 H100 over NVSwitch (11.8 us + S 7/8 / 360 GB/s, the
# defaults), tpsim fit --op all_to_all fits it, and the fitted Simple line must be 11.8 us and
# 360 GB/s bus bandwidth with the direct algorithm, NCCL's alltoall (sends to every peer).
set(log "${WORK_DIR}/a2a_round_trip.log")
set(cal "${WORK_DIR}/a2a_round_trip.yaml")
execute_process(COMMAND "${TPSIM}" collective --platform platforms/dgx_h100.xml --gpus 0-7 --op all_to_all --min 1KiB --max 1GiB
                WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE rc OUTPUT_FILE "${log}" ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tpsim collective: exit ${rc}: ${err}")
endif()
execute_process(COMMAND "${TPSIM}" fit "${log}" --op all_to_all --platform platforms/dgx_h100.xml --gpus 0-7 -o "${cal}"
                WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tpsim fit: exit ${rc}: ${err}")
endif()
file(READ "${cal}" text)
foreach(pattern "op: alltoall" "Simple: { latency: 11.8us, bus_bandwidth: 360GBps" "algorithm: direct, protocol: Simple, latency: 11.8us")
  string(FIND "${text}" "${pattern}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the fitted calibration lacks '${pattern}':\n${text}")
  endif()
endforeach()
