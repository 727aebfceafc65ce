/* russet/linalg.h: linear algebra on batches of matrices, LAPACK's unblocked
 * algorithms and Jacobi's (src/engine/linalg.c, kernels/linalg.comp;
 * docs/linalg.md).
 *
 * Every matrix argument is a 3-d view (P, rows, columns) and every vector
 * argument a 2-d view (P, length), any strides (a batch stride of 0 shares
 * one matrix). Dtypes: float32 and complex64, and float64 and complex128
 * where the device has float64 arithmetic (RS_ERR_UNSUPPORTED otherwise,
 * and for any other dtype: the caller runs the op elsewhere). Pivots and
 * info are int32, pivots 1-based, as LAPACK's. Outputs must not overlap
 * inputs unless the function works in place. Nothing waits for the GPU;
 * an empty batch records nothing.
 *
 * The factorizations (Cholesky, LU, QR) run one workgroup a matrix, the
 * triangular solve a workgroup a block of the result's columns (an
 * element an invocation), the other solves one invocation a column of
 * the result: a whole batch in one
 * dispatch, where composing them from single ops took a few dispatches a
 * column. Past 64 rows or columns Cholesky, LU and the triangular solves
 * run blocked (64 columns a step, the trailing updates on the GEMM
 * engine), a few dispatches a block. QR keeps one column in shared memory:
 * rows past what the device's shared memory holds give RS_ERR_UNSUPPORTED. */
#ifndef RUSSET_LINALG_H
#define RUSSET_LINALG_H

#include "russet/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 where the linear-algebra kernels compute dtype dt on this device
 * (float32 and complex64; float64 and complex128 with fp64), else 0: the
 * adapter's choice of host execution, made before it writes anything. */
RS_API int rs_linalg_computes(rs_device *dev, rs_dtype dt);

/* The lower Cholesky factor of each matrix's lower triangle (conjugated
 * first when conj_a, which with a transposed view reads the upper one):
 * l (P, n, n) gets the factor and zeros above it, info (P) 0, or j + 1 for
 * a matrix that is not positive definite at column j (d_j not > 0, or
 * NaN), whose l then holds potf2's state: d_j on the diagonal and a's
 * values in column j and the ones after it (for n <= 64; past that, the
 * blocked driver's state: the failing block's potf2 state, the blocks
 * before it factored, the later ones unspecified). */
RS_API rs_status rs_cholesky(rs_stream *s, const rs_tensor *a, int conj_a, const rs_tensor *l,
                             const rs_tensor *info);

/* LU with partial pivoting (getf2; getrf, blocked, past 64 rows or
 * columns) of a (P, m, n) in place: L below the diagonal (unit diagonal
 * implied), U on and above; piv (P, min(m, n)) the row swapped with row j
 * at step j, plus one; info (P) the first column whose pivot is zero, plus
 * one, or 0. */
RS_API rs_status rs_lu_factor(rs_stream *s, const rs_tensor *a, const rs_tensor *piv, const rs_tensor *info);

/* A X = B for triangular A (P, n, n): x (P, n, k) holds B and gets X.
 * upper: A is upper triangular (else lower); unit: its diagonal is taken as
 * ones; conj_a: A is read conjugated. Only A's triangle is read. */
RS_API rs_status rs_triangular_solve(rs_stream *s, const rs_tensor *a, int conj_a, int upper, int unit,
                                     const rs_tensor *x);

/* The row interchanges of an LU factorization applied to x (P, n, k) in
 * place: rows j and piv[j] - 1 swap for j = 0 .. K - 1 (P^T B), or for j
 * from K - 1 down with inverse (P B). A pivot outside [1, n] raises the
 * device error at the next sync, and that interchange is skipped. */
RS_API rs_status rs_lu_permute(rs_stream *s, const rs_tensor *piv, int inverse, const rs_tensor *x);

/* Solves from the factors, x (P, n, k) holding B and getting X, in place
 * (a few of the dispatches above each).
 * rs_lu_solve: A X = B for A = P L U as rs_lu_factor leaves lu (P, n, n)
 *   and piv (P, n): X = U^-1 L^-1 P^T B; with adjoint A^H X = B: X = P
 *   L^-H U^-H B.
 * rs_cholesky_solve: A X = B for A = L L^H from its lower factor f (P, n,
 *   n), or with upper A = U^H U from its upper factor; only f's triangle
 *   is read. */
RS_API rs_status rs_lu_solve(rs_stream *s, const rs_tensor *lu, const rs_tensor *piv, int adjoint,
                             const rs_tensor *x);
RS_API rs_status rs_cholesky_solve(rs_stream *s, const rs_tensor *f, int upper, const rs_tensor *x);

