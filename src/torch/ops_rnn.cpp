// The fused RNN cells that nn.LSTM / nn.GRU (ATen's RNN.cpp) call on any
// device but CPU: _thnn_fused_lstm_cell, _thnn_fused_gru_cell and their
// backward kernels. PyTorch has them for CUDA only (CPU takes an unfused
// path), so without these every LSTM/GRU on russet failed. Composed from
// native pointwise ops and sums in the formulas and workspace layouts of
// ATen's CUDA kernels (RNN.cu), computed in float32 for float16/bfloat16.
#include "torch/pointwise.h"

#include <ATen/ops/_thnn_fused_gru_cell_backward_ops.h>
#include <ATen/ops/_thnn_fused_gru_cell_ops.h>
#include <ATen/ops/_thnn_fused_lstm_cell_backward_impl_ops.h>
#include <ATen/ops/_thnn_fused_lstm_cell_ops.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/sigmoid.h>
#include <ATen/ops/tanh.h>
#include <ATen/ops/zeros_like.h>
#include <torch/library.h>


namespace russet {
namespace {

using at::Tensor;
using OptTensor = std::optional<Tensor>;

bool defined(const OptTensor& t) { return t.has_value() && t->defined(); }

at::ScalarType opmath_of(const Tensor& t) {
  return c10::isReducedFloatingType(t.scalar_type()) ? at::kFloat : t.scalar_type();
}

void check_cell(const Tensor& ig, const Tensor& hg, const Tensor& state, int64_t gates, const char* name) {
  TORCH_CHECK(ig.dim() == 2 && hg.sizes().equals(ig.sizes()), name, ": input_gates and hidden_gates must be ",
              "2-d of the same size, got ", ig.sizes(), " and ", hg.sizes());
  TORCH_CHECK(state.dim() == 2 && state.size(0) == ig.size(0) && state.size(1) * gates == ig.size(1), name,
              ": the state must be (", ig.size(0), ", ", ig.size(1) / gates, "), got ", state.sizes());
}

// input_gates + hidden_gates (+ biases) in the opmath type
Tensor gate_sum(const Tensor& ig, const Tensor& hg, const OptTensor& ib, const OptTensor& hb, at::ScalarType t) {
  Tensor g = ig.to(t).add(hg.to(t));
  if (defined(ib)) g.add_(ib->to(t));
  if (defined(hb)) g.add_(hb->to(t));
  return g;
}

// LSTM: gates i, f, g, o (chunks of H); workspace = the activated gates
std::tuple<Tensor, Tensor, Tensor> lstm_cell(const Tensor& input_gates, const Tensor& hidden_gates, const Tensor& cx,
                                             const OptTensor& input_bias, const OptTensor& hidden_bias) {
  return native_or_host<at::_ops::_thnn_fused_lstm_cell>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor> {
        check_cell(input_gates, hidden_gates, cx, 4, "_thnn_fused_lstm_cell");
        host_if_no_fp64(cx);
        auto t = opmath_of(cx);
        auto g = gate_sum(input_gates, hidden_gates, input_bias, hidden_bias, t).chunk(4, 1);
        Tensor i = at::sigmoid(g[0]), f = at::sigmoid(g[1]), c = at::tanh(g[2]), o = at::sigmoid(g[3]);
        Tensor cy = f.mul(cx.to(t)).add_(i.mul(c));
        Tensor hy = o.mul(at::tanh(cy));
        auto dt = cx.scalar_type();
        return {hy.to(dt), cy.to(dt), at::cat({i, f, c, o}, 1).to(input_gates.scalar_type())};
      },
      input_gates, hidden_gates, cx, input_bias, hidden_bias);
}

std::tuple<Tensor, Tensor, Tensor> lstm_cell_backward(const OptTensor& grad_hy, const OptTensor& grad_cy,
                                                      const Tensor& cx, const Tensor& cy, const Tensor& workspace,
                                                      bool has_bias) {
  return native_or_host<at::_ops::_thnn_fused_lstm_cell_backward_impl>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor> {
        if (!defined(grad_hy) && !defined(grad_cy)) return {};
        host_if_no_fp64(cx);
        auto t = opmath_of(cx);
        auto w = workspace.to(t).chunk(4, 1);
        const Tensor &i = w[0], &f = w[1], &c = w[2], &o = w[3];
        Tensor tc = at::tanh(cy.to(t));
        Tensor ghy = defined(grad_hy) ? grad_hy->to(t) : at::zeros_like(tc);
        // gcx = grad_hy * o * (1 - tanh(cy)^2) + grad_cy
        Tensor gcx = ghy.mul(o).mul_(tc.mul(tc).neg_().add_(1));
        if (defined(grad_cy)) gcx.add_(grad_cy->to(t));
        Tensor gi = gcx.mul(c).mul_(i.mul(i.neg().add_(1)));
        Tensor gf = gcx.mul(cx.to(t)).mul_(f.mul(f.neg().add_(1)));
        Tensor gg = gcx.mul(i).mul_(c.mul(c).neg_().add_(1));
        Tensor go = ghy.mul(tc).mul_(o.mul(o.neg().add_(1)));
        Tensor gates = at::cat({gi, gf, gg, go}, 1);
        auto dt = cx.scalar_type();
        Tensor gb = has_bias ? gates.sum(0).to(dt) : Tensor();
        return {gates.to(workspace.scalar_type()), gcx.mul(f).to(dt), gb};
      },
      grad_hy, grad_cy, cx, cy, workspace, has_bias);
}

