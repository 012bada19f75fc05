# CUDA backend of ptp-profile (included from libprofile/CMakeLists.txt when PTP_HAVE_CUDA).
# Never links CUDA::cuda_driver: its SONAME is libcuda.so.1, so the binary would not start on a
# machine without a driver (exit 127). Runtime-API libraries load the driver lazily instead.
find_package(NCCL)
file(GLOB PTP_PROFILE_CUDA CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/*.cpp ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/*.cu
     ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/benchmarks/*.cpp ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/benchmarks/*.cu)
if(NOT NCCL_FOUND)
  message(STATUS "ptp-profile: NCCL not found; NCCL collectives are not built")
  list(FILTER PTP_PROFILE_CUDA EXCLUDE REGEX "/nccl_[^/]*\\.(cpp|cu)$")
endif()
target_sources(ptp_profile PRIVATE ${PTP_PROFILE_CUDA})
find_library(PTP_CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR})
find_path(PTP_CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
if(NOT PTP_CUDNN_LIBRARY OR NOT PTP_CUDNN_INCLUDE_DIR)
  message(FATAL_ERROR "ptp-profile: cuDNN 9 (cudnn.h, libcudnn) not found next to the CUDA toolkit")
endif()
target_include_directories(ptp_profile PRIVATE ${PTP_CUDNN_INCLUDE_DIR})
target_link_libraries(ptp_profile PUBLIC CUDA::cudart CUDA::cublasLt CUDA::cublas CUDA::cupti ${PTP_CUDNN_LIBRARY})
if(NCCL_FOUND)
  target_link_libraries(ptp_profile PUBLIC NCCL::nccl)
  target_compile_definitions(ptp_profile PRIVATE PTP_HAVE_NCCL=1)
endif()
target_compile_definitions(ptp_profile PRIVATE PTP_HAVE_CUDA=1)
# Device code: fast compile, line info for profilers; host C++ warnings come from ptp_set_warnings.
target_compile_options(ptp_profile PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo --expt-relaxed-constexpr>)
set_target_properties(ptp_profile PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
