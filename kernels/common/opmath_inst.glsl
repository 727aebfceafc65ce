// opmath_inst.glsl: the opmath loader for dtype T_DT (include after
// common/dtype_inst.glsl for the same T_DT).
#define T_FN(n) RS_CAT(n, T_DT)
#if T_DT == 11
bool T_FN(rs_ldo_)(uint64_t a, int64_t o) { return T_FN(rs_get_)(a, o) != 0UL; }
#elif T_DT == 29
uint64_t T_FN(rs_ldo_)(uint64_t a, int64_t o) { return T_FN(rs_get_)(a, o); }
#elif RS_IS_INT(T_DT)
int64_t T_FN(rs_ldo_)(uint64_t a, int64_t o) { return int64_t(T_FN(rs_get_)(a, o)); }
#elif RS_IS_FLT(T_DT) || RS_IS_CF(T_DT)
RS_OPMT(T_DT) T_FN(rs_ldo_)(uint64_t a, int64_t o) { return T_FN(rs_get_)(a, o); }
#elif RS_IS_DBL(T_DT)
double T_FN(rs_ldo_)(uint64_t a, int64_t o) { return uint64BitsToDouble(T_FN(rs_get_)(a, o)); }
#elif RS_IS_CD(T_DT)
dvec2 T_FN(rs_ldo_)(uint64_t a, int64_t o) {
    u64vec2 v = T_FN(rs_get_)(a, o);
    return dvec2(uint64BitsToDouble(v.x), uint64BitsToDouble(v.y));
}
#endif
#undef T_FN
