// ATen's layer-norm dispatch stubs for russet. The device-generic nested
// layer norm (nested_layer_norm and its backward, which nn.LayerNorm and
// the transformer encoder's fast path reach with nested tensors) calls them
// on the nested tensor's buffer as (M, N) rows; here they run russet's own
// layer-norm kernels (native_layer_norm and its backward, the norm engine)
// and copy the results into the tensors ATen allocated.
#include <ATen/native/layer_norm.h>
#include <ATen/ops/native_layer_norm.h>
#include <ATen/ops/native_layer_norm_backward.h>
#include <ATen/ops/sum.h>

#include <optional>

namespace russet {
namespace {

using at::Tensor;

std::optional<Tensor> row_param(const Tensor& t, int64_t N) {
  return t.defined() ? std::optional<Tensor>(t.reshape({N})) : std::nullopt;
}

void layer_norm_forward(const Tensor& X, const Tensor& gamma, const Tensor& beta, int64_t M, int64_t N, double eps,
                        Tensor* Y, Tensor* mean, Tensor* rstd) {
  auto [y, m, r] = at::native_layer_norm(X.reshape({M, N}), {N}, row_param(gamma, N), row_param(beta, N), eps);
  Y->copy_(y.view(Y->sizes()));
  if (mean && mean->defined()) mean->copy_(m.view(mean->sizes()));
  if (rstd && rstd->defined()) rstd->copy_(r.view(rstd->sizes()));
}

void layer_norm_backward(const Tensor& dY, const Tensor& X, const Tensor& mean, const Tensor& rstd,
                         const Tensor& gamma, int64_t M, int64_t N, Tensor* dX, Tensor* dgamma, Tensor* dbeta) {
  const std::array<bool, 3> mask = {dX && dX->defined(), dgamma && dgamma->defined(), dbeta && dbeta->defined()};
  auto [dx, dg, db] = at::native_layer_norm_backward(dY.reshape({M, N}), X.reshape({M, N}), {N},
                                                     mean.reshape({M, 1}), rstd.reshape({M, 1}),
                                                     row_param(gamma, N), std::nullopt, mask);
  if (mask[0]) dX->copy_(dx.view(dX->sizes()));
  if (mask[1]) dgamma->copy_(dg.view(dgamma->sizes()));
  // (russet's backward leaves dbeta undefined without a bias: the sum of dY's rows)
  if (mask[2]) dbeta->copy_((db.defined() ? db : dY.reshape({M, N}).sum(0)).view(dbeta->sizes()));
}

}  // namespace
}  // namespace russet

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(LayerNormKernel, &russet::layer_norm_forward)
REGISTER_PRIVATEUSE1_DISPATCH(LayerNormBackwardKernel, &russet::layer_norm_backward)
}  // namespace at::native
