# CUDA backend of ptp-profile (included from libprofile/CMakeLists.txt when PTP_HAVE_CUDA): the plugin
# libptp_profile_cuda.so. It holds the CUDA benchmarks and device code and links the CUDA libraries;
# the harness is not linked in: its symbols (Registry, Measurement, Comm, ...) resolve against the
# executable that dlopens the plugin (ptp_profile_plugin_host), so there is one harness per process and
# the benchmarks register with its Registry while the plugin loads.
# Never links CUDA::cuda_driver: its SONAME is libcuda.so.1, so the plugin would not load on a machine
# without a driver. Runtime-API libraries load the driver lazily instead.
find_package(NCCL)
file(GLOB PTP_PROFILE_CUDA CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/*.cpp ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/*.cu
     ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/benchmarks/*.cpp ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/benchmarks/*.cu)
if(NOT NCCL_FOUND)
  message(STATUS "ptp-profile: NCCL not found; NCCL collectives are not built")
  list(FILTER PTP_PROFILE_CUDA EXCLUDE REGEX "/nccl_[^/]*\\.(cpp|cu)$")
endif()
add_library(ptp_profile_cuda MODULE ${PTP_PROFILE_CUDA})
# The harness's headers and compile settings, not its objects.
target_include_directories(ptp_profile_cuda PRIVATE
  $<TARGET_PROPERTY:ptp_profile,INTERFACE_INCLUDE_DIRECTORIES> $<TARGET_PROPERTY:ptp_vocab,INTERFACE_INCLUDE_DIRECTORIES>)
find_library(PTP_CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR})
find_path(PTP_CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
if(NOT PTP_CUDNN_LIBRARY OR NOT PTP_CUDNN_INCLUDE_DIR)
  message(FATAL_ERROR "ptp-profile: cuDNN 9 (cudnn.h, libcudnn) not found next to the CUDA toolkit")
endif()
target_include_directories(ptp_profile_cuda PRIVATE ${PTP_CUDNN_INCLUDE_DIR})
target_link_libraries(ptp_profile_cuda PRIVATE spdlog::spdlog CUDA::cudart CUDA::cublasLt CUDA::cublas CUDA::cupti
                      ${PTP_CUDNN_LIBRARY})
if(NCCL_FOUND)
  target_link_libraries(ptp_profile_cuda PRIVATE NCCL::nccl)
  target_compile_definitions(ptp_profile_cuda PRIVATE PTP_HAVE_NCCL=1)
endif()
ptp_set_warnings(ptp_profile_cuda)
# Device code: fast compile, line info for profilers; host C++ warnings come from ptp_set_warnings.
target_compile_options(ptp_profile_cuda PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo --expt-relaxed-constexpr>)
set_target_properties(ptp_profile_cuda PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
