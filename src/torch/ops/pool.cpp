// Max and average pooling, fixed, adaptive and fractional windows, 1-d
// (through ATen's composites) to 3-d, and their backward kernels: shapes, checks and errors
// from ATen's structured meta functions (2-d, adaptive) and Pool.h's checks
// (3-d); the work in the C core's pooling engine (rs_pool_run,
// src/engine/pool.c: one kernel per op, any layout, channels_last kept).
// What the engine has no kernel for (float64 under the apple profile, avg
// pooling of int32) runs on the host through the usual counted fallback,
// which gives CPU's result or CPU's error.
#include "torch/torch_version.h"
#include "torch/pointwise.h"
#include "torch/dtype_refusal.h"
#include "torch/reduce.h"
#include "russet/pool.h"

#include <ATen/native/Pool.h>
#include <ATen/ops/_adaptive_avg_pool2d_backward_ops.h>
#include <ATen/ops/_adaptive_avg_pool2d_ops.h>
#include <ATen/ops/_adaptive_avg_pool3d_backward_ops.h>
#include <ATen/ops/_adaptive_avg_pool3d_ops.h>
#include <ATen/ops/adaptive_avg_pool2d_ops.h>
#include <ATen/ops/adaptive_avg_pool3d_ops.h>
#include <ATen/ops/adaptive_max_pool2d_backward_meta.h>
#include <ATen/ops/adaptive_max_pool2d_backward_ops.h>
#include <ATen/ops/adaptive_max_pool2d_meta.h>
#include <ATen/ops/adaptive_max_pool2d_ops.h>
#include <ATen/ops/adaptive_max_pool3d_backward_meta.h>
#include <ATen/ops/adaptive_max_pool3d_backward_ops.h>
#include <ATen/ops/adaptive_max_pool3d_meta.h>
#include <ATen/ops/adaptive_max_pool3d_ops.h>
#include <ATen/ops/avg_pool2d_backward_meta.h>
#include <ATen/ops/avg_pool2d_backward_ops.h>
#include <ATen/ops/avg_pool2d_meta.h>
#include <ATen/ops/avg_pool2d_ops.h>
#include <ATen/ops/avg_pool3d_backward_meta.h>
#include <ATen/ops/avg_pool3d_backward_ops.h>
#include <ATen/ops/avg_pool3d_meta.h>
#include <ATen/ops/avg_pool3d_ops.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/fractional_max_pool2d_backward_meta.h>
#include <ATen/ops/fractional_max_pool2d_backward_ops.h>
#include <ATen/ops/fractional_max_pool2d_meta.h>
#include <ATen/ops/fractional_max_pool2d_ops.h>
#include <ATen/ops/fractional_max_pool3d_backward_ops.h>
#include <ATen/ops/fractional_max_pool3d_meta.h>
#include <ATen/ops/fractional_max_pool3d_ops.h>
#include <ATen/ops/max_pool2d_with_indices_backward_meta.h>
#include <ATen/ops/max_unpool2d_ops.h>
#include <ATen/ops/max_unpool3d_ops.h>
#include <ATen/ops/max_pool2d_with_indices_backward_ops.h>
#include <ATen/ops/max_pool2d_with_indices_meta.h>
#include <ATen/ops/max_pool2d_with_indices_ops.h>
#include <ATen/ops/max_pool3d_with_indices_backward_ops.h>
#include <ATen/ops/max_pool3d_with_indices_ops.h>
#include <ATen/ops/scatter_add_ops.h>
#include <ATen/ops/zeros.h>
#include <c10/util/accumulate.h>
#include <torch/library.h>



