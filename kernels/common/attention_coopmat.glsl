// common/attention_coopmat.glsl: what the fused attention kernels
// (attention_coopmat_khr.comp, attention_bwd_coopmat_khr.comp) share:
// staging rows of 8 halves a load into shared memory, a float16 encoder
// without branches. The includer defines D (head dims), DSR (a staged row's
// stride in uvec4), NT (invocations), `shared uvec4 sm[]` and, for
// fetch/put, NPF (16-byte pieces a block puts on an invocation) first.

layout(buffer_reference, std430, buffer_reference_align = 16) buffer RsV4 { uvec4 v; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer RsF32 { float v; };

// 16-byte loads and stores of 8 dims: the dims contiguous, every stride a
// multiple of 8 halves, n dims a multiple of 8 and the base 16-byte aligned
bool vec_ok(int64_t st[4], int64_t n, uint64_t base) {
    return st[3] == 1L && (st[2] % 8L) == 0L && (st[1] % 8L) == 0L && (st[0] % 8L) == 0L && (n % 8L) == 0L &&
           (base % 16UL) == 0UL;
}

// 8 halves of a row from dim d (0 past n dims or when the row is outside)
uvec4 row8(uint64_t base, int64_t off, int64_t dst, int64_t d, int64_t n, bool inside, bool vec) {
    if (!inside || d >= n) return uvec4(0u);
    if (vec) return RsV4(base + uint64_t(off + d) * 2UL).v;
    uint w[8];
    [[unroll]] for (uint e = 0u; e < 8u; ++e)
        w[e] = d + int64_t(e) < n ? uint(RsU16(base + uint64_t(off + (d + int64_t(e)) * dst) * 2UL).v) : 0u;
    return uvec4(w[0] | (w[1] << 16), w[2] | (w[3] << 16), w[4] | (w[5] << 16), w[6] | (w[7] << 16));
}

// rows r0 .. r0 + nr - 1 (of `rows`) of a (b, h) slice at `off0` with
// strides st into shared memory at `at`, D dims (n of them real)
void stage(uint at, uint nr, uint64_t base, int64_t off0, int64_t st[4], int64_t r0, int64_t rows, int64_t n,
           bool vec, uint tid) {
    for (uint c = tid; c < nr * uint(D / 8); c += NT) {
        const uint r = c / uint(D / 8), q = c % uint(D / 8);
        const int64_t row = r0 + int64_t(r);
        sm[at + r * uint(DSR) + q] = row8(base, off0 + row * st[2], st[3], int64_t(q * 8u), n, row < rows, vec);
    }
}

#ifdef NPF
// A block of rows staged in two halves, so that its global loads run
// while the block before it is computed: fetch(buf, ...) loads the
// invocation's NPF pieces of rows r0 .. (the block's NPF * NT pieces),
// put(at, buf) stores them into shared memory at `at`.
void fetch(out uvec4 buf[NPF], uint64_t base, int64_t off0, int64_t st[4], int64_t r0, int64_t rows, int64_t n,
           bool vec, uint tid) {
    [[unroll]] for (uint i = 0u; i < uint(NPF); ++i) {
        const uint c = tid + i * NT, r = c / uint(D / 8), q = c % uint(D / 8);
        const int64_t row = r0 + int64_t(r);
        buf[i] = row8(base, off0 + row * st[2], st[3], int64_t(q * 8u), n, row < rows, vec);
    }
}
void put(uint at, uvec4 buf[NPF], uint tid) {
    [[unroll]] for (uint i = 0u; i < uint(NPF); ++i) {
        const uint c = tid + i * NT;
        sm[at + (c / uint(D / 8)) * uint(DSR) + c % uint(D / 8)] = buf[i];
    }
}
#endif

// float16 bits of f as c10 rounds them (round to nearest even, overflow to
// inf, NaN to 0x7E00), without rs_f16_enc_c10's branches: the normal
// rounding and the subnormal one (|f| + 0.5, whose unit in the last place
// is 2^-24, the subnormal unit: the add rounds to it) both computed, then
// selected. Needs float32 adds that round to nearest even, as every device
// with cooperative matrices does; a float32 denormal |f| gives 0 either way.
// (Its arithmetic matched numpy's float16 rounding on all 2^32 float32 bit
// patterns, NaNs as c10 writes them: thirty-seventh session.)
uint rs_f16_enc_sel(float f) {
    const uint w = floatBitsToUint(f), a = w & 0x7FFFFFFFu;
    const uint nrm = (a - 0x38000000u + 0xFFFu + ((a >> 13) & 1u)) >> 13;
    const uint sub = floatBitsToUint(uintBitsToFloat(a) + 0.5) - 0x3F000000u;
    uint v = a < 0x38800000u ? sub : nrm;
    v = a >= 0x477FF000u ? 0x7C00u : v;
    v = a > 0x7F800000u ? 0x7E00u : v;
    return ((w >> 16) & 0x8000u) | v;
}
