// Convolution (1-d, 2-d, 3-d; strided, padded, dilated, grouped, depthwise,
// transposed) and its backward, on the C core's convolution engine
// (rs_conv_run, src/engine/conv.c: an implicit GEMM, no im2col buffer).
//
// For PrivateUse1, aten::convolution dispatches to convolution_overrideable
// (its backward to convolution_backward_overrideable) after ATen has checked
// the shapes. The engine's three products serve every case:
//   forward      y = conv(x, w) + bias                  (RS_CONV_FORWARD)
//   input grad   dx from dy and w                       (RS_CONV_GRAD_INPUT)
//   weight grad  dw from dy and x                       (RS_CONV_GRAD_WEIGHT)
// A transposed convolution's forward is the input gradient of the plain
// convolution with the same weight, and its backward swaps the roles. The
// results are contiguous (result_like says why). float32, float16,
// bfloat16 (accumulated in float32, rounded once), float64 on fp64 devices and the integer dtypes CPU convolves run
// natively (complex never reaches here: F.conv* split it into real
// convolutions); the rest (float64 under the apple profile, integer
// backward, integer transposed convolutions other than int64, whose CPU
// error is the answer) runs on the host through CPU's convolution, counted
// like any host op.
//
// F.unfold / F.fold (im2col / col2im) below are their own ops: a strided
// view copied into rows, and one strided add per kernel offset.
#include <ATen/native/im2col_shape_check.h>
#include <ATen/ops/col2im_ops.h>
#include <ATen/ops/constant_pad_nd.h>
#include <ATen/ops/convolution.h>
#include <ATen/ops/convolution_backward.h>
#include <ATen/ops/im2col_ops.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include "torch/pointwise.h"
#include "torch/dtype_refusal.h"
#include "torch/reduce.h"
#include "torch/same_device.h"
#include "russet/conv.h"