namespace russet {
namespace {

using at::Tensor;
using Dims = std::vector<int64_t>;

// One pooling's geometry over the last k dims of the input.
struct Pool {
  int64_t k;
  Dims in, out, kernel, stride, pad, dil;
};

Dims expand(at::IntArrayRef v, int64_t k, Dims dflt) {
  if (v.empty()) return dflt;
  Dims r(k);
  for (int64_t i = 0; i < k; ++i) r[i] = v[v.size() == 1 ? 0 : i];
  return r;
}

Pool geometry(const Tensor& self, const Tensor& out, int64_t k, at::IntArrayRef kernel, at::IntArrayRef stride,
              at::IntArrayRef pad, at::IntArrayRef dil) {
  Pool p;
  p.k = k;
  for (int64_t d = 0; d < k; ++d) {
    p.in.push_back(self.size(self.dim() - k + d));
    p.out.push_back(out.size(out.dim() - k + d));
  }
  p.kernel = expand(kernel, k, {});
  p.stride = expand(stride, k, p.kernel);
  p.pad = expand(pad, k, Dims(k, 0));
  p.dil = expand(dil, k, Dims(k, 1));
  return p;
}

// (N, C, spatial...): unbatched (C, spatial...) tensors get N = 1
Tensor nc_view(const Tensor& t, int64_t k) { return t.dim() == k + 1 ? t.unsqueeze(0) : t; }

// Runs one pooling op of the engine over k spatial dims. Forward: `input`
// into `output` (and `indices` for max); backward: grad_output (`output`)
// and, for max, `indices` into `grad_input`. Throws NeedsHost where the
// engine has no kernel for the dtype.
// adaptive: 1 adaptive windows, RS_POOL_FRACTIONAL fractional ones (with
// their `samples`).
void run_pool(rs_pool_op op, const Pool& p, int adaptive, const Tensor& input, const Tensor& output,
              const Tensor& indices, const Tensor& grad_input, bool count_include_pad = false,
              std::optional<int64_t> divisor_override = std::nullopt, const Tensor& samples = Tensor()) {
  const Tensor& target = grad_input.defined() ? grad_input : output;
  if (target.numel() == 0) return;
  // resolved (neg-bit) copies live until the dispatch is recorded
  Tensor in = input.defined() ? resolved(input) : Tensor();
  Tensor src = grad_input.defined() ? resolved(output) : output;
  rs_pool r{};
  r.op = op;
  r.dims = static_cast<int>(p.k);
  r.adaptive = adaptive;
  if (in.defined()) r.input = describe(nc_view(in, p.k));
  r.output = describe(nc_view(src, p.k));
  if (indices.defined()) r.indices = describe(nc_view(indices, p.k));
  if (samples.defined()) r.samples = describe(samples);
  if (grad_input.defined()) {
    if (output.scalar_type() != grad_input.scalar_type()) throw NeedsHost{};
    r.grad_input = describe(nc_view(grad_input, p.k));
  }
  for (int64_t d = 0; d < p.k && adaptive != 1; ++d) {
    r.kernel[d] = p.kernel[d];
    r.stride[d] = p.stride[d];
    r.pad[d] = p.pad[d];
    r.dil[d] = p.dil[d];
  }
  r.count_include_pad = count_include_pad;
  r.divisor_override = divisor_override.value_or(0);
  check_or_host(rs_pool_run(current_stream_for(target), &r));
}

// the layout CPU gives a k-d pooling's result: a batched input's suggested
// memory format (channels_last in, channels_last out); an unbatched input
// (C, spatial...) is not a channels_last batch, whatever its strides say
at::MemoryFormat pool_format(const Tensor& self, int64_t k) {
  return self.dim() == k + 2 ? self.suggest_memory_format() : at::MemoryFormat::Contiguous;
}

// `out` (and a pooling's indices) resized to `shape` as CPU resizes them,
// in pool_format
void resize_pool_out(Tensor& out, const Tensor& self, int64_t k, at::IntArrayRef shape) {
  if (at::native::resize_output(out, shape)) out.resize_(shape, pool_format(self, k));
}

// a result of the input's sizes in its suggested memory format
Tensor like_input(const Tensor& self) {
  return at::empty(self.sizes(), self.options().memory_format(self.suggest_memory_format()));
}

// ---------------------------------------------------------------- max

void max_pool(const Tensor& self, const Pool& p, const Tensor& out, const Tensor& indices) {
  run_pool(RS_POOL_MAX, p, false, self, out, indices, Tensor());
}

// grad_input = the sum of grad over the windows whose index names the element
void max_pool_backward(const Tensor& grad, const Pool& p, const Tensor& indices, const Tensor& gi) {
  run_pool(RS_POOL_MAX_BACKWARD, p, false, Tensor(), grad, indices, gi);
}

std::tuple<Tensor&, Tensor&> max_pool2d_out(const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride,
                                            at::IntArrayRef pad, at::IntArrayRef dil, bool ceil_mode, Tensor& out,
                                            Tensor& indices) {
  return native_or_host<at::_ops::max_pool2d_with_indices_out>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        OutOps<at::meta::structured_max_pool2d_with_indices> m(out, indices);
        m.meta(self, kernel, stride, pad, dil, ceil_mode);
        max_pool(self, geometry(self, out, 2, kernel, stride, pad, dil), out, indices);
        return {out, indices};
      },
      self, kernel, stride, pad, dil, ceil_mode, out, indices);
}

