# `cmake --install build --prefix P` installs the tempest command, libtempest.so, the public
# headers and a CMake package: find_package(Tempest) → Tempest::tempest.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS tempest EXPORT TempestTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The public API and nothing else: include/tempest, as <prefix>/include/tempest.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tempest DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/tempest/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tempest)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/TempestPlugin.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tempest)
install(EXPORT TempestTargets NAMESPACE Tempest:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tempest)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/TempestConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/TempestConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tempest)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/TempestConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/TempestConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/TempestConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tempest)

# `cpack -G DEB` (scripts/package.sh): a .deb with the command, the library, the public headers
# and the CMake package, installed under /usr.
set(CPACK_PACKAGE_NAME tempest)
set(CPACK_PACKAGE_VENDOR "The Tempest developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Stream-processing topologies in C++, in the style of Storm")
set(CPACK_PACKAGE_CONTACT "Tempest developers <tempest@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The public headers include Boost.Container; a plugin's build needs the compiler and CMake.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libboost-dev, g++ (>= 12), cmake (>= 3.22)")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
include(CPack)
