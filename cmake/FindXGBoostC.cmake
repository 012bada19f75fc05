# Debian's xgboost CMake config references /usr/bin/xgboost from a separate package and fails even
# when QUIET, and its pkg-config file has a wrong libdir, so the C API is located by hand here.
find_path(XGBoostC_INCLUDE_DIR xgboost/c_api.h)
find_library(XGBoostC_LIBRARY NAMES xgboost)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(XGBoostC REQUIRED_VARS XGBoostC_LIBRARY XGBoostC_INCLUDE_DIR)
if(XGBoostC_FOUND AND NOT TARGET XGBoost::c_api)
  add_library(XGBoost::c_api UNKNOWN IMPORTED)
  set_target_properties(XGBoost::c_api PROPERTIES
    IMPORTED_LOCATION "${XGBoostC_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${XGBoostC_INCLUDE_DIR}")
endif()
