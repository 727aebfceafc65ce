// Copies in every direction, fills and scalar reads.
//
// Host <-> device: the host side converts dtypes and layouts with PyTorch's
// own CPU copy, so every dtype pair PyTorch supports works; the device side
// moves contiguous bytes (rs_memcpy_*) and reorders strides with rs_copy.
// Device <-> device: rs_copy converts on the GPU, the pointwise engine
// resolves conjugate/negative bits; a conversion the device cannot do (fp64
// under the apple profile) goes through the host, counted.
#include <ATen/MemoryOverlap.h>
#include <ATen/ops/_local_scalar_dense_native.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <ATen/ops/quantize_per_tensor.h>
#include <ATen/quantized/Quantizer.h>
#include <ATen/ops/scalar_tensor.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include "torch/pointwise.h"
#include "torch/take_layout.h"
#include "russet/pointwise.h"

namespace russet {

void take_layout(const at::Tensor& dst, const at::Tensor& src) {
  if (src.numel() <= 1 || src.strides().equals(dst.strides())) return;
  int64_t extent = 1;  // elements from the first to the last one
  for (int64_t d = 0; d < src.dim(); ++d) extent += (src.size(d) - 1) * src.stride(d);
  // (has_internal_overlap says "too hard" for any non-contiguous view; a
  // kernel's fresh result that spans at least its elements is taken as not
  // overlapping)
  if (extent < src.numel() || at::has_internal_overlap(src) == at::MemOverlap::Yes) return;
  dst.resize_({src.storage_offset() + extent});
  dst.as_strided_(src.sizes(), src.strides(), src.storage_offset());
}

namespace {

bool is_russet(const at::Tensor& t) { return t.device().type() == kDevice; }

at::Tensor empty_russet_like(const at::Tensor& t, at::ScalarType dtype, c10::Device dev) {
  return at::empty(t.sizes(), t.options().dtype(dtype).device(dev).memory_format(at::MemoryFormat::Contiguous));
}

// Device -> CPU: `src` (russet) into a contiguous CPU tensor of its dtype,
// carrying src's conj/neg bits.
at::Tensor download(const at::Tensor& src) {
  at::Tensor s = src;
  c10::DeviceGuard guard(src.device());
  if (!s.is_contiguous()) {
    at::Tensor tmp = empty_russet_like(s, s.scalar_type(), s.device());
    rs_tensor d = describe_elementwise(tmp), v = describe_elementwise(s);
    check(rs_copy(current_stream_for(s), &d, &v));
    s = tmp;
  }
  at::Tensor out = at::empty(s.sizes(), s.options().device(at::kCPU));
  check(rs_memcpy_dtoh(current_stream_for(s), out.data_ptr(), address_of(s), s.nbytes()));
  // the bytes are the stored values: the conj/neg bits apply on the host
  if (src.is_conj()) out = out.conj();
  if (src.is_neg()) out = out._neg_view();
  return out;
}

// CPU -> device: `src` (CPU, any dtype/layout, broadcastable) into `dst`.
void upload(const at::Tensor& dst, const at::Tensor& src) {
  c10::DeviceGuard guard(dst.device());
  at::Tensor s = src.expand(dst.sizes()).resolve_conj().resolve_neg();
  s = s.to(dst.scalar_type()).contiguous();
  // a destination with the conj/neg bit stores conj(value) / -value
  if (dst.is_conj()) s = s.conj().resolve_conj();
  if (dst.is_neg()) s = s.neg();
  if (dst.is_contiguous()) {
    check(rs_memcpy_htod(current_stream_for(dst), address_of(dst), s.data_ptr(), s.nbytes()));
    return;
  }
  at::Tensor tmp = empty_russet_like(dst, dst.scalar_type(), dst.device());
  check(rs_memcpy_htod(current_stream_for(dst), address_of(tmp), s.data_ptr(), s.nbytes()));
  rs_tensor d = describe_elementwise(dst), v = describe_elementwise(tmp);
  check(rs_copy(current_stream_for(dst), &d, &v));
}

bool same_view(const at::Tensor& a, const at::Tensor& b) {
  return a.data_ptr() == b.data_ptr() && a.sizes().equals(b.sizes()) && a.strides().equals(b.strides()) &&
         a.scalar_type() == b.scalar_type() && a.is_conj() == b.is_conj() && a.is_neg() == b.is_neg();
}

bool may_overlap(const at::Tensor& a, const at::Tensor& b) {
  if (!a.storage().is_alias_of(b.storage())) return false;
  rs_tensor x = describe_elementwise(a), y = describe_elementwise(b);
  uint64_t xl, xh, yl, yh;
  rs_tensor_extent(&x, &xl, &xh);
  rs_tensor_extent(&y, &yl, &yh);
  return xl < yh && yl < xh;
}

// stored(dst) = f(stored(src)) of one dtype, f = conj and/or negation
// (the pointwise engine); false where the device cannot (fp64 under apple).
bool transform_stored(const at::Tensor& dst, const at::Tensor& src, bool conj, bool neg) {
  rs_pointwise p{};
  p.name = "copy_bits";
  p.op = conj && neg ? RS_PW_NEG_CONJ : conj ? RS_PW_CONJ : RS_PW_NEG;
  p.common = static_cast<rs_dtype>(dst.scalar_type());
  p.compute = opmath(dst.scalar_type());
  p.result = p.compute;
  p.ninputs = 1;
  p.out = describe_elementwise(dst);
  p.in[0] = describe_elementwise(src);
  rs_status st = rs_pointwise_run(current_stream_for(dst), &p);
  if (st == RS_ERR_UNSUPPORTED) return false;
  check(st);
  return true;
}

// One device: the stored values converted by rs_copy; where the views'
// conjugate or negative bits differ, the stored values of dst are those of
// src conjugated and/or negated (a second pass when the dtypes differ too).
// False where the device cannot (fp64 under the apple profile).
bool copy_on_device(const at::Tensor& dst, at::Tensor src) {
  c10::DeviceGuard guard(dst.device());
  rs_stream* s = current_stream_for(dst);
  bool conj = src.is_conj() != dst.is_conj();
  bool neg = src.is_neg() != dst.is_neg();
  if (may_overlap(dst, src) || ((conj || neg) && src.scalar_type() != dst.scalar_type())) {
    // the stored values converted to dst's dtype in a temporary
    at::Tensor tmp = empty_russet_like(src, dst.scalar_type(), src.device());
    rs_tensor t = describe_elementwise(tmp), v = describe_elementwise(src);
    rs_status st = rs_copy(s, &t, &v);
    if (st == RS_ERR_UNSUPPORTED) return false;
    check(st);
    src = tmp;
  }
  if (conj || neg) return transform_stored(dst, src, conj, neg);
  rs_tensor d = describe_elementwise(dst), v = describe_elementwise(src);
  rs_status st = rs_copy(s, &d, &v);
  if (st == RS_ERR_UNSUPPORTED) return false;
  check(st);
  return true;
}

void copy_device_to_device(const at::Tensor& dst, const at::Tensor& src_in) {
  at::Tensor src = src_in.expand(dst.sizes());
  if (same_view(dst, src)) return;
  if (src.device() == dst.device() && copy_on_device(dst, src)) return;
  // the device cannot convert (fp64 under apple), or two devices: convert
  // on the host
  note_host_op("aten::_copy_from");
  upload(dst, download(src));
}

// a quantized tensor's integers as a plain tensor over its storage
at::Tensor int_alias(const at::Tensor& t) {
  return at::empty({0}, t.options().dtype(at::toUnderlying(t.scalar_type())))
      .set_(t.storage(), t.storage_offset(), t.sizes(), t.strides());
}

// copy_ sends every copy that involves russet here, before its own
// quantized checks (russet is not among its devices): they are made here
at::Tensor copy_from(const at::Tensor& self, const at::Tensor& dst, bool non_blocking) {
  if (self.is_quantized() || dst.is_quantized()) {
    TORCH_CHECK(dst.is_quantized(), "Copying from quantized Tensor to non-quantized Tensor is not allowed, please "
                "use dequantize to get a float Tensor from a quantized Tensor");
    if (!self.is_quantized()) {  // floats into a quantized tensor: quantized with its parameters
      TORCH_CHECK(dst.qscheme() == at::kPerTensorAffine, "Quantized copy only works with kPerTensorAffine");
      TORCH_CHECK(self.scalar_type() == at::kFloat, "Quantized copy only works with kFloat as source Tensor");
      TORCH_CHECK(self.sizes().equals(dst.sizes()), "Quantized copy only works with Tensors with the same shape");
      at::Tensor q = at::quantize_per_tensor(self.to(dst.device()), dst.q_scale(), dst.q_zero_point(),
                                             dst.scalar_type());
      return copy_from(q, dst, non_blocking);
    }
    TORCH_CHECK(self.qscheme() == dst.qscheme(), "Quantized Copy only works with same qscheme");
    TORCH_CHECK(self.scalar_type() == dst.scalar_type());
    at::set_quantizer_(dst, self.quantizer());
    copy_from(int_alias(self), int_alias(dst), non_blocking);  // the integers move
    return dst;
  }
  if (dst.numel() == 0) return dst;
  if (is_russet(self) && is_russet(dst)) {
    copy_device_to_device(dst, self);
  } else if (is_russet(dst)) {
    upload(dst, self);
  } else if (is_russet(self)) {
    at::Tensor src = self.expand(dst.sizes());
    c10::DeviceGuard guard(src.device());
    if (!src.storage().data() || rs_host_ptr(device(src.device().index()), address_of(src))) {
      // unified memory: once the stream is done, PyTorch's (parallel) CPU
      // copy reads the mapped memory directly, converting as it goes
      check(rs_stream_synchronize(current_stream_for(src)));
      dst.copy_(host_alias(src));
      return dst;
    }
    if (src.is_contiguous() && dst.is_contiguous() && src.scalar_type() == dst.scalar_type() &&
        !src.is_conj() && !src.is_neg() && !dst.is_conj() && !dst.is_neg()) {
      // device-only memory: staged by the core straight into the destination
      check(rs_memcpy_dtoh(current_stream_for(src), dst.data_ptr(), address_of(src), src.nbytes()));
      return dst;
    }
    dst.copy_(download(src));
  } else {
    TORCH_CHECK(false, "russet: _copy_from called with no russet tensor");
  }
  (void)non_blocking;  // host-to-device is staged and ordered; device-to-host must wait anyway
  return dst;
}

// (PyTorch's cpu_fallback copies a host-executed op's out= results back
// with this: a resized dst takes the CPU result's layout)
at::Tensor copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  if (!dst.sizes().equals(self.sizes())) {
    dst.resize_(self.sizes());
    take_layout(dst, self);
  }
  return copy_from(self, dst, false);
}

// The bytes of `value` in `dtype`, as PyTorch's CPU converts it.
at::Tensor encode(const at::Scalar& value, at::ScalarType dtype) {
  return at::scalar_tensor(value, at::TensorOptions().dtype(dtype).device(at::kCPU));
}

at::Tensor& fill_scalar(at::Tensor& self, const at::Scalar& value) {
  if (self.numel() == 0) return self;
  c10::DeviceGuard guard(self.device());
  at::Tensor bytes = encode(value, self.scalar_type());
  rs_tensor d = describe_elementwise(self);
  check(rs_fill(current_stream_for(self), &d, bytes.data_ptr()));
  return self;
}

at::Tensor& fill_tensor(at::Tensor& self, const at::Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ",
              value.dim(), " dimensions.");
  if (value.device().is_cpu()) return fill_scalar(self, value.item());
  // a russet scalar: broadcast-copy it on the device, no host read
  if (self.numel()) copy_device_to_device(self, value);
  return self;
}

