# expect_error(NAME RC STDERR EXPECTED_FILE): a run that must fail as a user mistake — exit
# status 2 and stderr exactly the text of EXPECTED_FILE. Shared by the bad-input and CLI cases.
function(expect_error name rc err expected_file)
  file(READ "${expected_file}" expected)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "${name}: exit ${rc}, expected 2; stderr: ${err}")
  endif()
  if(NOT err STREQUAL expected)
    message(FATAL_ERROR "${name}: stderr\n  ${err}differs from the expected\n  ${expected}")
  endif()
endfunction()
