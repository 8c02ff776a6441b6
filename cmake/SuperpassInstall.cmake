# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# An install that runs wherever its prefix is put (`cmake --install build
# --prefix P`, then P moved): every installed binary and shared library
# finds the project's libraries relative to itself, and each pkg-config
# file finds its prefix relative to itself. Needs GNUInstallDirs.
#
# Paths between the install directories, computed from the configured
# ones so that a custom bindir or libdir (lib64, lib/<multiarch>) works:
#   SP_BIN_TO_LIB   bindir to libdir ("../lib")
file(RELATIVE_PATH SP_BIN_TO_LIB ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})

# sp_install_rpath(TARGET DIR): TARGET, installed into DIR (a path
# relative to the prefix, e.g. ${CMAKE_INSTALL_BINDIR}), gets the RUNPATH
# $ORIGIN/<DIR to libdir>. The build tree keeps CMake's absolute build
# RUNPATH, which the install step replaces.
function(sp_install_rpath target dir)
  if(IS_ABSOLUTE "${dir}")
    set(full "${dir}")
  else()
    set(full "${CMAKE_INSTALL_PREFIX}/${dir}")
  endif()
  file(RELATIVE_PATH rel "${full}" "${CMAKE_INSTALL_FULL_LIBDIR}")
  if(rel STREQUAL "")
    set(rpath "$ORIGIN")
  else()
    set(rpath "$ORIGIN/${rel}")
  endif()
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "${rpath}")
endfunction()

# The pkg-config files live in libdir/pkgconfig; ${pcfiledir} is where the
# file is read from, so prefix, libdir and includedir follow a moved
# install. A libdir or includedir given as an absolute path stays absolute.
file(RELATIVE_PATH _sp_pc_to_prefix "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "/$" "" _sp_pc_to_prefix "${_sp_pc_to_prefix}")
set(SP_PC_PREFIX "\${pcfiledir}/${_sp_pc_to_prefix}")
foreach(_sp_dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_sp_dir}}")
    set(SP_PC_${_sp_dir} "${CMAKE_INSTALL_${_sp_dir}}")
  else()
    set(SP_PC_${_sp_dir} "\${prefix}/${CMAKE_INSTALL_${_sp_dir}}")
  endif()
endforeach()

# sp_pkg_config(NAME LIB DESCRIPTION REQUIRES REQUIRES_PRIVATE LIBS_PRIVATE):
# writes and installs NAME.pc for -lLIB. With static libraries
# (BUILD_SHARED_LIBS off) what the library needs is public: a plain
# `pkg-config --libs NAME` then links, without --static.
function(sp_pkg_config name lib description requires requires_private libs_private)
  if(NOT BUILD_SHARED_LIBS)
    string(STRIP "${requires} ${requires_private}" requires)
    set(requires_private "")
    set(libs "-l${lib} ${libs_private}")
    set(libs_private "")
  else()
    set(libs "-l${lib}")
  endif()
  set(SP_PC_NAME ${name})
  set(SP_PC_DESCRIPTION "${description}")
  set(SP_PC_REQUIRES "${requires}")
  set(SP_PC_REQUIRES_PRIVATE "${requires_private}")
  set(SP_PC_LIBS "${libs}")
  set(SP_PC_LIBS_PRIVATE "${libs_private}")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/superpass.pc.in ${PROJECT_BINARY_DIR}/${name}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${name}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()
