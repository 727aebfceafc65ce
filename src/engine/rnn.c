/* rnn.c: the fused recurrent cells (rs_rnn_cell_run; contract in
 * russet/rnn.h), one launch of kernels/rnn_cell.comp each, an invocation
 * per (batch row, hidden unit). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/rnn.h"
#include "russet/rnn.h"

/* the tensors each op reads (r) and writes (w), and the columns of each in
 * units of H (0: a bias, 1-d of G * H) */
typedef struct role {
    int used, write, cols;
} role;

static void roles(rs_rnn_cell_op op, role r[NT]) {
    memset(r, 0, NT * sizeof *r);
    const int g = op == RS_LSTM_CELL || op == RS_LSTM_CELL_BACKWARD ? 4 : 3;
#define USE(k, w, c) (r[k] = (role){1, w, c})
    switch (op) {
    case RS_LSTM_CELL:
    case RS_GRU_CELL:
        USE(T_IG, 0, g), USE(T_HG, 0, g), USE(T_IB, 0, 0), USE(T_HB, 0, 0), USE(T_STATE, 0, 1);
        USE(T_HY, 1, 1), USE(T_WS, 1, op == RS_LSTM_CELL ? 4 : 5);
        if (op == RS_LSTM_CELL) USE(T_CY, 1, 1);
        break;
    case RS_LSTM_CELL_BACKWARD:
        USE(T_STATE, 0, 1), USE(T_CY, 0, 1), USE(T_WS, 0, 4), USE(T_GHY, 0, 1), USE(T_GCY, 0, 1);
        USE(T_GG, 1, 4), USE(T_GSTATE, 1, 1);
        break;
    case RS_GRU_CELL_BACKWARD:
        USE(T_WS, 0, 5), USE(T_GHY, 0, 1), USE(T_GG, 1, 3), USE(T_GHG, 1, 3), USE(T_GSTATE, 1, 1);
        break;
    }
#undef USE
}

rs_status rs_rnn_cell_run(rs_stream *s, const rs_rnn_cell *p) {
    static const char *names[NT] = {"input_gates", "hidden_gates", "input_bias", "hidden_bias", "state",
                                    "hy", "cy", "workspace", "grad_hy", "grad_cy", "grad_gates",
                                    "grad_hidden_gates", "grad_state"};
    if (!s || !p) return rs_error(RS_ERR_INVALID, "rs_rnn_cell: missing arguments");
    if ((int)p->op < RS_LSTM_CELL || p->op > RS_GRU_CELL_BACKWARD)
        return rs_error(RS_ERR_INVALID, "rs_rnn_cell: bad op %d", (int)p->op);
    const rs_tensor *t[NT] = {&p->input_gates, &p->hidden_gates, &p->input_bias, &p->hidden_bias, &p->state,
                              &p->hy,          &p->cy,           &p->workspace,  &p->grad_hy,     &p->grad_cy,
                              &p->grad_gates,  &p->grad_hidden_gates, &p->grad_state};
    role r[NT];
    roles(p->op, r);
    /* the state-shaped output names B and H */
    const rs_tensor *shape = p->op == RS_LSTM_CELL || p->op == RS_GRU_CELL ? &p->hy : &p->grad_state;
    if (!shape->address || shape->ndim != 2)
        return rs_error(RS_ERR_INVALID, "rs_rnn_cell: %s must be a 2-d (batch, hidden) tensor",
                        names[shape == &p->hy ? T_HY : T_GSTATE]);
    const int64_t B = shape->sizes[0], H = shape->sizes[1];
    const rs_dtype dt = shape->dtype;
    if (!rs_dtype_is_nn_float(dt))
        return rs_error(RS_ERR_UNSUPPORTED, "rs_rnn_cell: no kernel for %s (floating types only)", rs_dtype_name(dt));
    if (dt == RS_FLOAT64 && !rs_stream_features(s)->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "rs_rnn_cell: float64 needs float64 arithmetic, which this device lacks");
    const rs_dtype opmath = dt == RS_FLOAT64 ? RS_FLOAT64 : RS_FLOAT32;
    rs_dtype gdt = dt;
    int64_t slots[RP_SLOTS] = {[RP_B] = B, [RP_H] = H};
    uint64_t addr[NT] = {0};
    for (int k = 0; k < NT; ++k) {
        if (!r[k].used || !t[k]->address) {
            /* required: all but the biases and the optional incoming gradients */
            int optional = k == T_IB || k == T_HB || (p->op == RS_LSTM_CELL_BACKWARD && (k == T_GHY || k == T_GCY));
            if (r[k].used && !optional) return rs_error(RS_ERR_INVALID, "rs_rnn_cell: %s is missing", names[k]);
            continue;
        }
        const rs_tensor *x = t[k];
        const int is_grad = k == T_GG || k == T_GHG;
        if (x->dtype != dt && !(is_grad && x->dtype == opmath))
            return rs_error(RS_ERR_INVALID, "rs_rnn_cell: %s is %s, expected %s", names[k], rs_dtype_name(x->dtype),
                            rs_dtype_name(dt));
        if (is_grad) gdt = x->dtype;
        const int64_t cols = r[k].cols ? r[k].cols * H : 0;
        const int ok = r[k].cols ? x->ndim == 2 && x->sizes[0] == B && x->sizes[1] == cols
                                 : x->ndim == 1 && x->sizes[0] == r[T_IG].cols * H;
        if (!ok || (x->ndim >= 1 && x->strides[0] < 0) || (x->ndim == 2 && x->strides[1] < 0)) {
            if (r[k].cols)
                return rs_error(RS_ERR_INVALID, "rs_rnn_cell: %s must be (%lld, %lld) with strides >= 0", names[k],
                                (long long)B, (long long)cols);
            return rs_error(RS_ERR_INVALID, "rs_rnn_cell: %s must be 1-d of %lld with a stride >= 0", names[k],
                            (long long)(r[T_IG].cols * H));
        }
        addr[k] = x->address;
        if (x->ndim == 2) slots[RP_ST + 2 * k] = x->strides[0], slots[RP_ST + 1 + 2 * k] = x->strides[1];
        else slots[RP_ST + 1 + 2 * k] = x->strides[0]; /* a bias: row 0, its own stride */
    }
    if (p->op == RS_GRU_CELL_BACKWARD && addr[T_GG] && addr[T_GHG] && p->grad_gates.dtype != p->grad_hidden_gates.dtype)
        return rs_error(RS_ERR_INVALID, "rs_rnn_cell: grad_gates and grad_hidden_gates differ in dtype");
    if (B * H == 0) return RS_OK;

    uint64_t params;
    void *host = NULL;
    rs_status st = rs_stream_arena(s, sizeof slots, &host, &params);
    if (st) return st;
    memcpy(host, slots, sizeof slots);
    struct { RS_RNN_PUSH } pc;
    memcpy(pc.t, addr, sizeof addr);
    pc.params = params;
    pc.items = (uint64_t)(B * H);
    rs_access acc[NT];
    int n = 0;
    for (int k = 0; k < NT; ++k)
        if (addr[k]) acc[n++] = rs_tensor_access(t[k], r[k].write);
    char defines[64];
    snprintf(defines, sizeof defines, "DT=%d;GDT=%d;MODE=%d", (int)dt, (int)gdt, (int)p->op);
    rs_kernel *k = NULL;
    if ((st = rs_kernel_get(rs_stream_device(s), "rnn_cell.comp", defines, &k)) != RS_OK) return st;
    return rs_launch(s, k, pc.items, &pc, sizeof pc, acc, n);
}
