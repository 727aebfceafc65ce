// CTC loss (F.ctc_loss: _ctc_loss and _ctc_loss_backward) natively, in the
// log-space recursions of ATen's CPU kernel (LossCTC.cpp), vectorized over
// the batch and the extended target (blanks between labels, S = 2L + 1):
// one step per time frame, a few native pointwise ops and a gather each.
//   alpha_t(s) = logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1),
//                [alpha_{t-1}(s-2) where l'(s) != l'(s-2)]) + log_probs_t(l'(s))
// with CPU's max-shift (a max of -inf shifts by 0); beta runs backward from
// each sample's last frame; the gradient is
//   exp(lp) - exp(logsumexp_{s: l'(s)=c}(alpha + beta) + nll - lp),
// the per-class logsumexp made with scatter_reduce(amax) and scatter_add.
// Lengths come as host integers (the IntList forms; the Tensor forms read
// them back once, as CPU does).
#include "torch/pointwise.h"

#include <ATen/ops/_ctc_loss_backward_ops.h>
#include <ATen/ops/_ctc_loss_ops.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/exp.h>
#include <ATen/ops/full.h>
#include <ATen/ops/log.h>
#include <ATen/ops/maximum.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include <algorithm>
#include <limits>

namespace russet {
namespace {

using at::Tensor;
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// The problem's shapes and the extended targets.
struct Ctc {
  int64_t t_max, n, c, s;  // frames, batch, classes, 2 * max target length + 1
  Tensor lp;               // (T, N, C) log_probs in float32 (or float64)
  Tensor ext;              // (N, S) l'(s): blank at even s, the labels at odd s
  Tensor lpl;              // (T, N, S) log_probs at l'(s)
  Tensor skip;             // (N, S) the s-2 transition is allowed
  Tensor in_len, tg_len;   // (N) int64 on the device
  Tensor width;            // (N, 1) 2 * target length + 1

  Ctc(const Tensor& log_probs, const Tensor& targets, at::IntArrayRef input_lengths, at::IntArrayRef target_lengths,
      int64_t blank) {
    TORCH_CHECK(log_probs.dim() == 3, "log_probs must be a 3-d tensor (T, N, C) here, got ", log_probs.sizes());
    t_max = log_probs.size(0);
    n = log_probs.size(1);
    c = log_probs.size(2);
    TORCH_CHECK(blank >= 0 && blank < c, "blank must be in label range");
    TORCH_CHECK(static_cast<int64_t>(input_lengths.size()) == n, "input_lengths must be of size batch_size");
    TORCH_CHECK(static_cast<int64_t>(target_lengths.size()) == n, "target_lengths must be of size batch_size");
    int64_t lmax = 0;
    for (int64_t i = 0; i < n; ++i) {
      TORCH_CHECK(input_lengths[i] >= 0 && input_lengths[i] <= t_max, "Expected input_lengths to have value at most ",
                  t_max, ", but got value ", input_lengths[i], " (while checking arguments for ctc_loss_cpu)");
      TORCH_CHECK(target_lengths[i] >= 0, "Expected target_lengths to be non-negative");
      lmax = std::max(lmax, target_lengths[i]);
    }
    s = 2 * lmax + 1;
    auto dev = log_probs.device();
    auto lo = at::TensorOptions().dtype(at::kLong);
    in_len = at::tensor(input_lengths.vec(), lo).to(dev);
    tg_len = at::tensor(target_lengths.vec(), lo).to(dev);
    // labels (N, Lmax): padded 2-d targets, or the concatenated 1-d form
    Tensor labels;
    if (targets.dim() == 2) {
      TORCH_CHECK(targets.size(0) == n, "targets must have batch size ", n);
      labels = targets.to(at::kLong).narrow(1, 0, std::min<int64_t>(lmax, targets.size(1)));
      if (labels.size(1) < lmax)
        labels = at::cat({labels, at::zeros({n, lmax - labels.size(1)}, labels.options())}, 1);
    } else {
      std::vector<int64_t> starts(n);
      int64_t pos = 0;
      for (int64_t i = 0; i < n; ++i) {
        starts[i] = pos;
        pos += target_lengths[i];
      }
      TORCH_CHECK(targets.dim() == 1 && targets.numel() >= pos, "Expected tensor to have size at least ", pos,
                  " at dimension 0, but got size ", targets.numel(), " for argument #2 'targets'");
      Tensor idx = at::tensor(starts, lo).to(dev).unsqueeze(1).add(at::arange(lmax, lo.device(dev)).unsqueeze(0));
      labels = targets.to(at::kLong).take(idx.clamp_max(std::max<int64_t>(targets.numel() - 1, 0)));
      if (targets.numel() == 0) labels = at::zeros({n, lmax}, lo.device(dev));
    }
    Tensor sidx = at::arange(s, lo.device(dev));
    Tensor odd = sidx.remainder(2).eq(1).unsqueeze(0);                         // (1, S)
    Tensor lab_at = labels.gather(1, sidx.sub(1).div(2, "floor").clamp(0, std::max<int64_t>(lmax - 1, 0))
                                         .unsqueeze(0).expand({n, s}).contiguous());
    if (lmax == 0) lab_at = at::zeros({n, s}, lo.device(dev));
    ext = at::where(odd, lab_at, at::full({1}, blank, lo.device(dev)));
    Tensor prev2 = at::cat({at::full({n, 2}, -1, lo.device(dev)), ext.narrow(1, 0, s - 2 > 0 ? s - 2 : 0)}, 1)
                       .narrow(1, 0, s);
    skip = odd.logical_and(ext.ne(prev2)).logical_and(sidx.ge(2).unsqueeze(0));
    auto ft = log_probs.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
    lp = log_probs.to(ft);
    lpl = lp.gather(2, ext.unsqueeze(0).expand({t_max, n, s}).contiguous());
    width = tg_len.mul(2).add(1).unsqueeze(1);
  }

