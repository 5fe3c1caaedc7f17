# SPDX-License-Identifier: BSD-3-Clause
include(CMakePackageConfigHelpers)
install(TARGETS tensorc EXPORT tensorcTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET tensorc_cuda)
  install(TARGETS tensorc_cuda LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(FILES ${CMAKE_CURRENT_SOURCE_DIR}/include/tensorc.h ${TC_GEN_DIR}/include/tensorc_ops.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${TC_GEN_DIR}/ops.json DESTINATION ${CMAKE_INSTALL_DATADIR}/tensorc)
# The Rust crate's generated op surface, for a crate built against an installed tensorc.
install(FILES ${TC_GEN_DIR}/rust/sys_ops.rs ${TC_GEN_DIR}/rust/ops.rs DESTINATION ${CMAKE_INSTALL_DATADIR}/tensorc/rust)
install(EXPORT tensorcTargets NAMESPACE tensorc:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tensorc)
configure_package_config_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/tensorcConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/tensorcConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tensorc)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tensorcConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tensorcConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/tensorcConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tensorc)
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/tensorc.pc.in ${CMAKE_CURRENT_BINARY_DIR}/tensorc.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tensorc.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
