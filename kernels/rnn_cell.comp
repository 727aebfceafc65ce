// rnn_cell.comp: the fused recurrent cells (src/engine/rnn.c; contract in
// russet/rnn.h). One invocation per (batch row b, hidden unit h); MODE is
// an rs_rnn_cell_op. Every value is computed in ACC (the opmath type) with
// the same sigmoid and tanh as the pointwise ops, in ATen's order of
// operations; results round to their tensor's dtype once.
//
// Defines: DT (every tensor's dtype), GDT (grad_gates' and
// grad_hidden_gates' dtype: DT or its opmath type), MODE.
#version 460
#include "common/dtype.glsl"
#include "params/rnn.h"
#include "common/index.glsl"
#include "common/opmath.glsl"

layout(local_size_x = RS_WG) in;

#define T_DT DT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#if GDT != DT
#define T_DT GDT
#include "common/dtype_inst.glsl"
#include "common/opmath_inst.glsl"
#undef T_DT
#endif
#define ACC RS_OPMT(DT)
#define rs_raise(code, value)  // (nothing here raises)
#define CM_DT 6
#include "common/ops.glsl"  // rs_op_sigmoid, rs_op_tanh

layout(push_constant) uniform Push { RS_RNN_PUSH } pc;

int64_t ip(int slot) { return RsI64(pc.params + 8UL * uint64_t(slot)).v; }
int64_t at2(int k, int64_t row, int64_t col) { return row * ip(RP_ST + 2 * k) + col * ip(RP_ST + 1 + 2 * k); }

ACC ld(int k, int64_t row, int64_t col) { return RS_LDO(DT)(pc.t[k], at2(k, row, col)); }
void st(int k, int64_t row, int64_t col, ACC v) {
#if RS_IS_DBL(DT)
    RS_SET_D(DT)(pc.t[k], at2(k, row, col), doubleBitsToUint64(v));
#else
    RS_SET_F(DT)(pc.t[k], at2(k, row, col), v);
#endif
}
void st_grad(int k, int64_t row, int64_t col, ACC v) {
#if RS_IS_DBL(GDT)
    RS_SET_D(GDT)(pc.t[k], at2(k, row, col), doubleBitsToUint64(v));
#else
    RS_SET_F(GDT)(pc.t[k], at2(k, row, col), v);
#endif
}
// a bias element (1-d: its stride is the column stride), 0 when absent
bool has(int k) { return pc.t[k] != 0UL; }

void main() {
    const int64_t H = ip(RP_H);
    const ACC one = ACC(1);
    for (uint64_t e = uint64_t(gl_GlobalInvocationID.x); e < pc.items;
         e += uint64_t(gl_NumWorkGroups.x) * uint64_t(RS_WG)) {
        const int64_t b = int64_t(e) / H, h = int64_t(e) % H;
#if MODE == 0
        // LSTM: ((ig + hg) + ib) + hb per gate
        ACC g[4];
        for (int k = 0; k < 4; ++k) {
            const int64_t col = int64_t(k) * H + h;
            ACC v = ld(T_IG, b, col) + ld(T_HG, b, col);
            if (has(T_IB)) v = v + ld(T_IB, 0, col);
            if (has(T_HB)) v = v + ld(T_HB, 0, col);
            g[k] = v;
        }
        const ACC i = rs_op_sigmoid(g[0]), f = rs_op_sigmoid(g[1]), c = rs_op_tanh(g[2]), o = rs_op_sigmoid(g[3]);
        const ACC cy = f * ld(T_STATE, b, h) + i * c;
        st(T_HY, b, h, o * rs_op_tanh(cy));
        st(T_CY, b, h, cy);
        st(T_WS, b, h, i);
        st(T_WS, b, H + h, f);
        st(T_WS, b, 2 * H + h, c);
        st(T_WS, b, 3 * H + h, o);
#elif MODE == 1
        const ACC i = ld(T_WS, b, h), f = ld(T_WS, b, H + h), c = ld(T_WS, b, 2 * H + h), o = ld(T_WS, b, 3 * H + h);
        const ACC tc = rs_op_tanh(ld(T_CY, b, h));
        const ACC ghy = has(T_GHY) ? ld(T_GHY, b, h) : ACC(0);
        // gcx = grad_hy o (1 - tanh(cy)^2) + grad_cy
        ACC gcx = (ghy * o) * (one - tc * tc);
        if (has(T_GCY)) gcx = gcx + ld(T_GCY, b, h);
        st_grad(T_GG, b, h, (gcx * c) * (i * (one - i)));
        st_grad(T_GG, b, H + h, (gcx * ld(T_STATE, b, h)) * (f * (one - f)));
        st_grad(T_GG, b, 2 * H + h, (gcx * i) * (one - c * c));
        st_grad(T_GG, b, 3 * H + h, (ghy * tc) * (o * (one - o)));
        st(T_GSTATE, b, h, gcx * f);
#elif MODE == 2
        // GRU: ig' = ig (+ ib), hg' = hg (+ hb)
        ACC a[3], hgb[3];
        for (int k = 0; k < 3; ++k) {
            const int64_t col = int64_t(k) * H + h;
            a[k] = has(T_IB) ? ld(T_IG, b, col) + ld(T_IB, 0, col) : ld(T_IG, b, col);
            hgb[k] = has(T_HB) ? ld(T_HG, b, col) + ld(T_HB, 0, col) : ld(T_HG, b, col);
        }
        const ACC r = rs_op_sigmoid(a[0] + hgb[0]), z = rs_op_sigmoid(a[1] + hgb[1]);
        const ACC n = rs_op_tanh(a[2] + r * hgb[2]);
        const ACC hx = ld(T_STATE, b, h);
        st(T_HY, b, h, n + z * (hx - n));
        st(T_WS, b, h, r);
        st(T_WS, b, H + h, z);
        st(T_WS, b, 2 * H + h, n);
        st(T_WS, b, 3 * H + h, hx);
        st(T_WS, b, 4 * H + h, hgb[2]);
#else
        const ACC r = ld(T_WS, b, h), z = ld(T_WS, b, H + h), n = ld(T_WS, b, 2 * H + h);
        const ACC hx = ld(T_WS, b, 3 * H + h), hn = ld(T_WS, b, 4 * H + h);
        const ACC go = ld(T_GHY, b, h);
        const ACC gz = (go * (hx - n)) * (z * (one - z));
        const ACC gn = (go * (one - z)) * (one - n * n);
        const ACC gr = (gn * hn) * (r * (one - r));
        st_grad(T_GG, b, h, gr);
        st_grad(T_GG, b, H + h, gz);
        st_grad(T_GG, b, 2 * H + h, gn);
        st_grad(T_GHG, b, h, gr);
        st_grad(T_GHG, b, H + h, gz);
        st_grad(T_GHG, b, 2 * H + h, gn * r);
        st(T_GSTATE, b, h, go * z);
#endif
    }
}