Tensor& max_pool2d_backward_out(const Tensor& grad, const Tensor& self, at::IntArrayRef kernel,
                                at::IntArrayRef stride, at::IntArrayRef pad, at::IntArrayRef dil, bool ceil_mode,
                                const Tensor& indices, Tensor& gi) {
  return native_or_host<at::_ops::max_pool2d_with_indices_backward_grad_input>(
      [&]() -> Tensor& {
        OutOps<at::meta::structured_max_pool2d_with_indices_backward> m(gi);
        m.meta(grad, self, kernel, stride, pad, dil, ceil_mode, indices);
        max_pool_backward(grad, geometry(self, grad, 2, kernel, stride, pad, dil), indices, gi);
        return gi;
      },
      grad, self, kernel, stride, pad, dil, ceil_mode, indices, gi);
}

// 3-d: not structured in ATen; sizes and checks as its CPU kernel
Pool pool3d_geometry(const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride, at::IntArrayRef pad,
                     at::IntArrayRef dil, bool ceil_mode, const char* name) {
  TORCH_CHECK(kernel.size() == 1 || kernel.size() == 3, name,
              ": kernel_size must either be a single int, or a tuple of three ints");
  TORCH_CHECK(stride.empty() || stride.size() == 1 || stride.size() == 3, name,
              ": stride must either be omitted, a single int, or a tuple of three ints");
  TORCH_CHECK(pad.size() == 1 || pad.size() == 3, name,
              ": padding must either be a single int, or a tuple of three ints");
  TORCH_CHECK(dil.size() == 1 || dil.size() == 3, name,
              ": dilation must be either a single int, or a tuple of three ints");
  TORCH_CHECK(self.dim() == 4 || self.dim() == 5, "non-empty 4D or 5D (batch mode) tensor expected for input");
  Pool p;
  p.k = 3;
  p.kernel = expand(kernel, 3, {});
  p.stride = expand(stride, 3, p.kernel);
  p.pad = expand(pad, 3, Dims(3, 0));
  p.dil = expand(dil, 3, Dims(3, 1));
  for (int64_t d = 0; d < 3; ++d) {
    p.in.push_back(self.size(self.dim() - 3 + d));
    p.out.push_back(at::native::pooling_output_shape<int64_t>(p.in[d], p.kernel[d], p.pad[d], p.stride[d],
                                                               p.dil[d], ceil_mode));
  }
  at::native::pool3d_shape_check(self, self.size(self.dim() - 4), p.kernel[0], p.kernel[1], p.kernel[2],
                                 p.stride[0], p.stride[1], p.stride[2], p.pad[0], p.pad[1], p.pad[2], p.dil[0],
                                 p.dil[1], p.dil[2], p.in[0], p.in[1], p.in[2], p.out[0], p.out[1], p.out[2], name);
  return p;
}

Dims out_shape(const Tensor& self, const Pool& p) {
  Dims s(self.sizes().begin(), self.sizes().end() - p.k);
  s.insert(s.end(), p.out.begin(), p.out.end());
  return s;
}

std::tuple<Tensor&, Tensor&> max_pool3d_out(const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride,
                                            at::IntArrayRef pad, at::IntArrayRef dil, bool ceil_mode, Tensor& out,
                                            Tensor& indices) {
  return native_or_host<at::_ops::max_pool3d_with_indices_out>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        Pool p = pool3d_geometry(self, kernel, stride, pad, dil, ceil_mode, "max_pool3d_with_indices()");
        auto shape = out_shape(self, p);
        resize_pool_out(out, self, 3, shape);
        resize_pool_out(indices, self, 3, shape);
        max_pool(self, p, out, indices);
        return {out, indices};
      },
      self, kernel, stride, pad, dil, ceil_mode, out, indices);
}

std::tuple<Tensor, Tensor> max_pool3d(const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride,
                                      at::IntArrayRef pad, at::IntArrayRef dil, bool ceil_mode) {
  Tensor out = at::empty({0}, self.options()), indices = at::empty({0}, self.options().dtype(at::kLong));
  max_pool3d_out(self, kernel, stride, pad, dil, ceil_mode, out, indices);
  return {out, indices};
}

Tensor& max_pool3d_backward_out(const Tensor& grad, const Tensor& self, at::IntArrayRef kernel,
                                at::IntArrayRef stride, at::IntArrayRef pad, at::IntArrayRef dil, bool ceil_mode,
                                const Tensor& indices, Tensor& gi) {
  return native_or_host<at::_ops::max_pool3d_with_indices_backward_grad_input>(
      [&]() -> Tensor& {
        Pool p = pool3d_geometry(self, kernel, stride, pad, dil, ceil_mode, "max_pool3d_with_indices_backward()");
        TORCH_CHECK(grad.sizes().equals(out_shape(self, p)) && indices.sizes().equals(grad.sizes()),
                    "max_pool3d_with_indices_backward(): grad_output and indices must have the output's shape ",
                    out_shape(self, p), ", got ", grad.sizes(), " and ", indices.sizes());
        Tensor r = like_input(self);
        max_pool_backward(grad, p, indices, r);
        return write_out(gi, r);
      },
      grad, self, kernel, stride, pad, dil, ceil_mode, indices, gi);
}

