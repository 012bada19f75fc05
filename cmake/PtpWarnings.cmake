# One place for warning flags so every target gets the same treatment; CI turns them into errors.
option(PTP_WARNINGS_AS_ERRORS "Treat compiler warnings as errors" OFF)
function(ptp_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wno-unused-parameter>)
  if(PTP_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
  endif()
endfunction()
