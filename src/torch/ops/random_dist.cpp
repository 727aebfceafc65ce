// Random pointwise distributions: bernoulli (scalar and tensor p), the
// dropout mask and output (native_dropout), exponential_, geometric_,
// cauchy_, log_normal_, normal with tensor mean/std, and multinomial (the C
// core's rs_multinomial). Each distribution is one launch of the C core's
// rs_rng_sample (russet/rng.h): the float32 uniform (or normal) that
// uniform_ (normal_) would draw at each element, mapped there by ATen's
// transformation (core/TransformationHelper.h), so results are
// reproducible under torch.manual_seed. Where the device cannot write the
// dtype (float64 under the apple profile) the op runs on the host from a
// CPU generator seeded by the same (seed, offset) (ops/random.h).
#include <ATen/ops/empty.h>
#include <ATen/ops/full.h>
#include <ATen/ops/multinomial.h>
#include <ATen/ExpandUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/TensorOperators.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/ones_like.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include <cmath>

#include "torch/ops/random.h"
#include "torch/runtime/generator.h"
#include "torch/pointwise.h"
#include "torch/dtype_refusal.h"
#include "russet/rng.h"

namespace russet {
namespace {

using at::Scalar;
using at::Tensor;

// self = samples of `dist` (russet/rng.h), one launch; p: BERNOULLI_TENSOR's
Tensor& sample(Tensor& self, const std::optional<at::Generator>& gen, const char* op, rs_rng_dist dist, double a,
               double b, const HostFill& host_fill, const Tensor* p = nullptr) {
  return random_fill(
      self, gen, op,
      [&](rs_stream* s, const rs_tensor* d, uint64_t seed, uint64_t offset) {
        rs_tensor src;
        if (p) src = describe(*p);
        return rs_rng_sample(s, dist, d, p ? &src : nullptr, a, b, seed, offset);
      },
      host_fill);
}

Tensor& bernoulli_scalar_(Tensor& self, double p, std::optional<at::Generator> gen) {
  TORCH_CHECK(0 <= p && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  refuse_unless(!self.is_complex(), "bernoulli_scalar_cpu_", self.scalar_type());
  return sample(self, gen, "aten::bernoulli_.float", RS_RNG_BERNOULLI, p, 0,
                [&](Tensor& h, at::Generator& g) { h.bernoulli_(p, g); });
}

Tensor& bernoulli_tensor_(Tensor& self, const Tensor& p_, std::optional<at::Generator> gen) {
  TORCH_CHECK(at::isFloatingType(p_.scalar_type()), "expected probabilities tensor to have floating type, got ",
              p_.scalar_type());
  refuse_unless(!self.is_complex(), "bernoulli_tensor_cpu_self_", self.scalar_type());
  Tensor p = (p_.device() == self.device() ? p_ : p_.to(self.device())).expand(self.sizes());
  return sample(self, gen, "aten::bernoulli_.Tensor", RS_RNG_BERNOULLI_TENSOR, 0, 0,
                [&](Tensor& h, at::Generator& g) { h.bernoulli_(p_.to(at::kCPU), g); }, &p);
}

Tensor& bernoulli_out(const Tensor& self, std::optional<at::Generator> gen, Tensor& out) {
  at::native::resize_output(out, self.sizes());
  return bernoulli_tensor_(out, self, std::move(gen));
}

Tensor& exponential_(Tensor& self, double lambd, std::optional<at::Generator> gen) {
  TORCH_CHECK(lambd > 0 && !std::isinf(lambd) && !std::isnan(lambd),
              "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), "Exponential distribution is a continuous probability ",
              "distribution. dtype must be a floating point but you specified ", self.scalar_type());
  return sample(self, gen, "aten::exponential_", RS_RNG_EXPONENTIAL, lambd, 0,
                [&](Tensor& h, at::Generator& g) { h.exponential_(lambd, g); });
}

Tensor& geometric_(Tensor& self, double p, std::optional<at::Generator> gen) {
  TORCH_CHECK(0 < p && p < 1, "geometric_ expects p to be in (0, 1), but got p=", p);
  refuse_unless(self.scalar_type() != at::kBool && !self.is_complex(), "geometric_cpu", self.scalar_type());
  return sample(self, gen, "aten::geometric_", RS_RNG_GEOMETRIC, p, 0,
                [&](Tensor& h, at::Generator& g) { h.geometric_(p, g); });
}

Tensor& cauchy_(Tensor& self, double median, double sigma, std::optional<at::Generator> gen) {
  TORCH_CHECK(sigma > 0.0, "cauchy_ expects sigma > 0.0, but found sigma=", sigma);
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), "Cauchy distribution is a continuous probability ",
              "distribution. dtype must be a floating point but you specified ", self.dtype());
  return sample(self, gen, "aten::cauchy_", RS_RNG_CAUCHY, median, sigma,
                [&](Tensor& h, at::Generator& g) { h.cauchy_(median, sigma, g); });
}

Tensor& log_normal_(Tensor& self, double mean, double std, std::optional<at::Generator> gen) {
  TORCH_CHECK(std > 0.0, "log_normal_ expects std > 0.0, but found std=", std);
  refuse_unless(at::isFloatingType(self.scalar_type()), "log_normal_cpu", self.scalar_type());
  return sample(self, gen, "aten::log_normal_", RS_RNG_LOG_NORMAL, mean, std,
                [&](Tensor& h, at::Generator& g) { h.log_normal_(mean, std, g); });
}

// ---------------------------------------------------------------- normal with tensor mean/std
// ATen's normal_out_impl: standard normals (normal_, native Philox), then
// mul_(std) and add_(mean). The std check reads one value, as CPU and CUDA do.
void check_std(const Tensor& std) {
  TORCH_CHECK(!std.is_complex(), "normal expects standard deviation to be non-complex");
  TORCH_CHECK(std.numel() == 0 || std.min().ge(0).item<bool>(), "normal expects all elements of std >= 0.0");
}

Tensor& normal_tt_out(const Tensor& mean, const Tensor& std, std::optional<at::Generator> gen, Tensor& out) {
  check_std(std);
  at::native::resize_output(out, at::infer_size(mean.sizes(), std.sizes()));
  out.normal_(0, 1, gen);
  out.mul_(std).add_(mean);
  return out;
}
Tensor& normal_tf_out(const Tensor& mean, double std, std::optional<at::Generator> gen, Tensor& out) {
  TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  at::native::resize_output(out, mean.sizes());
  out.normal_(0, std, gen);
  out.add_(mean);
  return out;
}
Tensor& normal_ft_out(double mean, const Tensor& std, std::optional<at::Generator> gen, Tensor& out) {
  check_std(std);
  Tensor mean_t = at::full({}, mean, out.options());
  at::native::resize_output(out, at::infer_size(mean_t.sizes(), std.sizes()));
  out.normal_(0, 1, gen);
  out.mul_(std).add_(mean_t);
  return out;
}
Tensor normal_tt(const Tensor& mean, const Tensor& std, std::optional<at::Generator> gen) {
  check_std(std);
  Tensor out = at::empty(at::infer_size(mean.sizes(), std.sizes()), mean.options(), at::MemoryFormat::Contiguous);
  return normal_tt_out(mean, std, std::move(gen), out);
}
Tensor normal_tf(const Tensor& mean, double std, std::optional<at::Generator> gen) {
  TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  Tensor out = at::empty_like(mean, at::MemoryFormat::Contiguous);
  return normal_tf_out(mean, std, std::move(gen), out);
}
Tensor normal_ft(double mean, const Tensor& std, std::optional<at::Generator> gen) {
  check_std(std);
  Tensor out = at::empty_like(std, at::MemoryFormat::Contiguous);
  return normal_ft_out(mean, std, std::move(gen), out);
}

// ---------------------------------------------------------------- multinomial
// ATen's checks here; the sampling in the C core (rs_multinomial: the
// probabilities' checks on the device, then ATen's algorithm). Where the
// device lacks the dtype (float64 under the apple profile) it runs on the
// host from a CPU generator seeded by the same (seed, offset).
Tensor& multinomial_out(const Tensor& self, c10::SymInt n_sample_s, bool replacement,
                        std::optional<at::Generator> gen, Tensor& result) {
  const int64_t n_sample = n_sample_s.expect_int();
  TORCH_CHECK(result.device() == self.device(), "multinomial arguments must have the same device");
  TORCH_CHECK(self.dim() > 0 && self.dim() <= 2, "prob_dist must be 1 or 2 dim");
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), "multinomial only supports floating-point dtypes for input, got: ",
              self.scalar_type());
  TORCH_CHECK(result.scalar_type() == at::kLong, "multinomial expects Long tensor out, got: ", result.scalar_type());
  TORCH_CHECK(n_sample > 0, "cannot sample n_sample <= 0 samples");
  const int64_t n_categories = self.size(-1);
  TORCH_CHECK(replacement || n_sample <= n_categories,
              "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  TORCH_CHECK(n_categories <= (int64_t(1) << 24), "number of categories cannot exceed 2^24");
  if (self.dim() == 1) result.resize_({n_sample});
  else result.resize_({self.size(0), n_sample});
  if (result.numel() == 0) return result;
  c10::DeviceGuard guard(self.device());
  const PhiloxDraw draw = take_draw(gen, self.device().index(), rs_rng_offset_increment(1));
  const Tensor p2 = self.dim() == 1 ? self.unsqueeze(0) : self;
  const Tensor r2 = result.dim() == 1 ? result.unsqueeze(0) : result;
  rs_tensor tp = describe(p2), tr = describe(r2);
  rs_status st = rs_multinomial(current_stream_for(self), &tp, n_sample, replacement, draw.seed, draw.offset, &tr);
  if (st == RS_OK) return result;
  if (st != RS_ERR_UNSUPPORTED) throw_status(st);
  note_host_op("aten::multinomial");
  result.copy_(at::multinomial(self.to(at::kCPU), n_sample, replacement, host_generator(draw)));
  return result;
}

