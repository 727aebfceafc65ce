// The fused RNN cells that nn.LSTM / nn.GRU (ATen's RNN.cpp) call on any
// device but CPU: _thnn_fused_lstm_cell, _thnn_fused_gru_cell and their
// backward kernels. PyTorch has them for CUDA only (CPU takes an unfused
// path), so without these every LSTM/GRU on russet failed. Each is one
// launch of the C core's fused-cell kernel (rs_rnn_cell_run,
// russet/rnn.h: ATen's CUDA formulas and workspace layouts, float32
// opmath for float16/bfloat16); here the checks, the outputs and the bias
// gradients (batch sums of the gate gradients, kept in the opmath type
// until then).
#include "russet/rnn.h"
#include "torch/pointwise.h"
#include "torch/reduce.h"
#include "torch/same_device.h"

#include <ATen/ops/_thnn_fused_gru_cell_backward_ops.h>
#include <ATen/ops/_thnn_fused_gru_cell_ops.h>
#include <ATen/ops/_thnn_fused_lstm_cell_backward_impl_ops.h>
#include <ATen/ops/_thnn_fused_lstm_cell_ops.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/zeros_like.h>
#include <torch/library.h>


namespace russet {
namespace {

using at::Tensor;
using OptTensor = std::optional<Tensor>;

bool defined(const OptTensor& t) { return t.has_value() && t->defined(); }

void check_cell(const Tensor& ig, const Tensor& hg, const Tensor& state, int64_t gates, const char* name) {
  TORCH_CHECK(ig.dim() == 2 && hg.sizes().equals(ig.sizes()), name, ": input_gates and hidden_gates must be ",
              "2-d of the same size, got ", ig.sizes(), " and ", hg.sizes());
  TORCH_CHECK(state.dim() == 2 && state.size(0) == ig.size(0) && state.size(1) * gates == ig.size(1), name,
              ": the state must be (", ig.size(0), ", ", ig.size(1) / gates, "), got ", state.sizes());
}

// every tensor in `dt` (the engine takes one dtype; mixed ones are rare)
Tensor as(const Tensor& t, at::ScalarType dt) { return resolved(t.scalar_type() == dt ? t : t.to(dt)); }
rs_tensor opt(const OptTensor& t, at::ScalarType dt, std::vector<Tensor>& keep) {
  if (!defined(t)) return rs_tensor{};
  keep.push_back(as(*t, dt));
  return describe(keep.back());
}

void run(const rs_rnn_cell& p, const Tensor& on) {
  check_or_host(rs_rnn_cell_run(current_stream_for(on), &p));
}

// A forward cell (op RS_LSTM_CELL or RS_GRU_CELL) into hy, cy (LSTM; else
// undefined) and the workspace ws, all in state's dtype
void run_forward(rs_rnn_cell_op op, const Tensor& ig, const Tensor& hg, const Tensor& state, const OptTensor& ib,
                 const OptTensor& hb, const Tensor& hy, const Tensor& cy, const Tensor& ws) {
  auto dt = state.scalar_type();
  std::vector<Tensor> keep{as(ig, dt), as(hg, dt), as(state, dt)};
  rs_rnn_cell p{};
  p.op = op;
  p.input_gates = describe(keep[0]), p.hidden_gates = describe(keep[1]), p.state = describe(keep[2]);
  p.input_bias = opt(ib, dt, keep), p.hidden_bias = opt(hb, dt, keep);
  p.hy = describe(hy), p.workspace = describe(ws);
  if (cy.defined()) p.cy = describe(cy);
  if (hy.numel()) run(p, hy);
}

// the gate gradients, (like's rows, cols) in like's dtype, or in the opmath
// type when a bias gradient sums them (float16/bfloat16: summed before
// rounding, as CUDA's kernels)
Tensor grad_gates_buffer(const Tensor& like, int64_t cols, bool has_bias) {
  auto dt = like.scalar_type();
  if (has_bias && c10::isReducedFloatingType(dt)) dt = at::kFloat;
  return at::empty({like.size(0), cols}, like.options().dtype(dt));
}

// ---- host execution: float64 where the device has no fp64 (apple). CPU
// has no fused cells (its RNNs run unfused), so the generic host fallback
// cannot run these ops: the cells' formulas run here on CPU tensors instead,
// counted as host execution like any other.
bool on_host(const Tensor& t) {
  return t.scalar_type() == at::kDouble && !rs_device_features(device(t.device().index()))->has_fp64;
}
Tensor cpu(const Tensor& t) { return t.defined() ? t.cpu() : t; }
OptTensor cpu(const OptTensor& t) { return defined(t) ? OptTensor(t->cpu()) : OptTensor(); }
Tensor back(const Tensor& t, const Tensor& like) { return t.defined() ? t.to(like.device()) : t; }

std::tuple<Tensor, Tensor, Tensor> lstm_formulas(const Tensor& ig, const Tensor& hg, const Tensor& cx,
                                                 const OptTensor& ib, const OptTensor& hb) {
  Tensor sum = ig.add(hg);
  if (defined(ib)) sum.add_(*ib);
  if (defined(hb)) sum.add_(*hb);
  auto g = sum.chunk(4, 1);
  Tensor i = g[0].sigmoid(), f = g[1].sigmoid(), c = g[2].tanh(), o = g[3].sigmoid();
  Tensor cy = f.mul(cx).add_(i.mul(c));
  return {o.mul(cy.tanh()), cy, at::cat({i, f, c, o}, 1)};
}

std::tuple<Tensor, Tensor, Tensor> lstm_backward_formulas(const OptTensor& grad_hy, const OptTensor& grad_cy,
                                                          const Tensor& cx, const Tensor& cy, const Tensor& ws,
                                                          bool has_bias) {
  auto w = ws.chunk(4, 1);
  const Tensor &i = w[0], &f = w[1], &c = w[2], &o = w[3];
  Tensor tc = cy.tanh();
  Tensor ghy = defined(grad_hy) ? *grad_hy : at::zeros_like(tc);
  Tensor gcx = ghy.mul(o).mul_(tc.mul(tc).neg_().add_(1));
  if (defined(grad_cy)) gcx.add_(*grad_cy);
  Tensor gates = at::cat({gcx.mul(c).mul_(i.mul(i.neg().add_(1))), gcx.mul(cx).mul_(f.mul(f.neg().add_(1))),
                          gcx.mul(i).mul_(c.mul(c).neg_().add_(1)), ghy.mul(tc).mul_(o.mul(o.neg().add_(1)))},
                         1);
  return {gates, gcx.mul(f), has_bias ? gates.sum(0) : Tensor()};
}

std::tuple<Tensor, Tensor> gru_formulas(const Tensor& ig_, const Tensor& hg_, const Tensor& hx, const OptTensor& ib,
                                        const OptTensor& hb) {
  Tensor ig = defined(ib) ? ig_.add(*ib) : ig_, hg = defined(hb) ? hg_.add(*hb) : hg_;
  auto a = ig.chunk(3, 1), b = hg.chunk(3, 1);
  Tensor r = a[0].add(b[0]).sigmoid(), z = a[1].add(b[1]).sigmoid();
  Tensor n = a[2].add(r.mul(b[2])).tanh();
  return {n.add(z.mul(hx.sub(n))), at::cat({r, z, n, hx, b[2]}, 1)};
}

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> gru_backward_formulas(const Tensor& go, const Tensor& ws,
                                                                         bool has_bias) {
  auto w = ws.chunk(5, 1);
  const Tensor &r = w[0], &z = w[1], &n = w[2], &hx = w[3], &hn = w[4];
  Tensor gz = go.mul(hx.sub(n)).mul_(z.mul(z.neg().add_(1)));
  Tensor gn = go.mul(z.neg().add_(1)).mul_(n.mul(n).neg_().add_(1));
  Tensor gr = gn.mul(hn).mul_(r.mul(r.neg().add_(1)));
  Tensor gin = at::cat({gr, gz, gn}, 1), ghid = at::cat({gr, gz, gn.mul(r)}, 1);
  return {gin, ghid, go.mul(z), has_bias ? gin.sum(0) : Tensor(), has_bias ? ghid.sum(0) : Tensor()};
}

std::tuple<Tensor, Tensor, Tensor> lstm_cell(const Tensor& input_gates, const Tensor& hidden_gates, const Tensor& cx,
                                             const OptTensor& input_bias, const OptTensor& hidden_bias) {
  return native_or_host<at::_ops::_thnn_fused_lstm_cell>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor> {
        same_device(input_gates, hidden_gates, cx, input_bias, hidden_bias);
        check_cell(input_gates, hidden_gates, cx, 4, "_thnn_fused_lstm_cell");
        if (on_host(cx)) {
          note_host_op("aten::_thnn_fused_lstm_cell");
          auto [h, c, w] = lstm_formulas(cpu(input_gates), cpu(hidden_gates), cpu(cx), cpu(input_bias),
                                         cpu(hidden_bias));
          return {back(h, cx), back(c, cx), back(w, cx)};
        }
        Tensor hy = at::empty(cx.sizes(), cx.options()), cy = at::empty(cx.sizes(), cx.options());
        Tensor ws = at::empty(input_gates.sizes(), cx.options());
        run_forward(RS_LSTM_CELL, input_gates, hidden_gates, cx, input_bias, hidden_bias, hy, cy, ws);
        return {hy, cy, ws.to(input_gates.scalar_type())};
      },
      input_gates, hidden_gates, cx, input_bias, hidden_bias);
}

std::tuple<Tensor, Tensor, Tensor> lstm_cell_backward(const OptTensor& grad_hy, const OptTensor& grad_cy,
                                                      const Tensor& cx, const Tensor& cy, const Tensor& workspace,
                                                      bool has_bias) {
  return native_or_host<at::_ops::_thnn_fused_lstm_cell_backward_impl>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor> {
        if (!defined(grad_hy) && !defined(grad_cy)) return {};
        same_device(grad_hy, grad_cy, cx, cy, workspace);
        if (on_host(cx)) {
          note_host_op("aten::_thnn_fused_lstm_cell_backward_impl");
          auto [g, gc, gb] = lstm_backward_formulas(cpu(grad_hy), cpu(grad_cy), cpu(cx), cpu(cy), cpu(workspace),
                                                    has_bias);
          return {back(g, cx), back(gc, cx), back(gb, cx)};
        }
        auto dt = cx.scalar_type();
        std::vector<Tensor> keep{as(cx, dt), as(cy, dt), as(workspace, dt)};
        TORCH_CHECK(workspace.dim() == 2 && cx.dim() == 2 && workspace.size(0) == cx.size(0) &&
                        workspace.size(1) == 4 * cx.size(1),
                    "_thnn_fused_lstm_cell_backward: the workspace must be (", cx.size(0), ", ", 4 * cx.size(1),
                    "), got ", workspace.sizes());
        Tensor gates = grad_gates_buffer(cx, workspace.size(1), has_bias);
        Tensor gcx = at::empty(cx.sizes(), cx.options());
        rs_rnn_cell p{};
        p.op = RS_LSTM_CELL_BACKWARD;
        p.state = describe(keep[0]), p.cy = describe(keep[1]), p.workspace = describe(keep[2]);
        p.grad_hy = opt(grad_hy, dt, keep), p.grad_cy = opt(grad_cy, dt, keep);
        p.grad_gates = describe(gates), p.grad_state = describe(gcx);
        if (gcx.numel()) run(p, gcx);
        Tensor gb = has_bias ? at::sum(gates, 0).to(dt) : Tensor();
        return {gates.to(workspace.scalar_type()), gcx, gb};
      },
      grad_hy, grad_cy, cx, cy, workspace, has_bias);
}

