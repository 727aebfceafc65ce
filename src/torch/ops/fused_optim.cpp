// Fused optimizer steps: _fused_adam_, _fused_adamw_, _fused_sgd_,
// _fused_adagrad_ (and their tensor-lr overloads), so
// torch.optim.Adam/AdamW/SGD/Adagrad(fused=True) run natively. The math is
// ATen's CPU kernels' (FusedAdamKernel.cpp, FusedSGDKernel.cpp,
// FusedAdagradKernel.cpp: float opmath, the same operation order); each
// parameter takes a few pointwise launches (one per state tensor written),
// the table ops RS_PW_FUSED_* (src/engine/pointwise_ops.c: the functions of
// kernels/common/ops_misc.glsl, the options as the flags $0..).
//
// The _foreach_* ops need nothing here: their CompositeExplicitAutograd
// kernels loop over the per-tensor ops (add_, mul_, lerp_, addcmul_,
// addcdiv_, pow, ...), which are native, one launch per tensor.
//
// Adam, AdamW and Adagrad run one kernel a parameter (rs_adam_step_run,
// rs_adagrad_step_run, C core), which reads the step count, grad_scale and
// found_inf on the device: no host wait, as on CUDA. Where its conditions do
// not hold (non-contiguous or mixed tensors, steps that are not float32
// device scalars), the pointwise path below reads the step counts on the
// host, all of them in one read (one sync per step), and computes the bias
// corrections in double, as CPU does; found_inf is read there too. SGD's
// pointwise kernels take found_inf (on the device) as an operand instead.
// lr (tensor form) is read once per call. grad_scale never is: the
// gradients are divided by it on the device.
#include "torch/pointwise.h"
#include "torch/pointwise_batch.h"
#include "torch/torch_version.h"
#include "russet/pointwise_ops.h"

#include "russet/optim.h"

