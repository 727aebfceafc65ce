// grid_sampler_2d / grid_sampler_3d (F.grid_sample) and their backward
// natively, bilinear (trilinear in 3-d) and nearest, every padding mode
// (zeros, border, reflection), as ATen's GridSampler.h computes them: the
// grid unnormalized to pixel coordinates (align_corners), clipped or
// reflected, then
//   bilinear: the 2^k corners gathered from the flattened input plane and
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
#include <ATen/ops/grid_sampler_3d_backward_ops.h>
#include <ATen/ops/grid_sampler_3d_ops.h>
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

void check(const Tensor& input, const Tensor& grid, int64_t interp, int64_t k) {
  TORCH_CHECK(input.dim() == k + 2 && grid.dim() == k + 2 && grid.size(-1) == k && grid.size(0) == input.size(0),
              "grid_sampler_", k, "d(): expected ", k + 2, "-d input and a grid of shape (N, ", k == 2 ? "" : "D_out, ",
              "H_out, W_out, ", k, "), got ", input.sizes(), " and ", grid.sizes());
  TORCH_CHECK(input.scalar_type() == grid.scalar_type(), "grid_sampler(): expected input and grid to have same ",
              "dtype, but input has ", input.scalar_type(), " and grid has ", grid.scalar_type());
  if (interp != kBilinear && interp != kNearest) throw NeedsHost{};  // bicubic
}

at::ScalarType acc_of(const Tensor& t) {
  return c10::isReducedFloatingType(t.scalar_type()) ? at::kFloat : t.scalar_type();
}

// One sampling problem: k = 2 or 3 spatial dims. Coordinate j of the grid
// addresses input dim (k + 1 - j) (x: width, y: height, z: depth).
struct Sampler {
  int64_t k, n, c, l;
  std::vector<int64_t> size, stride;  // per coordinate j: input extent and flat-plane stride
  std::vector<Tensor> coord, mult;    // (N, L) source positions and d position / d grid
  Tensor x;                           // input as (N, C, plane) in the computation dtype

  Sampler(const Tensor& input, const Tensor& grid, int64_t padding, bool align, int64_t k_) : k(k_) {
    auto t = acc_of(input);
    n = input.size(0);
    c = input.size(1);
    l = grid.numel() / (n * k);
    int64_t plane = 1;
    for (int64_t j = 0; j < k; ++j) {
      size.push_back(input.size(k + 1 - j));
      stride.push_back(plane);
      plane *= size[j];
    }
    x = input.to(t).reshape({n, c, plane});
    Tensor g = grid.to(t).reshape({n, l, k});
    for (int64_t j = 0; j < k; ++j) {
      auto [pos, m] = source_index(g.select(2, j), size[j], padding, align);
      coord.push_back(pos);
      mult.push_back(m);
    }
  }

  // the flat (N, 1, L) index of integer positions (clamped) and its validity
  std::pair<Tensor, Tensor> locate(const std::vector<Tensor>& p) const {
    Tensor idx = at::zeros({1}, p[0].options()), ok;
    for (int64_t j = 0; j < k; ++j) {
      Tensor in = p[j].ge(0).logical_and_(p[j].lt(size[j]));
      ok = ok.defined() ? ok.logical_and_(in) : in;
      idx = idx.add(p[j].clamp(0, size[j] - 1).mul(stride[j]));
    }
    return {idx.unsqueeze(1), ok.unsqueeze(1)};
  }

  Tensor take(const std::pair<Tensor, Tensor>& at_) const {
    return x.gather(2, at_.first.expand({n, c, l})).mul_(at_.second.to(x.scalar_type()));
  }
};

// the corners of the linear blend: for each of the 2^k corners, its
// positions and the per-coordinate weights (frac or 1 - frac)
struct Corners {
  std::vector<std::vector<Tensor>> pos, w;
  explicit Corners(const Sampler& s) {
    std::vector<Tensor> base, frac;
    for (int64_t j = 0; j < s.k; ++j) {
      Tensor f = at::floor(s.coord[j]);
      base.push_back(f.to(at::kLong));
      frac.push_back(s.coord[j].sub(f));
    }
    for (int64_t bits = 0; bits < (int64_t(1) << s.k); ++bits) {
      std::vector<Tensor> p, ws;
      for (int64_t j = 0; j < s.k; ++j) {
        bool up = (bits >> j) & 1;
        p.push_back(up ? base[j].add(1) : base[j]);
        ws.push_back(up ? frac[j] : frac[j].neg().add(1));
      }
      pos.push_back(p);
      w.push_back(ws);
    }
  }
  Tensor weight(size_t corner, int64_t skip = -1) const {
    Tensor r;
    for (int64_t j = 0; j < static_cast<int64_t>(w[corner].size()); ++j)
      if (j != skip) r = r.defined() ? r.mul(w[corner][j]) : w[corner][j];
    return r.defined() ? r : at::ones_like(w[corner][0]);
  }
};

