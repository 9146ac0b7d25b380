# `cpack -G DEB` (in the build folder): the install components as Debian
# packages, split as Debian splits a program with a library:
#   lockstep          the command, its man pages, completion, scenarios,
#                     examples and the clock shim
#   lockstep-viewer   the viewer, alone with its GLFW and OpenGL
#   liblockstep0.9    the shared library, named after its soname
#                     (liblockstep.so.0.9: a 0.x library keeps its ABI
#                     within a minor version)
#   liblockstep-dev   headers, the CMake package and the .so link; it
#                     depends on the library and on nlohmann-json3-dev,
#                     which lockstepConfig.cmake finds
# Each has its copyright and changelog in /usr/share/doc/PACKAGE. The
# libraries each links come from dpkg-shlibdeps. tests/install/ installs
# them into a scratch root, builds examples/own-lock there, and runs
# lintian.
set(LOCKSTEP_LIB_PACKAGE liblockstep${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
set(LOCKSTEP_PACKAGES cli lockstep viewer lockstep-viewer lib ${LOCKSTEP_LIB_PACKAGE}
  dev liblockstep-dev)

# The changelog (a native package's: changelog.gz), compressed as Debian's
# are (gzip -9n: no name, no time), the same bytes on every machine.
set(changelog ${PROJECT_BINARY_DIR}/debian/changelog.gz)
add_custom_command(OUTPUT ${changelog}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/debian
  COMMAND ${LOCKSTEP_GZIP} -9n -c ${PROJECT_SOURCE_DIR}/cmake/debian/changelog > ${changelog}
  DEPENDS ${PROJECT_SOURCE_DIR}/cmake/debian/changelog)
add_custom_target(debian_changelog ALL DEPENDS ${changelog})
while(LOCKSTEP_PACKAGES)
  list(POP_FRONT LOCKSTEP_PACKAGES component package)
  install(FILES ${PROJECT_SOURCE_DIR}/cmake/debian/copyright ${changelog}
          DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${package} COMPONENT ${component})
  string(TOUPPER ${component} upper)
  set(CPACK_DEBIAN_${upper}_PACKAGE_NAME ${package})
  set(CPACK_DEBIAN_${upper}_FILE_NAME DEB-DEFAULT)
endwhile()

# cpack packs what was built; it does not build everything first (the
# install test runs it in a build whose tests are running).
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

set(CPACK_PACKAGE_NAME lockstep)
set(CPACK_PACKAGE_VENDOR "lockstep")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "lockstep maintainers <maintainers@lockstep.invalid>")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "lockstep maintainers <maintainers@lockstep.invalid>")
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli lib dev)
if(TARGET lockstep-viewer)
  list(APPEND CPACK_COMPONENTS_ALL viewer)
endif()
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)  # as Debian ships them; the build tree keeps its symbols
# The library's shlibs, and ldconfig run by dpkg's trigger; CPack would
# write postinst and postrm scripts that call ldconfig for any shared object
# under /usr/lib, the clock shim too (preloaded by its path, never looked up).
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_LIB_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/cmake/debian/lib/triggers
    ${PROJECT_SOURCE_DIR}/cmake/debian/lib/postinst ${PROJECT_SOURCE_DIR}/cmake/debian/lib/postrm)
set(CPACK_DEBIAN_CLI_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/cmake/debian/cli/postinst
    ${PROJECT_SOURCE_DIR}/cmake/debian/cli/postrm)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)

set(CPACK_DEBIAN_CLI_PACKAGE_SECTION devel)
set(CPACK_COMPONENT_CLI_DESCRIPTION
    "deterministic simulator and race explorer for Redis locks
lockstep runs lock algorithms built on Redis (SETNX, GETSET, SET NX PX,
Redlock, or your own in Lua) against an exact model of Redis 7 on virtual
time, searches every interleaving, clock tick and fault for a violation of
mutual exclusion, and replays what it finds step by step, as pictures, or
on real redis-servers.")
set(CPACK_DEBIAN_CLI_PACKAGE_SUGGESTS "redis-server, lockstep-viewer")
set(CPACK_DEBIAN_CLI_PACKAGE_RECOMMENDS "fonts-dejavu-core")  # the font `render --png` draws with

set(CPACK_DEBIAN_VIEWER_PACKAGE_SECTION devel)
set(CPACK_COMPONENT_VIEWER_DESCRIPTION
    "lockstep's traces as space-time diagrams, in a window
lockstep-viewer draws lockstep's traces and counterexamples as diagrams
with a cursor over the steps, two side by side, and plays a scenario as a
game in which the user is the scheduler.")
set(CPACK_DEBIAN_VIEWER_PACKAGE_RECOMMENDS "lockstep")

set(CPACK_DEBIAN_LIB_PACKAGE_SECTION libs)
set(CPACK_COMPONENT_LIB_DESCRIPTION
    "deterministic race explorer for Redis locks (shared library)
The engine of lockstep as a library: the model of Redis, the scheduler,
the searches and the traces, with the built-in lock algorithms, for a
program that checks a lock algorithm of its own.")

set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "${LOCKSTEP_LIB_PACKAGE} (= ${PROJECT_VERSION}), nlohmann-json3-dev (>= 3.10)")
set(CPACK_DEBIAN_DEV_PACKAGE_SUGGESTS "catch2")  # <lockstep/catch2.h>
set(CPACK_COMPONENT_DEV_DESCRIPTION
    "deterministic race explorer for Redis locks (development files)
The headers and the CMake package (find_package(lockstep), target
lockstep::lockstep) to write a lock algorithm in C++ and check it with
lockstep's searches from a program or a Catch2 test of its own.")

include(CPack)