  Tensor neg_inf(std::initializer_list<int64_t> shape) const { return at::full(shape, kNegInf, lp.options()); }

  // shift along s by k (toward higher s), filling -inf
  Tensor shift(const Tensor& a, int64_t k) const {
    if (k >= s) return neg_inf({n, s});
    return at::cat({neg_inf({n, k}), a.narrow(1, 0, s - k)}, 1);
  }
  Tensor unshift(const Tensor& a, int64_t k) const {
    if (k >= s) return neg_inf({n, s});
    return at::cat({a.narrow(1, k, s - k), neg_inf({n, k})}, 1);
  }

  // CPU's log(exp(a - m) + exp(b - m) + exp(c - m)) + m with m = max, 0 if -inf
  static Tensor lse3(const Tensor& a, const Tensor& b, const Tensor& c) {
    Tensor m = at::maximum(at::maximum(a, b), c);
    m = at::where(m.eq(kNegInf), at::zeros({1}, m.options()), m);
    return at::log(at::exp(a.sub(m)).add_(at::exp(b.sub(m))).add_(at::exp(c.sub(m)))).add_(m);
  }
};

std::tuple<Tensor, Tensor> ctc_forward(const Ctc& p) {
  auto sidx = at::arange(p.s, p.in_len.options()).unsqueeze(0);
  Tensor in_s = sidx.lt(p.width);  // (N, S) positions of each sample's extended target
  Tensor alpha = at::full({p.t_max, p.n, p.s}, kNegInf, p.lp.options());
  if (p.t_max > 0) {
    Tensor first = sidx.eq(0).logical_or(sidx.eq(1).logical_and(p.tg_len.gt(0).unsqueeze(1)));
    alpha[0].copy_(at::where(first.logical_and(p.in_len.gt(0).unsqueeze(1)), p.lpl[0], kNegInf));
  }
  for (int64_t t = 1; t < p.t_max; ++t) {
    Tensor a = alpha[t - 1];
    Tensor a3 = at::where(p.skip, p.shift(a, 2), kNegInf);
    Tensor v = Ctc::lse3(a, p.shift(a, 1), a3).add_(p.lpl[t]);
    Tensor live = in_s.logical_and(p.in_len.gt(t).unsqueeze(1));
    alpha[t].copy_(at::where(live, v, kNegInf));
  }
  // nll = -log(exp(alpha[T-1, 2L]) + exp(alpha[T-1, 2L-1])), CPU's max-shift
  Tensor last_t = p.in_len.sub(1).clamp_min(0).view({1, p.n, 1}).expand({1, p.n, p.s});
  Tensor at_last = alpha.gather(0, last_t).squeeze(0);  // (N, S)
  Tensor e1 = at_last.gather(1, p.width.sub(1));
  Tensor e2 = at::where(p.tg_len.gt(0).unsqueeze(1), at_last.gather(1, p.width.sub(2).clamp_min(0)), kNegInf);
  Tensor m = at::maximum(e1, e2);
  m = at::where(m.eq(kNegInf), at::zeros({1}, m.options()), m);
  Tensor ll = at::log(at::exp(e1.sub(m)).add_(at::exp(e2.sub(m)))).add_(m).squeeze(1);
  // a sample with no frames: CPU's likelihood is 1 for an empty target
  Tensor nll = at::where(p.in_len.eq(0), at::where(p.tg_len.eq(0), 0.0, std::numeric_limits<double>::infinity()),
                         ll.neg());
  return {nll, alpha.permute({1, 0, 2}).contiguous()};
}

std::tuple<Tensor, Tensor> ctc_loss(const Tensor& log_probs, const Tensor& targets, at::IntArrayRef input_lengths,
                                    at::IntArrayRef target_lengths, int64_t blank, bool zero_infinity) {
  return native_or_host<at::_ops::_ctc_loss>(
      [&]() -> std::tuple<Tensor, Tensor> {
        host_if_no_fp64(log_probs);
        Ctc p(log_probs, targets, input_lengths, target_lengths, blank);
        // (zero_infinity acts in the backward and in ctc_loss's composite:
        // _ctc_loss itself returns inf, as CPU's)
        auto [nll, alpha] = ctc_forward(p);
        return {nll.to(log_probs.scalar_type()), alpha.to(log_probs.scalar_type())};
      },
      log_probs, targets, input_lengths, target_lengths, blank, zero_infinity);
}

Tensor ctc_backward(const Tensor& grad, const Tensor& log_probs, const Tensor& targets, at::IntArrayRef input_lengths,
                    at::IntArrayRef target_lengths, const Tensor& neg_log_likelihood, const Tensor& log_alpha,
                    int64_t blank, bool zero_infinity) {
  return native_or_host<at::_ops::_ctc_loss_backward>(
      [&]() -> Tensor {
        host_if_no_fp64(log_probs);
        Ctc p(log_probs, targets, input_lengths, target_lengths, blank);
        Tensor alpha = log_alpha.to(p.lp.scalar_type()).permute({1, 0, 2});  // (T, N, S)
        auto sidx = at::arange(p.s, p.in_len.options()).unsqueeze(0);
        Tensor in_s = sidx.lt(p.width);
        Tensor last = sidx.eq(p.width.sub(1)).logical_or(sidx.eq(p.width.sub(2)).logical_and(p.tg_len.gt(0).unsqueeze(1)));
        Tensor beta = at::full({p.t_max, p.n, p.s}, kNegInf, p.lp.options());
        for (int64_t t = p.t_max - 1; t >= 0; --t) {
          Tensor end_here = p.in_len.sub(1).eq(t).unsqueeze(1);
          Tensor init = at::where(last, p.lpl[t], kNegInf);
          Tensor v;
          if (t + 1 < p.t_max) {
            Tensor b = beta[t + 1];
            // s+2 allowed where l'(s+2) != l'(s): the skip mask of s + 2
            Tensor b3 = at::where(p.unshift(p.skip.to(at::kLong), 2).to(at::kBool), p.unshift(b, 2), kNegInf);
            v = Ctc::lse3(b, p.unshift(b, 1), b3).add_(p.lpl[t]);
          } else {
            v = p.neg_inf({p.n, p.s});
          }
          Tensor live = in_s.logical_and(p.in_len.sub(1).gt(t).unsqueeze(1));
          beta[t].copy_(at::where(end_here, init, at::where(live, v, kNegInf)));
        }
        // per class c: logsumexp over s with l'(s) = c of alpha + beta
        Tensor ab = alpha.add(beta);
        Tensor idx = p.ext.unsqueeze(0).expand({p.t_max, p.n, p.s}).contiguous();
        Tensor mx = at::full({p.t_max, p.n, p.c}, kNegInf, ab.options()).scatter_reduce(2, idx, ab, "amax", true);
        Tensor mxs = mx.gather(2, idx);
        Tensor shifted = at::where(mxs.eq(kNegInf), kNegInf, ab.sub(mxs));
        Tensor sum = at::zeros({p.t_max, p.n, p.c}, ab.options()).scatter_add_(2, idx, at::exp(shifted));
        Tensor lcab = at::where(mx.eq(kNegInf), kNegInf, at::log(sum).add_(mx));
        Tensor nll = neg_log_likelihood.to(p.lp.scalar_type()).view({1, p.n, 1});
        Tensor g = grad.to(p.lp.scalar_type()).view({1, p.n, 1});
        Tensor res = at::exp(p.lp).sub_(at::exp(lcab.add(nll).sub_(p.lp))).mul_(g);
        Tensor frame = at::arange(p.t_max, p.in_len.options()).view({p.t_max, 1, 1}).lt(p.in_len.view({1, p.n, 1}));
        Tensor keep = frame;
        if (zero_infinity) keep = keep.logical_and(nll.isinf().logical_not());
        res = at::where(keep, res, at::zeros({1}, res.options()));
        return res.to(log_probs.scalar_type());
      },
      grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood, log_alpha, blank, zero_infinity);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_ctc_loss", ctc_loss);
  m.impl("_ctc_loss_backward", ctc_backward);
}

}  // namespace russet