/* QR by Householder reflections (geqr2) of a (P, m, n) in place: R on and
 * above the diagonal, the reflectors' vectors below it (their first entry,
 * 1, implied); tau (P, min(m, n)) their scalars. */
RS_API rs_status rs_geqrf(rs_stream *s, const rs_tensor *a, const rs_tensor *tau);

/* Q = H_0 H_1 ... H_{r-1} on the first q columns of the m x m identity
 * (org2r): v (P, m, >= r) holds the reflectors below its diagonal as
 * rs_geqrf leaves them, tau (P, r) their scalars, q (P, m, q) gets Q. */
RS_API rs_status rs_householder_product(rs_stream *s, const rs_tensor *v, const rs_tensor *tau,
                                        const rs_tensor *q);

/* ormqr (src/engine/ormqr.c): out = op(Q) c (left) or c op(Q) (right), Q =
 * H_0 H_1 ... H_{r-1} the mq x mq product of v's reflectors (as
 * rs_householder_product reads them), op the conjugate transpose where
 * `transpose` is set, else Q. v (P, mq, >= r), tau (P, r), c and out (P, m,
 * n), mq = m (left) or n (right); out must not overlap c. float32 and
 * complex64, float64 and complex128 with fp64 (RS_ERR_UNSUPPORTED else). */
RS_API rs_status rs_ormqr(rs_stream *s, const rs_tensor *v, const rs_tensor *tau, const rs_tensor *c, int left,
                          int transpose, const rs_tensor *out);

/* Cyclic Jacobi sweeps, `sweeps` of n - 1 rounds each, a round rotating
 * n / 2 disjoint pairs (round robin) of every matrix at once; n must be
 * even (pad with a zero column, or a zero row and column). A coupling
 * below 2^-26 sqrt(|a| |b|), or 1e-30, is left alone; the count is fixed
 * (no data-dependent stop, so nothing waits). v, where not NULL, is a
 * (P, n, n) view of the same dtype whose columns every rotation turns as
 * it turns the pair's (v <- v J): from the identity, it accumulates them.
 *
 * One-sided (Hestenes) on the columns of w (P, m, n) in place: they turn
 * orthogonal (w V), and their norms are then the singular values (of high
 * relative accuracy: no w^H w is formed). */
RS_API rs_status rs_jacobi_svd_columns(rs_stream *s, const rs_tensor *w, const rs_tensor *v, int sweeps);
/* Two-sided on Hermitian h (P, n, n), both triangles filled and a real
 * diagonal, in place: h <- J^H h J a round, each pair's 2 x 2 block set to
 * what its rotation makes exactly; the diagonal is then the eigenvalues
 * (and v's columns, from the identity, the eigenvectors). */
RS_API rs_status rs_jacobi_eigh(rs_stream *s, const rs_tensor *h, const rs_tensor *v, int sweeps);
/* The sweeps the engine's callers run for n (even) columns: 6 +
 * ceil(log2 n), a fixed count (Jacobi converges quadratically). */
RS_API int rs_jacobi_sweeps(int64_t n);

/* The singular value decomposition a = U diag(S) V^H of each matrix of a
 * (P, m, n), k = min(m, n): sv (P, k) of a's real dtype, descending; u
 * (P, m, full ? m : k) and vh (P, full ? n : k, n) of a's dtype, or both
 * NULL (values only). One-sided Jacobi (above) on a copy of a (of a^H
 * where m < n) padded to an even column count, V accumulated; the values
 * are the columns' norms, sorted. U comes from the QR of the sorted
 * columns (orthogonal, so R is diagonal): u_c = q_c r_cc / |r_cc|, which
 * also completes U to an orthonormal basis where a is rank deficient and
 * where full asks for more columns than k. Each pair of singular vectors'
 * sign (phase) is Jacobi's, not LAPACK's: they are unique only up to it.
 * a must be finite (LAPACK and CPU refuse other input: the caller
 * checks); k at most 128 (RS_ERR_UNSUPPORTED past it: k - 1 rounds a
 * sweep), and with vectors max(m, n) within rs_geqrf's shared memory.
 * float32 and complex64 only (the sweeps' thresholds are float32's). */
RS_API rs_status rs_svd(rs_stream *s, const rs_tensor *a, int full, const rs_tensor *sv, const rs_tensor *u,
                        const rs_tensor *vh);
/* rs_svd's values alone into out (P, min(m, n)) */
RS_API rs_status rs_svdvals(rs_stream *s, const rs_tensor *a, const rs_tensor *out);

/* The eigenvalues of the Hermitian matrices whose lower triangle (upper
 * with upper) a (P, n, n) holds, the diagonal's imaginary part ignored,
 * ascending into out (P, n) of a's real dtype, and, where vectors is not
 * NULL, the eigenvectors into its columns (P, n, n) of a's dtype, in the
 * values' order: two-sided Jacobi (above) on the whole matrix the
 * triangle stands for (rs_triangle), padded to an even n, V accumulated.
 * Each vector's sign (phase) is Jacobi's, not LAPACK's: eigenvectors are
 * unique only up to it. n at most 128 (RS_ERR_UNSUPPORTED past it);
 * float32 and complex64 only. */
