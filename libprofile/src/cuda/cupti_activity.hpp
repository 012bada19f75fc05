#pragma once
// Kernel records from the CUPTI Activity API (CONCURRENT_KERNEL): exact kernel durations without
// replay, and the kernel names that the library picked (cuBLASLt/cuDNN choose them at run time).
#include <map>
#include <string>

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {

struct KernelStats {
  std::map<std::string, double> seconds_by_name;
  long launches = 0;
  std::string dominant() const;  // the kernel with the most total time
  double total_s() const;
};

class KernelActivity {
 public:
  KernelActivity();   // enables kernel records; unavailable() when CUPTI refuses (then a no-op)
  ~KernelActivity();  // disables them
  KernelActivity(const KernelActivity&) = delete;
  KernelActivity& operator=(const KernelActivity&) = delete;
  bool available() const { return ok_; }
  KernelStats collect();  // flushes buffers and returns the records since construction

 private:
  bool ok_ = false;
};

}  // namespace ptp::profile::cuda