#include <ATen/ops/_fused_adagrad_ops.h>
#include <ATen/ops/_fused_adam_ops.h>
#include <ATen/ops/_fused_adamw_ops.h>
#include <ATen/ops/_fused_sgd_ops.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/stack.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace russet {
namespace {

using at::Scalar;
using at::Tensor;
using at::TensorList;

// out = the table op over `ins` (out first if it is read too; nullptr: a
// float 0, e.g. no found_inf: one at most), computed in float (the opmath of float32,
// float16 and bfloat16) with float scalars; `flags` are the op's $0..
void step(const Tensor& out, const std::vector<const Tensor*>& ins, const char* name, rs_pw_op op,
          std::initializer_list<int> flags, std::initializer_list<Scalar> scalars) {
  at::TensorIteratorConfig config;
  config.set_check_mem_overlap(false).check_all_same_dtype(false).resize_outputs(false).allow_cpu_scalars(true);
  config.add_output(out);
  const Tensor zero = at::scalar_tensor(0.0, at::TensorOptions().dtype(at::kFloat));
  for (const Tensor* t : ins) config.add_const_input(t ? *t : zero);
  auto iter = config.build();
  run_pointwise_flags(iter, name, op, flags, scalars, at::kFloat, 0b1111u);
}

bool native_dtypes(TensorList params) {
  for (const Tensor& p : params) {
    auto t = p.scalar_type();
    if (t != at::kFloat && t != at::kHalf && t != at::kBFloat16) return false;
  }
  return true;
}

// found_inf == 1 skips the step (one read); grad_scale divides the
// gradients on the device, as a broadcast operand (written back, as CPU does)
bool skip_step(const std::optional<Tensor>& found_inf) {
  return found_inf.has_value() && found_inf->defined() && found_inf->item<float>() == 1.0f;
}
// with `found` (found_inf on the device) the gradient stays as it is where
// found_inf is 1
void unscale(const Tensor& grad, const std::optional<Tensor>& grad_scale, const Tensor* found = nullptr) {
  if (!grad_scale.has_value() || !grad_scale->defined()) return;
  if (found) step(grad, {&grad, &*grad_scale, found}, "fused_unscale", RS_PW_FUSED_UNSCALE_UNLESS_FOUND, {}, {});
  else step(grad, {&grad, &*grad_scale}, "fused_unscale", RS_PW_FUSED_UNSCALE, {}, {});
}

// the step counts as CPU reads them (item<float>), all in one host read when
// they are one-element tensors of one dtype on one device
std::vector<double> read_steps(TensorList state_steps) {
  size_t n = state_steps.size();
  std::vector<double> out(n);
  bool one_read = n > 1 && !state_steps[0].is_cpu();
  for (const Tensor& t : state_steps)
    one_read = one_read && t.numel() == 1 && t.device() == state_steps[0].device() &&
               t.scalar_type() == state_steps[0].scalar_type();
  if (!one_read) {
    for (size_t i = 0; i < n; i++) out[i] = state_steps[i].item<float>();
    return out;
  }
  std::vector<Tensor> flat;
  flat.reserve(n);
  for (const Tensor& t : state_steps) flat.push_back(t.reshape({1}));
  Tensor all = at::stack(flat).to(at::kCPU).to(at::kFloat).contiguous();
  const float* p = all.const_data_ptr<float>();
  for (size_t i = 0; i < n; i++) out[i] = p[i];
  return out;
}

// a float32 scalar on params' device (a step count, grad_scale, found_inf)
bool device_scalar(const Tensor& t, const Tensor& like) {
  return t.defined() && t.numel() == 1 && t.scalar_type() == at::kFloat && t.device() == like.device() &&
         t.is_contiguous();
}

// the one-kernel paths (rs_adam_step_run, rs_adagrad_step_run): every
// tensor of a parameter (`per_param`: grads, states) contiguous, of its
// dtype and size; the scalars float32 on the device
bool step_kernel_applies(TensorList params, std::initializer_list<TensorList> per_param, TensorList state_steps,
                         const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  if (params.empty()) return false;
  const Tensor& p0 = params[0];
  if (grad_scale.has_value() && grad_scale->defined() && !device_scalar(*grad_scale, p0)) return false;
  if (found_inf.has_value() && found_inf->defined() && !device_scalar(*found_inf, p0)) return false;
  auto same = [](const Tensor& t, const Tensor& p) {
    return t.device() == p.device() && t.scalar_type() == p.scalar_type() && t.numel() == p.numel() &&
           t.is_contiguous();
  };
  for (size_t i = 0; i < params.size(); i++) {
    const Tensor& p = params[i];
    if (!device_scalar(state_steps[i], p0) || !p.is_contiguous() || p.device() != p0.device()) return false;
    for (TensorList list : per_param)
      if (!list.empty() && !same(list[i], p)) return false;
  }
  return true;
}

uint64_t present_address(const std::optional<Tensor>& t) {
  return t.has_value() && t->defined() ? address_of(*t) : 0;
}

void fused_adam(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                TensorList max_exp_avg_sqs, TensorList state_steps, double lr, double beta1, double beta2,
                double weight_decay, double eps, bool amsgrad, bool maximize,
                const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf, bool adamw) {
  TORCH_CHECK(grads.size() == params.size() && exp_avgs.size() == params.size() &&
              exp_avg_sqs.size() == params.size() && state_steps.size() == params.size() &&
              max_exp_avg_sqs.size() == (amsgrad ? params.size() : 0));
  const bool betas_ok = beta1 > 0 && beta1 < 1 && beta2 > 0 && beta2 < 1; /* log(beta) on the device */
  if (betas_ok && step_kernel_applies(params, {grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs}, state_steps,
                                      grad_scale, found_inf)) {
    c10::DeviceGuard guard(params[0].device());
    rs_adam_step a;
    std::memset(&a, 0, sizeof a);
    a.lr = lr, a.beta1 = beta1, a.beta2 = beta2, a.weight_decay = weight_decay, a.eps = eps;
    a.adamw = adamw, a.maximize = maximize;
    a.grad_scale = present_address(grad_scale);
    a.found_inf = present_address(found_inf);
    for (size_t i = 0; i < params.size(); i++) {
      const Tensor& p = params[i];
      if (p.numel() == 0) continue;
      a.dtype = static_cast<rs_dtype>(p.scalar_type());
      a.numel = p.numel();
      a.param = address_of(p), a.grad = address_of(grads[i]);
      a.exp_avg = address_of(exp_avgs[i]), a.exp_avg_sq = address_of(exp_avg_sqs[i]);
      a.max_exp_avg_sq = amsgrad ? address_of(max_exp_avg_sqs[i]) : 0;
      a.step = address_of(state_steps[i]);
      check(rs_adam_step_run(current_stream_for(p), &a));
    }
    return;
  }
  if (skip_step(found_inf)) return;
  size_t n = params.size();
  if (n == 0) return;
  c10::DeviceGuard guard(params[0].device());
  const std::vector<double> steps = read_steps(state_steps);
  const bool l2 = !adamw && weight_decay != 0.0;
  const bool decoupled = adamw && weight_decay != 0.0;
  for (size_t i = 0; i < n; i++) {
    const Tensor& param = params[i];
    const Tensor& grad = grads[i];
    if (param.numel() == 0) continue;
    unscale(grad, grad_scale);
    double bias_correction1 = 1 - std::pow(beta1, steps[i]);
    double bias_correction2 = 1 - std::pow(beta2, steps[i]);
    double step_size = lr / bias_correction1;
    double bias_correction2_sqrt = std::sqrt(bias_correction2);
    step(exp_avgs[i], {&exp_avgs[i], &grad, &param}, "fused_adam_m", RS_PW_FUSED_ADAM_M, {maximize, l2},
         {static_cast<float>(1 - beta1), static_cast<float>(weight_decay)});
    step(exp_avg_sqs[i], {&exp_avg_sqs[i], &grad, &param}, "fused_adam_v", RS_PW_FUSED_ADAM_V, {maximize, l2},
         {static_cast<float>(beta2), static_cast<float>(1 - beta2), static_cast<float>(weight_decay)});
    const Tensor* v = &exp_avg_sqs[i];
    if (amsgrad) {
      step(max_exp_avg_sqs[i], {&max_exp_avg_sqs[i], &exp_avg_sqs[i]}, "fused_adam_max", RS_PW_MAXIMUM, {}, {});
      v = &max_exp_avg_sqs[i];
    }
    step(param, {&param, &exp_avgs[i], v}, "fused_adam_param", RS_PW_FUSED_ADAM_PARAM, {},
         {static_cast<float>(decoupled ? 1 - lr * weight_decay : 1.0), static_cast<float>(-step_size),
          static_cast<float>(bias_correction2_sqrt), static_cast<float>(eps)});
  }
}

#define ADAM(fn, OP, LR_T, LR_VALUE, ADAMW)                                                                        \
  void fn(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,                       \
          TensorList max_exp_avg_sqs, TensorList state_steps, LR_T lr, double beta1, double beta2,                \
          double weight_decay, double eps, bool amsgrad, bool maximize, const std::optional<Tensor>& grad_scale,  \
          const std::optional<Tensor>& found_inf) {                                                               \
    if (!native_dtypes(params)) {                                                                                 \
      at::native::call_fallback_fn<&host_fallback, at::_ops::OP>::call(                                           \
          params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, lr, beta1, beta2, weight_decay,     \
          eps, amsgrad, maximize, grad_scale, found_inf);                                                         \
      return;                                                                                                     \
    }                                                                                                             \
    fused_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, LR_VALUE, beta1, beta2,        \
               weight_decay, eps, amsgrad, maximize, grad_scale, found_inf, ADAMW);                               \
  }
