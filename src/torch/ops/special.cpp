// Special functions: the gamma family, erfinv, modified Bessel functions,
// torch.special's entr/log_ndtr/xlog1py/zeta. Structured ops run their ATen
// meta function (pointwise.h); the table ops RS_PW_* are
// kernels/common/ops_special.glsl functions (rs_op_*). What has no kernel
// (float64, complex: src/engine/pointwise_ops.c's kinds) runs through host
// execution.
#include "torch/pointwise.h"
#include "torch/structured_ops.h"

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

#define UNARY(fn, META_CLASS, op, pw) RS_STRUCTURED_UNARY(fn, META_CLASS, op, pw, Result::Compute)
#define BINARY(fn, META_CLASS, op, pw) RS_STRUCTURED_BINARY(fn, META_CLASS, op, pw, Result::Compute)

UNARY(erfinv_out, structured_erfinv, erfinv_out, RS_PW_ERFINV)
UNARY(lgamma_out, structured_lgamma, lgamma_out, RS_PW_LGAMMA)
UNARY(digamma_out, structured_digamma, digamma_out, RS_PW_DIGAMMA)
UNARY(i0_out, structured_i0, i0_out, RS_PW_I0)
UNARY(i0e_out, structured_special_i0e, special_i0e_out, RS_PW_I0E)
UNARY(i1_out, structured_special_i1, special_i1_out, RS_PW_I1)
UNARY(i1e_out, structured_special_i1e, special_i1e_out, RS_PW_I1E)
UNARY(entr_out, structured_special_entr, special_entr_out, RS_PW_ENTR)
UNARY(log_ndtr_out, structured_special_log_ndtr, special_log_ndtr_out, RS_PW_LOG_NDTR)
BINARY(xlog1py_out, structured_special_xlog1py, special_xlog1py_out, RS_PW_XLOG1PY)
BINARY(zeta_out, structured_special_zeta, special_zeta_out, RS_PW_ZETA)
BINARY(igamma_out, structured_igamma, igamma_out, RS_PW_IGAMMA)
BINARY(igammac_out, structured_igammac, igammac_out, RS_PW_IGAMMAC)

// Math.h's *_forward functions (float ports in ops_special.glsl); the
// polynomials take n as a float tensor, cast to int64 as CPU does
UNARY(ndtri_out, structured_special_ndtri, special_ndtri_out, RS_PW_NDTRI)
UNARY(erfcx_out, structured_special_erfcx, special_erfcx_out, RS_PW_ERFCX)
UNARY(bessel_j0_out, structured_special_bessel_j0, special_bessel_j0_out, RS_PW_BESSEL_J0)
UNARY(bessel_j1_out, structured_special_bessel_j1, special_bessel_j1_out, RS_PW_BESSEL_J1)
UNARY(bessel_y0_out, structured_special_bessel_y0, special_bessel_y0_out, RS_PW_BESSEL_Y0)
UNARY(bessel_y1_out, structured_special_bessel_y1, special_bessel_y1_out, RS_PW_BESSEL_Y1)
UNARY(modified_bessel_i0_out, structured_special_modified_bessel_i0, special_modified_bessel_i0_out, RS_PW_MODIFIED_BESSEL_I0)
UNARY(modified_bessel_i1_out, structured_special_modified_bessel_i1, special_modified_bessel_i1_out, RS_PW_MODIFIED_BESSEL_I1)
UNARY(modified_bessel_k0_out, structured_special_modified_bessel_k0, special_modified_bessel_k0_out, RS_PW_MODIFIED_BESSEL_K0)
UNARY(modified_bessel_k1_out, structured_special_modified_bessel_k1, special_modified_bessel_k1_out, RS_PW_MODIFIED_BESSEL_K1)
UNARY(scaled_modified_bessel_k0_out, structured_special_scaled_modified_bessel_k0, special_scaled_modified_bessel_k0_out, RS_PW_SCALED_MODIFIED_BESSEL_K0)
UNARY(scaled_modified_bessel_k1_out, structured_special_scaled_modified_bessel_k1, special_scaled_modified_bessel_k1_out, RS_PW_SCALED_MODIFIED_BESSEL_K1)
UNARY(spherical_bessel_j0_out, structured_special_spherical_bessel_j0, special_spherical_bessel_j0_out, RS_PW_SPHERICAL_BESSEL_J0)
UNARY(airy_ai_out, structured_special_airy_ai, special_airy_ai_out, RS_PW_AIRY_AI)
BINARY(chebyshev_polynomial_t_out, structured_special_chebyshev_polynomial_t, special_chebyshev_polynomial_t_out, RS_PW_CHEBYSHEV_POLYNOMIAL_T)
BINARY(chebyshev_polynomial_u_out, structured_special_chebyshev_polynomial_u, special_chebyshev_polynomial_u_out, RS_PW_CHEBYSHEV_POLYNOMIAL_U)
BINARY(chebyshev_polynomial_v_out, structured_special_chebyshev_polynomial_v, special_chebyshev_polynomial_v_out, RS_PW_CHEBYSHEV_POLYNOMIAL_V)
BINARY(chebyshev_polynomial_w_out, structured_special_chebyshev_polynomial_w, special_chebyshev_polynomial_w_out, RS_PW_CHEBYSHEV_POLYNOMIAL_W)
BINARY(shifted_chebyshev_polynomial_t_out, structured_special_shifted_chebyshev_polynomial_t, special_shifted_chebyshev_polynomial_t_out, RS_PW_SHIFTED_CHEBYSHEV_POLYNOMIAL_T)
BINARY(shifted_chebyshev_polynomial_u_out, structured_special_shifted_chebyshev_polynomial_u, special_shifted_chebyshev_polynomial_u_out, RS_PW_SHIFTED_CHEBYSHEV_POLYNOMIAL_U)
BINARY(shifted_chebyshev_polynomial_v_out, structured_special_shifted_chebyshev_polynomial_v, special_shifted_chebyshev_polynomial_v_out, RS_PW_SHIFTED_CHEBYSHEV_POLYNOMIAL_V)
BINARY(shifted_chebyshev_polynomial_w_out, structured_special_shifted_chebyshev_polynomial_w, special_shifted_chebyshev_polynomial_w_out, RS_PW_SHIFTED_CHEBYSHEV_POLYNOMIAL_W)
BINARY(hermite_polynomial_h_out, structured_special_hermite_polynomial_h, special_hermite_polynomial_h_out, RS_PW_HERMITE_POLYNOMIAL_H)
BINARY(hermite_polynomial_he_out, structured_special_hermite_polynomial_he, special_hermite_polynomial_he_out, RS_PW_HERMITE_POLYNOMIAL_HE)
BINARY(laguerre_polynomial_l_out, structured_special_laguerre_polynomial_l, special_laguerre_polynomial_l_out, RS_PW_LAGUERRE_POLYNOMIAL_L)
BINARY(legendre_polynomial_p_out, structured_special_legendre_polynomial_p, special_legendre_polynomial_p_out, RS_PW_LEGENDRE_POLYNOMIAL_P)