Tensor max_pool3d_backward(const Tensor& grad, const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride,
                           at::IntArrayRef pad, at::IntArrayRef dil, bool ceil_mode, const Tensor& indices) {
  Tensor gi = at::empty({0}, self.options());
  return max_pool3d_backward_out(grad, self, kernel, stride, pad, dil, ceil_mode, indices, gi);
}

// ---------------------------------------------------------------- avg

void avg_pool(const Tensor& self, const Pool& p, bool count_include_pad, std::optional<int64_t> divisor_override,
              const Tensor& out) {
  run_pool(RS_POOL_AVG, p, false, self, out, Tensor(), Tensor(), count_include_pad, divisor_override);
}

template <class Meta, class Op>
Tensor& avg_pool_out(int64_t k, const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride,
                     at::IntArrayRef pad, bool ceil_mode, bool count_include_pad,
                     std::optional<int64_t> divisor_override, Tensor& out) {
  return native_or_host<Op>(
      [&]() -> Tensor& {
        OutOps<Meta> m(out);
        m.meta(self, kernel, stride, pad, ceil_mode, count_include_pad, divisor_override);
        avg_pool(self, geometry(self, out, k, kernel, stride, pad, {}), count_include_pad, divisor_override, out);
        return out;
      },
      self, kernel, stride, pad, ceil_mode, count_include_pad, divisor_override, out);
}

template <class Meta, class Op>
Tensor& avg_pool_backward_out(int64_t k, const Tensor& grad, const Tensor& self, at::IntArrayRef kernel,
                              at::IntArrayRef stride, at::IntArrayRef pad, bool ceil_mode, bool count_include_pad,
                              std::optional<int64_t> divisor_override, Tensor& gi) {
  return native_or_host<Op>(
      [&]() -> Tensor& {
        OutOps<Meta> m(gi);
        m.meta(grad, self, kernel, stride, pad, ceil_mode, count_include_pad, divisor_override);
        run_pool(RS_POOL_AVG_BACKWARD, geometry(self, grad, k, kernel, stride, pad, {}), false, Tensor(), grad,
                 Tensor(), gi, count_include_pad, divisor_override);
        return gi;
      },
      grad, self, kernel, stride, pad, ceil_mode, count_include_pad, divisor_override, gi);
}

Tensor& avg_pool2d_out(const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride, at::IntArrayRef pad,
                       bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override, Tensor& out) {
  return avg_pool_out<at::meta::structured_avg_pool2d, at::_ops::avg_pool2d_out>(
      2, self, kernel, stride, pad, ceil_mode, count_include_pad, divisor_override, out);
}
Tensor& avg_pool3d_out(const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef stride, at::IntArrayRef pad,
                       bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override, Tensor& out) {
  return avg_pool_out<at::meta::structured_avg_pool3d, at::_ops::avg_pool3d_out>(
      3, self, kernel, stride, pad, ceil_mode, count_include_pad, divisor_override, out);
}
Tensor& avg_pool2d_backward_out(const Tensor& grad, const Tensor& self, at::IntArrayRef kernel,
                                at::IntArrayRef stride, at::IntArrayRef pad, bool ceil_mode, bool count_include_pad,
                                std::optional<int64_t> divisor_override, Tensor& gi) {
  return avg_pool_backward_out<at::meta::structured_avg_pool2d_backward, at::_ops::avg_pool2d_backward_grad_input>(
      2, grad, self, kernel, stride, pad, ceil_mode, count_include_pad, divisor_override, gi);
}
Tensor& avg_pool3d_backward_out(const Tensor& grad, const Tensor& self, at::IntArrayRef kernel,
                                at::IntArrayRef stride, at::IntArrayRef pad, bool ceil_mode, bool count_include_pad,
                                std::optional<int64_t> divisor_override, Tensor& gi) {
  return avg_pool_backward_out<at::meta::structured_avg_pool3d_backward, at::_ops::avg_pool3d_backward_grad_input>(
      3, grad, self, kernel, stride, pad, ceil_mode, count_include_pad, divisor_override, gi);
}

// ---------------------------------------------------------------- adaptive avg

