// Weight-only quantized matrix products, the linear layers of int8 and
// int4 quantized language models (torchao, gpt-fast): _weight_int8pack_mm,
// _convert_weight_to_int4pack and _weight_int4pack_mm on the C core's
// quantized-product engine (russet/quant.h; docs/low-precision.md).
//
// The int4 packed weight has the shape every non-CPU device gives it (the
// meta function's (N / 8, K / (innerKTiles * 16), 32, innerKTiles / 2)
// int32) and russet's own contents: the input's bytes, (N, K / 2), two
// weights a byte with the even k in the high nibble, which the engine
// reads as they are.
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include "russet/quant.h"
#include "torch/adapter.h"

namespace russet {
namespace {

using at::Tensor;

bool float_activation(const Tensor& t) {
  auto dt = t.scalar_type();
  return dt == at::kFloat || dt == at::kHalf || dt == at::kBFloat16;
}

Tensor run(const Tensor& A, const Tensor& W, const Tensor& scales, int bits, int64_t group, int64_t N) {
  Tensor out = at::empty({A.size(0), N}, A.options());
  rs_weight_qmm q{};
  q.x = describe(A), q.w = describe(W), q.scales = describe(scales), q.out = describe(out);
  q.bits = bits, q.group = group;
  check(rs_weight_qmm_run(current_stream_for(A), &q));
  return out;
}

// out = (A @ B^T) * scales: A (M, K) float, B (N, K) int8, scales (N) of A's dtype
Tensor weight_int8pack_mm(const Tensor& A, const Tensor& B, const Tensor& scales) {
  const char* op = "_weight_int8pack_mm";
  TORCH_CHECK(float_activation(A), op, " : expect A to be either 32-bit or 16-bit float tensor.");
  TORCH_CHECK(A.dim() == 2, op, " : expect A to be 2D tensor.");
  TORCH_CHECK(A.stride(1) == 1, op, " : A must be contiguous on the last dimension.");
  TORCH_CHECK(B.scalar_type() == at::kChar, op, " : expect B to be int8 tensor.");
  TORCH_CHECK(B.dim() == 2 && B.is_contiguous(), op, " : expect B to be contiguous.");
  TORCH_CHECK(B.size(1) == A.size(1), op, " : expect B.size(1) == ", A.size(1));
  TORCH_CHECK(scales.dim() == 1 && scales.size(0) == B.size(0), op, " : expect scales to be 1d tensor with size ",
              B.size(0));
  TORCH_CHECK(scales.scalar_type() == A.scalar_type(), "expected scalar type ", A.scalar_type(), " but found ",
              scales.scalar_type());
  return run(A, B, scales, 8, 0, B.size(0));
}

// (N, K / 2) uint8 -> the packed int32 tensor (its bytes unchanged)
Tensor convert_weight_to_int4pack(const Tensor& in, int64_t innerKTiles) {
  const char* op = "_convert_weight_to_int4pack";
  TORCH_CHECK(in.dim() == 2, op, " : expect weight to be 2D tensor.");
  TORCH_CHECK(in.scalar_type() == at::kByte, op, " : expect weight to be kByte.");
  TORCH_CHECK(innerKTiles == 2 || innerKTiles == 4 || innerKTiles == 8, op,
              " : innerKTiles need to be 2, 4, or 8, got ", innerKTiles);
  const int64_t N = in.size(0), K = in.size(1) * 2;
  TORCH_CHECK(N % 8 == 0, op, " : expect N to be a multiple of 8, got ", N);
  TORCH_CHECK(K % (innerKTiles * 16) == 0, op, " : expect K to be a multiple of ", innerKTiles * 16, ", got ", K);
  Tensor out = at::empty({N / 8, K / (innerKTiles * 16), 32, innerKTiles / 2}, in.options().dtype(at::kInt));
  if (out.numel()) out.view(at::kByte).view({N, K / 2}).copy_(in);
  return out;
}

// out = A @ W^T, W[n, k] = (q - 8) * scale + zero per group of qGroupSize along K
Tensor weight_int4pack_mm(const Tensor& A, const Tensor& B, int64_t qGroupSize, const Tensor& qScaleAndZeros) {
  const char* op = "_weight_int4pack_mm";
  TORCH_CHECK(float_activation(A), op, " : expect A to be either 32-bit or 16-bit float tensor.");
  TORCH_CHECK(A.dim() == 2, op, " : expect A to be 2D tensor.");
  TORCH_CHECK(A.stride(1) == 1, op, " : A must be contiguous on the last dimension.");
  TORCH_CHECK(B.scalar_type() == at::kInt, op, " : expect B to be int32 tensor.");
  TORCH_CHECK(B.dim() == 4 && B.is_contiguous(), op, " : expect B to be a contiguous 4D tensor.");
  TORCH_CHECK(qGroupSize == 32 || qGroupSize == 64 || qGroupSize == 128 || qGroupSize == 256, op,
              " : expect qGroupSize to be 32, 64, 128 or 256, got ", qGroupSize);
  const int64_t N = B.size(0) * 8, K = A.size(1);
  TORCH_CHECK(B.size(1) * B.size(3) * 32 == K, op, " : expect A.size(1) (", K, ") to be the packed weight's K (",
              B.size(1) * B.size(3) * 32, ")");
  TORCH_CHECK(K % qGroupSize == 0, op, " : expect K to be a multiple of qGroupSize, got K ", K);
  TORCH_CHECK(qScaleAndZeros.dim() == 3 && qScaleAndZeros.size(0) == K / qGroupSize &&
                  qScaleAndZeros.size(1) == N && qScaleAndZeros.size(2) == 2,
              op, " : expect qScaleAndZeros to be 3d tensor with sizes [", K / qGroupSize, ", ", N, ", 2]");
  TORCH_CHECK(qScaleAndZeros.scalar_type() == A.scalar_type(), "expected scalar type ", A.scalar_type(),
              " but found ", qScaleAndZeros.scalar_type());
  Tensor bytes = B.view(at::kByte).view({N, K / 2});
  return run(A, bytes, qScaleAndZeros, 4, qGroupSize, N);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_weight_int8pack_mm", weight_int8pack_mm);
  m.impl("_convert_weight_to_int4pack", convert_weight_to_int4pack);
  m.impl("_weight_int4pack_mm", weight_int4pack_mm);
}

}  // namespace russet
