// Matrix products: mm, bmm, addmm, baddbmm, addbmm, addmv (mv), addr, dot,
// vdot and linalg_cross (cross), as thin translations into rs_gemm and
// rs_cross (src/engine/gemm.c). Shape and dtype checks are ATen's own
// structured meta functions where the op has one, and CPU's checks (same
// messages) where it has not. Operands are passed with their strides, so
// transposed, strided and expanded views are read in place; conjugate views
// (PyTorch's conj bit) become the kernel's conj flags. Composite ops
// (matmul, linear, einsum, tensordot, inner, outer, kron, mv, cross) reach
// these kernels through ATen's decompositions.
#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/ops/addbmm_ops.h>
#include <ATen/ops/addmm.h>
#include <ATen/ops/addmm_meta.h>
#include <ATen/ops/addmm_ops.h>
#include <ATen/ops/addmv_meta.h>
#include <ATen/ops/addmv_ops.h>
#include <ATen/ops/addr_ops.h>
#include <ATen/ops/baddbmm_meta.h>
#include <ATen/ops/baddbmm_ops.h>
#include <ATen/ops/bmm_meta.h>
#include <ATen/ops/bmm_ops.h>
#include <ATen/ops/dot_ops.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/linalg_cross_meta.h>
#include <ATen/ops/linalg_cross_ops.h>
#include <ATen/ops/mm_meta.h>
#include <ATen/ops/mm_ops.h>
#include <ATen/ops/relu.h>
#include <ATen/ops/vdot_ops.h>
#include <torch/library.h>

#include <cstring>
#include <utility>

#include "torch/pointwise.h"
#include "torch/same_device.h"
#include "russet/gemm.h"
#include "russet/pointwise.h"

