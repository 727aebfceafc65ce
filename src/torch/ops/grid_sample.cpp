// grid_sampler_2d / grid_sampler_3d (F.grid_sample) and their backward on
// the C core's grid-sampling engine (rs_grid_sample_run,
// russet/grid_sample.h): bilinear (trilinear) and nearest, every padding
// mode, align_corners; the input's gradient deterministic (summed in CPU's
// order). Here: ATen's argument checks, the outputs, and what the engine
// leaves to the host (bicubic; float64 without fp64).
#include "russet/grid_sample.h"
#include "torch/pointwise.h"
#include "torch/reduce.h"
#include "torch/same_device.h"
#include "torch/torch_version.h"

#include <ATen/native/GridSamplerUtils.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/grid_sampler_2d_backward_ops.h>
#include <ATen/ops/grid_sampler_2d_ops.h>
#include <ATen/ops/grid_sampler_3d_backward_ops.h>
#include <ATen/ops/grid_sampler_3d_ops.h>
#include <torch/library.h>

namespace russet {
namespace {

using at::Tensor;

// ATen's checks (GridSamplerUtils.h), then the dtype rule of its kernels;
// bicubic is not in the engine
void check_args(const Tensor& input, const Tensor& grid, int64_t interp, int64_t k) {
  same_device(input, grid);
  at::native::check_grid_sampler_common(input, grid);
  if (k == 2)
    at::native::check_grid_sampler_2d(input, grid);
  else
#if RUSSET_TORCH_2_15
    // 2.15's CPU samples bicubic in 3-d too (the host takes it here); its
    // check with the mode refuses bicubic for every device but CPU's
    at::native::check_grid_sampler_3d(input, grid);
#else
    at::native::check_grid_sampler_3d(input, grid, interp);  // 2.13: bicubic is 4-d only
#endif
  TORCH_CHECK(input.scalar_type() == grid.scalar_type(), "grid_sampler(): expected input and grid to have same ",
              "dtype, but input has ", input.scalar_type(), " and grid has ", grid.scalar_type());
  if (interp != RS_GRID_BILINEAR && interp != RS_GRID_NEAREST) throw NeedsHost{};
  if (!c10::isFloatingType(input.scalar_type())) throw NeedsHost{};
}

rs_grid_sample describe_sample(const Tensor& input, const Tensor& grid, int64_t interp, int64_t padding, bool align,
                               int64_t k) {
  rs_grid_sample p{};
  p.mode = static_cast<rs_grid_mode>(interp);
  p.padding = static_cast<rs_grid_padding>(padding);
  p.align_corners = align;
  p.dims = static_cast<int>(k);
  p.input = describe(input);
  p.grid = describe(grid);
  return p;
}

void run(const rs_grid_sample& p, const Tensor& on) {
  check_or_host(rs_grid_sample_run(current_stream_for(on), &p));
}

std::vector<int64_t> out_shape(const Tensor& input, const Tensor& grid, int64_t k) {
  std::vector<int64_t> shape{input.size(0), input.size(1)};
  shape.insert(shape.end(), grid.sizes().begin() + 1, grid.sizes().begin() + 1 + k);
  return shape;
}

Tensor sample(const Tensor& input_, const Tensor& grid_, int64_t interp, int64_t padding, bool align, int64_t k) {
  check_args(input_, grid_, interp, k);
  host_if_no_fp64(input_);
  Tensor input = resolved(input_), grid = resolved(grid_);  // (neg-bit views: copies)
  Tensor out = at::empty(out_shape(input, grid, k), input.options());
  if (out.numel() == 0) return out;
  rs_grid_sample p = describe_sample(input, grid, interp, padding, align, k);
  p.output = describe(out);
  run(p, out);
  return out;
}

std::tuple<Tensor, Tensor> sample_backward(const Tensor& grad_, const Tensor& input_, const Tensor& grid_,
                                           int64_t interp, int64_t padding, bool align, std::array<bool, 2> mask,
                                           int64_t k) {
  check_args(input_, grid_, interp, k);
  same_device(input_, grad_);
  host_if_no_fp64(input_);
  TORCH_CHECK(grad_.sizes() == at::IntArrayRef(out_shape(input_, grid_, k)), "grid_sampler backward: grad_output ",
              grad_.sizes(), " is not the output's shape");
  Tensor input = resolved(input_), grid = resolved(grid_), grad = resolved(grad_).to(input.scalar_type());
  // CPU's kernel returns contiguous gradients
  Tensor gi = mask[0] ? at::empty(input.sizes(), input.options()) : Tensor();
  // the grid's gradient is returned either way (zeros when not wanted)
  Tensor gg = mask[1] ? at::empty(grid.sizes(), grid.options()) : at::zeros(grid.sizes(), grid.options());
  if (!mask[0] && !mask[1]) return {gi, gg};
  rs_grid_sample p = describe_sample(input, grid, interp, padding, align, k);
  p.backward = 1;
  p.output = describe(grad);
  if (mask[0]) p.grad_input = describe(gi);
  if (mask[1]) p.grad_grid = describe(gg);
  run(p, gg);
  return {gi, gg};
}

Tensor grid_sample2d(const Tensor& input, const Tensor& grid, int64_t interp, int64_t padding, bool align) {
  return native_or_host<at::_ops::grid_sampler_2d>([&] { return sample(input, grid, interp, padding, align, 2); },
                                                   input, grid, interp, padding, align);
}
Tensor grid_sample3d(const Tensor& input, const Tensor& grid, int64_t interp, int64_t padding, bool align) {
  return native_or_host<at::_ops::grid_sampler_3d>([&] { return sample(input, grid, interp, padding, align, 3); },
                                                   input, grid, interp, padding, align);
}
std::tuple<Tensor, Tensor> grid_sample2d_backward(const Tensor& grad, const Tensor& input, const Tensor& grid,
                                                  int64_t interp, int64_t padding, bool align,
                                                  std::array<bool, 2> mask) {
  return native_or_host<at::_ops::grid_sampler_2d_backward>(
      [&] { return sample_backward(grad, input, grid, interp, padding, align, mask, 2); }, grad, input, grid,
      interp, padding, align, mask);
}
std::tuple<Tensor, Tensor> grid_sample3d_backward(const Tensor& grad, const Tensor& input, const Tensor& grid,
                                                  int64_t interp, int64_t padding, bool align,
                                                  std::array<bool, 2> mask) {
  return native_or_host<at::_ops::grid_sampler_3d_backward>(
      [&] { return sample_backward(grad, input, grid, interp, padding, align, mask, 3); }, grad, input, grid,
      interp, padding, align, mask);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("grid_sampler_2d", grid_sample2d);
  m.impl("grid_sampler_2d_backward", grid_sample2d_backward);
  m.impl("grid_sampler_3d", grid_sample3d);
  m.impl("grid_sampler_3d_backward", grid_sample3d_backward);
}

}  // namespace russet