at::Tensor& zero_(at::Tensor& self) {
  if (self.scalar_type() == at::ScalarType::Float4_e2m1fn_x2 && self.numel()) {
    // no scalar converts to float4 (CPU's fill has no kernel), but zero_
    // works on CPU: the zero bytes
    const uint8_t zero = 0;
    c10::DeviceGuard guard(self.device());
    rs_tensor d = describe_elementwise(self);
    check(rs_fill(current_stream_for(self), &d, &zero));
    return self;
  }
  return fill_scalar(self, 0);
}

at::Scalar local_scalar_dense(const at::Tensor& self) {
  TORCH_CHECK(self.numel() == 1, "a Tensor with ", self.numel(), " elements cannot be converted to Scalar");
  c10::DeviceGuard guard(self.device());
  at::Tensor host = at::empty({}, self.options().device(at::kCPU));
  check(rs_memcpy_dtoh(current_stream_for(self), host.data_ptr(), address_of(self), self.dtype().itemsize()));
  if (self.is_conj()) host = host.conj().resolve_conj();
  if (self.is_neg()) host = host._neg_view().resolve_neg();
  return at::native::_local_scalar_dense_cpu(host);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_copy_from", copy_from);
  m.impl("_copy_from_and_resize", copy_from_and_resize);
  m.impl("fill_.Scalar", fill_scalar);
  m.impl("fill_.Tensor", fill_tensor);
  m.impl("zero_", zero_);
  m.impl("_local_scalar_dense", local_scalar_dense);
}

// quantized tensors: copies between two of them move their integers
TORCH_LIBRARY_IMPL(aten, QuantizedPrivateUse1, m) { m.impl("_copy_from", copy_from); }

}  // namespace russet

// _copy_from handles the conjugate and negative bits itself. Without these
// fallthroughs the Conjugate/Negative fallbacks would materialize its input
// with clone(), which copies through _copy_from again: endless recursion.
TORCH_LIBRARY_IMPL(aten, Conjugate, m) {
  m.impl("_copy_from", torch::CppFunction::makeFallthrough());
  m.impl("_copy_from_and_resize", torch::CppFunction::makeFallthrough());
}
TORCH_LIBRARY_IMPL(aten, Negative, m) {
  m.impl("_copy_from", torch::CppFunction::makeFallthrough());
  m.impl("_copy_from_and_resize", torch::CppFunction::makeFallthrough());
}
