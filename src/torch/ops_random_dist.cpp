// Random pointwise distributions: bernoulli (scalar and tensor p), the
// dropout mask (native_dropout), exponential_, geometric_, cauchy_,
// log_normal_. Each draws float32 uniforms (or normals) from the Philox
// generator (uniform_/normal_, ops_random.cpp), so results are reproducible
// under torch.manual_seed, then maps them with a pointwise expression
// (kernels/common/ops_misc.glsl, the transformations of
// ATen/core/TransformationHelper.h). Where the device cannot write the dtype
// (float64 under the apple profile) the op runs on the host from a CPU
// generator seeded by the same (seed, offset), as ops_random.cpp does.
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/ones_like.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include <cmath>
#include <functional>

#include "torch/generator.h"
#include "torch/pointwise.h"

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
void transform(const Tensor& out, const Tensor& u, const char* name, const char* expr, Result result,
               std::initializer_list<Scalar> scalars, const Tensor* extra = nullptr) {
  at::TensorIteratorConfig config;
  config.check_all_same_dtype(false).resize_outputs(false).add_output(out).add_const_input(u);
  if (extra) config.add_const_input(*extra);
  auto iter = config.build();
  run_pointwise(iter, name, expr, result, scalars, at::kFloat, extra ? 0b11u : 0b1u);
}

// The host path: a CPU generator seeded from this generator's (seed, offset).
Tensor& on_host(Tensor& self, const std::optional<at::Generator>& gen, const char* op,
                const std::function<void(Tensor&, at::Generator&)>& fill) {
  PhiloxGenerator* g = generator_for(gen, self.device().index());
  uint64_t seed, offset;
  {
    std::lock_guard<std::mutex> lock(g->mutex_);
    seed = g->current_seed();
    offset = g->take(rs_rng_offset_increment(self.numel()));
  }
  note_host_op(op);
  at::Generator cpu = at::make_generator<at::CPUGeneratorImpl>(seed ^ (offset * 0x9E3779B97F4A7C15ull));
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
      [&] { transform(self, draw(self, gen), "bernoulli", "rs_mx_bernoulli(a, s0)", Result::Bool, {p}); },
      [&](Tensor& h, at::Generator& g) { h.bernoulli_(p, g); });
}

Tensor& bernoulli_tensor_(Tensor& self, const Tensor& p_, std::optional<at::Generator> gen) {
  TORCH_CHECK(at::isFloatingType(p_.scalar_type()), "expected probabilities tensor to have floating type, got ",
              p_.scalar_type());
  return run(
      self, gen, "aten::bernoulli_.Tensor",
      [&] {
        Tensor p = p_.device() == self.device() ? p_ : p_.to(self.device());
        transform(self, draw(self, gen), "bernoulli_t", "rs_mx_bernoulli(a, b)", Result::Bool, {}, &p);
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
        transform(self, draw(self, gen), "exponential", "rs_mx_exponential(a, s0)", Result::Compute,
                  {-1.0 / lambd});
      },
      [&](Tensor& h, at::Generator& g) { h.exponential_(lambd, g); });
}

Tensor& geometric_(Tensor& self, double p, std::optional<at::Generator> gen) {
  TORCH_CHECK(0 < p && p < 1, "geometric_ expects p to be in (0, 1), but got p=", p);
  return run(
      self, gen, "aten::geometric_",
      [&] {
        transform(self, draw(self, gen), "geometric", "rs_mx_geometric(a, s0)", Result::Compute, {std::log1p(-p)});
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
        transform(self, draw(self, gen), "cauchy", "rs_mx_cauchy(a, s0, s1)", Result::Compute, {median, sigma});
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
        transform(self, draw(self, gen, /*normal=*/true, mean, std), "log_normal", "rs_exp(a)", Result::Compute, {});
      },
      [&](Tensor& h, at::Generator& g) { h.log_normal_(mean, std, g); });
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
  transform(mask, draw(input, std::nullopt), "dropout_mask", "rs_mx_bernoulli(a, s0)", Result::Bool, {p1m});
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
    run_pointwise(iter, "dropout", "rs_mx_dropout(a, b, s0)", Result::Compute, {scale}, input.scalar_type(), 0b10);
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
  m.impl("native_dropout", native_dropout);
  m.impl("native_dropout_backward", native_dropout_backward);
}

}  // namespace russet
