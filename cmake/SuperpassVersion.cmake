# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Reads the project's one version number from include/superpass/version.h
# (which kmod/Makefile and the kernel module read too) before project():
#   SUPERPASS_VERSION  "X.Y.Z", for project(VERSION)
#   SUPERPASS_ABI      the SONAME number of libsuperpass
# A version.h whose pieces disagree stops the configure step.
set(_sp_version_h ${CMAKE_CURRENT_LIST_DIR}/../include/superpass/version.h)
file(STRINGS ${_sp_version_h} _sp_defines REGEX "^#define SUPERPASS_[A-Z_]+ ")

function(_sp_define name pattern out)
  if(NOT _sp_defines MATCHES "#define ${name} ${pattern}")
    message(FATAL_ERROR "${_sp_version_h}: no '#define ${name} ${pattern}'")
  endif()
  set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
endfunction()

_sp_define(SUPERPASS_VERSION "\"([0-9]+\\.[0-9]+\\.[0-9]+)\"" SUPERPASS_VERSION)
_sp_define(SUPERPASS_ABI "([0-9]+)" SUPERPASS_ABI)
_sp_define(SUPERPASS_VERSION_MAJOR "([0-9]+)" _sp_major)
_sp_define(SUPERPASS_VERSION_MINOR "([0-9]+)" _sp_minor)
_sp_define(SUPERPASS_VERSION_PATCH "([0-9]+)" _sp_patch)
if(NOT SUPERPASS_VERSION STREQUAL "${_sp_major}.${_sp_minor}.${_sp_patch}")
  message(FATAL_ERROR "${_sp_version_h}: SUPERPASS_VERSION \"${SUPERPASS_VERSION}\" but "
                      "MAJOR.MINOR.PATCH ${_sp_major}.${_sp_minor}.${_sp_patch}")
endif()

# Editing version.h re-runs the configure step.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_sp_version_h})