void check_adaptive(const Tensor& self, at::IntArrayRef out, int64_t k, const char* name) {
  TORCH_CHECK(static_cast<int64_t>(out.size()) == k, name, ": output_size must be ", k);
  TORCH_CHECK(self.dim() == k + 1 || self.dim() == k + 2, name, ": Expected ", k + 1, "D or ", k + 2,
              "D tensor, but got ", self.sizes());
  for (int64_t d = 1; d < self.dim(); ++d)
    TORCH_CHECK(self.size(d) > 0, name, ": Expected input to have non-zero size for non-batch dimensions, but input ",
                "has sizes ", self.sizes(), " with dimension ", d, " being empty");
  for (int64_t o : out) TORCH_CHECK(o >= 0, name, ": elements of output_size must be greater than or equal to 0");
}

// the geometry of adaptive pooling over the last k dims: in -> out sizes
Pool adaptive_geometry(const Tensor& self, at::IntArrayRef output_size, int64_t k) {
  Pool p;
  p.k = k;
  p.in.assign(self.sizes().end() - k, self.sizes().end());
  p.out.assign(output_size.begin(), output_size.end());
  return p;
}

Tensor adaptive_avg(const Tensor& self, at::IntArrayRef output_size, int64_t k, const char* name) {
  check_adaptive(self, output_size, k, name);
  Dims shape(self.sizes().begin(), self.sizes().end() - k);
  shape.insert(shape.end(), output_size.begin(), output_size.end());
  // CPU's 2-d kernel returns an empty result before its dtype dispatch (3-d's refuses first)
  if (k != 2 || c10::multiply_integers(shape) > 0)
    refuse_unless(is_nn_float(self.scalar_type()), k == 2 ? "adaptive_avg_pool2d" : "adaptive_avg_pool3d_cpu",
                  self.scalar_type());
  // (CPU's and CUDA's 3-d adaptive average is contiguous whatever the input)
  Tensor out = at::empty(shape, self.options().memory_format(k == 2 ? pool_format(self, k) : at::MemoryFormat::Contiguous));
  run_pool(RS_POOL_AVG, adaptive_geometry(self, output_size, k), true, self, out, Tensor(), Tensor());
  return out;
}

Tensor adaptive_avg_backward(const Tensor& grad, const Tensor& self, int64_t k) {
  TORCH_CHECK(grad.dim() == self.dim(), "adaptive_avg_pool", k, "d_backward(): grad_output (", grad.sizes(),
              ") and input (", self.sizes(), ") must have the same number of dims");
  Tensor gi = like_input(self);
  run_pool(RS_POOL_AVG_BACKWARD, adaptive_geometry(self, grad.sizes().slice(grad.dim() - k), k), true, Tensor(),
           grad, Tensor(), gi);
  return gi;
}

Tensor adaptive_avg2d(const Tensor& self, at::IntArrayRef output_size) {
  return native_or_host<at::_ops::_adaptive_avg_pool2d>(
      [&] { return adaptive_avg(self, output_size, 2, "adaptive_avg_pool2d()"); }, self, output_size);
}
Tensor adaptive_avg3d(const Tensor& self, at::IntArrayRef output_size) {
  return native_or_host<at::_ops::_adaptive_avg_pool3d>(
      [&] { return adaptive_avg(self, output_size, 3, "adaptive_avg_pool3d()"); }, self, output_size);
}
Tensor& adaptive_avg2d_out(const Tensor& self, at::IntArrayRef output_size, Tensor& out) {
  return native_or_host<at::_ops::adaptive_avg_pool2d_out>(
      [&]() -> Tensor& {
        Tensor r = adaptive_avg(self, output_size, 2, "adaptive_avg_pool2d()");
        return write_out(out, r);
      },
      self, output_size, out);
}
Tensor& adaptive_avg3d_out(const Tensor& self, at::IntArrayRef output_size, Tensor& out) {
  return native_or_host<at::_ops::adaptive_avg_pool3d_out>(
      [&]() -> Tensor& {
        Tensor r = adaptive_avg(self, output_size, 3, "adaptive_avg_pool3d()");
        return write_out(out, r);
      },
      self, output_size, out);
}
Tensor adaptive_avg2d_backward(const Tensor& grad, const Tensor& self) {
  return native_or_host<at::_ops::_adaptive_avg_pool2d_backward>(
      [&] { return adaptive_avg_backward(grad, self, 2); }, grad, self);
}
Tensor adaptive_avg3d_backward(const Tensor& grad, const Tensor& self) {
  return native_or_host<at::_ops::_adaptive_avg_pool3d_backward>(
      [&] { return adaptive_avg_backward(grad, self, 3); }, grad, self);
}

// ---------------------------------------------------------------- fractional max

