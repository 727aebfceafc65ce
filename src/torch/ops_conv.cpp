// Convolution, through host execution until it has a native kernel.
//
// For PrivateUse1, aten::convolution dispatches to convolution_overrideable
// (and its backward to convolution_backward_overrideable), which CPU does not
// implement: the generic host fallback cannot serve them, and every conv
// layer used to fail. Here they run CPU's convolution on host copies of the
// operands, counted and governed by RUSSET_HOST_OPS like any host op.
#include <ATen/ops/convolution.h>
#include <ATen/ops/convolution_backward.h>
#include <torch/library.h>

#include "torch/adapter.h"

namespace russet {
namespace {

using at::Tensor;
using OptTensor = std::optional<Tensor>;

Tensor host(const Tensor& t) { return t.defined() ? t.to(at::kCPU) : t; }
Tensor back(const Tensor& t, const Tensor& like) { return t.defined() ? t.to(like.device()) : t; }

void check_same_device(const Tensor& input, const Tensor& weight) {
  TORCH_CHECK(input.device() == weight.device(), "Expected all tensors to be on the same device, but found at ",
              "least two devices, ", input.device(), " and ", weight.device(), "!");
}

Tensor convolution(const Tensor& input, const Tensor& weight, const OptTensor& bias, at::IntArrayRef stride,
                   at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                   at::IntArrayRef output_padding, int64_t groups) {
  check_same_device(input, weight);
  note_host_op("aten::convolution_overrideable");
  OptTensor b = bias.has_value() && bias->defined() ? OptTensor(host(*bias)) : std::nullopt;
  Tensor out = at::convolution(host(input), host(weight), b, stride, padding, dilation, transposed, output_padding,
                               groups);
  return back(out, input);
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& weight, at::IntArrayRef stride,
                                                        at::IntArrayRef padding, at::IntArrayRef dilation,
                                                        bool transposed, at::IntArrayRef output_padding,
                                                        int64_t groups, std::array<bool, 3> mask) {
  check_same_device(input, weight);
  note_host_op("aten::convolution_backward_overrideable");
  // the bias has one element per output channel
  int64_t out_channels = transposed ? weight.size(1) * groups : weight.size(0);
  std::vector<int64_t> bias_sizes{out_channels};
  auto [gi, gw, gb] = at::convolution_backward(host(grad_output), host(input), host(weight),
                                               at::OptionalIntArrayRef(bias_sizes), stride, padding, dilation,
                                               transposed, output_padding, groups, mask);
  return {back(gi, input), back(gw, input), back(gb, input)};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("convolution_overrideable", convolution);
  m.impl("convolution_backward_overrideable", convolution_backward);
}

}  // namespace russet
