# Resolves PTP_WITH_CUDA (AUTO|ON|OFF) into PTP_HAVE_CUDA and, when CUDA is used, enables the CUDA
# language. Included from the top-level CMakeLists.txt so enable_language() applies to every directory.
#   AUTO: use CUDA when an nvcc is found, otherwise build the host-only profiler (with a message).
#   ON:   CUDA is required; a missing nvcc is a configure error.
#   OFF:  never look for CUDA; the binaries carry no CUDA dependency.
set(PTP_HAVE_CUDA OFF)
string(TOUPPER "${PTP_WITH_CUDA}" _ptp_cuda_mode)
if(NOT _ptp_cuda_mode MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "PTP_WITH_CUDA must be AUTO, ON or OFF (got '${PTP_WITH_CUDA}')")
endif()

if(NOT _ptp_cuda_mode STREQUAL "OFF")
  # An explicit list: with no GPU, 'native' fails and an unset list means sm_75 only. CUDA 13 dropped
  # sm_70; a CUDA 12.x toolkit can build for V100 with -DCMAKE_CUDA_ARCHITECTURES=70;80.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
    set(CMAKE_CUDA_ARCHITECTURES "75;80;86;89;90" CACHE STRING "CUDA architectures for the profiler kernels" FORCE)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(PTP_HAVE_CUDA ON)
    message(STATUS "ptp: CUDA ${CUDAToolkit_VERSION} profiling backend, architectures ${CMAKE_CUDA_ARCHITECTURES}")
  elseif(_ptp_cuda_mode STREQUAL "ON")
    message(FATAL_ERROR "PTP_WITH_CUDA=ON but no CUDA compiler was found: put nvcc on PATH or set "
                        "CMAKE_CUDA_COMPILER, or configure with -DPTP_WITH_CUDA=AUTO/OFF")
  else()
    message(STATUS "ptp: no CUDA compiler found, building the host-only profiler")
  endif()
endif()
