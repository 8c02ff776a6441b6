# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# SUPERPASS_FUZZ: the libFuzzer targets of tests/fuzz (the rt-app reader and
# simulator, the trace text reader and analysis, the replay), each a ctest
# of label "fuzz" that runs its seeds and a fixed number of inputs more.
# libFuzzer is clang's: configure with CC=clang. Everything is compiled
# with the fuzzer's coverage instrumentation and, unless
# SUPERPASS_SANITIZE says otherwise, ASan and UBSan.
option(SUPERPASS_FUZZ "Build the libFuzzer targets (CC=clang; ctest label fuzz)" OFF)
if(SUPERPASS_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "SUPERPASS_FUZZ needs clang's libFuzzer: configure with CC=clang "
                        "(the compiler is ${CMAKE_C_COMPILER_ID})")
  endif()
  if(NOT SUPERPASS_SANITIZE)
    set(SUPERPASS_SANITIZE "address,undefined")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