ADAM(fused_adam_, _fused_adam_, double, lr, false)
ADAM(fused_adam_tlr_, _fused_adam__tensor_lr, const Tensor&, lr.item<double>(), false)
ADAM(fused_adamw_, _fused_adamw_, double, lr, true)
ADAM(fused_adamw_tlr_, _fused_adamw__tensor_lr, const Tensor&, lr.item<double>(), true)

void fused_sgd(TensorList params, TensorList grads, TensorList momentum_buffer_list, double weight_decay,
               double momentum, double lr, double dampening, bool nesterov, bool maximize, bool is_first_step,
               const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  size_t n = params.size();
  // found_inf on the params' device is an operand of every kernel (d; a
  // float 0 without it), which keeps its output where found_inf is 1 (no
  // read); elsewhere it is read
  const Tensor* found = n > 0 && found_inf.has_value() && device_scalar(*found_inf, params[0]) ? &*found_inf : nullptr;
  if (!found && skip_step(found_inf)) return;
  TORCH_CHECK(grads.size() == n);
  const bool no_momentum_buffer = momentum == 0.0;
  if (no_momentum_buffer) {
    TORCH_CHECK(momentum_buffer_list.empty());
  } else {
    TORCH_CHECK(momentum_buffer_list.size() == n);
  }
  if (n == 0) return;
  c10::DeviceGuard guard(params[0].device());
  // the ops' flags: maximize, weight decay, the first step, how the
  // parameter moves (0: by the gradient, 1: the buffer, 2: Nesterov)
  const int has_wd = weight_decay != 0.0, first = is_first_step;
  const int mode = no_momentum_buffer ? 0 : nesterov ? 2 : 1;
  const std::initializer_list<Scalar> buf_scalars = {static_cast<float>(weight_decay), static_cast<float>(momentum),
                                                     static_cast<float>(1 - dampening)};
  const std::initializer_list<Scalar> param_scalars = {static_cast<float>(weight_decay), static_cast<float>(momentum),
                                                       static_cast<float>(-lr)};
  // Pass by pass over the list: the gradients' unscale, the buffers, the
  // parameters; each parameter's own steps keep their order, and no step
  // reads another parameter's tensors. A float32 list runs inside a
  // PointwiseBatch: one launch a pass. float16/bfloat16 parameters with a
  // buffer move by the new buffer's float value, before its rounding to the
  // dtype (CPU's order), so their new value is formed first from the old
  // buffer into a temporary (the buffer's step still reads the old
  // parameter, for weight decay) and copied in last; the copy is no
  // pointwise launch, which a batch would reorder, so those lists go launch
  // by launch.
  bool all_float = true;
  for (const Tensor& p : params) all_float = all_float && p.scalar_type() == at::kFloat;
  std::optional<PointwiseBatch> batch;
  if (all_float) batch.emplace();
  std::vector<Tensor> new_params(n);
  for (size_t i = 0; i < n; i++)
    if (params[i].numel() > 0) unscale(grads[i], grad_scale, found);
  for (size_t i = 0; i < n && !no_momentum_buffer; i++)
    if (params[i].numel() > 0 && params[i].scalar_type() != at::kFloat) {
      new_params[i] = at::empty_like(params[i]);
      step(new_params[i], {&params[i], &grads[i], &momentum_buffer_list[i], found}, "fused_sgd_param_lp",
           RS_PW_FUSED_SGD_PARAM_FROM_OLD_BUF, {maximize, has_wd, first, mode},
           {static_cast<float>(weight_decay), static_cast<float>(momentum), static_cast<float>(-lr),
            static_cast<float>(1 - dampening)});
    }
  for (size_t i = 0; i < n && !no_momentum_buffer; i++)
    if (params[i].numel() > 0)
      step(momentum_buffer_list[i], {&momentum_buffer_list[i], &grads[i], &params[i], found}, "fused_sgd_buf",
           RS_PW_FUSED_SGD_BUF, {maximize, has_wd, first}, buf_scalars);
  for (size_t i = 0; i < n; i++) {
    if (params[i].numel() == 0) continue;
    if (new_params[i].defined()) {
      params[i].copy_(new_params[i]);
      continue;
    }
    // (without a buffer c is the gradient again, which mode 0 does not read)
    step(params[i], {&params[i], &grads[i], no_momentum_buffer ? &grads[i] : &momentum_buffer_list[i], found},
         "fused_sgd_param", RS_PW_FUSED_SGD_PARAM, {maximize, has_wd, 0, mode}, param_scalars);
  }
  if (batch) batch->flush();
}