RS_API rs_status rs_eigh(rs_stream *s, const rs_tensor *a, int upper, const rs_tensor *out, const rs_tensor *vectors);
/* rs_eigh's values alone */
RS_API rs_status rs_eigvalsh(rs_stream *s, const rs_tensor *a, int upper, const rs_tensor *out);

/* The factors of lu (P, m, n) and piv (P, min(m, n)) as rs_lu_factor
 * leaves them, A = P L U, k = min(m, n); any output may be NULL (piv
 * then too, without p): l (P, m, k) the unit lower factor, u (P, k, n)
 * the upper one, p (P, m, m) of lu's dtype the permutation. */
RS_API rs_status rs_lu_unpack(rs_stream *s, const rs_tensor *lu, const rs_tensor *piv, const rs_tensor *p,
                              const rs_tensor *l, const rs_tensor *u);

/* Determinants from lu (P, n, n) and piv (P, n) as rs_lu_factor leaves
 * them: the product of U's diagonal, negated for an odd count of rows
 * swapped, into det (P) of lu's dtype; or, with det NULL (slogdet), its
 * sign into sign (P) of lu's dtype (0 for a singular matrix) and sum log
 * |u_jj| into logabsdet (P) of the real dtype (-inf for a singular one).
 * One invocation a matrix. */
RS_API rs_status rs_det(rs_stream *s, const rs_tensor *lu, const rs_tensor *piv, const rs_tensor *det,
                        const rs_tensor *sign, const rs_tensor *logabsdet);

/* QR of a (P, m, n), which is left as it is, k = min(m, n): r (P, k or m,
 * n) gets R (zero below the diagonal), q (P, m, k or m) Q, either may be
 * NULL: geqr2 on a copy, then R its upper triangle and Q the Householder
 * product of its reflectors. */
RS_API rs_status rs_qr(rs_stream *s, const rs_tensor *a, const rs_tensor *q, const rs_tensor *r);

/* The matrix exponential (torch.linalg.matrix_exp; src/engine/matrix_exp.c)
 * of each matrix of a (P, n, n) into out (P, n, n), any strides, not
 * overlapping a: scaling and squaring, exp(a) = T(2^-s a)^(2^s), s the
 * least with |2^-s a|_1 <= 4 (the largest 1-norm of the batch), T the
 * Taylor polynomial of degree 21 (float32, float16, bfloat16, complex64:
 * remainder below 4^22 / 22! = 1.6e-8 of |T| there) or 34 (float64,
 * complex128: 1.1e-19; RS_ERR_UNSUPPORTED without fp64) by Horner's rule,
 * one GEMM a degree, then s squarings. (Norms up to 4 before squaring: each
 * squaring doubles the rounding error, and with a bound of 1/2, three more
 * of them left russet 3x further from the float64 result than CPU's
 * degree-18 scheme, which squares from 3.01; at 4 it is as close or
 * closer on the OpInfo samples and tests.) One wait: the norm, for s. A
 * batch with a NaN or infinite element gives NaN everywhere (as CPU's). */
RS_API rs_status rs_matrix_exp(rs_stream *s, const rs_tensor *a, const rs_tensor *out);

/* Least squares (torch.linalg.lstsq; src/engine/lstsq.c): for each matrix
 * a (P, m, n) and right-hand sides b (P, m, k), x (P, n, k) = the minimum-
 * norm x minimizing |a x - b|, from the SVD a = U S V^H (rs_svd):
 * x = V S+ U^H b, S+ the reciprocals of the singular values above
 * rcond * the largest, 0 for the others. float32 and complex64; min(m, n)
 * from 1 to rs_svd's limit (RS_ERR_UNSUPPORTED past it); a and b any
 * strides, x any strides not overlapping them. Optional outputs (NULL: not
 * computed): rank (P) int64, the count of singular values kept; sv (P,
 * min(m, n)) of a's real dtype, the singular values, descending; resid
 * (P, k) real, the squared norm of each column of a x - b; info (P) int32,
 * 0, or where a has a zero singular value (LAPACK's gels asks for full
 * rank) the number of nonzero ones plus 1. Nothing waits. */
RS_API rs_status rs_lstsq(rs_stream *s, const rs_tensor *a, const rs_tensor *b, double rcond, const rs_tensor *x,
                          const rs_tensor *rank, const rs_tensor *sv, const rs_tensor *resid, const rs_tensor *info);

#ifdef __cplusplus
}
#endif
#endif /* RUSSET_LINALG_H */
