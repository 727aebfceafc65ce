// CTC loss (F.ctc_loss: _ctc_loss and _ctc_loss_backward) natively, on the
// C core's CTC engine (rs_ctc_loss_*, russet/loss.h; kernels/ctc.comp): the
// log-space recursions of ATen's CPU kernel (LossCTC.cpp) in its operation
// order, one launch forward, three backward. Lengths come as host integers
// (the IntList forms; the Tensor forms read them back once, as CPU does).
// float32 and float64 (float64 on the host without fp64); other dtypes,
// and targets past the engine's length, run on the host as CPU would.
#include "torch/pointwise.h"
#include "russet/loss.h"

#include <ATen/ops/_ctc_loss_backward_ops.h>
#include <ATen/ops/_ctc_loss_ops.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include <algorithm>

namespace russet {
namespace {

using at::Tensor;

// The descriptor both directions share; checks what allocating the outputs
// needs (the engine checks the rest, with ATen's messages).
rs_ctc_loss describe_ctc(const Tensor& log_probs, const Tensor& targets, at::IntArrayRef input_lengths,
                         at::IntArrayRef target_lengths, int64_t blank) {
  TORCH_CHECK(log_probs.dim() == 3, "log_probs must be a 3-d tensor (T, N, C), got ", log_probs.sizes());
  int64_t n = log_probs.size(1);
  TORCH_CHECK(static_cast<int64_t>(input_lengths.size()) == n, "input_lengths must be of size batch_size");
  TORCH_CHECK(static_cast<int64_t>(target_lengths.size()) == n, "target_lengths must be of size batch_size");
  rs_ctc_loss p{};
  p.log_probs = describe(log_probs);
  p.targets = describe(targets);
  p.input_lengths = input_lengths.data();
  p.target_lengths = target_lengths.data();
  p.blank = blank;
  return p;
}

int64_t positions(at::IntArrayRef target_lengths) {
  int64_t lmax = 0;
  for (int64_t l : target_lengths) lmax = std::max(lmax, l);
  return 2 * lmax + 1;
}

// The engine's status: bad arguments raise RuntimeError with ATen's message,
// as CPU's checks do (throw_status makes RS_ERR_INVALID a ValueError).
void check_ctc(rs_status st) {
  TORCH_CHECK(st != RS_ERR_INVALID, rs_last_error());
  check_or_host(st);
}

// float64 without fp64 arithmetic: host execution, after the check CPU's
// kernel lacks: it reads log_probs at each target unchecked (a target past
// the classes reads out of bounds and can crash it), where the native
// kernel raises at the sync. So on that path a used target outside [0, C)
// raises first, with the device check's message.
void check_targets_on_host(const Tensor& log_probs, const Tensor& targets, at::IntArrayRef target_lengths) {
  if (log_probs.dim() != 3 || targets.dim() < 1 || targets.dim() > 2) return;  // CPU's own checks raise
  const int64_t c = log_probs.size(2);
  Tensor t = targets.to(at::kCPU).to(at::kLong).contiguous();
  const int64_t* p = t.const_data_ptr<int64_t>();
  const int64_t rows = targets.dim() == 2 ? t.size(0) : 1, row = targets.dim() == 2 ? t.size(1) : t.numel();
  int64_t flat = 0;  // 1-d: the targets one after another
  for (int64_t n = 0; n < static_cast<int64_t>(target_lengths.size()); ++n) {
    const int64_t len = target_lengths[n];
    const int64_t start = targets.dim() == 2 ? n * row : flat;
    if (len < 0 || (targets.dim() == 2 && (n >= rows || len > row)) || start + len > t.numel()) return;
    for (int64_t i = start; i < start + len; ++i)
      TORCH_CHECK(p[i] >= 0 && p[i] < c, "russet: ctc_loss: index ", p[i], " is out of bounds");
    flat += len;
  }
}

// targets may come from the CPU: moved to the device
Tensor on_device(const Tensor& targets, const Tensor& log_probs) {
  return targets.device() == log_probs.device() ? targets : targets.to(log_probs.device());
}

std::tuple<Tensor, Tensor> ctc_loss(const Tensor& log_probs, const Tensor& targets, at::IntArrayRef input_lengths,
                                    at::IntArrayRef target_lengths, int64_t blank, bool zero_infinity) {
  return native_or_host<at::_ops::_ctc_loss>(
      [&]() -> std::tuple<Tensor, Tensor> {
        host_if_no_fp64(log_probs, [&] { check_targets_on_host(log_probs, targets, target_lengths); });
        Tensor tg = on_device(targets, log_probs);
        rs_ctc_loss p = describe_ctc(log_probs, tg, input_lengths, target_lengths, blank);
        // (zero_infinity acts in the backward and in ctc_loss's composite:
        // _ctc_loss itself returns inf, as CPU's)
        Tensor alpha = at::empty({log_probs.size(1), log_probs.size(0), positions(target_lengths)}, log_probs.options());
        Tensor nll = at::empty({log_probs.size(1)}, log_probs.options());
        p.log_alpha = describe(alpha);
        p.nll = describe(nll);
        check_ctc(rs_ctc_loss_forward(current_stream_for(log_probs), &p));
        return {nll, alpha};
      },
      log_probs, targets, input_lengths, target_lengths, blank, zero_infinity);
}

Tensor ctc_backward(const Tensor& grad, const Tensor& log_probs, const Tensor& targets, at::IntArrayRef input_lengths,
                    at::IntArrayRef target_lengths, const Tensor& neg_log_likelihood, const Tensor& log_alpha,
                    int64_t blank, bool zero_infinity) {
  return native_or_host<at::_ops::_ctc_loss_backward>(
      [&]() -> Tensor {
        host_if_no_fp64(log_probs, [&] { check_targets_on_host(log_probs, targets, target_lengths); });
        Tensor tg = on_device(targets, log_probs);
        rs_ctc_loss p = describe_ctc(log_probs, tg, input_lengths, target_lengths, blank);
        Tensor res = at::empty(log_probs.sizes(), log_probs.options());
        p.log_alpha = describe(log_alpha);
        p.nll = describe(neg_log_likelihood);
        p.grad_out = describe(grad);
        p.grad = describe(res);
        p.zero_infinity = zero_infinity;
        check_ctc(rs_ctc_loss_backward(current_stream_for(log_probs), &p));
        return res;
      },
      grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood, log_alpha, blank, zero_infinity);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_ctc_loss", ctc_loss);
  m.impl("_ctc_loss_backward", ctc_backward);
}

}  // namespace russet
