# Resolves PTP_WITH_CUDA (AUTO|ON|OFF) into PTP_HAVE_CUDA. Owned by the ptp-profile work.
set(PTP_HAVE_CUDA OFF)
