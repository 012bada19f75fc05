// cuDNN 9 convolution, bwd_filter pass (graph API), NCHW or NHWC.
#include "../cudnn_conv.hpp"

#include "ptp/profile/vocabulary.hpp"

namespace ptp::profile::cuda {
namespace {

class CudnnConvBwdFilter final : public Microbenchmark {
 public:
  std::string name() const override { return "cudnn_conv_bwd_filter"; }
  Backend backend() const override { return Backend::cuda; }
  Table table() const override { return Table::ops; }
  std::vector<AxisSpec> axes() const override { return conv_axes(); }
  Work describe(const Point& p) const override { return describe_conv(p, ConvKind::bwd_filter); }
  void run(const Point& p, Measurement& m) const override { run_conv(p, m, ConvKind::bwd_filter); }
};

}  // namespace
PTP_REGISTER_MICROBENCH(CudnnConvBwdFilter);
}  // namespace ptp::profile::cuda
