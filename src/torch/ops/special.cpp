// Special functions: the gamma family, erfinv, modified Bessel functions,
// torch.special's entr/log_ndtr/xlog1py/zeta. Structured ops run their ATen
// meta function (pointwise.h); the expressions are
// kernels/common/ops_special.glsl functions (rs_op_*). What has no kernel
// here runs through host execution.
#include "torch/pointwise.h"

#include <ATen/ops/digamma_meta.h>
#include <ATen/ops/digamma_ops.h>
#include <ATen/ops/erfinv_meta.h>
#include <ATen/ops/erfinv_ops.h>
#include <ATen/ops/i0_meta.h>
#include <ATen/ops/i0_ops.h>
#include <ATen/ops/lgamma_meta.h>
#include <ATen/ops/lgamma_ops.h>
#include <ATen/ops/polygamma_meta.h>
#include <ATen/ops/polygamma_ops.h>
#include <ATen/ops/special_entr_meta.h>
#include <ATen/ops/special_entr_ops.h>
#include <ATen/ops/special_i0e_meta.h>
#include <ATen/ops/special_i0e_ops.h>
#include <ATen/ops/special_i1_meta.h>
#include <ATen/ops/special_i1_ops.h>
#include <ATen/ops/special_i1e_meta.h>
#include <ATen/ops/special_i1e_ops.h>
#include <ATen/ops/special_log_ndtr_meta.h>
#include <ATen/ops/special_log_ndtr_ops.h>
#include <ATen/ops/special_xlog1py_meta.h>
#include <ATen/ops/special_xlog1py_ops.h>
#include <ATen/ops/special_zeta_meta.h>
#include <ATen/ops/special_zeta_ops.h>
#include <ATen/ops/special_bessel_j0_meta.h>
#include <ATen/ops/special_bessel_j0_ops.h>
#include <ATen/ops/special_bessel_j1_meta.h>
#include <ATen/ops/special_bessel_j1_ops.h>
#include <ATen/ops/special_bessel_y0_meta.h>
#include <ATen/ops/special_bessel_y0_ops.h>
#include <ATen/ops/special_bessel_y1_meta.h>
#include <ATen/ops/special_bessel_y1_ops.h>
#include <ATen/ops/special_modified_bessel_i0_meta.h>
#include <ATen/ops/special_modified_bessel_i0_ops.h>
#include <ATen/ops/special_modified_bessel_i1_meta.h>
#include <ATen/ops/special_modified_bessel_i1_ops.h>
#include <ATen/ops/special_modified_bessel_k0_meta.h>
#include <ATen/ops/special_modified_bessel_k0_ops.h>
#include <ATen/ops/special_modified_bessel_k1_meta.h>
#include <ATen/ops/special_modified_bessel_k1_ops.h>
#include <ATen/ops/special_scaled_modified_bessel_k0_meta.h>
#include <ATen/ops/special_scaled_modified_bessel_k0_ops.h>
#include <ATen/ops/special_scaled_modified_bessel_k1_meta.h>
#include <ATen/ops/special_scaled_modified_bessel_k1_ops.h>
#include <ATen/ops/special_spherical_bessel_j0_meta.h>
#include <ATen/ops/special_spherical_bessel_j0_ops.h>
#include <ATen/ops/special_airy_ai_meta.h>
#include <ATen/ops/special_airy_ai_ops.h>
#include <ATen/ops/special_chebyshev_polynomial_t_meta.h>
#include <ATen/ops/special_chebyshev_polynomial_t_ops.h>
#include <ATen/ops/special_chebyshev_polynomial_u_meta.h>
#include <ATen/ops/special_chebyshev_polynomial_u_ops.h>
#include <ATen/ops/special_chebyshev_polynomial_v_meta.h>
#include <ATen/ops/special_chebyshev_polynomial_v_ops.h>
#include <ATen/ops/special_chebyshev_polynomial_w_meta.h>
#include <ATen/ops/special_chebyshev_polynomial_w_ops.h>
#include <ATen/ops/special_shifted_chebyshev_polynomial_t_meta.h>
#include <ATen/ops/special_shifted_chebyshev_polynomial_t_ops.h>
#include <ATen/ops/special_shifted_chebyshev_polynomial_u_meta.h>
#include <ATen/ops/special_shifted_chebyshev_polynomial_u_ops.h>
#include <ATen/ops/special_shifted_chebyshev_polynomial_v_meta.h>
#include <ATen/ops/special_shifted_chebyshev_polynomial_v_ops.h>
#include <ATen/ops/special_shifted_chebyshev_polynomial_w_meta.h>
#include <ATen/ops/special_shifted_chebyshev_polynomial_w_ops.h>
#include <ATen/ops/special_hermite_polynomial_h_meta.h>
#include <ATen/ops/special_hermite_polynomial_h_ops.h>
#include <ATen/ops/special_hermite_polynomial_he_meta.h>
#include <ATen/ops/special_hermite_polynomial_he_ops.h>
#include <ATen/ops/special_laguerre_polynomial_l_meta.h>
#include <ATen/ops/special_laguerre_polynomial_l_ops.h>
#include <ATen/ops/special_legendre_polynomial_p_meta.h>
#include <ATen/ops/special_legendre_polynomial_p_ops.h>
#include <ATen/ops/special_ndtri_meta.h>
#include <ATen/ops/special_ndtri_ops.h>
#include <ATen/ops/special_erfcx_meta.h>
#include <ATen/ops/special_erfcx_ops.h>
#include <ATen/ops/igamma_meta.h>
#include <ATen/ops/igamma_ops.h>
#include <ATen/ops/igammac_meta.h>
#include <ATen/ops/igammac_ops.h>
#include <ATen/ops/mvlgamma_ops.h>
#include <torch/library.h>

