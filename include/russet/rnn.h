/* russet/rnn.h: the fused recurrent cells (ATen's _thnn_fused_lstm_cell,
 * _thnn_fused_gru_cell and their backward kernels, which nn.LSTM, nn.GRU
 * and their cells call on every device but CPU), one kernel each: an
 * invocation per (batch row, hidden unit) reads its gates and state and
 * writes the new state, the workspace and, backward, the gradients. The
 * formulas and workspace layouts are ATen's CUDA kernels' (RNN.cu), in the
 * opmath type (float32 for float16/bfloat16, float64 for float64).
 *
 * Tensors are 2-d with any strides: gates (B, G * H) with G = 4 (LSTM: i,
 * f, g, o) or 3 (GRU: r, z, n), states (B, H), biases 1-d (G * H) or
 * address 0. All of one floating dtype (float64 only with fp64:
 * RS_ERR_UNSUPPORTED otherwise). The bias gradients are the batch sums of
 * the gate gradients: the caller's reduction. */
#ifndef RUSSET_RNN_H
#define RUSSET_RNN_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rs_rnn_cell_op {
    /* i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of ig + hg (+ ib) (+ hb);
     * cy = f cx + i g; hy = o tanh(cy); workspace (B, 4H) = [i, f, g, o] */
    RS_LSTM_CELL = 0,
    /* from grad_hy, grad_cy (either may be absent), cx, cy and the
     * workspace: grad_gates (B, 4H) and grad_cx = gcx f */
    RS_LSTM_CELL_BACKWARD = 1,
    /* r, z = sigmoid(ig' + hg') of their chunks, n = tanh(ig'_n + r hg'_n)
     * with ig' = ig (+ ib), hg' = hg (+ hb); hy = n + z (hx - n);
     * workspace (B, 5H) = [r, z, n, hx, hg'_n] */
    RS_GRU_CELL = 2,
    /* from grad_hy and the workspace: grad_gates (B, 3H) of the input
     * gates [gr, gz, gn], grad_hidden_gates (B, 3H) [gr, gz, gn r] and
     * grad_state = grad_hx = grad_hy z */
    RS_GRU_CELL_BACKWARD = 3,
} rs_rnn_cell_op;

typedef struct rs_rnn_cell {
    rs_rnn_cell_op op;
    rs_tensor input_gates, hidden_gates; /* forward */
    rs_tensor input_bias, hidden_bias;   /* forward, optional */
    rs_tensor state;                     /* forward: cx (LSTM) or hx (GRU); LSTM backward: cx */
    rs_tensor hy, cy;                    /* forward outputs (cy: LSTM); LSTM backward: cy is read */
    rs_tensor workspace;                 /* forward: written; backward: read */
    rs_tensor grad_hy, grad_cy;          /* backward (grad_cy: LSTM); address 0: zeros */
    rs_tensor grad_gates;                /* backward: written */
    rs_tensor grad_hidden_gates;         /* GRU backward: written */
    rs_tensor grad_state;                /* backward: grad_cx (LSTM) or grad_hx (GRU), written */
} rs_rnn_cell;

RS_API rs_status rs_rnn_cell_run(rs_stream *s, const rs_rnn_cell *p);

#ifdef __cplusplus
}
#endif
#endif