// a scalar as FusedAdagradKernel's vector loop uses it: torch 2.13 rounds
// it to the parameter's dtype for float16/bfloat16 (its float tail does not
// round; the vector loop covers all but size % 16 elements), 2.15 keeps it
// in float
float adagrad_scalar(double x, at::ScalarType t) {
  if (RUSSET_TORCH_2_15) return static_cast<float>(x);
  if (t == at::kHalf) return static_cast<float>(c10::Half(static_cast<float>(x)));
  if (t == at::kBFloat16) return static_cast<float>(c10::BFloat16(static_cast<float>(x)));
  return static_cast<float>(x);
}

void fused_adagrad(TensorList params, TensorList grads, TensorList state_sums, TensorList state_steps, double lr,
                   double lr_decay, double weight_decay, double eps, bool maximize,
                   const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  size_t n = params.size();
  TORCH_CHECK(grads.size() == n && state_sums.size() == n && state_steps.size() == n);
  if (n == 0) return;
  if (step_kernel_applies(params, {grads, state_sums}, state_steps, grad_scale, found_inf)) {
    c10::DeviceGuard guard(params[0].device());
    rs_adagrad_step a;
    std::memset(&a, 0, sizeof a);
    a.lr = lr, a.lr_decay = lr_decay, a.weight_decay = weight_decay, a.eps = eps, a.maximize = maximize;
    a.float_scalars = RUSSET_TORCH_2_15;
    a.grad_scale = present_address(grad_scale);
    a.found_inf = present_address(found_inf);
    for (size_t i = 0; i < n; i++) {
      const Tensor& p = params[i];
      if (p.numel() == 0) continue;
      a.dtype = static_cast<rs_dtype>(p.scalar_type());
      a.numel = p.numel();
      a.param = address_of(p), a.grad = address_of(grads[i]), a.state_sum = address_of(state_sums[i]);
      a.step = address_of(state_steps[i]);
      check(rs_adagrad_step_run(current_stream_for(p), &a));
    }
    return;
  }
  if (skip_step(found_inf)) return;
  c10::DeviceGuard guard(params[0].device());
  const std::vector<double> steps = read_steps(state_steps);
  const int has_wd = weight_decay != 0.0;
  for (size_t i = 0; i < n; i++) {
    const Tensor& param = params[i];
    const Tensor& grad = grads[i];
    if (param.numel() == 0) continue;
    unscale(grad, grad_scale);
    const double clr = lr / (1.0 + (steps[i] - 1.0) * lr_decay);
    const at::ScalarType t = param.scalar_type();
    const float wd = adagrad_scalar(weight_decay, t);
    step(state_sums[i], {&state_sums[i], &grad, &param}, "fused_adagrad_sum", RS_PW_FUSED_ADAGRAD_SUM,
         {maximize, has_wd}, {wd});
    step(param, {&param, &grad, &state_sums[i]}, "fused_adagrad_param", RS_PW_FUSED_ADAGRAD_PARAM, {maximize, has_wd},
         {wd, adagrad_scalar(clr, t), adagrad_scalar(eps, t)});
  }
}