namespace russet {
namespace {

using at::Tensor;
using OptTensor = std::optional<Tensor>;
using Dims = std::vector<int64_t>;

Tensor host(const Tensor& t) { return t.defined() ? t.to(at::kCPU) : t; }
Tensor back(const Tensor& t, const Tensor& like) { return t.defined() ? t.to(like.device()) : t; }

// the computation dtype: float32 for float16/bfloat16
at::ScalarType acc_of(const Tensor& t) {
  return c10::isReducedFloatingType(t.scalar_type()) ? at::kFloat : t.scalar_type();
}

struct Geometry {
  int64_t k = 0;  // spatial dims
  Dims stride, pad, dil;
  int64_t groups = 1;
};

Geometry geometry(int64_t k, at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation,
                  int64_t groups) {
  // ATen's checks expanded one-element lists already; keep it exact anyway
  auto expand = [k](at::IntArrayRef v, int64_t dflt) {
    Dims r(k, dflt);
    for (int64_t i = 0; i < k; ++i) r[i] = v.empty() ? dflt : v[v.size() == 1 ? 0 : i];
    return r;
  };
  return {k, expand(stride, 1), expand(padding, 0), expand(dilation, 1), groups};
}

int64_t prod(const Dims& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// the (N, G, L, C/G * K) rows of x's sliding windows for output sizes `out`
Tensor im2col(const Tensor& x, const Geometry& g, const Dims& ksize, const Dims& out) {
  int64_t n = x.size(0), c = x.size(1), k = g.k;
  std::vector<int64_t> pads;
  for (int64_t d = k - 1; d >= 0; --d) pads.insert(pads.end(), {g.pad[d], g.pad[d]});
  Tensor xp = at::constant_pad_nd(x.to(acc_of(x)), pads, 0).contiguous();
  Dims sizes{n, g.groups, c / g.groups}, strides{xp.stride(0), xp.stride(1) * (c / g.groups), xp.stride(1)};
  for (int64_t d = 0; d < k; ++d) {
    sizes.push_back(out[d]);
    strides.push_back(xp.stride(2 + d) * g.stride[d]);
  }
  for (int64_t d = 0; d < k; ++d) {
    sizes.push_back(ksize[d]);
    strides.push_back(xp.stride(2 + d) * g.dil[d]);
  }
  Tensor win = xp.as_strided(sizes, strides, xp.storage_offset());
  // (N, G, O..., C/G, K...)
  Dims perm{0, 1};
  for (int64_t d = 0; d < k; ++d) perm.push_back(3 + d);
  perm.push_back(2);
  for (int64_t d = 0; d < k; ++d) perm.push_back(3 + k + d);
  return win.permute(perm).reshape({n, g.groups, prod(out), c / g.groups * prod(ksize)});
}

// col2im: cols (N, C, O..., K...) summed into (N, C, in...): each kernel
// offset adds its strided slab of the padded result, then the padding is cut
Tensor col2im(const Tensor& cols, const Geometry& g, const Dims& in) {
  int64_t n = cols.size(0), c = cols.size(1), k = g.k;
  Dims out(cols.sizes().begin() + 2, cols.sizes().begin() + 2 + k), ksize(cols.sizes().begin() + 2 + k, cols.sizes().end());
  Dims padded{n, c};
  for (int64_t d = 0; d < k; ++d) padded.push_back(in[d] + 2 * g.pad[d]);
  Tensor xp = at::zeros(padded, cols.options());
  Dims off(k, 0);
  for (int64_t idx = 0; idx < prod(ksize); ++idx) {
    // kernel offset idx -> (k1, ..., kk), last dim fastest
    for (int64_t d = k - 1, r = idx; d >= 0; --d) {
      off[d] = r % ksize[d];
      r /= ksize[d];
    }
    Tensor slab = xp;
    for (int64_t d = 0; d < k; ++d)
      slab = slab.slice(2 + d, off[d] * g.dil[d], off[d] * g.dil[d] + g.stride[d] * (out[d] - 1) + 1, g.stride[d]);
    Tensor part = cols;
    for (int64_t d = k - 1; d >= 0; --d) part = part.select(2 + k + d, off[d]);
    slab.add_(part);
  }
  Tensor x = xp;
  for (int64_t d = 0; d < k; ++d) x = x.narrow(2 + d, g.pad[d], in[d]);
  return x;
}

Dims conv_out_sizes(const Tensor& x, const Tensor& w, const Geometry& g) {
  Dims out(g.k);
  for (int64_t d = 0; d < g.k; ++d)
    out[d] = (x.size(2 + d) + 2 * g.pad[d] - g.dil[d] * (w.size(2 + d) - 1) - 1) / g.stride[d] + 1;
  return out;
}

Dims transposed_out_sizes(const Tensor& x, const Tensor& w, const Geometry& g, at::IntArrayRef output_padding) {
  Dims out(g.k);
  for (int64_t d = 0; d < g.k; ++d) {
    int64_t op = output_padding.empty() ? 0 : output_padding[output_padding.size() == 1 ? 0 : d];
    out[d] = (x.size(2 + d) - 1) * g.stride[d] - 2 * g.pad[d] + g.dil[d] * (w.size(2 + d) - 1) + op + 1;
  }
  return out;
}

// ---------------------------------------------------------------- F.unfold / F.fold

// im2col (N, C, H, W) -> (N, C*KH*KW, L), and col2im back (overlaps sum),
// as CPU's checks and layouts (channel-major, then kernel offsets)
Tensor im2col_op(const Tensor& self, at::IntArrayRef kernel, at::IntArrayRef dilation, at::IntArrayRef padding,
                 at::IntArrayRef stride) {
  return native_or_host<at::_ops::im2col>(
      [&]() -> Tensor {
        TORCH_CHECK(kernel.size() == 2 && dilation.size() == 2 && padding.size() == 2 && stride.size() == 2,
                    "It is expected kernel_size, dilation, padding and stride to have two elements each");
        at::native::im2col_shape_check(self, Tensor(), kernel[0], kernel[1], dilation[0], dilation[1], padding[0],
                                       padding[1], stride[0], stride[1]);
        // CPU's im2col: floating, complex and bool, no other integers
        refuse_unless(!c10::isIntegralType(self.scalar_type(), /*includeBool=*/false), "im2col_out_cpu",
                      self.scalar_type());
        host_if_no_fp64(self);
        bool batched = self.dim() == 4;
        Tensor x = batched ? self : self.unsqueeze(0);
        Geometry g = geometry(2, stride, padding, dilation, 1);
        Dims ksize(kernel.begin(), kernel.end()), out(2);
        for (int64_t d = 0; d < 2; ++d)
          out[d] = (x.size(2 + d) + 2 * g.pad[d] - g.dil[d] * (ksize[d] - 1) - 1) / g.stride[d] + 1;
        Tensor cols = im2col(x, g, ksize, out).squeeze(1).transpose(1, 2).to(self.scalar_type()).contiguous();
        return batched ? cols : cols.squeeze(0);
      },
      self, kernel, dilation, padding, stride);
}

Tensor col2im_op(const Tensor& self, at::IntArrayRef output_size, at::IntArrayRef kernel,
                 at::IntArrayRef dilation, at::IntArrayRef padding, at::IntArrayRef stride) {
  return native_or_host<at::_ops::col2im>(
      [&]() -> Tensor {
        TORCH_CHECK(output_size.size() == 2 && kernel.size() == 2 && dilation.size() == 2 && padding.size() == 2 &&
                        stride.size() == 2,
                    "It is expected output_size, kernel_size, dilation, padding and stride to have two elements each");
        int64_t oh = output_size[0], ow = output_size[1];
        at::native::col2im_shape_check(self, Tensor(), oh, ow, kernel[0], kernel[1], dilation[0], dilation[1],
                                       padding[0], padding[1], stride[0], stride[1]);
        host_if_no_fp64(self);
        bool batched = self.dim() == 3;
        Tensor x = batched ? self : self.unsqueeze(0);
        Geometry g = geometry(2, stride, padding, dilation, 1);
        Dims ksize(kernel.begin(), kernel.end()), in{oh, ow}, out(2);
        for (int64_t d = 0; d < 2; ++d)
          out[d] = (in[d] + 2 * g.pad[d] - g.dil[d] * (ksize[d] - 1) - 1) / g.stride[d] + 1;
        int64_t n = x.size(0), c = x.size(1) / (ksize[0] * ksize[1]);
        // (N, C*K, L) -> (N, C, O..., K...)
        Tensor cols = x.to(acc_of(x)).reshape({n, c, ksize[0], ksize[1], out[0], out[1]}).permute({0, 1, 4, 5, 2, 3});
        Tensor y = col2im(cols, g, in).to(self.scalar_type());
        return batched ? y : y.squeeze(0);
      },
      self, output_size, kernel, dilation, padding, stride);
}

// the host path for what the device cannot compute
Tensor convolution_host(const Tensor& input, const Tensor& weight, const OptTensor& bias, at::IntArrayRef stride,
                        at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                        at::IntArrayRef output_padding, int64_t groups) {
  note_host_op("aten::convolution_overrideable");
  OptTensor b = bias.has_value() && bias->defined() ? OptTensor(host(*bias)) : std::nullopt;
  return back(at::convolution(host(input), host(weight), b, stride, padding, dilation, transposed, output_padding,
                              groups),
              input);
}

// whether the engine computes this convolution (throws nothing: the host
// path gives CPU's answer or CPU's error)
bool runs_native(const Tensor& input, const Tensor& weight, const OptTensor& bias, bool transposed,
                 bool backward) {
  auto d = input.scalar_type();
  if (!rs_conv_computes(device(input.device().index()), static_cast<rs_dtype>(d)) || weight.scalar_type() != d ||
      input.dim() < 3 || input.dim() > 5)
    return false;
  if (bias.has_value() && bias->defined() && bias->scalar_type() != d) return false;
  return !(c10::isIntegralType(d, /*includeBool=*/false) && (backward || (transposed && d != at::kLong)));
}


// One product of the engine: x, w, y as rs_conv names them (the one written
// is the op's result); the others are read.
void run_conv(rs_conv_op op, const Geometry& g, const Tensor& x, const Tensor& w, const Tensor& y,
              const Tensor& bias = Tensor()) {
  rs_conv c{};
  c.op = op;
  c.dims = static_cast<int>(g.k);
  c.groups = g.groups;
  c.input = describe(x);
  c.weight = describe(w);
  c.output = describe(y);
  c.bias = bias.defined() ? address_of(bias) : 0;
  for (int64_t d = 0; d < g.k; ++d) {
    c.stride[d] = g.stride[d];
    c.pad[d] = g.pad[d];
    c.dil[d] = g.dil[d];
  }
  check(rs_conv_run(current_stream_for(y), &c));
}

// A result: contiguous, whatever the input's and the weight's layouts.
// PyTorch's fake tensors (torch.compile, torch.export) plan a convolution's
// outputs with _conv_determine_backend_memory_format, which for an
// out-of-tree backend (ConvBackend::Overrideable) is contiguous, and a
// compiled graph asserts the real strides against the planned ones. (CPU
// and cuDNN keep channels_last; the engine reads either layout.)
Tensor result_like(const Tensor& like, Dims sizes) {
  return at::empty(sizes, like.options());
}

Dims with_nc(int64_t n, int64_t c, const Dims& sp) {
  Dims r{n, c};
  r.insert(r.end(), sp.begin(), sp.end());
  return r;
}

Tensor convolution(const Tensor& input, const Tensor& weight, const OptTensor& bias, at::IntArrayRef stride,
                   at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                   at::IntArrayRef output_padding, int64_t groups) {
  same_device(input, weight, bias);
  if (!runs_native(input, weight, bias, transposed, false))
    return convolution_host(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
  Geometry g = geometry(input.dim() - 2, stride, padding, dilation, groups);
  // resolved (neg-bit) copies live until the dispatch is recorded
  Tensor x = resolved(input), w = resolved(weight);
  Tensor b = bias.has_value() && bias->defined() ? resolved(*bias).contiguous() : Tensor();
  if (!transposed) {
    Tensor y = result_like(input, with_nc(input.size(0), weight.size(0), conv_out_sizes(input, weight, g)));
    run_conv(RS_CONV_FORWARD, g, x, w, y, b);
    return y;
  }
  // weight (C_in, C_out/G, K...): the input gradient of the plain
  // convolution from C_out to C_in, whose dy is this input
  Tensor y = result_like(input, with_nc(input.size(0), weight.size(1) * groups,
                                        transposed_out_sizes(input, weight, g, output_padding)));
  run_conv(RS_CONV_GRAD_INPUT, g, y, w, x);
  if (b.defined()) {
    Dims bshape(y.dim(), 1);
    bshape[1] = y.size(1);
    y.add_(b.reshape(bshape));
  }
  return y;
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& weight, at::IntArrayRef stride,
                                                        at::IntArrayRef padding, at::IntArrayRef dilation,
                                                        bool transposed, at::IntArrayRef output_padding,
                                                        int64_t groups, std::array<bool, 3> mask) {
  same_device(input, weight, grad_output);
  if (!runs_native(input, weight, std::nullopt, transposed, true) || grad_output.scalar_type() != input.scalar_type()) {
    note_host_op("aten::convolution_backward_overrideable");
    // the bias has one element per output channel
    int64_t out_channels = transposed ? weight.size(1) * groups : weight.size(0);
    std::vector<int64_t> bias_sizes{out_channels};
    auto [gi, gw, gb] = at::convolution_backward(host(grad_output), host(input), host(weight),
                                                 at::OptionalIntArrayRef(bias_sizes), stride, padding, dilation,
                                                 transposed, output_padding, groups, mask);
    return {back(gi, input), back(gw, input), back(gb, input)};
  }
  Geometry g = geometry(input.dim() - 2, stride, padding, dilation, groups);
  Tensor dy = resolved(grad_output), x = resolved(input), w = resolved(weight);
  Tensor gi, gw, gb;
  if (mask[0]) gi = result_like(input, input.sizes().vec());
  if (mask[1]) gw = result_like(weight, weight.sizes().vec());
  if (!transposed) {
    if (mask[0]) run_conv(RS_CONV_GRAD_INPUT, g, gi, w, dy);
    if (mask[1]) run_conv(RS_CONV_GRAD_WEIGHT, g, x, gw, dy);
  } else {
    // the forward was y = GRAD_INPUT(dy := x): x's gradient is the plain
    // convolution of y's gradient, and w's swaps the roles of x and y
    if (mask[0]) run_conv(RS_CONV_FORWARD, g, dy, w, gi);
    if (mask[1]) run_conv(RS_CONV_GRAD_WEIGHT, g, dy, gw, x);
  }
  if (mask[2]) {
    Dims dims{0};
    for (int64_t d = 2; d < grad_output.dim(); ++d) dims.push_back(d);
    gb = grad_output.sum(dims);
  }
  return {gi, gw, gb};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("convolution_overrideable", convolution);
  m.impl("convolution_backward_overrideable", convolution_backward);
  m.impl("im2col", im2col_op);
  m.impl("col2im", col2im_op);
}

}  // namespace russet
