// cuDNN 9 convolution, fwd pass (graph API), NCHW or NHWC.
#include "../cudnn_conv.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {
namespace {

class CudnnConvFwd final : public Microbenchmark {
 public:
  std::string name() const override { return "cudnn_conv_fwd"; }
  Backend backend() const override { return Backend::cuda; }
  Table table() const override { return Table::ops; }
  std::vector<AxisSpec> axes() const override { return conv_axes(); }
  Work describe(const Point& p) const override { return describe_conv(p, ConvKind::fwd); }
  void run(const Point& p, Measurement& m) const override { run_conv(p, m, ConvKind::fwd); }
};

}  // namespace
PTP_REGISTER_MICROBENCH(CudnnConvFwd);
}  // namespace ptp::profile::cuda
