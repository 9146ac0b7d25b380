# What `cmake --install` puts under the prefix, and what `cpack -G DEB` packs:
# the programs, a man page for each (written by help2man from their --help
# and --version), bash completion, and lockstep as a library for a program
# of its own (find_package(lockstep CONFIG), target lockstep::lockstep).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# One shared library holds the whole engine: the built-in algorithms register
# themselves when it is loaded, and a program's own algorithms register into
# the same table. Its private dependencies (Boost.Fiber, Lua, nettle) stay
# behind it; its headers need only nlohmann_json.
set(LOCKSTEP_LAYERS lockstep_kv lockstep_world lockstep_algo lockstep_process lockstep_check lockstep_trace
  lockstep_scenario lockstep_explore lockstep_run lockstep_api)
add_library(lockstep_shared SHARED)
foreach(layer IN LISTS LOCKSTEP_LAYERS)
  target_sources(lockstep_shared PRIVATE $<TARGET_OBJECTS:${layer}>)
  add_dependencies(lockstep_shared ${layer})
endforeach()
set_target_properties(lockstep_shared PROPERTIES OUTPUT_NAME lockstep EXPORT_NAME lockstep
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
# The warnings' settings reach its link too, where link-time optimisation
# reports some.
target_link_libraries(lockstep_shared
  PRIVATE Boost::fiber Boost::context PkgConfig::LUA51 PkgConfig::NETTLE
          $<BUILD_INTERFACE:lockstep_warnings>
  PUBLIC nlohmann_json::nlohmann_json)
target_include_directories(lockstep_shared
  INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
            $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/lockstep/detail>)
target_compile_features(lockstep_shared INTERFACE cxx_std_20)
install(TARGETS lockstep_shared EXPORT lockstepTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/sim/api/lockstep/lockstep.h
              ${PROJECT_SOURCE_DIR}/sim/api/lockstep/catch2.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lockstep)
foreach(header IN LISTS LOCKSTEP_DETAIL_HEADERS)
  get_filename_component(folder ${header} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${header}
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lockstep/detail/${folder})
endforeach()
set(LOCKSTEP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/lockstep)
install(EXPORT lockstepTargets NAMESPACE lockstep:: DESTINATION ${LOCKSTEP_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/lockstepConfig.cmake.in
  ${PROJECT_BINARY_DIR}/lockstepConfig.cmake INSTALL_DESTINATION ${LOCKSTEP_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/lockstepConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/lockstepConfig.cmake
              ${PROJECT_BINARY_DIR}/lockstepConfigVersion.cmake
        DESTINATION ${LOCKSTEP_CMAKE_DIR})

install(TARGETS lockstep RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET lockstep-viewer)
  install(TARGETS lockstep-viewer RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

find_program(LOCKSTEP_HELP2MAN help2man)
if(LOCKSTEP_HELP2MAN)
  set(pages "")
  foreach(program lockstep lockstep-viewer)
    if(NOT TARGET ${program})
      continue()
    endif()
    if(program STREQUAL "lockstep")
      set(what "a deterministic simulator and race explorer for Redis locks")
      set(help --help-all)  # every subcommand's options
    else()
      set(what "lockstep's traces as space-time diagrams, and its scheduler as a game")
      set(help --help)
    endif()
    set(page ${PROJECT_BINARY_DIR}/man/${program}.1)
    add_custom_command(OUTPUT ${page}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
      COMMAND ${LOCKSTEP_HELP2MAN} --no-info --no-discard-stderr --name=${what} --help-option=${help}
              --output=${page} $<TARGET_FILE:${program}>
      DEPENDS ${program}
      COMMENT "Writing the man page of ${program}"
      VERBATIM)
    list(APPEND pages ${page})
  endforeach()
  add_custom_target(man_pages ALL DEPENDS ${pages})
  install(FILES ${pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man not found: no man pages (.ci/install-deps installs it)")
endif()

# The shipped scenarios, where the installed program looks for them
# (LOCKSTEP_INSTALLED_SCENARIOS, relative to the prefix), and the examples.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/ DESTINATION ${LOCKSTEP_INSTALLED_SCENARIOS})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/lockstep/examples)

install(FILES ${PROJECT_SOURCE_DIR}/sim/cli/completion/lockstep.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME lockstep)

set(CPACK_PACKAGE_NAME lockstep)
set(CPACK_PACKAGE_VENDOR "lockstep")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "deterministic simulator and race explorer for lock algorithms built on Redis")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "lockstep maintainers")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "lockstep maintainers")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # the libraries the programs link, from dpkg-shlibdeps
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "redis-server")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "fonts-dejavu-core")  # the font `render --png` draws with
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
include(CPack)