// windows of `kernel` positions that the samples place (rs_pool.h,
// RS_POOL_FRACTIONAL); the samples' dtype and shape ATen's checks ensure
// (the 3-d backward's, as its CPU kernel)
Pool fractional_geometry(const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef output_size, int64_t k) {
  Pool p;
  p.k = k;
  for (int64_t d = 0; d < k; ++d) {
    p.in.push_back(self.size(self.dim() - k + d));
    p.out.push_back(output_size[d]);
  }
  p.kernel = Dims(kernel.begin(), kernel.end());
  p.stride = Dims(k, 1);
  p.pad = Dims(k, 0);
  p.dil = Dims(k, 1);
  return p;
}

template <class Meta, class Op>
std::tuple<Tensor&, Tensor&> fractional_max_out(int64_t k, const Tensor& self, at::IntArrayRef kernel,
                                                at::IntArrayRef output_size, const Tensor& samples, Tensor& out,
                                                Tensor& indices) {
  return native_or_host<Op>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        OutOps<Meta> m(out, indices);
        m.meta(self, kernel, output_size, samples);
        // samples CPU's kernel refuses: its errors
        const int64_t n = self.dim() == k + 2 ? self.size(0) : 1;
        if (samples.dim() != 3 || samples.scalar_type() != self.scalar_type() || samples.size(0) < n ||
            samples.size(1) != self.size(-k - 1) || samples.size(2) != k)
          throw NeedsHost{};
        run_pool(RS_POOL_MAX, fractional_geometry(self, kernel, output_size, k), RS_POOL_FRACTIONAL, self, out,
                 indices, Tensor(), false, std::nullopt, resolved(samples));
        return {out, indices};
      },
      self, kernel, output_size, samples, out, indices);
}

std::tuple<Tensor&, Tensor&> fractional_max2d_out(const Tensor& self, at::IntArrayRef kernel,
                                                  at::IntArrayRef output_size, const Tensor& samples, Tensor& out,
                                                  Tensor& indices) {
  return fractional_max_out<at::meta::structured_fractional_max_pool2d, at::_ops::fractional_max_pool2d_output>(
      2, self, kernel, output_size, samples, out, indices);
}
std::tuple<Tensor&, Tensor&> fractional_max3d_out(const Tensor& self, at::IntArrayRef kernel,
                                                  at::IntArrayRef output_size, const Tensor& samples, Tensor& out,
                                                  Tensor& indices) {
  return fractional_max_out<at::meta::structured_fractional_max_pool3d, at::_ops::fractional_max_pool3d_output>(
      3, self, kernel, output_size, samples, out, indices);
}

// grad_input = grad scattered by the indices, added in the outputs' order
// (as CPU's loop; the index reductions' sorted segments keep it); an index
// outside the plane raises the device's index error
void fractional_max_backward(int64_t k, const Tensor& grad, const Tensor& self, const Tensor& indices,
                             const Tensor& gi) {
  const int64_t plane = c10::multiply_integers(self.sizes().slice(self.dim() - k));
  const int64_t rows = self.numel() / std::max<int64_t>(plane, 1);
  // a contiguous grad_input takes the sums itself; another layout through
  // a contiguous buffer
  const bool direct = gi.is_contiguous();
  Tensor acc = direct ? gi.view({rows, plane}).zero_() : at::zeros({rows, plane}, grad.options());
  acc.scatter_add_(1, indices.reshape({rows, -1}), grad.reshape({rows, -1}));
  if (!direct) gi.copy_(acc.view(self.sizes()));
}

Tensor& fractional_max2d_backward_out(const Tensor& grad, const Tensor& self, at::IntArrayRef kernel,
                                      at::IntArrayRef output_size, const Tensor& indices, Tensor& gi) {
  return native_or_host<at::_ops::fractional_max_pool2d_backward_grad_input>(
      [&]() -> Tensor& {
        OutOps<at::meta::structured_fractional_max_pool2d_backward> m(gi);
        m.meta(grad, self, kernel, output_size, indices);
        fractional_max_backward(2, grad, self, indices, gi);
        return gi;
      },
      grad, self, kernel, output_size, indices, gi);
}

