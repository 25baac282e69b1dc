# robrayc's CMake package: compile robray scenes (and URDF) to C inside a CMake build.
#
#   find_package(robrayc CONFIG REQUIRED)   # with CMAKE_PREFIX_PATH or robrayc_DIR set to
#                                           # the folder `robrayc --cmake-dir` prints
#   include(<that folder>/robrayc-config.cmake)   # works too
#
#   robrayc_add_scene(<target> SOURCES <files...> [NAME <name>] [STANDALONE]
#                     [INCLUDE_DIRECTORIES <dirs...>] [OPTIONS <robrayc args...>])
#
# runs `robrayc` at build time to produce <name>.c and its header in
# ${CMAKE_CURRENT_BINARY_DIR}/robrayc/<target>/ and builds them into the static library
# <target>, whose include directory is that folder (so `#include "<name>.h"` for STANDALONE,
# `#include "<name>.c.h"` for amino's format). The command writes a depfile, so the scene is
# rebuilt when any file it read changes: inputs, includes, URDFs, meshes; and it passes
# --if-changed, so an unchanged scene does not recompile its dependents.
#
#   SOURCES              scene files, relative to CMAKE_CURRENT_SOURCE_DIR or absolute
#   NAME                 scene name for the generated symbols (default: <target> made a C
#                        identifier): NAME_fk / NAME_frames (STANDALONE) or aa_rx_dl_sg__NAME
#   STANDALONE           --format c-standalone: no amino dependency (links libm only);
#                        otherwise amino's format, linked to amino found with pkg-config
#                        (or to ROBRAYC_AMINO_LIBRARIES if set)
#   INCLUDE_DIRECTORIES  -I search folders, relative to CMAKE_CURRENT_SOURCE_DIR or absolute
#   OPTIONS              more robrayc arguments, passed as they are; the command runs in
#                        CMAKE_CURRENT_BINARY_DIR, so give paths in them absolute
#
# Variables: ROBRAYC_EXECUTABLE (the compiler; found on PATH or beside this package's Python),
# robrayc_VERSION. Needs CMake 3.20 (DEPFILE with the Makefile generators).

cmake_policy(PUSH)
cmake_policy(VERSION 3.20...3.31)

get_filename_component(_robrayc_cmake_dir "${CMAKE_CURRENT_LIST_FILE}" DIRECTORY)

if(NOT DEFINED robrayc_VERSION OR robrayc_VERSION STREQUAL "")
  include("${_robrayc_cmake_dir}/robrayc-config-version.cmake")
  set(robrayc_VERSION "${PACKAGE_VERSION}")
endif()

if(NOT ROBRAYC_EXECUTABLE)
  # In a wheel this folder is <prefix>/lib/pythonX.Y/site-packages/robrayc/cmake: prefer the
  # robrayc installed with it over another one on PATH.
  find_program(ROBRAYC_EXECUTABLE robrayc
    HINTS "${_robrayc_cmake_dir}/../../../../../bin" "${_robrayc_cmake_dir}/../../../../Scripts"
    DOC "robrayc, the robray scene compiler")
endif()

if(NOT ROBRAYC_EXECUTABLE)
  set(robrayc_FOUND FALSE)
  set(robrayc_NOT_FOUND_MESSAGE
      "the robrayc program was not found on PATH: install robrayc or set ROBRAYC_EXECUTABLE")
  cmake_policy(POP)
  return()
endif()

function(robrayc_add_scene target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "STANDALONE" "NAME"
                        "SOURCES;OPTIONS;INCLUDE_DIRECTORIES")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "robrayc_add_scene(${target}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "robrayc_add_scene(${target}): SOURCES is required")
  endif()
  if(NOT ARG_NAME)
    string(MAKE_C_IDENTIFIER "${target}" ARG_NAME)
  endif()

  set(outdir "${CMAKE_CURRENT_BINARY_DIR}/robrayc/${target}")
  file(MAKE_DIRECTORY "${outdir}")
  set(source "${outdir}/${ARG_NAME}.c")
  set(depfile "${outdir}/${ARG_NAME}.c.d")
  if(ARG_STANDALONE)
    set(format c-standalone)
    set(header "${outdir}/${ARG_NAME}.h")
  else()
    set(format c)
    set(header "${outdir}/${ARG_NAME}.c.h")
  endif()

  set(inputs)
  foreach(file IN LISTS ARG_SOURCES)
    get_filename_component(file "${file}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND inputs "${file}")
  endforeach()
  set(includes)
  foreach(dir IN LISTS ARG_INCLUDE_DIRECTORIES)
    get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND includes "-I" "${dir}")
  endforeach()

  # The command's declared output is a stamp touched after every run; the C file and header
  # are byproducts that robrayc --if-changed rewrites only when their text changes. So an
  # edit that does not change the scene reruns robrayc once (the stamp then is newer than
  # the edited file) and recompiles nothing, with Ninja (restat) and with make alike.
  set(stamp "${outdir}/${ARG_NAME}.stamp")
  add_custom_command(
    OUTPUT "${stamp}"
    BYPRODUCTS "${source}" "${header}"
    COMMAND "${ROBRAYC_EXECUTABLE}" ${includes} ${ARG_OPTIONS}
            --format ${format} -n "${ARG_NAME}" -o "${source}"
            -MD -MF "${depfile}" -MT "${stamp}" --if-changed -- ${inputs}
    COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}"
    DEPENDS ${inputs} "${ROBRAYC_EXECUTABLE}"
    DEPFILE "${depfile}"
    COMMENT "robrayc: scene ${ARG_NAME} (${target})"
    VERBATIM COMMAND_EXPAND_LISTS)

  add_library(${target} STATIC "${source}" "${header}" "${stamp}")
  target_include_directories(${target} PUBLIC "${outdir}")
  set_target_properties(${target} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON
                        POSITION_INDEPENDENT_CODE ON)
  if(ARG_STANDALONE)
    find_library(ROBRAYC_LIBM m)
    if(ROBRAYC_LIBM)
      target_link_libraries(${target} PUBLIC "${ROBRAYC_LIBM}")
    endif()
  elseif(DEFINED ROBRAYC_AMINO_LIBRARIES)
    target_link_libraries(${target} PUBLIC ${ROBRAYC_AMINO_LIBRARIES})
  else()
    find_package(PkgConfig QUIET)
    if(PKG_CONFIG_FOUND AND NOT TARGET PkgConfig::ROBRAYC_AMINO)
      pkg_check_modules(ROBRAYC_AMINO QUIET IMPORTED_TARGET GLOBAL amino)
    endif()
    if(TARGET PkgConfig::ROBRAYC_AMINO)
      target_link_libraries(${target} PUBLIC PkgConfig::ROBRAYC_AMINO)
    else()
      message(WARNING "robrayc_add_scene(${target}): amino not found with pkg-config; link it "
                      "yourself, set ROBRAYC_AMINO_LIBRARIES, or use STANDALONE")
    endif()
  endif()
endfunction()

set(robrayc_FOUND TRUE)
cmake_policy(POP)
