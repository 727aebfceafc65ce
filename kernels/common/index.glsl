// index.glsl: logical (row-major) element index -> element offsets of
// strided views. The host coalesces dims first, so most views arrive with
// ndim 0 (contiguous: offset = index) or 1.
//
// Parameter block (in the stream arena, 8-byte aligned):
//   int64 sizes[ndim], int64 strides0[ndim], int64 strides1[ndim]
#ifndef RS_INDEX_GLSL
#define RS_INDEX_GLSL

// i / sz and i % sz, in 32-bit arithmetic when both fit (64-bit division
// is emulated on most GPUs).
void rs_divmod(inout uint64_t i, uint64_t sz, out uint64_t r) {
    if (((i | sz) >> 32) == 0UL) {
        uint a = uint(i), b = uint(sz);
        r = uint64_t(a % b);
        i = uint64_t(a / b);
    } else {
        r = i % sz;
        i = i / sz;
    }
}

int64_t rs_offset1(uint64_t params, uint ndim, uint64_t i) {
    int64_t o = 0L;
    for (int d = int(ndim) - 1; d >= 0; --d) {
        uint64_t r;
        rs_divmod(i, uint64_t(RsI64(params + 8UL * uint64_t(d)).v), r);
        o += int64_t(r) * RsI64(params + 8UL * uint64_t(int(ndim) + d)).v;
    }
    return o;
}

void rs_offset2(uint64_t params, uint ndim, uint64_t i, out int64_t o0, out int64_t o1) {
    o0 = 0L;
    o1 = 0L;
    for (int d = int(ndim) - 1; d >= 0; --d) {
        uint64_t r;
        rs_divmod(i, uint64_t(RsI64(params + 8UL * uint64_t(d)).v), r);
        o0 += int64_t(r) * RsI64(params + 8UL * uint64_t(int(ndim) + d)).v;
        o1 += int64_t(r) * RsI64(params + 8UL * uint64_t(2 * int(ndim) + d)).v;
    }
}

// Offsets of `nt` views (at most 5) for element i; the block holds sizes,
// then each view's strides.
void rs_offsetn(uint64_t params, uint ndim, int nt, uint64_t i, inout int64_t o[5]) {
    for (int k = 0; k < 5; ++k) o[k] = 0L;
    for (int d = int(ndim) - 1; d >= 0; --d) {
        uint64_t r;
        rs_divmod(i, uint64_t(RsI64(params + 8UL * uint64_t(d)).v), r);
        for (int k = 0; k < nt; ++k)
            o[k] += int64_t(r) * RsI64(params + 8UL * uint64_t((k + 1) * int(ndim) + d)).v;
    }
}

// Grid-stride loop bounds: every kernel here is 1-D with 256 invocations.
#define RS_WG 256
#define RS_FOR_EACH(i, n)                                                       \
    for (uint64_t i = uint64_t(gl_GlobalInvocationID.x); i < (n);               \
         i += uint64_t(gl_NumWorkGroups.x) * uint64_t(RS_WG))

#endif