// GRU: input gates r, z (update), n; hy = n + z * (hx - n);
// workspace = [r, z, n, hx, hn] (hn with its bias)
std::tuple<Tensor, Tensor> gru_cell(const Tensor& input_gates, const Tensor& hidden_gates, const Tensor& hx,
                                    const OptTensor& input_bias, const OptTensor& hidden_bias) {
  return native_or_host<at::_ops::_thnn_fused_gru_cell>(
      [&]() -> std::tuple<Tensor, Tensor> {
        check_cell(input_gates, hidden_gates, hx, 3, "_thnn_fused_gru_cell");
        host_if_no_fp64(hx);
        auto t = opmath_of(hx);
        Tensor ig = input_gates.to(t), hg = hidden_gates.to(t);
        if (defined(input_bias)) ig = ig.add(input_bias->to(t));
        if (defined(hidden_bias)) hg = hg.add(hidden_bias->to(t));
        auto a = ig.chunk(3, 1), b = hg.chunk(3, 1);
        Tensor r = at::sigmoid(a[0].add(b[0])), z = at::sigmoid(a[1].add(b[1]));
        Tensor n = at::tanh(a[2].add(r.mul(b[2])));
        Tensor h = hx.to(t);
        Tensor hy = n.add(z.mul(h.sub(n)));
        return {hy.to(hx.scalar_type()), at::cat({r, z, n, h, b[2]}, 1).to(input_gates.scalar_type())};
      },
      input_gates, hidden_gates, hx, input_bias, hidden_bias);
}

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> gru_cell_backward(const Tensor& grad_hy, const Tensor& workspace,
                                                                     bool has_bias) {
  return native_or_host<at::_ops::_thnn_fused_gru_cell_backward>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> {
        host_if_no_fp64(grad_hy);
        auto t = opmath_of(grad_hy);
        auto w = workspace.to(t).chunk(5, 1);
        const Tensor &r = w[0], &z = w[1], &n = w[2], &hx = w[3], &hn = w[4];
        Tensor go = grad_hy.to(t);
        Tensor gz = go.mul(hx.sub(n)).mul_(z.mul(z.neg().add_(1)));
        Tensor ghx = go.mul(z);
        Tensor gn = go.mul(z.neg().add_(1)).mul_(n.mul(n).neg_().add_(1));
        Tensor ghn = gn.mul(r);
        Tensor gr = gn.mul(hn).mul_(r.mul(r.neg().add_(1)));
        Tensor gin = at::cat({gr, gz, gn}, 1), ghid = at::cat({gr, gz, ghn}, 1);
        auto dt = grad_hy.scalar_type(), gdt = workspace.scalar_type();
        Tensor gib = has_bias ? gin.sum(0).to(gdt) : Tensor();
        Tensor ghb = has_bias ? ghid.sum(0).to(gdt) : Tensor();
        return {gin.to(gdt), ghid.to(gdt), ghx.to(dt), gib, ghb};
      },
      grad_hy, workspace, has_bias);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_thnn_fused_lstm_cell", lstm_cell);
  m.impl("_thnn_fused_lstm_cell_backward_impl", lstm_cell_backward);
  m.impl("_thnn_fused_gru_cell", gru_cell);
  m.impl("_thnn_fused_gru_cell_backward", gru_cell_backward);
}

}  // namespace russet
