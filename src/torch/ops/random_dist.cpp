// Random pointwise distributions: bernoulli (scalar and tensor p), the
// dropout mask (native_dropout), exponential_, geometric_, cauchy_,
// log_normal_, normal with tensor mean/std, and multinomial (the C core's
// rs_multinomial). Each draws float32 uniforms (or normals) from the Philox
// generator (uniform_/normal_, ops/random.cpp), so results are reproducible
// under torch.manual_seed, then maps them with a pointwise expression
// (kernels/common/ops_misc.glsl, the transformations of
// ATen/core/TransformationHelper.h). Where the device cannot write the dtype
// (float64 under the apple profile) the op runs on the host from a CPU
// generator seeded by the same (seed, offset), as ops/random.cpp does.
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
#include <functional>

#include "torch/runtime/generator.h"
#include "torch/pointwise.h"
#include "torch/dtype_refusal.h"

namespace russet {
namespace {

using at::Scalar;
using at::Tensor;

// float32 uniforms in [0, 1) (or normals) shaped like `like`
Tensor draw(const Tensor& like, const std::optional<at::Generator>& gen, bool normal = false, double a = 0.0,
            double b = 1.0) {
  Tensor u = at::empty(like.sizes(), like.options().dtype(at::kFloat));
  if (normal) u.normal_(a, b, gen);
  else u.uniform_(a, b, gen);
  return u;
}

// out = EXPR(u, ...) with u float32, computed in float
void transform(const Tensor& out, const Tensor& u, const char* name, rs_pw_op pw, Result result,
               std::initializer_list<Scalar> scalars, const Tensor* extra = nullptr) {
  at::TensorIteratorConfig config;
  config.check_all_same_dtype(false).resize_outputs(false).add_output(out).add_const_input(u);
  if (extra) config.add_const_input(*extra);
  auto iter = config.build();
  run_pointwise(iter, name, pw, result, scalars, at::kFloat, extra ? 0b11u : 0b1u);
}

// The host path: a CPU generator seeded from this generator's (seed, offset).
Tensor& on_host(Tensor& self, const std::optional<at::Generator>& gen, const char* op,
                const std::function<void(Tensor&, at::Generator&)>& fill) {
  const PhiloxDraw draw = take_draw(gen, self.device().index(), rs_rng_offset_increment(self.numel()));
  note_host_op(op);
  at::Generator cpu = host_generator(draw);
  Tensor host = at::empty(self.sizes(), self.options().device(at::kCPU));
  fill(host, cpu);
  self.copy_(host);
  return self;
}

// Runs `native` (draws + transform); where it needs the host, `fill` on the host.
template <class Native>
Tensor& run(Tensor& self, const std::optional<at::Generator>& gen, const char* op, Native native,
            const std::function<void(Tensor&, at::Generator&)>& fill) {
  if (self.numel() == 0) return self;
  c10::DeviceGuard guard(self.device());
  try {
    native();
    return self;
  } catch (const NeedsHost&) {
    return on_host(self, gen, op, fill);
  }
}

Tensor& bernoulli_scalar_(Tensor& self, double p, std::optional<at::Generator> gen) {
  TORCH_CHECK(0 <= p && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  return run(
      self, gen, "aten::bernoulli_.float",
      [&] { transform(self, draw(self, gen), "bernoulli", RS_PW_BERNOULLI, Result::Bool, {p}); },
      [&](Tensor& h, at::Generator& g) { h.bernoulli_(p, g); });
}

Tensor& bernoulli_tensor_(Tensor& self, const Tensor& p_, std::optional<at::Generator> gen) {
  TORCH_CHECK(at::isFloatingType(p_.scalar_type()), "expected probabilities tensor to have floating type, got ",
              p_.scalar_type());
  return run(
      self, gen, "aten::bernoulli_.Tensor",
      [&] {
        Tensor p = p_.device() == self.device() ? p_ : p_.to(self.device());
        transform(self, draw(self, gen), "bernoulli_t", RS_PW_BERNOULLI_TENSOR, Result::Bool, {}, &p);
      },
      [&](Tensor& h, at::Generator& g) { h.bernoulli_(p_.to(at::kCPU), g); });
}

Tensor& bernoulli_out(const Tensor& self, std::optional<at::Generator> gen, Tensor& out) {
  at::native::resize_output(out, self.sizes());
  return bernoulli_tensor_(out, self, std::move(gen));
}

Tensor& exponential_(Tensor& self, double lambd, std::optional<at::Generator> gen) {
  TORCH_CHECK(lambd > 0 && !std::isinf(lambd) && !std::isnan(lambd),
              "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), "exponential_ not implemented for '", self.scalar_type(), "'");
  return run(
      self, gen, "aten::exponential_",
      [&] {
        transform(self, draw(self, gen), "exponential", RS_PW_EXPONENTIAL, Result::Compute,
                  {-1.0 / lambd});
      },
      [&](Tensor& h, at::Generator& g) { h.exponential_(lambd, g); });
}

Tensor& geometric_(Tensor& self, double p, std::optional<at::Generator> gen) {
  TORCH_CHECK(0 < p && p < 1, "geometric_ expects p to be in (0, 1), but got p=", p);
  refuse_unless(self.scalar_type() != at::kBool && !self.is_complex(), "geometric_cpu", self.scalar_type());
  return run(
      self, gen, "aten::geometric_",
      [&] {
        transform(self, draw(self, gen), "geometric", RS_PW_GEOMETRIC, Result::Compute, {std::log1p(-p)});
      },
      [&](Tensor& h, at::Generator& g) { h.geometric_(p, g); });
}

Tensor& cauchy_(Tensor& self, double median, double sigma, std::optional<at::Generator> gen) {
  TORCH_CHECK(sigma > 0.0, "cauchy_ expects sigma > 0.0, but found sigma=", sigma);
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), "Cauchy distribution is a continuous probability ",
              "distribution. dtype must be a floating point but you specified ", self.dtype());
  return run(
      self, gen, "aten::cauchy_",
      [&] {
        transform(self, draw(self, gen), "cauchy", RS_PW_CAUCHY, Result::Compute, {median, sigma});
      },
      [&](Tensor& h, at::Generator& g) { h.cauchy_(median, sigma, g); });
}

Tensor& log_normal_(Tensor& self, double mean, double std, std::optional<at::Generator> gen) {
  TORCH_CHECK(std > 0.0, "log_normal_ expects std > 0.0, but found std=", std);
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), "log_normal_ expects a floating point dtype, but got ",
              self.dtype());
  return run(
      self, gen, "aten::log_normal_",
      [&] {
        transform(self, draw(self, gen, /*normal=*/true, mean, std), "log_normal", RS_PW_EXP_PLAIN, Result::Compute, {});
      },
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

// native_dropout (ATen's CPU version, fused): mask = U < 1 - p,
// out = (x * mask) * (1 / (1 - p))
std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p, std::optional<bool> train) {
  if (input.numel() == 0) return std::make_tuple(input, at::empty_like(input, input.options()));
  if (train.has_value() && !*train) {
    return std::make_tuple(input.clone(), at::ones_like(input, input.options().dtype(at::kBool)));
  }
  c10::DeviceGuard guard(input.device());
  double p1m = 1. - p;
  double scale = p1m == 0 ? 0. : 1. / p1m;
  Tensor mask = at::empty(input.sizes(), input.options().dtype(at::kBool));
  transform(mask, draw(input, std::nullopt), "dropout_mask", RS_PW_BERNOULLI, Result::Bool, {p1m});
  Tensor output;
  try {
    Tensor out = at::empty_like(input);
    auto iter = at::TensorIteratorConfig()
                    .check_all_same_dtype(false)
                    .resize_outputs(false)
                    .add_output(out)
                    .add_const_input(input)
                    .add_const_input(mask)
                    .build();
    run_pointwise(iter, "dropout", RS_PW_DROPOUT, Result::Compute, {scale}, input.scalar_type(), 0b10);
    output = out;
  } catch (const NeedsHost&) {
    output = input.mul(mask).mul_(scale);
  }
  return std::make_tuple(output, mask);
}

Tensor native_dropout_backward(const Tensor& grad, const Tensor& mask, double scale) {
  return at::mul(at::mul(grad, mask), scale);
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
