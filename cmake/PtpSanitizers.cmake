# ASan+UBSan build of the CPU-only code (CI runs the test suite a second time with it).
option(PTP_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
if(PTP_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
