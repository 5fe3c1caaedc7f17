# SPDX-License-Identifier: BSD-3-Clause
# The CUDA driver library: libtensorc_cuda.so from src/cuda/driver/, built
# wherever nvcc is found (TC_CUDA=AUTO) or required (ON). It holds all code
# that touches the CUDA runtime (linked statically) and cuBLAS and cuBLASLt
# (shared: the toolkit's libcublas.so.13 and the libcublasLt.so.13 it needs
# anyway are needed at run time besides the driver's libcuda.so) behind the plain table of
# src/cuda/driver_api.h; the CUDA kernels and the caching allocator live in
# libtensorc (src/cuda/*.cpp), which dlopens this library on the first CUDA
# use and never links it.
set(TC_HAVE_CUDA OFF)
if(NOT TC_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(TC_HAVE_CUDA ON)
  elseif(TC_CUDA STREQUAL "ON")
    message(FATAL_ERROR "TC_CUDA=ON but no CUDA compiler was found (looked for nvcc in PATH and /usr/local/cuda)")
  else()
    message(STATUS "tensorc: CUDA backend skipped: no nvcc found")
  endif()
endif()

if(TC_HAVE_CUDA)
  # Ampere and Hopper as machine code, plus Hopper PTX for what comes later.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 80-real 90-real 90-virtual)
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  file(GLOB TC_CUDA_DRIVER_SRC CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/driver/*.cu
       ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/driver/*.cpp)
  add_library(tensorc_cuda SHARED ${TC_CUDA_DRIVER_SRC})
  target_include_directories(tensorc_cuda PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_compile_definitions(tensorc_cuda PRIVATE TC_PROJECT_VERSION="${PROJECT_VERSION}")
  # cuBLAS is the shared library of the toolkit (its static one is ~1 GB).
  target_link_libraries(tensorc_cuda PRIVATE CUDA::cudart_static CUDA::cublas CUDA::cublasLt)
  # A plugin: one name, no SONAME versions; it exports tc_cuda_driver_open alone.
  set_target_properties(tensorc_cuda PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
                        LINK_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/driver/exports.map)
  target_link_options(tensorc_cuda PRIVATE
                      -Wl,--version-script=${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/driver/exports.map -Wl,--no-undefined)
  # Built with the library, so that libtensorc.so always finds it beside itself.
  add_dependencies(tensorc tensorc_cuda)
  include(GNUInstallDirs)
  install(TARGETS tensorc_cuda LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  message(STATUS "tensorc: CUDA backend enabled (${CMAKE_CUDA_COMPILER}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
endif()