std::vector<Tensor> nearest_positions(const Sampler& s) {
  std::vector<Tensor> p;
  for (int64_t j = 0; j < s.k; ++j) p.push_back(at::round(s.coord[j]).to(at::kLong));  // half to even
  return p;
}

std::vector<int64_t> out_shape(const Tensor& input, const Tensor& grid, int64_t k) {
  std::vector<int64_t> shape{input.size(0), input.size(1)};
  shape.insert(shape.end(), grid.sizes().begin() + 1, grid.sizes().begin() + 1 + k);
  return shape;
}

Tensor sample(const Tensor& input, const Tensor& grid, int64_t interp, int64_t padding, bool align, int64_t k) {
  check(input, grid, interp, k);
  host_if_no_fp64(input);
  auto shape = out_shape(input, grid, k);
  if (input.numel() == 0 || grid.numel() == 0) return at::zeros(shape, input.options());
  Sampler s(input, grid, padding, align, k);
  Tensor out;
  if (interp == kNearest) {
    out = s.take(s.locate(nearest_positions(s)));
  } else {
    Corners cs(s);
    for (size_t q = 0; q < cs.pos.size(); ++q) {
      Tensor term = s.take(s.locate(cs.pos[q])).mul_(cs.weight(q).unsqueeze(1));
      out = out.defined() ? out.add_(term) : term;
    }
  }
  return out.view(shape).to(input.scalar_type());
}

std::tuple<Tensor, Tensor> sample_backward(const Tensor& grad, const Tensor& input, const Tensor& grid,
                                           int64_t interp, int64_t padding, bool align, std::array<bool, 2> mask,
                                           int64_t k) {
  check(input, grid, interp, k);
  host_if_no_fp64(input);
  auto t = acc_of(input);
  Tensor gi = mask[0] ? at::zeros(input.sizes(), input.options().dtype(t)) : Tensor();
  Tensor gg = at::zeros(grid.sizes(), grid.options().dtype(t));
  if (input.numel() != 0 && grid.numel() != 0) {
    Sampler s(input, grid, padding, align, k);
    Tensor gout = grad.to(t).reshape({s.n, s.c, s.l});
    Tensor gflat = mask[0] ? gi.view({s.n, s.c, -1}) : Tensor();
    auto scatter = [&](const std::pair<Tensor, Tensor>& at_, const Tensor& weight) {
      if (mask[0])
        gflat.scatter_add_(2, at_.first.expand({s.n, s.c, s.l}), gout.mul(weight.unsqueeze(1)).mul_(at_.second.to(t)));
    };
    if (interp == kNearest) {
      scatter(s.locate(nearest_positions(s)), at::ones_like(s.coord[0]));
    } else {
      Corners cs(s);
      std::vector<Tensor> dcoord(k);
      for (size_t q = 0; q < cs.pos.size(); ++q) {
        auto where_ = s.locate(cs.pos[q]);
        scatter(where_, cs.weight(q));
        if (!mask[1]) continue;
        // d out / d coord_j: the corner's value times +-1 (its side along j)
        // times the other coordinates' weights, summed over channels
        Tensor v = s.take(where_).mul_(gout).sum(1);
        for (int64_t j = 0; j < k; ++j) {
          Tensor term = v.mul(cs.weight(q, j));
          if (!(((int64_t)q >> j) & 1)) term.neg_();
          dcoord[j] = dcoord[j].defined() ? dcoord[j].add_(term) : term;
        }
      }
      if (mask[1]) {
        std::vector<Tensor> parts;
        for (int64_t j = 0; j < k; ++j) parts.push_back(dcoord[j].mul(s.mult[j]));
        gg = at::stack(parts, 2).view(grid.sizes());
      }
    }
  }
  return {mask[0] ? gi.to(input.scalar_type()) : Tensor(), mask[1] ? gg.to(grid.scalar_type()) : Tensor()};
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