Tensor multinomial(const Tensor& self, c10::SymInt n_sample, bool replacement, std::optional<at::Generator> gen) {
  Tensor result = at::empty({0}, self.options().dtype(at::kLong));
  return multinomial_out(self, std::move(n_sample), replacement, std::move(gen), result);
}

// native_dropout: mask = U < 1 - p, out = (x * mask) * (1 / (1 - p)), one
// launch of the C core's rs_dropout. Where it cannot (float64 under the
// apple profile, complex), the mask from rs_rng_sample's bernoulli on the
// same draws and the product as ATen's CPU version computes it.
std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p, std::optional<bool> train) {
  if (input.numel() == 0) return std::make_tuple(input, at::empty_like(input, input.options()));
  if (train.has_value() && !*train) {
    return std::make_tuple(input.clone(), at::ones_like(input, input.options().dtype(at::kBool)));
  }
  c10::DeviceGuard guard(input.device());
  const double p1m = 1. - p;
  TORCH_CHECK(0 <= p1m && p1m <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p1m);  // as CPU's
  const double scale = p1m == 0 ? 0. : 1. / p1m;
  Tensor mask = at::empty(input.sizes(), input.options().dtype(at::kBool));
  Tensor out = at::empty_like(input);
  const PhiloxDraw d = take_draw(std::nullopt, input.device().index(), rs_rng_offset_increment(input.numel()));
  rs_tensor dx = describe(input), dout = describe(out), dmask = describe(mask);
  rs_stream* s = current_stream_for(input);
  rs_status st = rs_dropout(s, &dx, p, d.seed, d.offset, &dout, &dmask);
  if (st == RS_OK) return std::make_tuple(out, mask);
  if (st != RS_ERR_UNSUPPORTED) throw_status(st);
  check(rs_rng_sample(s, RS_RNG_BERNOULLI, &dmask, nullptr, p1m, 0, d.seed, d.offset));
  return std::make_tuple(input.mul(mask).mul_(scale), mask);
}