// 3-d: not structured in ATen; the checks of its CPU kernel
Tensor& fractional_max3d_backward_out(const Tensor& grad, const Tensor& self, at::IntArrayRef kernel,
                                      at::IntArrayRef output_size, const Tensor& indices, Tensor& gi) {
  return native_or_host<at::_ops::fractional_max_pool3d_backward_grad_input>(
      [&]() -> Tensor& {
        const int64_t d = self.dim();
        TORCH_CHECK(d == 4 || d == 5, "fractional_max_pool3d_backward(): expected 4D or 5D input");
        TORCH_CHECK(output_size.size() == 3 && grad.dim() == d && grad.size(d - 3) == output_size[0] &&
                        grad.size(d - 2) == output_size[1] && grad.size(d - 1) == output_size[2] &&
                        indices.sizes() == grad.sizes(),
                    "fractional_max_pool3d_backward_out_cpu_template(): gradOutput sizes unexpected");
        at::native::resize_output(gi, self.sizes());
        fractional_max_backward(3, grad, self, indices, gi);
        return gi;
      },
      grad, self, kernel, output_size, indices, gi);
}
Tensor fractional_max3d_backward(const Tensor& grad, const Tensor& self, at::IntArrayRef kernel,
                                 at::IntArrayRef output_size, const Tensor& indices) {
  Tensor gi = at::empty({0}, self.options());
  return fractional_max3d_backward_out(grad, self, kernel, output_size, indices, gi);
}

// ---------------------------------------------------------------- adaptive max

template <class Meta, class Op>
std::tuple<Tensor&, Tensor&> adaptive_max_out(int64_t k, const Tensor& self, at::IntArrayRef output_size, Tensor& out,
                                              Tensor& indices) {
  return native_or_host<Op>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        OutOps<Meta> m(out, indices);
        m.meta(self, output_size);
        refuse_unless(is_nn_float(self.scalar_type()), k == 2 ? "adaptive_max_pool2d" : "adaptive_max_pool3d_cpu",
                      self.scalar_type());
        run_pool(RS_POOL_MAX, adaptive_geometry(self, output_size, k), true, self, out, indices, Tensor());
        return {out, indices};
      },
      self, output_size, out, indices);
}

template <class Meta, class Op>
Tensor& adaptive_max_backward_out(int64_t k, const Tensor& grad, const Tensor& self, const Tensor& indices,
                                  Tensor& gi) {
  return native_or_host<Op>(
      [&]() -> Tensor& {
        OutOps<Meta> m(gi);
        m.meta(grad, self, indices);
        run_pool(RS_POOL_MAX_BACKWARD, adaptive_geometry(self, grad.sizes().slice(grad.dim() - k), k), true, Tensor(),
                 grad, indices, gi);
        return gi;
      },
      grad, self, indices, gi);
}

std::tuple<Tensor&, Tensor&> adaptive_max2d_out(const Tensor& self, at::IntArrayRef output_size, Tensor& out,
                                                Tensor& indices) {
  return adaptive_max_out<at::meta::structured_adaptive_max_pool2d, at::_ops::adaptive_max_pool2d_out>(
      2, self, output_size, out, indices);
}
std::tuple<Tensor&, Tensor&> adaptive_max3d_out(const Tensor& self, at::IntArrayRef output_size, Tensor& out,
                                                Tensor& indices) {
  return adaptive_max_out<at::meta::structured_adaptive_max_pool3d, at::_ops::adaptive_max_pool3d_out>(
      3, self, output_size, out, indices);
}
Tensor& adaptive_max2d_backward_out(const Tensor& grad, const Tensor& self, const Tensor& indices, Tensor& gi) {
  return adaptive_max_backward_out<at::meta::structured_adaptive_max_pool2d_backward,
                                   at::_ops::adaptive_max_pool2d_backward_grad_input>(2, grad, self, indices, gi);
}
Tensor& adaptive_max3d_backward_out(const Tensor& grad, const Tensor& self, const Tensor& indices, Tensor& gi) {
  return adaptive_max_backward_out<at::meta::structured_adaptive_max_pool3d_backward,
                                   at::_ops::adaptive_max_pool3d_backward_grad_input>(3, grad, self, indices, gi);
}

// ---------------------------------------------------------------- max_unpool

