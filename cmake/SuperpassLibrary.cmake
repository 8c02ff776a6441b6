# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# sp_public_library(TARGET OUTPUT_NAME EXPORT_NAME MAP [LINK_OPTIONS ...]):
# what each installed library of superpass shares: its file name and
# SONAME from the one version number (lib<OUTPUT_NAME>.so.<SUPERPASS_ABI>),
# the public headers in its interface, a version script MAP that exports
# its header's functions and nothing else (tests/abi checks it), its
# install into the superpassTargets export set, and a RUNPATH that finds
# the other libraries beside it wherever the install is moved
# (cmake/SuperpassInstall.cmake).
function(sp_public_library target output_name export_name map)
  target_include_directories(${target}
    PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${output_name} EXPORT_NAME ${export_name}
    LINKER_LANGUAGE C VERSION ${PROJECT_VERSION} SOVERSION ${SUPERPASS_ABI})
  if(BUILD_SHARED_LIBS)
    target_link_options(${target} PRIVATE ${ARGN} -Wl,--version-script=${map})
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${map})
  endif()
  sp_install_rpath(${target} ${CMAKE_INSTALL_LIBDIR})
  install(TARGETS ${target} EXPORT superpassTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
endfunction()
