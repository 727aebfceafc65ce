// softmax and log_softmax with their backward kernels (structured ops: the
// meta functions size the results and check the dtypes), through the C
// core's rs_softmax_run over contiguous (outer, n, inner) views.
#include "torch/reduce.h"
#include "russet/softmax.h"

#include <ATen/ops/_log_softmax_backward_data_meta.h>
#include <ATen/ops/_log_softmax_backward_data_ops.h>
#include <ATen/ops/_log_softmax_meta.h>
#include <ATen/ops/_log_softmax_ops.h>
#include <ATen/ops/_softmax_backward_data_meta.h>
#include <ATen/ops/_softmax_backward_data_ops.h>
#include <ATen/ops/_softmax_meta.h>
#include <ATen/ops/_softmax_ops.h>
#include <ATen/ops/empty.h>
#include <ATen/WrapDimUtils.h>
#include <torch/library.h>

namespace russet {
namespace {

using at::Tensor;

// Runs op with `a` (and `b`) into `out`, all of one shape; dim splits it
// into (outer, n, inner). A non-contiguous out gets a contiguous temporary.
void run_softmax(rs_softmax_op op, const Tensor& a, const Tensor& b, int64_t dim, const Tensor& out) {
  if (out.numel() == 0) return;
  Tensor ac = a.contiguous();
  Tensor bc = b.defined() ? b.contiguous() : Tensor();
  Tensor oc = out.is_contiguous() ? out : at::empty(out.sizes(), out.options());
  int64_t d = at::maybe_wrap_dim(dim, a.dim());
  rs_softmax p{};
  p.op = op;
  p.a = address_of(ac);
  p.a_dtype = static_cast<rs_dtype>(ac.scalar_type());
  if (bc.defined()) {
    p.b = address_of(bc);
    p.b_dtype = static_cast<rs_dtype>(bc.scalar_type());
  }
  p.out = address_of(oc);
  p.out_dtype = static_cast<rs_dtype>(oc.scalar_type());
  p.outer = 1;
  p.inner = 1;
  p.n = a.dim() == 0 ? 1 : a.size(d);
  for (int64_t i = 0; i < d; ++i) p.outer *= a.size(i);
  for (int64_t i = d + 1; i < a.dim(); ++i) p.inner *= a.size(i);
  check_or_host(rs_softmax_run(current_stream_for(a), &p));
  if (!oc.is_same(out)) out.copy_(oc);
}

// forward: Meta::meta(self, dim, half_to_float) sizes out
template <class Meta, class Op>
Tensor& forward_out(rs_softmax_op op, const Tensor& self, int64_t dim, bool half_to_float, Tensor& out) {
  return native_or_host<Op>(
      [&]() -> Tensor& {
        OutOps<Meta> m(out);
        m.meta(self, dim, half_to_float);
        run_softmax(op, resolved(self), Tensor(), dim, out);
        return out;
      },
      self, dim, half_to_float, out);
}

// backward: Meta::meta(grad, output, dim, input_dtype) sizes grad_input
template <class Meta, class Op>
Tensor& backward_out(rs_softmax_op op, const Tensor& grad, const Tensor& output, int64_t dim,
                     at::ScalarType input_dtype, Tensor& grad_input) {
  return native_or_host<Op>(
      [&]() -> Tensor& {
        OutOps<Meta> m(grad_input);
        m.meta(grad, output, dim, input_dtype);
        run_softmax(op, resolved(grad), resolved(output), dim, grad_input);
        return grad_input;
      },
      grad, output, dim, input_dtype, grad_input);
}

Tensor& softmax_out(const Tensor& self, int64_t dim, bool half_to_float, Tensor& out) {
  return forward_out<at::meta::structured__softmax, at::_ops::_softmax_out>(RS_SOFTMAX, self, dim, half_to_float,
                                                                            out);
}

Tensor& log_softmax_out(const Tensor& self, int64_t dim, bool half_to_float, Tensor& out) {
  return forward_out<at::meta::structured__log_softmax, at::_ops::_log_softmax_out>(RS_LOG_SOFTMAX, self, dim,
                                                                                    half_to_float, out);
}

Tensor& softmax_backward_out(const Tensor& grad, const Tensor& output, int64_t dim, at::ScalarType input_dtype,
                             Tensor& grad_input) {
  return backward_out<at::meta::structured__softmax_backward_data, at::_ops::_softmax_backward_data_out>(
      RS_SOFTMAX_BACKWARD, grad, output, dim, input_dtype, grad_input);
}

Tensor& log_softmax_backward_out(const Tensor& grad, const Tensor& output, int64_t dim,
                                 at::ScalarType input_dtype, Tensor& grad_input) {
  return backward_out<at::meta::structured__log_softmax_backward_data, at::_ops::_log_softmax_backward_data_out>(
      RS_LOG_SOFTMAX_BACKWARD, grad, output, dim, input_dtype, grad_input);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_softmax.out", softmax_out);
  m.impl("_log_softmax.out", log_softmax_out);
  m.impl("_softmax_backward_data.out", softmax_backward_out);
  m.impl("_log_softmax_backward_data.out", log_softmax_backward_out);
}

}  // namespace russet
