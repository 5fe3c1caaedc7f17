# SPDX-License-Identifier: BSD-3-Clause
# The CUDA backend: libtensorc_cuda.so, built wherever nvcc is found
# (TC_CUDA=AUTO) or required (ON). libtensorc.so never links it or the CUDA
# runtime: it dlopens libtensorc_cuda.so (beside itself) on the first CUDA
# use, and the backend registers its kernels, allocator and device hooks into
# libtensorc's dispatcher through libtensorc's exported C++ internals. The CUDA
# runtime is linked statically, so the backend needs only the driver
# (libcuda.so) at run time, and says so when it is missing.
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
  file(GLOB TC_CUDA_SRC CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/*.cu
       ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/*.cpp)
  add_library(tensorc_cuda SHARED ${TC_CUDA_SRC} ${TC_GEN_DIR}/register_cuda.cpp)
  add_dependencies(tensorc_cuda tc_generate)
  target_include_directories(tensorc_cuda PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/include ${CMAKE_CURRENT_SOURCE_DIR}/src
                             ${TC_GEN_DIR} ${TC_GEN_DIR}/include)
  target_compile_definitions(tensorc_cuda PRIVATE TC_PROJECT_VERSION="${PROJECT_VERSION}")
  target_compile_options(tensorc_cuda PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
  target_link_libraries(tensorc_cuda PRIVATE tensorc CUDA::cudart_static)
  # A plugin: one name, no SONAME versions; it exports tc_backend_init alone.
  set_target_properties(tensorc_cuda PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
                        LINK_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/exports.map)
  target_link_options(tensorc_cuda PRIVATE -Wl,--version-script=${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/exports.map
                      -Wl,--no-undefined)
  include(GNUInstallDirs)
  install(TARGETS tensorc_cuda LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  message(STATUS "tensorc: CUDA backend enabled (${CMAKE_CUDA_COMPILER}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
endif()
