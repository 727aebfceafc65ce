/* reduce.c: the reduction engine (rs_reduce_run). Splits the input's dims
 * into kept and reduced ones, coalesces each group, picks the lanes per
 * output and the number of chunks from the shapes alone (so results are
 * deterministic), and launches kernels/reduce.comp once, or twice when the
 * reduced range is cut into chunks. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "params/reduce.h"

typedef struct reduce_push { RS_REDUCE_PUSH } reduce_push;

/* the largest state of reduce.comp (dvec2 mean, double m2, int64 n) */
#define RS_REDUCE_STATE_MAX 32
/* workgroups one pass should fill before chunks stop paying for pass 2 */
#define RS_REDUCE_TARGET_GROUPS 1024
/* elements per lane, at least, before a row gets more lanes (fewer lanes:
 * fewer rounds of the shared-memory tree) */
#define RS_REDUCE_LANE_MIN 64
/* elements a lane folds per chunk, at least */
#define RS_REDUCE_MIN_PER_LANE 64

static const char *const op_names[RS_REDUCE_OP_COUNT] = {
    "sum", "nansum", "prod", "mean", "max", "min", "argmax", "argmin",
    "all", "any", "count_nonzero", "norm", "var", "std"};

static uint64_t next_pow2(uint64_t x) {
    uint64_t p = 1;
    while (p < x) p <<= 1;
    return p;
}

static rs_status check_args(const rs_reduce *r, const rs_features *f) {
    if ((int)r->op < 0 || r->op >= RS_REDUCE_OP_COUNT) return rs_error(RS_ERR_INVALID, "rs_reduce: bad op %d", (int)r->op);
    if (!rs_dtype_valid((int)r->acc) || !rs_dtype_valid((int)r->in.dtype))
        return rs_error(RS_ERR_INVALID, "rs_reduce %s: bad dtype", r->name);
    const rs_tensor *outs[2] = {&r->out, &r->out2};
    int any_out = 0;
    for (int k = 0; k < 2; ++k) {
        const rs_tensor *o = outs[k];
        if (!o->address) continue;
        any_out = 1;
        if (!rs_dtype_valid((int)o->dtype)) return rs_error(RS_ERR_INVALID, "rs_reduce %s: bad output dtype", r->name);
        if (o->ndim != r->in.ndim)
            return rs_error(RS_ERR_INVALID, "rs_reduce %s: output %d has %d dims, the input %d (keepdim form expected)",
                            r->name, k, o->ndim, r->in.ndim);
        for (int d = 0; d < o->ndim; ++d)
            if (o->sizes[d] != r->in.sizes[d] && o->sizes[d] != 1)
                return rs_error(RS_ERR_INVALID, "rs_reduce %s: output %d has size %lld at dim %d, the input %lld",
                                r->name, k, (long long)o->sizes[d], d, (long long)r->in.sizes[d]);
    }
    if (!any_out) return rs_error(RS_ERR_INVALID, "rs_reduce %s: no output", r->name);
    if (r->out.address && r->out2.address)
        for (int d = 0; d < r->in.ndim; ++d)
            if (r->out.sizes[d] != r->out2.sizes[d])
                return rs_error(RS_ERR_INVALID, "rs_reduce %s: the two outputs differ in size", r->name);
    int need64 = rs_dtype_needs_fp64(r->acc) || rs_dtype_needs_fp64(r->in.dtype) ||
                 (r->out.address && rs_dtype_needs_fp64(r->out.dtype)) ||
                 (r->out2.address && rs_dtype_needs_fp64(r->out2.dtype));
    if (need64 && !f->has_fp64)
        return rs_error(RS_ERR_UNSUPPORTED, "rs_reduce %s: float64/complex128 needs shaderFloat64, which this "
                        "device (profile %s) lacks", r->name, rs_profile_name(rs_profile_current()));
    int cplx = r->acc == RS_COMPLEX32 || r->acc == RS_COMPLEX64 || r->acc == RS_COMPLEX128;
    if (cplx && (r->op == RS_REDUCE_MAX || r->op == RS_REDUCE_MIN || r->op == RS_REDUCE_ARGMAX ||
                 r->op == RS_REDUCE_ARGMIN))
        return rs_error(RS_ERR_INVALID, "rs_reduce %s: complex values have no order", r->name);
    if (r->acc == RS_BOOL || r->acc == RS_FLOAT16 || r->acc == RS_BFLOAT16)
        return rs_error(RS_ERR_INVALID, "rs_reduce %s: accumulate in int64 or float32, not %s", r->name,
                        rs_dtype_name(r->acc));
    return RS_OK;
}

static int norm_kind(double p) {
    if (p == 0.0) return 0;
    if (p == 1.0) return 1;
    if (p == 2.0) return 2;
    if (p > 0 && p * 0.5 == p) return 3; /* +inf */
    if (p < 0 && p * 0.5 == p) return 4; /* -inf */
    return 5;
}