#define ADAGRAD(fn, OP, LR_T, LR_VALUE)                                                                           \
  void fn(TensorList params, TensorList grads, TensorList state_sums, TensorList state_steps, LR_T lr,           \
          double lr_decay, double weight_decay, double eps, bool maximize,                                       \
          const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {                     \
    if (!native_dtypes(params)) {                                                                                \
      at::native::call_fallback_fn<&host_fallback, at::_ops::OP>::call(                                          \
          params, grads, state_sums, state_steps, lr, lr_decay, weight_decay, eps, maximize, grad_scale,         \
          found_inf);                                                                                            \
      return;                                                                                                    \
    }                                                                                                            \
    fused_adagrad(params, grads, state_sums, state_steps, LR_VALUE, lr_decay, weight_decay, eps, maximize,       \
                  grad_scale, found_inf);                                                                        \
  }
ADAGRAD(fused_adagrad_, _fused_adagrad_, double, lr)
ADAGRAD(fused_adagrad_tlr_, _fused_adagrad__tensor_lr, const Tensor&, lr.item<double>())

#define SGD(fn, OP, LR_T, LR_VALUE)                                                                               \
  void fn(TensorList params, TensorList grads, TensorList momentum_buffer_list, double weight_decay,             \
          double momentum, LR_T lr, double dampening, bool nesterov, bool maximize, bool is_first_step,          \
          const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {                     \
    if (!native_dtypes(params)) {                                                                                \
      at::native::call_fallback_fn<&host_fallback, at::_ops::OP>::call(                                          \
          params, grads, momentum_buffer_list, weight_decay, momentum, lr, dampening, nesterov, maximize,        \
          is_first_step, grad_scale, found_inf);                                                                 \
      return;                                                                                                    \
    }                                                                                                            \
    fused_sgd(params, grads, momentum_buffer_list, weight_decay, momentum, LR_VALUE, dampening, nesterov,        \
              maximize, is_first_step, grad_scale, found_inf);                                                   \
  }
SGD(fused_sgd_, _fused_sgd_, double, lr)
SGD(fused_sgd_tlr_, _fused_sgd__tensor_lr, const Tensor&, lr.item<double>())

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_fused_adam_", fused_adam_);
  m.impl("_fused_adam_.tensor_lr", fused_adam_tlr_);
  m.impl("_fused_adamw_", fused_adamw_);
  m.impl("_fused_adamw_.tensor_lr", fused_adamw_tlr_);
  m.impl("_fused_sgd_", fused_sgd_);
  m.impl("_fused_sgd_.tensor_lr", fused_sgd_tlr_);
  m.impl("_fused_adagrad_", fused_adagrad_);
  m.impl("_fused_adagrad_.tensor_lr", fused_adagrad_tlr_);
}

}  // namespace russet
