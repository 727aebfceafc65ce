// error.glsl: the device error flag (rs_device_error_address). A kernel
// that finds bad input (an index out of range, an integer division by zero)
// stores its site id and a code there; the next sync turns it into an
// error naming the op. The first error wins.
//
// The including kernel defines rs_raise(code, value) over its push
// constants, e.g.
//     #define rs_raise(code, value) rs_raise_at(pc.err, pc.site, code, value)
// Codes: 1 index out of range (value: the index), 2 integer division by zero,
// 3 an input outside [0, 1], 4 a target outside [0, 1] (binary_cross_entropy),
// 5 a negative segment length (segment_reduce), 6 a failed assertion in a
// kernel torch.compile generated (python/russet/inductor/kernel.py), 7
// offsets that decrease (embedding_bag; value: the bag's end), 8 too short
// a source (masked_scatter_; value: the first rank past its end), 9 a
// class target outside [0, C) (multi_margin_loss; value: the target), 10 a
// multilabel target outside [-1, C) or an is_target outside [0, 1]
// (multilabel_margin_loss; value: the argument's position, 2, 3 or 5), 11
// invalid multinomial probabilities (value: which of CPU's messages,
// params/multinomial_check.h), 12 a jagged item longer than the padded
// length (value: its length), 13 a jagged tensor's final offset other than
// its rows (value: the offset).
#ifndef RS_ERROR_GLSL
#define RS_ERROR_GLSL

layout(buffer_reference, std430, buffer_reference_align = 8) buffer RsErrFlag { uint site; uint code; int64_t value; };

void rs_raise_at(uint64_t flag, uint site, uint code, int64_t value) {
    RsErrFlag e = RsErrFlag(flag);
    if (atomicCompSwap(e.site, 0u, site) == 0u) {
        e.code = code;
        e.value = value;
    }
}

#endif