std::tuple<Tensor, Tensor> gru_cell(const Tensor& input_gates, const Tensor& hidden_gates, const Tensor& hx,
                                    const OptTensor& input_bias, const OptTensor& hidden_bias) {
  return native_or_host<at::_ops::_thnn_fused_gru_cell>(
      [&]() -> std::tuple<Tensor, Tensor> {
        same_device(input_gates, hidden_gates, hx, input_bias, hidden_bias);
        check_cell(input_gates, hidden_gates, hx, 3, "_thnn_fused_gru_cell");
        if (on_host(hx)) {
          note_host_op("aten::_thnn_fused_gru_cell");
          auto [h, w] = gru_formulas(cpu(input_gates), cpu(hidden_gates), cpu(hx), cpu(input_bias), cpu(hidden_bias));
          return {back(h, hx), back(w, hx)};
        }
        Tensor hy = at::empty(hx.sizes(), hx.options());
        Tensor ws = at::empty({hx.size(0), hx.size(1) * 5}, hx.options());
        run_forward(RS_GRU_CELL, input_gates, hidden_gates, hx, input_bias, hidden_bias, hy, Tensor(), ws);
        return {hy, ws.to(input_gates.scalar_type())};
      },
      input_gates, hidden_gates, hx, input_bias, hidden_bias);
}

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> gru_cell_backward(const Tensor& grad_hy, const Tensor& workspace,
                                                                     bool has_bias) {
  return native_or_host<at::_ops::_thnn_fused_gru_cell_backward>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> {
        same_device(grad_hy, workspace);
        if (on_host(grad_hy)) {
          note_host_op("aten::_thnn_fused_gru_cell_backward");
          auto [gi, gh, gx, gib, ghb] = gru_backward_formulas(cpu(grad_hy), cpu(workspace), has_bias);
          return {back(gi, grad_hy), back(gh, grad_hy), back(gx, grad_hy), back(gib, grad_hy), back(ghb, grad_hy)};
        }
        TORCH_CHECK(workspace.dim() == 2 && grad_hy.dim() == 2 && workspace.size(0) == grad_hy.size(0) &&
                        workspace.size(1) == 5 * grad_hy.size(1),
                    "_thnn_fused_gru_cell_backward: the workspace must be (", grad_hy.size(0), ", ",
                    5 * grad_hy.size(1), "), got ", workspace.sizes());
        auto dt = grad_hy.scalar_type(), gdt = workspace.scalar_type();
        std::vector<Tensor> keep{as(grad_hy, dt), as(workspace, dt)};
        int64_t cols = 3 * grad_hy.size(1);
        Tensor gin = grad_gates_buffer(grad_hy, cols, has_bias), ghid = grad_gates_buffer(grad_hy, cols, has_bias);
        Tensor ghx = at::empty(grad_hy.sizes(), grad_hy.options());
        rs_rnn_cell p{};
        p.op = RS_GRU_CELL_BACKWARD;
        p.grad_hy = describe(keep[0]), p.workspace = describe(keep[1]);
        p.grad_gates = describe(gin), p.grad_hidden_gates = describe(ghid), p.grad_state = describe(ghx);
        if (ghx.numel()) run(p, ghx);
        Tensor gib = has_bias ? at::sum(gin, 0).to(gdt) : Tensor();
        Tensor ghb = has_bias ? at::sum(ghid, 0).to(gdt) : Tensor();
        return {gin.to(gdt), ghid.to(gdt), ghx, gib, ghb};
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