// max_unpool: zeros of the output size, each value written at its index in
// the (flattened) output plane. Repeated indices come from overlapping pool
// windows and carry the same value, so the write order does not matter; an
// index outside the plane raises at the next sync.
Tensor max_unpool(const Tensor& self, const Tensor& indices, at::IntArrayRef output_size, int64_t k,
                  const char* name) {
  TORCH_CHECK(indices.scalar_type() == at::kLong, "elements in indices should be type int64 but got: ",
              indices.scalar_type());
  TORCH_CHECK(static_cast<int64_t>(output_size.size()) == k, "There should be exactly ", k,
              " elements (height, width) in output_size, but got ", output_size.size(), " elements.");
  TORCH_CHECK(self.dim() == k + 1 || self.dim() == k + 2, "Input to ", name, " should be a ", k + 1, "d or ", k + 2,
              "d Tensor, but got a tensor with ", self.dim(), " dimensions.");
  TORCH_CHECK(self.sizes().equals(indices.sizes()), "Expected shape of indices to be same as that of the input ",
              "tensor (", self.sizes(), ") but got indices tensor with shape: ", indices.sizes());
  for (int64_t d = 1; d < self.dim(); ++d)
    TORCH_CHECK(self.size(d) > 0, name, "(): Expected input to have non-zero size for non-batch dimensions, but got ",
                self.sizes(), " with dimension ", d, " being empty.");
  refuse_unless(is_nn_float(self.scalar_type()), k == 2 ? "max_unpool2d" : "max_unpool3d", self.scalar_type());
  host_if_no_fp64(self);
  Dims shape(self.sizes().begin(), self.sizes().end() - k), flat_shape(shape);
  int64_t plane = 1;
  for (int64_t o : output_size) plane *= o;
  flat_shape.push_back(plane);
  shape.insert(shape.end(), output_size.begin(), output_size.end());
  Dims src_shape(self.sizes().begin(), self.sizes().end() - k);
  src_shape.push_back(-1);
  Tensor out = at::zeros(flat_shape, self.options());
  out.scatter_(-1, indices.reshape(src_shape), self.reshape(src_shape));
  return out.view(shape);
}

// the name ATen's messages give the op: its CPU kernel's before torch 2.15
#if RUSSET_TORCH_2_15
constexpr const char* kUnpool2dName = "max_unpooling2d";
constexpr const char* kUnpool3dName = "max_unpooling3d";
#else
constexpr const char* kUnpool2dName = "max_unpooling2d_forward_out";
constexpr const char* kUnpool3dName = "max_unpooling3d_forward_out";
#endif

Tensor max_unpool2d(const Tensor& self, const Tensor& indices, at::IntArrayRef output_size) {
  return native_or_host<at::_ops::max_unpool2d>(
      [&] { return max_unpool(self, indices, output_size, 2, kUnpool2dName); }, self, indices, output_size);
}
Tensor max_unpool3d(const Tensor& self, const Tensor& indices, at::IntArrayRef output_size, at::IntArrayRef stride,
                    at::IntArrayRef padding) {
  return native_or_host<at::_ops::max_unpool3d>(
      [&] {
        TORCH_CHECK(stride.size() != 3 || (stride[0] > 0 && stride[1] > 0 && stride[2] > 0),
                    "strides should be greater than zero, but got stride: ", stride);
        return max_unpool(self, indices, output_size, 3, kUnpool3dName);
      },
      self, indices, output_size, stride, padding);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("max_pool2d_with_indices.out", max_pool2d_out);
  m.impl("fractional_max_pool2d.output", fractional_max2d_out);
  m.impl("fractional_max_pool3d.output", fractional_max3d_out);
  m.impl("fractional_max_pool2d_backward.grad_input", fractional_max2d_backward_out);
  m.impl("fractional_max_pool3d_backward.grad_input", fractional_max3d_backward_out);
  m.impl("fractional_max_pool3d_backward", fractional_max3d_backward);
  m.impl("max_pool2d_with_indices_backward.grad_input", max_pool2d_backward_out);
  m.impl("max_pool3d_with_indices", max_pool3d);
  m.impl("max_pool3d_with_indices.out", max_pool3d_out);
  m.impl("max_pool3d_with_indices_backward", max_pool3d_backward);
  m.impl("max_pool3d_with_indices_backward.grad_input", max_pool3d_backward_out);
  m.impl("avg_pool2d.out", avg_pool2d_out);
  m.impl("avg_pool2d_backward.grad_input", avg_pool2d_backward_out);
  m.impl("avg_pool3d.out", avg_pool3d_out);
  m.impl("avg_pool3d_backward.grad_input", avg_pool3d_backward_out);
  m.impl("adaptive_max_pool2d.out", adaptive_max2d_out);
  m.impl("adaptive_max_pool3d.out", adaptive_max3d_out);
  m.impl("adaptive_max_pool2d_backward.grad_input", adaptive_max2d_backward_out);
  m.impl("adaptive_max_pool3d_backward.grad_input", adaptive_max3d_backward_out);
  m.impl("max_unpool2d", max_unpool2d);
  m.impl("max_unpool3d", max_unpool3d);
  m.impl("_adaptive_avg_pool2d", adaptive_avg2d);
  m.impl("_adaptive_avg_pool3d", adaptive_avg3d);
  m.impl("adaptive_avg_pool2d.out", adaptive_avg2d_out);
  m.impl("adaptive_avg_pool3d.out", adaptive_avg3d_out);
  m.impl("_adaptive_avg_pool2d_backward", adaptive_avg2d_backward);
  m.impl("_adaptive_avg_pool3d_backward", adaptive_avg3d_backward);
}

}  // namespace russet
