// grid_sampler_2d (F.grid_sample on 4-d inputs) and its backward natively,
// bilinear and nearest, every padding mode (zeros, border, reflection), as
// ATen's GridSampler.h computes them: the grid unnormalized to pixel
// coordinates (align_corners), clipped or reflected, then
//   bilinear: the four corners gathered from the flattened input plane and
//             blended with CPU's weights (corners outside the input count 0);
//   nearest:  the pixel at nearbyint (half to even) of each coordinate.
// The backward scatters the weighted gradient onto the corners
// (scatter_add: deterministic) and differentiates the weights and the
// coordinate transform for the grid's gradient. bicubic runs on the host.
#include "torch/pointwise.h"

#include <ATen/ops/floor.h>
#include <ATen/ops/fmod.h>
#include <ATen/ops/full_like.h>
#include <ATen/ops/grid_sampler_2d_backward_ops.h>
#include <ATen/ops/grid_sampler_2d_ops.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/round.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>
#include <torch/library.h>

namespace russet {
namespace {

using at::Tensor;

enum { kBilinear = 0, kNearest = 1 };
enum { kZeros = 0, kBorder = 1, kReflection = 2 };

// clip to [0, size - 1]; d/dx is 1 strictly inside, else 0 (CPU's
// clip_coordinates_set_grad)
std::pair<Tensor, Tensor> clip(const Tensor& x, int64_t size) {
  Tensor inside = x.gt(0).logical_and_(x.lt(size - 1));
  return {x.clamp(0, size - 1), inside.to(x.scalar_type())};
}

// reflect into [twice_low / 2, twice_high / 2] with its derivative (+-1)
std::pair<Tensor, Tensor> reflect(const Tensor& x, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return {at::zeros_like(x), at::zeros_like(x)};
  double lo = twice_low / 2.0, span = (twice_high - twice_low) / 2.0;
  Tensor in = x.sub(lo);
  Tensor sign = at::where(in.lt(0), -1.0, 1.0).to(x.scalar_type());
  in = in.abs();
  Tensor extra = at::fmod(in, span), flips = at::floor(in.div(span));
  Tensor even = at::fmod(flips, 2).eq(0);
  Tensor out = at::where(even, extra.add(lo), extra.neg().add(span + lo));
  return {out, at::where(even, sign, sign.neg())};
}

// CPU's grid_sampler_compute_source_index_set_grad
std::pair<Tensor, Tensor> source_index(const Tensor& g, int64_t size, int64_t padding, bool align) {
  double scale = align ? (size - 1) / 2.0 : size / 2.0;
  Tensor x = align ? g.add(1).mul_(scale) : g.add(1).mul_(size).sub_(1).div_(2);
  Tensor mult = at::full_like(g, scale);
  if (padding == kBorder) {
    auto [c, d] = clip(x, size);
    return {c, mult.mul_(d)};
  }
  if (padding == kReflection) {
    auto [r, dr] = align ? reflect(x, 0, 2 * (size - 1)) : reflect(x, -1, 2 * size - 1);
    auto [c, dc] = clip(r, size);
    return {c, mult.mul_(dr).mul_(dc)};
  }
  return {x, mult};
}

struct Corner {
  Tensor index;   // (N, 1, L) flat position in the plane, clamped into range
  Tensor valid;   // (N, 1, L) the corner lies inside the input
};

Corner corner(const Tensor& cx, const Tensor& cy, int64_t h, int64_t w) {
  Tensor ok = cx.ge(0).logical_and_(cx.lt(w)).logical_and_(cy.ge(0)).logical_and_(cy.lt(h));
  Tensor idx = cy.clamp(0, h - 1).mul_(w).add_(cx.clamp(0, w - 1));
  return {idx.unsqueeze(1), ok.unsqueeze(1)};
}

void check(const Tensor& input, const Tensor& grid, int64_t interp) {
  TORCH_CHECK(input.dim() == 4 && grid.dim() == 4 && grid.size(3) == 2 && grid.size(0) == input.size(0),
              "grid_sampler_2d(): expected 4-d input and a grid of shape (N, H_out, W_out, 2), got ", input.sizes(),
              " and ", grid.sizes());
  TORCH_CHECK(input.scalar_type() == grid.scalar_type(), "grid_sampler(): expected input and grid to have same ",
              "dtype, but input has ", input.scalar_type(), " and grid has ", grid.scalar_type());
  if (interp != kBilinear && interp != kNearest) throw NeedsHost{};  // bicubic
}

at::ScalarType acc_of(const Tensor& t) {
  return c10::isReducedFloatingType(t.scalar_type()) ? at::kFloat : t.scalar_type();
}

Tensor grid_sample(const Tensor& input, const Tensor& grid, int64_t interp, int64_t padding, bool align) {
  return native_or_host<at::_ops::grid_sampler_2d>(
      [&]() -> Tensor {
        check(input, grid, interp);
        host_if_no_fp64(input);
        auto t = acc_of(input);
        int64_t n = input.size(0), c = input.size(1), h = input.size(2), w = input.size(3);
        int64_t ho = grid.size(1), wo = grid.size(2), l = ho * wo;
        if (n == 0 || c == 0 || l == 0) return at::zeros({n, c, ho, wo}, input.options());
        Tensor g = grid.to(t).reshape({n, l, 2});
        Tensor x = input.to(t).reshape({n, c, h * w});
        auto [ix, mx] = source_index(g.select(2, 0), w, padding, align);
        auto [iy, my] = source_index(g.select(2, 1), h, padding, align);
        auto take = [&](const Corner& k) {
          return x.gather(2, k.index.expand({n, c, l})).mul_(k.valid.to(t));
        };
        Tensor out;
        if (interp == kNearest) {
          out = take(corner(at::round(ix).to(at::kLong), at::round(iy).to(at::kLong), h, w));
        } else {
          Tensor x0f = at::floor(ix), y0f = at::floor(iy);
          Tensor x0 = x0f.to(at::kLong), y0 = y0f.to(at::kLong);
          Tensor dx1 = x0f.add(1).sub(ix), dx0 = ix.sub(x0f), dy1 = y0f.add(1).sub(iy), dy0 = iy.sub(y0f);
          out = take(corner(x0, y0, h, w)).mul_(dx1.mul(dy1).unsqueeze(1));
          out.add_(take(corner(x0.add(1), y0, h, w)).mul_(dx0.mul(dy1).unsqueeze(1)));
          out.add_(take(corner(x0, y0.add(1), h, w)).mul_(dx1.mul(dy0).unsqueeze(1)));
          out.add_(take(corner(x0.add(1), y0.add(1), h, w)).mul_(dx0.mul(dy0).unsqueeze(1)));
        }
        return out.view({n, c, ho, wo}).to(input.scalar_type());
      },
      input, grid, interp, padding, align);
}

std::tuple<Tensor, Tensor> grid_sample_backward(const Tensor& grad, const Tensor& input, const Tensor& grid,
                                                int64_t interp, int64_t padding, bool align,
                                                std::array<bool, 2> mask) {
  return native_or_host<at::_ops::grid_sampler_2d_backward>(
      [&]() -> std::tuple<Tensor, Tensor> {
        check(input, grid, interp);
        host_if_no_fp64(input);
        auto t = acc_of(input);
        int64_t n = input.size(0), c = input.size(1), h = input.size(2), w = input.size(3);
        int64_t ho = grid.size(1), wo = grid.size(2), l = ho * wo;
        Tensor gi = mask[0] ? at::zeros({n, c, h * w}, input.options().dtype(t)) : Tensor();
        Tensor gg = at::zeros({n, l, 2}, grid.options().dtype(t));
        if (n == 0 || c == 0 || l == 0)
          return {mask[0] ? gi.view(input.sizes()).to(input.scalar_type()) : Tensor(),
                  gg.view(grid.sizes()).to(grid.scalar_type())};
        Tensor gout = grad.to(t).reshape({n, c, l});
        Tensor g = grid.to(t).reshape({n, l, 2});
        Tensor x = input.to(t).reshape({n, c, h * w});
        auto [ix, mx] = source_index(g.select(2, 0), w, padding, align);
        auto [iy, my] = source_index(g.select(2, 1), h, padding, align);
        auto scatter = [&](const Corner& k, const Tensor& weight) {
          if (mask[0]) gi.scatter_add_(2, k.index.expand({n, c, l}), gout.mul(weight.unsqueeze(1)).mul_(k.valid.to(t)));
        };
        if (interp == kNearest) {
          scatter(corner(at::round(ix).to(at::kLong), at::round(iy).to(at::kLong), h, w), at::ones_like(ix));
        } else {
          Tensor x0f = at::floor(ix), y0f = at::floor(iy);
          Tensor x0 = x0f.to(at::kLong), y0 = y0f.to(at::kLong);
          Tensor dx1 = x0f.add(1).sub(ix), dx0 = ix.sub(x0f), dy1 = y0f.add(1).sub(iy), dy0 = iy.sub(y0f);
          Corner nw = corner(x0, y0, h, w), ne = corner(x0.add(1), y0, h, w);
          Corner sw = corner(x0, y0.add(1), h, w), se = corner(x0.add(1), y0.add(1), h, w);
          scatter(nw, dx1.mul(dy1));
          scatter(ne, dx0.mul(dy1));
          scatter(sw, dx1.mul(dy0));
          scatter(se, dx0.mul(dy0));
          if (mask[1]) {
            // sum over channels of gOut * corner value, per corner
            auto dot = [&](const Corner& k) {
              return x.gather(2, k.index.expand({n, c, l})).mul_(k.valid.to(t)).mul_(gout).sum(1);
            };
            Tensor vnw = dot(nw), vne = dot(ne), vsw = dot(sw), vse = dot(se);
            Tensor gix = vne.sub(vnw).mul_(dy1).add_(vse.sub(vsw).mul_(dy0));
            Tensor giy = vsw.sub(vnw).mul_(dx1).add_(vse.sub(vne).mul_(dx0));
            gg = at::stack({gix.mul_(mx), giy.mul_(my)}, 2);
          }
        }
        return {mask[0] ? gi.view(input.sizes()).to(input.scalar_type()) : Tensor(),
                mask[1] ? gg.view(grid.sizes()).to(grid.scalar_type()) : Tensor()};
      },
      grad, input, grid, interp, padding, align, mask);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("grid_sampler_2d", grid_sample);
  m.impl("grid_sampler_2d_backward", grid_sample_backward);
}

}  // namespace russet