namespace russet {
namespace {

using at::Scalar;
using at::Tensor;

// Dtypes the GEMM kernels serve for these ops; others go to host execution
// (which computes them, or raises CPU's own "not implemented" error).
bool gemm_dtype(at::ScalarType t, bool allow_bool) {
  switch (t) {
    case at::kByte: case at::kChar: case at::kShort: case at::kInt: case at::kLong:
    case at::kHalf: case at::kFloat: case at::kBFloat16: case at::kComplexFloat:
    case at::kDouble: case at::kComplexDouble:
      return true;
    case at::kBool:
      return allow_bool;
    default:
      return false;
  }
}

// alpha / beta in the accumulation type of `t` (see rs_gemm_desc).
void to_scalar(const Scalar& s, at::ScalarType t, rs_scalar out[2]) {
  std::memset(out, 0, 2 * sizeof(rs_scalar));
  switch (t) {
    case at::kHalf: case at::kFloat: case at::kBFloat16:
      out[0].f = s.to<float>();
      break;
    case at::kDouble:
      out[0].d = s.to<double>();
      break;
    case at::kComplexFloat: {
      auto c = s.to<c10::complex<float>>();
      out[0].cf.re = c.real();
      out[0].cf.im = c.imag();
      break;
    }
    case at::kComplexDouble: {
      auto c = s.to<c10::complex<double>>();
      out[0].d = c.real();
      out[1].d = c.imag();
      break;
    }
    case at::kBool:
      out[0].i = s.to<bool>() ? 1 : 0;
      break;
    default:
      out[0].i = s.to<int64_t>();
      break;
  }
}

bool scalar_is_zero(const Scalar& s) {
  if (s.isComplex()) return s.toComplexDouble() == c10::complex<double>(0, 0);
  if (s.isFloatingPoint()) return s.toDouble() == 0.0;
  if (s.isBoolean()) return !s.toBool();
  return s.toLong() == 0;
}

// A (batch, rows, cols) operand from a 3-D view, or a 2-D one (batch 1).
rs_gemm_operand operand(const Tensor& t) {
  rs_gemm_operand o{};
  o.address = t.numel() ? address_of(t) : 0;
  if (t.dim() == 3) {
    for (int i = 0; i < 3; ++i) o.stride[i] = t.stride(i);
  } else {
    o.stride[0] = 0;
    o.stride[1] = t.stride(0);
    o.stride[2] = t.stride(1);
  }
  return o;
}

// Conjugate and negative views: the conj bit is a kernel flag; the neg bit
// is resolved (a native negation).
Tensor plain(const Tensor& t, bool& conj) {
  conj = t.is_conj();
  Tensor r = conj ? t.conj() : t;  // conj() of a conj view drops the bit
  return r.is_neg() ? r.resolve_neg() : r;
}

bool overlaps(const Tensor& out, const Tensor& t) {
  return t.defined() && t.numel() > 0 && out.numel() > 0 &&
         at::get_overlap_status(out, t) != at::MemOverlapStatus::No;
}

// out = beta * cin + alpha * sum op(a) @ op(b). `a`, `b`, `out` and `cin`
// (already expanded to out's shape, or undefined) are 2-D or 3-D views of
// the same kind; `reduce` sums a's and b's batch into a 2-D out (addbmm).
void run_gemm(const Tensor& out, const Tensor& a_in, const Tensor& b_in, const Tensor& cin_in,
              const Scalar& alpha, const Scalar& beta, bool reduce = false, bool flip_conj_a = false,
              bool allow_bool = false) {
  const at::ScalarType dt = out.scalar_type();
  if (!gemm_dtype(dt, allow_bool) || a_in.scalar_type() != dt || b_in.scalar_type() != dt ||
      (cin_in.defined() && cin_in.scalar_type() != dt))
    throw NeedsHost();
  const rs_features* f = rs_device_features(device(out.device().index()));
  if ((dt == at::kDouble || dt == at::kComplexDouble) && !f->has_fp64) throw NeedsHost();
  if (out.numel() == 0) return;
  at::assert_no_internal_overlap(out);

  bool ca = false, cb = false, cc = false;
  Tensor a = plain(a_in, ca), b = plain(b_in, cb);
  if (flip_conj_a && a.is_complex()) ca = !ca;
  const bool use_cin = cin_in.defined() && !scalar_is_zero(beta);
  Tensor cin;
  if (use_cin) {
    cin = plain(cin_in, cc);
    if (cc) cin = cin.conj().resolve_conj();  // rare: materialize
  }
  // A result that aliases an operand, or carries a conj/neg bit, is computed
  // into a temporary (the kernel reads Cin and writes C element by element,
  // so C == Cin in place is fine).
  const bool temp = out.is_conj() || out.is_neg() || overlaps(out, a) || overlaps(out, b) ||
                    (use_cin && overlaps(out, cin) && !(cin.is_same(out) ||
                     (cin.data_ptr() == out.data_ptr() && cin.strides() == out.strides())));
  Tensor c = temp ? at::empty(out.sizes(), out.options().dtype(dt)) : out;

  rs_gemm_desc d{};
  d.dtype = static_cast<rs_dtype>(dt);
  const bool batched = a.dim() == 3;
  d.batch = batched ? a.size(0) : 1;
  d.m = a.size(batched ? 1 : 0);
  d.k = a.size(batched ? 2 : 1);
  d.n = b.size(batched ? 2 : 1);
  d.a = operand(a);
  d.b = operand(b);
  d.c = operand(c);
  if (use_cin) d.cin = operand(cin);
  d.use_cin = use_cin;
  d.conj_a = ca;
  d.conj_b = cb;
  d.reduce_batch = reduce;
  if (reduce) d.c.stride[0] = 0, d.cin.stride[0] = 0;
  to_scalar(alpha, dt, d.alpha);
  to_scalar(beta, dt, d.beta);
  check_or_host(rs_gemm(current_stream_for(out), &d));
  if (temp) out.copy_(c);
}

// ---------------------------------------------------------------- structured ops

// A structured meta class (a MetaBase, not a TensorIterator) run against the
// caller's out= tensor: the meta function's checks, then out resized as
// ATen's generated out= wrappers do.
template <class Meta>
struct MetaOut final : Meta {
  explicit MetaOut(const Tensor& out) : out_(out) {}
  void set_output_strided(int64_t, at::IntArrayRef sizes, at::IntArrayRef strides,
                          at::TensorOptions options RUSSET_NAMES_PARAM) override {
    resize_out(out_, sizes, strides, options);
  }
  void set_output_raw_strided(int64_t, at::IntArrayRef sizes, at::IntArrayRef strides,
                              at::TensorOptions options RUSSET_NAMES_PARAM) override {
    resize_out(out_, sizes, strides, options);
  }
  const Tensor& maybe_get_output(int64_t) override { return out_; }
  const Tensor& out_;
};

Tensor& mm_out(const Tensor& self, const Tensor& mat2, Tensor& out) {
  return native_or_host<at::_ops::mm_out>(
      [&]() -> Tensor& {
        same_device(self, mat2, out);
        MetaOut<at::meta::structured_mm> m(out);
        m.meta(self, mat2);
        run_gemm(out, self, mat2, Tensor(), 1, 0);
        return out;
      },
      self, mat2, out);
}

Tensor& bmm_out(const Tensor& self, const Tensor& mat2, Tensor& out) {
  return native_or_host<at::_ops::bmm_out>(
      [&]() -> Tensor& {
        same_device(self, mat2, out);
        MetaOut<at::meta::structured_bmm> m(out);
        m.meta(self, mat2);
        run_gemm(out, self, mat2, Tensor(), 1, 0);
        return out;
      },
      self, mat2, out);
}

Tensor& addmm_out(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                  const Scalar& alpha, Tensor& out) {
  return native_or_host<at::_ops::addmm_out>(
      [&]() -> Tensor& {
        same_device(self, mat1, mat2, out);
        MetaOut<at::meta::structured_addmm> m(out);
        m.meta(self, mat1, mat2, beta, alpha);
        Tensor s = self.expand({mat1.size(0), mat2.size(1)});
        run_gemm(out, mat1, mat2, s, alpha, beta);
        return out;
      },
      self, mat1, mat2, beta, alpha, out);
}

Tensor& baddbmm_out(const Tensor& self, const Tensor& b1, const Tensor& b2, const Scalar& beta,
                    const Scalar& alpha, Tensor& out) {
  return native_or_host<at::_ops::baddbmm_out>(
      [&]() -> Tensor& {
        same_device(self, b1, b2, out);
        MetaOut<at::meta::structured_baddbmm> m(out);
        m.meta(self, b1, b2, beta, alpha);
        Tensor s = self.expand({b1.size(0), b1.size(1), b2.size(2)});
        run_gemm(out, b1, b2, s, alpha, beta);
        return out;
      },
      self, b1, b2, beta, alpha, out);
}

Tensor& addmv_out(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
                  const Scalar& alpha, Tensor& out) {
  return native_or_host<at::_ops::addmv_out>(
      [&]() -> Tensor& {
        same_device(self, mat, vec, out);
        MetaOut<at::meta::structured_addmv> m(out);
        m.meta(self, mat, vec, beta, alpha);
        // as a GEMM with n = 1: vec is (k, 1), out and self are (m, 1)
        Tensor s = self.expand({mat.size(0)});
        run_gemm(out.unsqueeze(1), mat, vec.unsqueeze(1), s.unsqueeze(1), alpha, beta);
        return out;
      },
      self, mat, vec, beta, alpha, out);
}

Tensor& linalg_cross_out(const Tensor& self, const Tensor& other, int64_t dim, Tensor& out) {
  return native_or_host<at::_ops::linalg_cross_out>(
      [&]() -> Tensor& {
        same_device(self, other, out);
        MetaOut<at::meta::structured_linalg_cross> m(out);
        m.meta(self, other, dim);
        const at::ScalarType dt = out.scalar_type();
        if (self.scalar_type() != dt || other.scalar_type() != dt || dt == at::kBool) throw NeedsHost();
        dim = at::maybe_wrap_dim(dim, self.dim());
        auto size = at::infer_size(self.sizes(), other.sizes());
        bool c1 = false, c2 = false;
        Tensor a = plain(self, c1), b = plain(other, c2);
        if (c1) a = self.resolve_conj();
        if (c2) b = other.resolve_conj();
        a = a.expand(size);
        b = b.expand(size);
        if (out.numel() == 0) return out;
        at::assert_no_internal_overlap(out);
        const bool temp = out.is_conj() || out.is_neg() || overlaps(out, a) || overlaps(out, b);
        Tensor c = temp ? at::empty(out.sizes(), out.options()) : out;
        rs_tensor to = describe(c), ta = describe(a), tb = describe(b);
        check_or_host(rs_cross(current_stream_for(out), &to, &ta, &tb, static_cast<int>(dim)));
        if (temp) out.copy_(c);
        return out;
      },
      self, other, dim, out);
}

// ---------------------------------------------------------------- addbmm (CPU's checks)

void check_addbmm(const Tensor& self, const Tensor& b1, const Tensor& b2) {
  same_device(self, b1, b2);
  TORCH_CHECK(b1.dim() == 3, "batch1 must be a 3D tensor");
  TORCH_CHECK(b2.dim() == 3, "batch2 must be a 3D tensor");
  TORCH_CHECK(b1.size(0) == b2.size(0), "batch1 and batch2 must have same number of batches, got ",
              b1.size(0), " and ", b2.size(0));
  TORCH_CHECK(b1.size(2) == b2.size(1), "Incompatible matrix sizes for bmm (", b1.size(1), "x",
              b1.size(2), " and ", b2.size(1), "x", b2.size(2), ")");
  TORCH_CHECK(b1.scalar_type() == b2.scalar_type(), "expected scalar type ", b1.scalar_type(),
              " but found ", b2.scalar_type());
}

Tensor& addbmm_impl(const Tensor& self, const Tensor& b1, const Tensor& b2, const Scalar& beta,
                    const Scalar& alpha, Tensor& out) {
  check_addbmm(self, b1, b2);
  same_device(self, out);
  Tensor s = self.expand({b1.size(1), b2.size(2)});
  // CPU's addbmm resizes a wrongly sized out= silently (resize_, not
  // resize_output's deprecation warning)
  out.resize_({b1.size(1), b2.size(2)});
  const at::ScalarType dt = out.scalar_type();
  if (at::isIntegralType(dt, true) || dt == at::kFloat || b1.size(0) == 0) {
    // one kernel summing over the whole batch: exact for integers (wrapping);
    // for float32 it differs from CPU's batch-by-batch order at rounding
    // noise only
    run_gemm(out, b1, b2, s, alpha, beta, /*reduce=*/true);
  } else {
    // CPU accumulates batch by batch (an addmm_ per batch, the result
    // rounded to the dtype each time, alpha applied per batch), which for
    // float16/bfloat16 (roundings) and complex64 (a complex alpha) differs
    // beyond the tolerance from one sum: the same order here
    if (out.numel() > 0 && (overlaps(out, b1) || overlaps(out, b2))) throw NeedsHost();
    run_gemm(out, b1[0], b2[0], s, alpha, beta);
    for (int64_t b = 1; b < b1.size(0); ++b) run_gemm(out, b1[b], b2[b], out, alpha, 1);
  }
  return out;
}

Tensor& addbmm_out(const Tensor& self, const Tensor& b1, const Tensor& b2, const Scalar& beta,
                   const Scalar& alpha, Tensor& out) {
  return native_or_host<at::_ops::addbmm_out>(
      [&]() -> Tensor& { return addbmm_impl(self, b1, b2, beta, alpha, out); }, self, b1, b2, beta,
      alpha, out);
}

Tensor addbmm(const Tensor& self, const Tensor& b1, const Tensor& b2, const Scalar& beta,
              const Scalar& alpha) {
  return native_or_host<at::_ops::addbmm>(
      [&]() -> Tensor {
        Tensor out = at::empty({0}, self.options());
        addbmm_impl(self, b1, b2, beta, alpha, out);
        return out;
      },
      self, b1, b2, beta, alpha);
}

Tensor& addbmm_(Tensor& self, const Tensor& b1, const Tensor& b2, const Scalar& beta,
                const Scalar& alpha) {
  // CPU: addbmm_out(self, b1, b2, beta, alpha, out=self), self resized to
  // the product's shape when it only broadcasts to it
  return native_or_host<at::_ops::addbmm_>(
      [&]() -> Tensor& {
        check_addbmm(self, b1, b2);
        if (self.dim() == 2 && self.size(0) == b1.size(1) && self.size(1) == b2.size(2)) {
          addbmm_impl(self, b1, b2, beta, alpha, self);
        } else {
          Tensor tmp = at::empty({0}, self.options());
          addbmm_impl(self, b1, b2, beta, alpha, tmp);
          self.resize_(tmp.sizes());
          self.copy_(tmp);
        }
        return self;
      },
      self, b1, b2, beta, alpha);
}

// ---------------------------------------------------------------- addr (CPU's checks)

void check_addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
                const Scalar& alpha) {
  same_device(self, vec1, vec2);
  TORCH_CHECK(vec1.dim() == 1, "addr: Expected 1-D argument vec1, but got ", vec1.dim(), "-D");
  TORCH_CHECK(vec2.dim() == 1, "addr: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  // CPU's check_addr_scalar
  const at::ScalarType dt = self.scalar_type();
  for (auto [s, name] : {std::pair<const Scalar&, const char*>{beta, "beta"}, {alpha, "alpha"}}) {
    TORCH_CHECK(!s.isBoolean() || dt == at::kBool, "Boolean ", name, " only supported for Boolean results.");
    TORCH_CHECK(at::isFloatingType(dt) || at::isComplexType(dt) || s.isIntegral(true),
                "For integral input tensors, argument ", name, " must not be a floating point number.");
  }
}

Tensor& addr_impl(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
                  const Scalar& alpha, Tensor& out) {
  check_addr(self, vec1, vec2, beta, alpha);
  same_device(self, out);
  const at::ScalarType dt = self.scalar_type();
  // CPU promotes mixed dtypes (TensorIterator); only the plain case is native
  if (vec1.scalar_type() != dt || vec2.scalar_type() != dt || out.scalar_type() != dt) throw NeedsHost();
  Tensor s = self.expand({vec1.size(0), vec2.size(0)});
  at::native::resize_output(out, {vec1.size(0), vec2.size(0)});
  if (dt == at::kHalf || dt == at::kBFloat16) {
    // CPU computes alpha * vec1 * vec2 + beta * self in Half/BFloat16
    // arithmetic, rounding after every operation: the pointwise engine
    // over the broadcast views, with the same roundings
    if (out.numel() == 0) return out;
    if (overlaps(out, vec1) || overlaps(out, vec2)) throw NeedsHost();
    const bool use_self = !scalar_is_zero(beta);
    rs_pointwise p{};
    p.name = "addr";
    p.op = use_self ? RS_PW_ADDR_ROUNDED
                      : RS_PW_ADDR_ROUNDED_NO_SELF;
    p.common = p.compute = p.result = static_cast<rs_dtype>(dt);
    p.ninputs = 3;
    p.out = describe(out);
    p.in[0] = describe(s);
    p.in[1] = describe(vec1.unsqueeze(1).expand({vec1.size(0), vec2.size(0)}));
    p.in[2] = describe(vec2.unsqueeze(0).expand({vec1.size(0), vec2.size(0)}));
    p.nscalars = 2;
    // alpha.to<scalar_t>(), beta.to<scalar_t>()
    p.s[0][0].f = dt == at::kHalf ? static_cast<float>(alpha.to<at::Half>()) : static_cast<float>(alpha.to<at::BFloat16>());
    p.s[1][0].f = dt == at::kHalf ? static_cast<float>(beta.to<at::Half>()) : static_cast<float>(beta.to<at::BFloat16>());
    check(rs_pointwise_run(current_stream_for(out), &p));
    return out;
  }
  // an outer product: a GEMM with k = 1
  run_gemm(out, vec1.unsqueeze(1), vec2.unsqueeze(0), s, alpha, beta, false, false, /*allow_bool=*/true);
  return out;
}

Tensor& addr_out(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
                 const Scalar& alpha, Tensor& out) {
  return native_or_host<at::_ops::addr_out>(
      [&]() -> Tensor& { return addr_impl(self, vec1, vec2, beta, alpha, out); }, self, vec1, vec2, beta,
      alpha, out);
}

Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
            const Scalar& alpha) {
  return native_or_host<at::_ops::addr>(
      [&]() -> Tensor {
        if (vec1.scalar_type() != self.scalar_type() || vec2.scalar_type() != self.scalar_type())
          throw NeedsHost();
        Tensor out = at::empty({0}, self.options());
        addr_impl(self, vec1, vec2, beta, alpha, out);
        return out;
      },
      self, vec1, vec2, beta, alpha);
}

// ---------------------------------------------------------------- dot, vdot (CPU's checks)

void check_dot(const Tensor& self, const Tensor& other, const char* name) {
  same_device(self, other);
  TORCH_CHECK(self.dim() == 1 && other.dim() == 1, "1D tensors expected, but got ", self.dim(), "D and ",
              other.dim(), "D tensors");
  TORCH_CHECK(self.scalar_type() == other.scalar_type(), name,
              " : expected both vectors to have same dtype, but found ", self.scalar_type(), " and ",
              other.scalar_type());
  TORCH_CHECK(self.numel() == other.numel(), "inconsistent tensor size, expected tensor [", self.numel(),
              "] and src [", other.numel(), "] to have the same number of elements, but got ", self.numel(),
              " and ", other.numel(), " elements respectively");
}

Tensor dot_impl(const Tensor& self, const Tensor& other, bool vdot) {
  check_dot(self, other, vdot ? "vdot" : "dot");
  Tensor out = at::empty({}, self.options());
  // (1, k) @ (k, 1) -> (1, 1)
  run_gemm(out.view({1, 1}), self.unsqueeze(0), other.unsqueeze(1), Tensor(), 1, 0, false, vdot);
  return out;
}

Tensor dot(const Tensor& self, const Tensor& other) {
  return native_or_host<at::_ops::dot>([&]() -> Tensor { return dot_impl(self, other, false); }, self, other);
}

Tensor vdot(const Tensor& self, const Tensor& other) {
  return native_or_host<at::_ops::vdot>([&]() -> Tensor { return dot_impl(self, other, true); }, self, other);
}

// addmm, then ReLU or GELU in place: the feed-forward of
// nn.TransformerEncoderLayer's inference fast path. CPU's order (its
// kernel: addmm, then gelu_ with no approximation, or relu_)
Tensor& addmm_activation_out(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                             const Scalar& alpha, bool use_gelu, Tensor& out) {
  at::addmm_out(out, self, mat1, mat2, beta, alpha);
  return use_gelu ? at::gelu_(out) : at::relu_(out);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("mm.out", TORCH_FN(mm_out));
  m.impl("_addmm_activation.out", TORCH_FN(addmm_activation_out));
  m.impl("bmm.out", TORCH_FN(bmm_out));
  m.impl("addmm.out", TORCH_FN(addmm_out));
  m.impl("baddbmm.out", TORCH_FN(baddbmm_out));
  m.impl("addmv.out", TORCH_FN(addmv_out));
  m.impl("linalg_cross.out", TORCH_FN(linalg_cross_out));
  m.impl("addbmm.out", TORCH_FN(addbmm_out));
  m.impl("addbmm", TORCH_FN(addbmm));
  m.impl("addbmm_", TORCH_FN(addbmm_));
  m.impl("addr.out", TORCH_FN(addr_out));
  m.impl("addr", TORCH_FN(addr));
  m.impl("dot", TORCH_FN(dot));
  m.impl("vdot", TORCH_FN(vdot));
}

}  // namespace
}  // namespace russet
