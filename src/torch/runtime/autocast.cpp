// torch.autocast("russet"): the AutocastPrivateUse1 dispatch key. Ops
// without a policy fall through; the rest follow the op lists ATen keeps
// for every backend (ATen/autocast_mode.h), with CUDA's policies: matrix
// products, convolutions and RNN cells in the autocast dtype, numerically
// sensitive ops (exp, log, norms, losses, softmax's dtype...) in float32,
// mixed-dtype ops at the widest input dtype. The casts are ordinary russet
// ops (native). python/russet/_module.py's get_amp_supported_dtype names the
// dtypes: float16 and bfloat16.
#include <ATen/autocast_mode.h>
#include <torch/library.h>

namespace russet {
namespace {

// binary_cross_entropy is unsafe to autocast (its log saturates in
// float16): refused as CUDA and CPU autocast refuse it.
at::Tensor binary_cross_entropy_refused(const at::Tensor&, const at::Tensor&, const std::optional<at::Tensor>&,
                                        int64_t) {
  TORCH_CHECK(false,
              "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast: their log "
              "saturates in reduced precision. Use torch.nn.functional.binary_cross_entropy_with_logits or "
              "torch.nn.BCEWithLogitsLoss (sigmoid and the loss in one, safe to autocast), or run the loss outside "
              "the autocast region on float32 inputs.");
}

}  // namespace

TORCH_LIBRARY_IMPL(_, AutocastPrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFallthrough());
}

// the op lists' norm overloads name their functions and types unqualified
#define ADD_NS(RAW_OP) at::RAW_OP
using at::IntArrayRef;
// ATen's op lists name their argument types unqualified (they are expanded
// inside namespace at::autocast there): torch 2.11's list needs at::DimnameList
// and others, so the whole of at is visible here
using namespace at;  // NOLINT(google-build-using-namespace)
#define RS_AUTOCAST_LOW(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, lower_precision_fp)
#define RS_AUTOCAST_FP32(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, fp32)
#define RS_AUTOCAST_FP32_OPT_DTYPE(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, fp32_set_opt_dtype)
#define RS_AUTOCAST_PROMOTE(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, promote)

TORCH_LIBRARY_IMPL(aten, AutocastPrivateUse1, m) {
  AT_FORALL_LOWER_PRECISION_FP(RS_AUTOCAST_LOW)
  AT_FORALL_FP32(RS_AUTOCAST_FP32)
  AT_FORALL_FP32_SET_OPT_DTYPE(RS_AUTOCAST_FP32_OPT_DTYPE)
  AT_FORALL_DIFFERENT_REDISPATCH_SIGNATURE(KERNEL_DIFFERENT_REDISPATCH_SIGNATURE_PRIVATEUSEONE)
  AT_FORALL_PROMOTE(RS_AUTOCAST_PROMOTE)
  m.impl(TORCH_SELECTIVE_NAME("aten::binary_cross_entropy"), TORCH_FN(binary_cross_entropy_refused));
}

}  // namespace russet
