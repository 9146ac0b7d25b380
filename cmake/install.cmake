# What `cmake --install` puts under the prefix: the programs, their man
# pages (written by help2man from their --help), bash completion, and
# lockstep as a library for a program of its own (find_package(lockstep
# CONFIG), target lockstep::lockstep). Each file belongs to a component,
# which cmake/package.cmake packs as a Debian package of its own: cli
# (lockstep), viewer (lockstep-viewer), lib (the shared library) and dev
# (headers, CMake package, the .so link).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# One shared library holds the whole engine: the built-in algorithms register
# themselves when it is loaded, and a program's own algorithms register into
# the same table. Its private dependencies (Boost.Fiber, Lua with cjson and
# bit, nettle) stay behind it; its headers need only nlohmann_json.
set(LOCKSTEP_LAYERS lockstep_mdp lockstep_lang lockstep_kv lockstep_world lockstep_algo lockstep_process lockstep_check lockstep_trace
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
  PRIVATE Boost::fiber Boost::context PkgConfig::LUA51 PkgConfig::LUA51_CJSON
          PkgConfig::LUA51_BITOP PkgConfig::NETTLE
          $<BUILD_INTERFACE:lockstep_warnings>
  PUBLIC nlohmann_json::nlohmann_json)
target_include_directories(lockstep_shared
  INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
            $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/lockstep/detail>)
target_compile_features(lockstep_shared INTERFACE cxx_std_20)
install(TARGETS lockstep_shared EXPORT lockstepTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT lib NAMELINK_COMPONENT dev)
install(FILES ${PROJECT_SOURCE_DIR}/sim/api/lockstep/lockstep.h
              ${PROJECT_SOURCE_DIR}/sim/api/lockstep/catch2.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lockstep COMPONENT dev)
foreach(header IN LISTS LOCKSTEP_DETAIL_HEADERS)
  get_filename_component(folder ${header} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${header}
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lockstep/detail/${folder} COMPONENT dev)
endforeach()
set(LOCKSTEP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/lockstep)
install(EXPORT lockstepTargets NAMESPACE lockstep:: DESTINATION ${LOCKSTEP_CMAKE_DIR}
        COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/lockstepConfig.cmake.in
  ${PROJECT_BINARY_DIR}/lockstepConfig.cmake INSTALL_DESTINATION ${LOCKSTEP_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/lockstepConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/lockstepConfig.cmake
              ${PROJECT_BINARY_DIR}/lockstepConfigVersion.cmake
        DESTINATION ${LOCKSTEP_CMAKE_DIR} COMPONENT dev)

install(TARGETS lockstep RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
if(TARGET lockstep-viewer)
  install(TARGETS lockstep-viewer RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT viewer)
endif()

find_program(LOCKSTEP_HELP2MAN help2man)
find_program(LOCKSTEP_GZIP gzip REQUIRED)
if(LOCKSTEP_HELP2MAN)
  # lockstep(1), a page per subcommand (lockstep-explore(1), ...) and
  # lockstep-viewer(1), each from its --help (cmake/man_page.cmake).
  set(LOCKSTEP_MAN_PAGES
    "lockstep||a deterministic simulator and race explorer for Redis locks"
    "lockstep|replay|replay a scenario's schedule or a saved trace, step by step"
    "lockstep|run|run one random schedule of a scenario from a seed"
    "lockstep|explore|search a scenario's schedules for a violation"
    "lockstep|test|explore every scenario under the paths, each held to the outcome it expects"
    "lockstep|list|list the algorithms and the scenarios, or the scenario reference"
    "lockstep|demo|the documented SETNX race, then the GETSET fix holding"
    "lockstep|render|draw a trace as SVG, PNG, an HTML page or the scheduler game"
    "lockstep|allow|trust the programs that files name to start, exactly as they are"
    "lockstep-viewer||lockstep's traces as space-time diagrams, and its scheduler as a game")
  set(pages "")
  foreach(entry IN LISTS LOCKSTEP_MAN_PAGES)
    string(REPLACE "|" ";" fields "${entry}")
    list(GET fields 0 program)
    list(GET fields 1 subcommand)
    list(GET fields 2 what)
    if(NOT TARGET ${program})
      continue()
    endif()
    set(name ${program})
    if(subcommand)
      set(name ${program}-${subcommand})
    endif()
    # Compressed as Debian's are (gzip -9n: no name, no time).
    set(page ${PROJECT_BINARY_DIR}/man/${name}.1.gz)
    add_custom_command(OUTPUT ${page}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
      COMMAND ${CMAKE_COMMAND} -DHELP2MAN=${LOCKSTEP_HELP2MAN} -DPROGRAM=$<TARGET_FILE:${program}>
              -DSUBCOMMAND=${subcommand} -DWHAT=${what} -DVERSION=${PROJECT_VERSION}
              -DOUT=${PROJECT_BINARY_DIR}/man/${name}.1
              -P ${PROJECT_SOURCE_DIR}/cmake/man_page.cmake
      COMMAND ${LOCKSTEP_GZIP} -9n -c ${PROJECT_BINARY_DIR}/man/${name}.1 > ${page}
      DEPENDS ${program} ${PROJECT_SOURCE_DIR}/cmake/man_page.cmake
      COMMENT "Writing the man page ${name}(1)"
      VERBATIM)
    list(APPEND pages ${page})
    set(component cli)
    if(program STREQUAL "lockstep-viewer")
      set(component viewer)
    endif()
    install(FILES ${page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT ${component})
  endforeach()
  add_custom_target(man_pages ALL DEPENDS ${pages})
else()
  message(STATUS "help2man not found: no man pages (.ci/install-deps installs it)")
endif()

# The shipped scenarios, where the installed program looks for them
# (LOCKSTEP_INSTALLED_SCENARIOS, relative to the prefix), and the examples.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/ DESTINATION ${LOCKSTEP_INSTALLED_SCENARIOS}
        COMPONENT cli)
# Not what a checkout gathers in them: the npm packages the real-client
# examples install beside them, Python's caches, git's files.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/lockstep/examples COMPONENT cli
        PATTERN node_modules EXCLUDE PATTERN __pycache__ EXCLUDE PATTERN .gitignore EXCLUDE)

install(FILES ${PROJECT_SOURCE_DIR}/sim/cli/completion/lockstep.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME lockstep
        COMPONENT cli)

include(${PROJECT_SOURCE_DIR}/cmake/package.cmake)