// polygamma(n, x): n is the scalar s0 (one kernel for every n)
Tensor& polygamma_out(int64_t n, const Tensor& self, Tensor& out) {
  return native_or_host<at::_ops::polygamma_out>(
      [&]() -> Tensor& {
        OutOp<at::meta::structured_polygamma> m(out);
        m.meta(n, self);
        run_pointwise(m, "polygamma", RS_PW_POLYGAMMA, Result::Compute, {n}, std::nullopt, 0, /*scalars_in_opmath*/ true);
        return out;
      },
      n, self, out);
}

// mvlgamma (CompositeExplicitAutograd in ATen: arange + lgamma + sum + add)
// as one kernel with ATen's roundings; the dtype rules of unary_float_op
// p and ATen's float constant p (p - 1) log(pi) / 4 as the scalars s0, s1
void run_mvlgamma(at::TensorIteratorBase& iter, int64_t p) {
  TORCH_CHECK(p >= 1, "p has to be greater than or equal to 1");
  float c = static_cast<float>(static_cast<double>(p * (p - 1)) * std::log(c10::pi<double>) * 0.25);
  run_pointwise(iter, "mvlgamma", RS_PW_MVLGAMMA, Result::Compute, {p, static_cast<double>(c)}, std::nullopt, 0,
                /*scalars_in_opmath*/ true);
}
Tensor& mvlgamma_out(const Tensor& self, int64_t p, Tensor& out) {
  return native_or_host<at::_ops::mvlgamma_out>(
      [&]() -> Tensor& {
        TORCH_CHECK(self.scalar_type() != at::kBool, "The input tensor may not be a boolean tensor.");
        auto iter = at::TensorIterator::unary_float_op(out, self);
        run_mvlgamma(iter, p);
        return out;
      },
      self, p, out);
}
Tensor mvlgamma(const Tensor& self, int64_t p) {
  return native_or_host<at::_ops::mvlgamma>(
      [&]() -> Tensor {
        TORCH_CHECK(self.scalar_type() != at::kBool, "The input tensor may not be a boolean tensor.");
        Tensor out;
        auto iter = at::TensorIterator::unary_float_op(out, self);
        run_mvlgamma(iter, p);
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
