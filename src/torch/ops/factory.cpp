// Range factories: arange, linspace, logspace, eye. The sizes and checks
// follow ATen's RangeFactories.cpp; the values come from the C engine.
// _efficientzerotensor (the zero gradients autograd makes) is a filled
// zero tensor: no ZeroTensor dispatch key, whose null storage no russet
// kernel could read.
#include "russet/linspace.h"
#include "torch/torch_version.h"

#include <ATen/native/Resize.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/Dispatch.h>
#include <ATen/ops/linspace.h>
#include <ATen/ops/logspace.h>
#include <ATen/ops/zeros.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include <cmath>
#include <limits>

#include "torch/adapter.h"

namespace russet {
namespace {

// Runs the native fill; where the device cannot compute the dtype (float64
// under the apple profile) the values are computed on the host, counted.
template <typename Native, typename Host>
void native_or_host(at::Tensor& out, const char* op, Native native, Host host) {
  c10::DeviceGuard guard(out.device());
  rs_tensor d = describe_elementwise(out);
  rs_status st = native(current_stream_for(out), &d);
  if (st == RS_OK) return;
  if (st != RS_ERR_UNSUPPORTED) throw_status(st);
  note_host_op(op);
  at::Tensor cpu = at::empty(out.sizes(), out.options().device(at::kCPU));
  host(cpu);
  out.copy_(cpu);
}

at::Tensor& arange_out(const at::Scalar& start, const at::Scalar& end, const at::Scalar& step, at::Tensor& out) {
  double xstart = start.to<double>(), xend = end.to<double>(), xstep = step.to<double>();
  TORCH_CHECK(xstep > 0 || xstep < 0, "step must be nonzero");
  TORCH_CHECK(std::isfinite(xstart) && std::isfinite(xend), "unsupported range: ", start, " -> ", end);
  TORCH_CHECK(((xstep > 0) && (xend >= xstart)) || ((xstep < 0) && (xend <= xstart)),
              "upper bound and larger bound inconsistent with step sign");
  double size_d;
  if (out.scalar_type() == at::kLong) {
    int64_t s = start.to<int64_t>(), e = end.to<int64_t>(), st = step.to<int64_t>();
    // a fractional step truncates to 0 in int64 (CPU's ValueError; it was
    // a division by zero here, SIGFPE)
    TORCH_CHECK_VALUE(st != 0, "step must be nonzero");
    int64_t sgn = (st > 0) - (st < 0);
    size_d = static_cast<double>((e - s + st - sgn) / st);  // integer division, as ATen
  } else {
    size_d = std::ceil((xend - xstart) / xstep);
  }
  TORCH_CHECK(size_d >= 0 && size_d <= static_cast<double>(std::numeric_limits<int64_t>::max()),
              "invalid size, possible overflow?");
  int64_t size = static_cast<int64_t>(size_d);
  // CPU's resize: a wrongly sized out= gets ATen's deprecation warning
  if (out.numel() != size) at::native::resize_output(out, {size});
  if (size == 0) return out;
  native_or_host(
      out, "aten::arange.start_out",
      [&](rs_stream* s, rs_tensor* d) { return rs_arange(s, d, xstart, xstep); },
      [&](at::Tensor& cpu) { at::arange_out(cpu, start, end, step); });
  return out;
}

// torch 2.15's CPU computes float16/bfloat16 linspace in float and rounds
// once; 2.13's rounded each operation to the dtype (the same inputs give
// other bits at some elements): russet follows the torch it is built for
constexpr int kHalfLinspaceInFloat = RUSSET_TORCH_2_15;

at::Tensor& linspace_impl(const at::Scalar& start, const at::Scalar& end, int64_t steps, double base,
                          at::Tensor& out) {
  TORCH_CHECK(steps >= 0, "number of steps must be non-negative");
  if (out.numel() != steps) out.resize_({steps});
  if (steps == 0) return out;
  // one step: CPU fills start (linspace) or base^start (logspace), and
  // converts neither end nor start to the dtype first
  if (steps == 1) {
    if (base <= 0) return out.fill_(start);
    if (out.is_complex()) return out.fill_(std::pow(base, start.to<c10::complex<double>>()));
    return out.fill_(std::pow(base, start.to<double>()));
  }
  // CPU's kernels convert start and end to the dtype with a check
  // ("value cannot be converted to type c10::Half without overflow")
  AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(at::kHalf, at::kBFloat16, out.scalar_type(), "linspace_cpu", [&]() {
    (void)start.to<scalar_t>();
    (void)end.to<scalar_t>();
  });
  native_or_host(
      out, base > 0 ? "aten::logspace.out" : "aten::linspace.out",
      [&](rs_stream* s, rs_tensor* d) {
        return rs_linspace_rounding(s, d, start.to<double>(), end.to<double>(), base, kHalfLinspaceInFloat);
      },
      [&](at::Tensor& cpu) {
        if (base > 0) at::logspace_out(cpu, start, end, steps, base);
        else at::linspace_out(cpu, start, end, steps);
      });
  return out;
}

at::Tensor& linspace_out(const at::Scalar& start, const at::Scalar& end, int64_t steps, at::Tensor& out) {
  return linspace_impl(start, end, steps, 0.0, out);
}

at::Tensor& logspace_out(const at::Scalar& start, const at::Scalar& end, int64_t steps, double base,
                         at::Tensor& out) {
  TORCH_CHECK(base > 0, "russet: logspace with a non-positive base is not supported natively");
  return linspace_impl(start, end, steps, base, out);
}

at::Tensor& eye_m_out(int64_t n, int64_t m, at::Tensor& out) {
  TORCH_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  TORCH_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  out.resize_({n, m});
  out.zero_();
  if (n && m) out.diagonal().fill_(1);
  return out;
}

at::Tensor& eye_out(int64_t n, at::Tensor& out) { return eye_m_out(n, n, out); }

at::Tensor efficientzerotensor(at::IntArrayRef size, std::optional<at::ScalarType> dtype,
                               std::optional<at::Layout> layout, std::optional<at::Device> device,
                               std::optional<bool> pin_memory) {
  return at::zeros(size, at::TensorOptions().dtype(dtype).layout(layout).device(device).pinned_memory(pin_memory));
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("arange.start_out", arange_out);
  m.impl("linspace.out", linspace_out);
  m.impl("logspace.out", logspace_out);
  m.impl("eye.out", eye_out);
  m.impl("eye.m_out", eye_m_out);
  m.impl("_efficientzerotensor", efficientzerotensor);
}

}  // namespace russet