/* A scalar parameter's bits in the state's type: double bits with a
 * double state, float bits otherwise. */
static uint64_t param_bits(rs_dtype acc, double v) {
    if (acc == RS_FLOAT64 || acc == RS_COMPLEX128) return rs_f64_bits(v);
    return rs_f32_bits((float)v);
}

rs_status rs_reduce_run(rs_stream *s, const rs_reduce *r) {
    if (!s || !r || !r->name) return rs_error(RS_ERR_INVALID, "rs_reduce: missing arguments");
    const rs_features *f = rs_stream_features(s);
    rs_status st = check_args(r, f);
    if (st != RS_OK) return st;
    const rs_tensor *shape_of = r->out.address ? &r->out : &r->out2;

    /* kept dims: views of in, out, out2 over them; reduced dims: in */
    rs_tensor kin, kout, kout2, rin;
    memset(&kin, 0, sizeof kin);
    kin.dtype = r->in.dtype;
    kout = kin;
    kout.dtype = r->out.dtype;
    kout2 = kin;
    kout2.dtype = r->out2.dtype;
    rin = kin;
    for (int d = 0; d < r->in.ndim; ++d) {
        int reduced = shape_of->sizes[d] == 1 && r->in.sizes[d] != 1;
        if (reduced) {
            rin.sizes[rin.ndim] = r->in.sizes[d];
            rin.strides[rin.ndim++] = r->in.strides[d];
        } else {
            int n = kin.ndim++;
            kin.sizes[n] = kout.sizes[n] = kout2.sizes[n] = r->in.sizes[d];
            kin.strides[n] = r->in.strides[d];
            kout.strides[n] = r->out.address ? r->out.strides[d] : 0;
            kout2.strides[n] = r->out2.address ? r->out2.strides[d] : 0;
        }
    }
    kout.ndim = kout2.ndim = kin.ndim;
    /* the layout checks addresses: a missing output follows the input, and
     * an empty input (never read: every reduced range is empty) the output */
    uint64_t any = r->out.address ? r->out.address : r->out2.address;
    kin.address = rin.address = r->in.address ? r->in.address : any;
    kout.address = r->out.address ? r->out.address : kin.address;
    kout2.address = r->out2.address ? r->out2.address : kin.address;
    const rs_tensor *kviews[3] = {&kin, &kout, &kout2};
    const char *knames[3] = {"input", "output", "second output"};
    rs_layout kl, rl;
    if ((st = rs_layout_make_n(kviews, knames, 3, &kl)) != RS_OK) return st;
    const rs_tensor *rviews[1] = {&rin};
    const char *rnames[1] = {"input"};
    if ((st = rs_layout_make_n(rviews, rnames, 1, &rl)) != RS_OK) return st;
    uint64_t nout = (uint64_t)kl.numel, nred = (uint64_t)rl.numel;
    if (nout == 0) return RS_OK;

    /* lanes per output: enough that each folds a few elements; with a
     * strided reduced range, threads go to outputs first (their loads are
     * then the coalesced ones) */
    uint64_t tpo = next_pow2((nred + RS_REDUCE_LANE_MIN - 1) / RS_REDUCE_LANE_MIN);
    if (tpo > RS_KERNEL_WG) tpo = RS_KERNEL_WG;
    if (rl.ndim != 0) {
        uint64_t cap = RS_KERNEL_WG / (nout >= RS_KERNEL_WG ? RS_KERNEL_WG : next_pow2(nout));
        if (tpo > cap) tpo = cap;
    }
    if (tpo == 0) tpo = 1;
    uint64_t groups = (nout + RS_KERNEL_WG / tpo - 1) / (RS_KERNEL_WG / tpo);
    /* chunks, when the outputs alone leave the device idle */
    uint64_t nsplit = 1;
    if (groups < RS_REDUCE_TARGET_GROUPS) {
        uint64_t by_size = nred / (tpo * RS_REDUCE_MIN_PER_LANE);
        nsplit = (RS_REDUCE_TARGET_GROUPS + groups - 1) / groups;
        if (nsplit > by_size) nsplit = by_size;
        if (nsplit > 4096) nsplit = 4096;
        if (nsplit < 1) nsplit = 1;
    }
    uint64_t chunk = (nred + nsplit - 1) / nsplit;
    if (nsplit > 1) nsplit = (nred + chunk - 1) / chunk; /* no empty chunk */

    rs_dtype out2_dt = r->out2.address ? r->out2.dtype : r->out.dtype;
    rs_dtype out_dt = r->out.address ? r->out.dtype : out2_dt;
    int nk = r->op == RS_REDUCE_NORM ? norm_kind(r->p) : 0;
    rs_device *dev = rs_stream_device(s);
    reduce_push pc;
    memset(&pc, 0, sizeof pc);
    pc.in_ = r->in.address;
    pc.out_ = r->out.address;
    pc.out2_ = r->out2.address;
    pc.nout = nout;
    pc.nred = nred;
    pc.chunk = chunk;
    pc.p = param_bits(r->acc, r->p);
    pc.corr = param_bits(r->acc, r->correction);
    pc.err = rs_device_error_address(dev);
    pc.site = rs_device_error_site(dev, r->name);
    pc.kndim = (uint32_t)kl.ndim;
    pc.rndim = (uint32_t)rl.ndim;
    pc.tpo = (uint32_t)tpo;
    pc.nsplit = (uint32_t)nsplit;
    if ((st = rs_layout_upload(s, &kl, 3, &pc.kparams)) != RS_OK) return st;
    if ((st = rs_layout_upload(s, &rl, 1, &pc.rparams)) != RS_OK) return st;

    rs_access acc[4];
    int nacc = 0;
    acc[nacc++] = rs_tensor_access(&r->in, 0);
    if (r->out.address) acc[nacc++] = rs_tensor_access(&r->out, 1);
    if (r->out2.address) acc[nacc++] = rs_tensor_access(&r->out2, 1);

    uint32_t g[3] = {rs_groups_capped(s, groups, RS_GROUPS_MAX), (uint32_t)nsplit, 1};

    char defines[256];
    rs_kernel *k = NULL;
    if (nsplit == 1) {
        snprintf(defines, sizeof defines, "ROP=%d;RCONTIG=%d;IN_DT=%d;ACC_DT=%d;OUT_DT=%d;OUT2_DT=%d;NORM_KIND=%d;PASS=1",
                 (int)r->op, rl.ndim == 0, (int)r->in.dtype, (int)r->acc, (int)out_dt, (int)out2_dt, nk);
        if ((st = rs_kernel_get(dev, "reduce.comp", defines, &k)) != RS_OK) return st;
        return rs_dispatch(s, k, g, &pc, sizeof pc, acc, nacc);
    }

    /* two passes through a scratch array of states, freed in stream order */
    uint64_t tmp_size = nout * nsplit * RS_REDUCE_STATE_MAX;
    if ((st = rs_alloc(dev, tmp_size, s, &pc.tmp)) != RS_OK) return st;
    rs_access tacc = {pc.tmp, tmp_size, 1};
    rs_access acc1[2] = {acc[0], tacc};
    snprintf(defines, sizeof defines, "ROP=%d;RCONTIG=%d;IN_DT=%d;ACC_DT=%d;OUT_DT=%d;OUT2_DT=%d;NORM_KIND=%d;PASS=1",
             (int)r->op, rl.ndim == 0, (int)r->in.dtype, (int)r->acc, (int)out_dt, (int)out2_dt, nk);
    if ((st = rs_kernel_get(dev, "reduce.comp", defines, &k)) == RS_OK)
        st = rs_dispatch(s, k, g, &pc, sizeof pc, acc1, 2);
    if (st == RS_OK) {
        /* pass 2: one state per chunk is few; lanes cover the chunks */
        uint64_t tpo2 = next_pow2(nsplit);
        if (tpo2 > RS_KERNEL_WG) tpo2 = RS_KERNEL_WG;
        pc.tpo = (uint32_t)tpo2;
        uint64_t groups2 = (nout + RS_KERNEL_WG / tpo2 - 1) / (RS_KERNEL_WG / tpo2);
        uint32_t g2[3] = {rs_groups_capped(s, groups2, RS_GROUPS_MAX), 1, 1};
        tacc.write = 0;
        acc[0] = tacc;
        snprintf(defines, sizeof defines, "ROP=%d;RCONTIG=0;IN_DT=%d;ACC_DT=%d;OUT_DT=%d;OUT2_DT=%d;NORM_KIND=%d;PASS=2",
                 (int)r->op, (int)r->in.dtype, (int)r->acc, (int)out_dt, (int)out2_dt, nk);
        if ((st = rs_kernel_get(dev, "reduce.comp", defines, &k)) == RS_OK)
            st = rs_dispatch(s, k, g2, &pc, sizeof pc, acc, nacc);
    }
    rs_free(dev, pc.tmp);
    return st;
}

const char *rs_reduce_op_name(rs_reduce_op op) {
    return (int)op >= 0 && op < RS_REDUCE_OP_COUNT ? op_names[op] : "?";
}

rs_status rs_reduce_into(rs_stream *s, const char *name, rs_reduce_op op, rs_dtype acc, const rs_tensor *in,
                         const rs_tensor *out) {
    rs_reduce r;
    memset(&r, 0, sizeof r);
    r.name = name;
    r.op = op;
    r.acc = acc;
    r.in = *in;
    r.out = *out;
    return rs_reduce_run(s, &r);
}