#include <c10/util/MathConstants.h>
#include <cmath>
#include <cstdio>
#include <cstring>

#include <string>


namespace russet {
namespace {

using at::Tensor;

#define UNARY(fn, META_CLASS, op, expr)                                                       \
  Tensor& fn(const Tensor& self, Tensor& out) {                                               \
    return structured_out<at::meta::META_CLASS, at::_ops::op>(#op, expr, Result::Compute, out, self); \
  }

#define BINARY(fn, META_CLASS, op, expr)                                                      \
  Tensor& fn(const Tensor& self, const Tensor& other, Tensor& out) {                          \
    return structured_out<at::meta::META_CLASS, at::_ops::op>(#op, expr, Result::Compute, out, self, other); \
  }

UNARY(erfinv_out, structured_erfinv, erfinv_out, "rs_op_erfinv(a)")
UNARY(lgamma_out, structured_lgamma, lgamma_out, "rs_op_lgamma(a)")
UNARY(digamma_out, structured_digamma, digamma_out, "rs_op_digamma(a)")
UNARY(i0_out, structured_i0, i0_out, "rs_op_i0(a)")
UNARY(i0e_out, structured_special_i0e, special_i0e_out, "rs_op_i0e(a)")
UNARY(i1_out, structured_special_i1, special_i1_out, "rs_op_i1(a)")
UNARY(i1e_out, structured_special_i1e, special_i1e_out, "rs_op_i1e(a)")
UNARY(entr_out, structured_special_entr, special_entr_out, "rs_op_entr(a)")
UNARY(log_ndtr_out, structured_special_log_ndtr, special_log_ndtr_out, "rs_op_log_ndtr(a)")
BINARY(xlog1py_out, structured_special_xlog1py, special_xlog1py_out, "rs_op_xlog1py(a, b)")
BINARY(zeta_out, structured_special_zeta, special_zeta_out, "rs_op_zeta(a, b)")
BINARY(igamma_out, structured_igamma, igamma_out, "rs_op_igamma(a, b)")
BINARY(igammac_out, structured_igammac, igammac_out, "rs_op_igammac(a, b)")

// Math.h's *_forward functions (float ports in ops_special.glsl); the
// polynomials take n as a float tensor, cast to int64 as CPU does
UNARY(ndtri_out, structured_special_ndtri, special_ndtri_out, "rs_op_ndtri(a)")
UNARY(erfcx_out, structured_special_erfcx, special_erfcx_out, "rs_op_erfcx(a)")
UNARY(bessel_j0_out, structured_special_bessel_j0, special_bessel_j0_out, "rs_sp_bessel_j0(a)")
UNARY(bessel_j1_out, structured_special_bessel_j1, special_bessel_j1_out, "rs_sp_bessel_j1(a)")
UNARY(bessel_y0_out, structured_special_bessel_y0, special_bessel_y0_out, "rs_sp_bessel_y0(a)")
UNARY(bessel_y1_out, structured_special_bessel_y1, special_bessel_y1_out, "rs_sp_bessel_y1(a)")
UNARY(modified_bessel_i0_out, structured_special_modified_bessel_i0, special_modified_bessel_i0_out, "rs_sp_modified_bessel_i0(a)")
UNARY(modified_bessel_i1_out, structured_special_modified_bessel_i1, special_modified_bessel_i1_out, "rs_sp_modified_bessel_i1(a)")
UNARY(modified_bessel_k0_out, structured_special_modified_bessel_k0, special_modified_bessel_k0_out, "rs_sp_modified_bessel_k0(a)")
UNARY(modified_bessel_k1_out, structured_special_modified_bessel_k1, special_modified_bessel_k1_out, "rs_sp_modified_bessel_k1(a)")
UNARY(scaled_modified_bessel_k0_out, structured_special_scaled_modified_bessel_k0, special_scaled_modified_bessel_k0_out, "rs_sp_scaled_modified_bessel_k0(a)")
UNARY(scaled_modified_bessel_k1_out, structured_special_scaled_modified_bessel_k1, special_scaled_modified_bessel_k1_out, "rs_sp_scaled_modified_bessel_k1(a)")
UNARY(spherical_bessel_j0_out, structured_special_spherical_bessel_j0, special_spherical_bessel_j0_out, "rs_sp_spherical_bessel_j0(a)")
UNARY(airy_ai_out, structured_special_airy_ai, special_airy_ai_out, "rs_sp_airy_ai(a)")
BINARY(chebyshev_polynomial_t_out, structured_special_chebyshev_polynomial_t, special_chebyshev_polynomial_t_out, "rs_sp_chebyshev_polynomial_t(a, rs_m_poly_n(b))")
BINARY(chebyshev_polynomial_u_out, structured_special_chebyshev_polynomial_u, special_chebyshev_polynomial_u_out, "rs_sp_chebyshev_polynomial_u(a, rs_m_poly_n(b))")
BINARY(chebyshev_polynomial_v_out, structured_special_chebyshev_polynomial_v, special_chebyshev_polynomial_v_out, "rs_sp_chebyshev_polynomial_v(a, rs_m_poly_n(b))")
BINARY(chebyshev_polynomial_w_out, structured_special_chebyshev_polynomial_w, special_chebyshev_polynomial_w_out, "rs_sp_chebyshev_polynomial_w(a, rs_m_poly_n(b))")
BINARY(shifted_chebyshev_polynomial_t_out, structured_special_shifted_chebyshev_polynomial_t, special_shifted_chebyshev_polynomial_t_out, "rs_sp_shifted_chebyshev_polynomial_t(a, rs_m_poly_n(b))")
BINARY(shifted_chebyshev_polynomial_u_out, structured_special_shifted_chebyshev_polynomial_u, special_shifted_chebyshev_polynomial_u_out, "rs_sp_shifted_chebyshev_polynomial_u(a, rs_m_poly_n(b))")
BINARY(shifted_chebyshev_polynomial_v_out, structured_special_shifted_chebyshev_polynomial_v, special_shifted_chebyshev_polynomial_v_out, "rs_sp_shifted_chebyshev_polynomial_v(a, rs_m_poly_n(b))")
BINARY(shifted_chebyshev_polynomial_w_out, structured_special_shifted_chebyshev_polynomial_w, special_shifted_chebyshev_polynomial_w_out, "rs_sp_shifted_chebyshev_polynomial_w(a, rs_m_poly_n(b))")
BINARY(hermite_polynomial_h_out, structured_special_hermite_polynomial_h, special_hermite_polynomial_h_out, "rs_sp_hermite_polynomial_h(a, rs_m_poly_n(b))")
BINARY(hermite_polynomial_he_out, structured_special_hermite_polynomial_he, special_hermite_polynomial_he_out, "rs_sp_hermite_polynomial_he(a, rs_m_poly_n(b))")
BINARY(laguerre_polynomial_l_out, structured_special_laguerre_polynomial_l, special_laguerre_polynomial_l_out, "rs_sp_laguerre_polynomial_l(a, rs_m_poly_n(b))")
BINARY(legendre_polynomial_p_out, structured_special_legendre_polynomial_p, special_legendre_polynomial_p_out, "rs_sp_legendre_polynomial_p(a, rs_m_poly_n(b))")

// polygamma(n, x): n is baked into the expression (one kernel per n)
Tensor& polygamma_out(int64_t n, const Tensor& self, Tensor& out) {
  return native_or_host<at::_ops::polygamma_out>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_polygamma> m(out);
        m.meta(n, self);
        std::string expr = "rs_op_polygamma(a, " + std::to_string(n) + ")";
        run_pointwise(m, "polygamma", expr.c_str());
        return out;
      },
      n, self, out);
}

// mvlgamma (CompositeExplicitAutograd in ATen: arange + lgamma + sum + add)
// as one kernel with ATen's roundings; the dtype rules of unary_float_op
std::string mvlgamma_expr(int64_t p) {
  TORCH_CHECK(p >= 1, "p has to be greater than or equal to 1");
  float c = static_cast<float>(static_cast<double>(p * (p - 1)) * std::log(c10::pi<double>) * 0.25);
  uint32_t bits;
  std::memcpy(&bits, &c, 4);
  char buf[96];
  std::snprintf(buf, sizeof buf, "rs_op_mvlgamma(a, %lld, uintBitsToFloat(0x%08Xu))", static_cast<long long>(p), bits);
  return buf;
}
Tensor& mvlgamma_out(const Tensor& self, int64_t p, Tensor& out) {
  return native_or_host<at::_ops::mvlgamma_out>(
      [&]() -> Tensor& {
        TORCH_CHECK(self.scalar_type() != at::kBool, "The input tensor may not be a boolean tensor.");
        std::string expr = mvlgamma_expr(p);
        auto iter = at::TensorIterator::unary_float_op(out, self);
        run_pointwise(iter, "mvlgamma", expr.c_str());
        return out;
      },
      self, p, out);
}
Tensor mvlgamma(const Tensor& self, int64_t p) {
  return native_or_host<at::_ops::mvlgamma>(
      [&]() -> Tensor {
        TORCH_CHECK(self.scalar_type() != at::kBool, "The input tensor may not be a boolean tensor.");
        std::string expr = mvlgamma_expr(p);
        Tensor out;
        auto iter = at::TensorIterator::unary_float_op(out, self);
        run_pointwise(iter, "mvlgamma", expr.c_str());
        return iter.output();
      },
      self, p);
}
Tensor& mvlgamma_(Tensor& self, int64_t p) { return mvlgamma_out(self, p, self); }

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("erfinv.out", erfinv_out);
  m.impl("lgamma.out", lgamma_out);
  m.impl("digamma.out", digamma_out);
  m.impl("polygamma.out", polygamma_out);
  m.impl("i0.out", i0_out);
  m.impl("special_i0e.out", i0e_out);
  m.impl("special_i1.out", i1_out);
  m.impl("special_i1e.out", i1e_out);
  m.impl("special_entr.out", entr_out);
  m.impl("special_log_ndtr.out", log_ndtr_out);
  m.impl("special_xlog1py.out", xlog1py_out);
  m.impl("special_zeta.out", zeta_out);
  m.impl("igamma.out", igamma_out);
  m.impl("igammac.out", igammac_out);
  m.impl("mvlgamma", mvlgamma);
  m.impl("mvlgamma.out", mvlgamma_out);
  m.impl("mvlgamma_", mvlgamma_);
  m.impl("special_ndtri.out", ndtri_out);
  m.impl("special_erfcx.out", erfcx_out);
  m.impl("special_bessel_j0.out", bessel_j0_out);
  m.impl("special_bessel_j1.out", bessel_j1_out);
  m.impl("special_bessel_y0.out", bessel_y0_out);
  m.impl("special_bessel_y1.out", bessel_y1_out);
  m.impl("special_modified_bessel_i0.out", modified_bessel_i0_out);
  m.impl("special_modified_bessel_i1.out", modified_bessel_i1_out);
  m.impl("special_modified_bessel_k0.out", modified_bessel_k0_out);
  m.impl("special_modified_bessel_k1.out", modified_bessel_k1_out);
  m.impl("special_scaled_modified_bessel_k0.out", scaled_modified_bessel_k0_out);
  m.impl("special_scaled_modified_bessel_k1.out", scaled_modified_bessel_k1_out);
  m.impl("special_spherical_bessel_j0.out", spherical_bessel_j0_out);
  m.impl("special_airy_ai.out", airy_ai_out);
  m.impl("special_chebyshev_polynomial_t.out", chebyshev_polynomial_t_out);
  m.impl("special_chebyshev_polynomial_u.out", chebyshev_polynomial_u_out);
  m.impl("special_chebyshev_polynomial_v.out", chebyshev_polynomial_v_out);
  m.impl("special_chebyshev_polynomial_w.out", chebyshev_polynomial_w_out);
  m.impl("special_shifted_chebyshev_polynomial_t.out", shifted_chebyshev_polynomial_t_out);
  m.impl("special_shifted_chebyshev_polynomial_u.out", shifted_chebyshev_polynomial_u_out);
  m.impl("special_shifted_chebyshev_polynomial_v.out", shifted_chebyshev_polynomial_v_out);
  m.impl("special_shifted_chebyshev_polynomial_w.out", shifted_chebyshev_polynomial_w_out);
  m.impl("special_hermite_polynomial_h.out", hermite_polynomial_h_out);
  m.impl("special_hermite_polynomial_he.out", hermite_polynomial_he_out);
  m.impl("special_laguerre_polynomial_l.out", laguerre_polynomial_l_out);
  m.impl("special_legendre_polynomial_p.out", legendre_polynomial_p_out);
}

}  // namespace russet
