// Variants of the Ozaki-II kernels the probe times against the production ones
// (crates/mpblas/src/cuda/kernels/ozaki.cu), built from the production helpers. Each was tried
// and not adopted; ozaki-notes.md (session 3) has the numbers. Earlier variants that became the
// production kernels are in the git history of this file.

// Residues for t-contiguous operands without shared memory: a warp per 128 positions of one
// vector, each lane 4 consecutive values (2 x 16-byte loads when aligned). Same time as the
// tiled kernel on the H100.
extern "C" __global__ void ozaki_residues_direct(const double *__restrict__ x, u64 sv, u64 st, u64 count,
                                                 u64 len, u64 countp, u64 lenp,
                                                 const u64 *__restrict__ mubits, const int *__restrict__ exps,
                                                 int nmod, signed char *__restrict__ out, u64 slab) {
    unsigned lane = threadIdx.x % 32;
    u64 warp_id = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    u64 nwarps = (u64)gridDim.x * blockDim.x / 32;
    u64 chunks = (lenp + 127) / 128;
    bool vec2 = (sv % 2 == 0) && (((u64)x) % 16 == 0);
    for (u64 item = warp_id; item < countp * chunks; item += nwarps) {
        u64 v = item / chunks;
        u64 t = (item % chunks) * 128 + 4 * lane;
        if (t >= lenp) continue;
        double mu = oz_mu(v < count ? mubits[v] : 0);
        int e = v < count ? exps[v] : 0;
        double xv[4] = {0.0, 0.0, 0.0, 0.0};
        if (v < count) {
            const double *p = x + v * sv + t;
            if (vec2 && t + 4 <= len) {
                double2 a = *(const double2 *)p, b = *(const double2 *)(p + 2);
                xv[0] = a.x; xv[1] = a.y; xv[2] = b.x; xv[3] = b.y;
            } else {
                for (int j = 0; j < 4; ++j) xv[j] = t + j < len ? p[j] : 0.0;
            }
        }
        oz_four_residues(xv, mu, e, nmod, out, v * lenp + t, slab);
    }
}

// CRT with 2 consecutive rows per thread and 8-byte loads (mode 0, no bad vectors, beta = 0):
// 128 registers, slower than one row per thread.
extern "C" __global__ void ozaki_crt_rows2(const int *__restrict__ prod, u64 ldp, u64 slab, u64 m,
                                           u64 nb, u64 j0, OzCrt crt, const int *__restrict__ ea,
                                           const int *__restrict__ eb, double alpha, double *__restrict__ c,
                                           u64 ldc) {
    const int nmod = crt.nmod;
    for (u64 jj = blockIdx.y; jj < nb; jj += gridDim.y) {
        u64 j = j0 + jj;
        for (u64 i0 = 2 * ((u64)blockIdx.x * blockDim.x + threadIdx.x); i0 < m;
             i0 += 2 * (u64)blockDim.x * gridDim.x) {
            int p0[OZ_MAX_MODULI], p1[OZ_MAX_MODULI];
#pragma unroll
            for (int l = 0; l < OZ_MAX_MODULI; ++l) {
                if (l < nmod) {
                    int2 v = *(const int2 *)(prod + (u64)l * slab + i0 + jj * ldp);
                    p0[l] = v.x;
                    p1[l] = v.y;
                }
            }
            for (int r = 0; r < 2 && i0 + r < m; ++r) {
                const int *p = r == 0 ? p0 : p1;
                Dd s = crt.words == 2 ? oz_crt_entry<2>(p, crt)
                     : (crt.words == 3 ? oz_crt_entry<3>(p, crt) : oz_crt_entry<4>(p, crt));
                s = oz_dd_ldexp(s, -(ea[i0 + r] + eb[j]));
                c[i0 + r + j * ldc] = oz_update_dd(s, alpha, 0.0, 0.0);
            }
        }
    }
}