// (grad * mask) * scale in one pointwise launch, as the forward's product
Tensor native_dropout_backward(const Tensor& grad, const Tensor& mask, double scale) {
  // CPU takes any mask, and broadcasts
  if (mask.scalar_type() != at::kBool || !mask.sizes().equals(grad.sizes())) return at::mul(at::mul(grad, mask), scale);
  try {
    Tensor out = at::empty_like(grad);
    auto iter = at::TensorIteratorConfig()
                    .check_all_same_dtype(false)
                    .resize_outputs(false)
                    .add_output(out)
                    .add_const_input(grad)
                    .add_const_input(mask)
                    .build();
    run_pointwise(iter, "dropout_backward", RS_PW_DROPOUT, Result::Compute, {scale}, grad.scalar_type(), 0b10);
    return out;
  } catch (const NeedsHost&) {
    return at::mul(at::mul(grad, mask), scale);
  }
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("bernoulli_.float", bernoulli_scalar_);
  m.impl("bernoulli_.Tensor", bernoulli_tensor_);
  m.impl("bernoulli.out", bernoulli_out);
  m.impl("exponential_", exponential_);
  m.impl("geometric_", geometric_);
  m.impl("cauchy_", cauchy_);
  m.impl("log_normal_", log_normal_);
  m.impl("normal.Tensor_Tensor", normal_tt);
  m.impl("normal.Tensor_Tensor_out", normal_tt_out);
  m.impl("normal.Tensor_float", normal_tf);
  m.impl("normal.Tensor_float_out", normal_tf_out);
  m.impl("normal.float_Tensor", normal_ft);
  m.impl("normal.float_Tensor_out", normal_ft_out);
  m.impl("multinomial", multinomial);
  m.impl("multinomial.out", multinomial_out);
  m.impl("native_dropout", native_dropout);
  m.impl("native_dropout_backward", native_dropout_backward);
}

}  // namespace russet
