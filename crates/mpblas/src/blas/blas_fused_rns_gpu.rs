//! Fused RNS GEMV on the GPU (`blas_fused_rns_gpu.cu`): [`gemv_fused`] and
//! [`gemv_fused_bounded`] on [`DeviceMpArray`] storage with BLAS-style arguments, the bits and
//! bounds of the CPU's [`rns::gemv_fused`](super::rns::gemv_fused) for the same arguments,
//! whatever the launch.
//!
//! The form, four launches: `d = fl(α·x)` with `|d_i w_i R|` for the sums and the rows'
//! starting state (one kernel), each row's exponent range (a scan with order-free atomics), the
//! exact sums (a group of lanes per term, 8 base moduli a lane: each product's CRT coefficients
//! and rank, scaled, into one bucket per row, joined by integer atomics; the base extension
//! deferred to one per row, as the CPU's `rns/term_lanes.rs` defers it per shift bucket), then
//! per row the bucket's extension to the row's wide basis and one rounding (`rns/accumulate.rs`
//! has the algorithm and the bound). From 4 lanes a term, a group works out its terms' scalar
//! part (class, sign, exponent against the window) once a term, and from 8 lanes (from 4 when
//! the warp's groups take rows of one column) the residues reach the lanes through a ring in
//! shared memory filled by asynchronous copies a few terms ahead. The roundings of `d` and of
//! the rows run a warp per value;
//! for wide bases of up to 128 moduli they work from the value's binary limbs (one pass of
//! products) instead of a dozen CRT passes. No product and no partial sum is rounded, so the
//! work per matrix entry is one modular product and a few additions per base modulus, against
//! the paper's two roundings. On sm_90 and later the scan's blocks start while the prep ends and
//! the sums' while the scan ends (programmatic dependent launch, [`overlap_mask`]): the sums stage
//! their tables, then each waits for the kernel before it.
//!
//! Limit: the widest basis of a call must fit the kernels' local arrays (256 moduli): up to
//! about 2600 bits of precision; beyond, [`Error::OutOfRange`] (the paper's form,
//! [`gemv`](super::gpu::rns::gemv), runs to 3967 bits).

use super::blas_level2_rns_gpu::{BLAS_RNS_CUH, GemvArgs, download_vector, rns_arg, same_basis};
use super::level2::is_zero;
use super::rns_fused::one_rounding_bound;
use crate::cuda::{Arg, Device, DeviceBuffer, DevicePod, LaunchConfig, ModuleSource};
use crate::error::{Error, Result};
use crate::rns::accumulate::{Accumulator, ceil_log2};
use crate::rns::array_gpu::{DeviceMpArray, MAX_MODULI, RNS_CUH, device_tables};
use crate::rns::basis::inv_mod;
use crate::rns::term_lanes::unit_rank_c0;
use crate::rns::{ExtF, MpArray, MpFloat};
use crate::view::{MatLayout, Trans, blas_vector};
use std::sync::{Arc, Mutex};

/// The entry points of `blas_fused_rns_gpu.cu` (`tests/kernel_names.rs` checks each).
pub(crate) const KERNELS: &[&str] = &[
    "blas_fused_prep",
    "blas_fused_prep_bin",
    "blas_fused_scan",
    "blas_fused_defer_g1",
    "blas_fused_defer_g2",
    "blas_fused_defer_g4",
    "blas_fused_defer_g8",
    "blas_fused_defer_g16",
    "blas_fused_defer_g32",
    "blas_fused_defer_g8n",
    "blas_fused_defer_g16n",
    "blas_fused_defer_g4n",
    "blas_fused_defer_g4n7",
    "blas_fused_defer_g1s7",
    "blas_fused_defer_g2s7",
    "blas_fused_defer_g8n7",
    "blas_fused_defer_g16n7",
    "blas_fused_finish",
    "blas_fused_finish_bin",
];

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "blas_fused_rns_gpu",
    source: include_str!("blas_fused_rns_gpu.cu"),
    headers: &[&crate::eft::EFT_CUH, &RNS_CUH, &BLAS_RNS_CUH],
    kernels: KERNELS,
};

/// Levels the fused constants' header holds (words 8.., 20.. and 32..).
const LEVELS: usize = 12;
const HDR: usize = 64;
// the level addresses (words 32..) end before the words of k_norm's c0 (56, 57)
const _: () = assert!(32 + 2 * LEVELS <= 56 && 58 <= HDR);

/// The fused constants (layout: the `.cu` file's `FusedTab`), with the level bases' tables
/// they point to.
fn pack_fused(acc: &Accumulator, level_tabs: &[u64]) -> Vec<u32> {
    let (base, wide) = (&acc.base, acc.levels.last().expect("at least one level"));
    let (n, k) = (base.len(), acc.max_len());
    let h = (acc.w as usize + 1).div_ceil(32) + 1;
    let mut t = vec![0u32; HDR];
    t[0] = n as u32;
    t[1] = k as u32;
    t[2] = h as u32;
    t[3] = acc.levels.len() as u32;
    t[4] = acc.w as u32;
    t[5] = base.precision();
    t[6] = ceil_log2(acc.nt as u64) as u32;
    // the base's k_norm and c0: the sums' approximation of a product's P/M from its factors'
    // evaluations (fused_unit_rank)
    t[7] = base.k_norm;
    let c0 = unit_rank_c0(base);
    t[56] = c0.to_bits() as u32;
    t[57] = (c0.to_bits() >> 32) as u32;
    for (l, (b, &addr)) in acc.levels.iter().zip(level_tabs).enumerate() {
        t[8 + l] = b.len() as u32;
        t[20 + l] = b.log2_m();
        t[32 + 2 * l] = addr as u32;
        t[33 + 2 * l] = (addr >> 32) as u32;
    }
    let m = &wide.moduli()[..k];
    t.extend_from_slice(m);
    t.extend_from_slice(&wide.mu[..k]);
    t.extend_from_slice(&base.w);
    t.extend_from_slice(&acc.ext.mi);
    t.extend_from_slice(&acc.ext.m);
    let pow = |e: u64, mi: u32| -> u32 {
        let (mut r, mut b, mut e) = (1u64, 2u64, e);
        while e > 0 {
            if e & 1 == 1 {
                r = r * b % mi as u64;
            }
            b = b * b % mi as u64;
            e >>= 1;
        }
        r as u32
    };
    for q in 0..h as u64 {
        t.extend(m.iter().map(|&mi| pow(32 * q, mi)));
    }
    // Montgomery forms (R = 2^32) for the sums' kernel
    let times_r = |x: u32, mi: u32| ((x as u64) << 32).rem_euclid(mi as u64) as u32;
    t.extend(m.iter().map(|&mi| {
        // -1/m mod 2^32 by Newton's iteration (m odd)
        let mut inv = mi;
        for _ in 0..5 {
            inv = inv.wrapping_mul(2u32.wrapping_sub(mi.wrapping_mul(inv)));
        }
        inv.wrapping_neg()
    }));
    t.extend(base.w.iter().zip(m).map(|(&w, &mi)| times_r(w, mi)));
    // the deferred sums: |M_j|_m_j = |w_j^-1|_m_j for the base moduli
    t.extend(base.w.iter().zip(m).map(|(&w, &mi)| inv_mod(w, mi)));
    t
}

/// The fused constants of `acc` on `dev` (cached per base basis and term count's `⌈log2⌉`,
/// which fix the levels).
fn fused_tables(dev: &Device, acc: &Accumulator) -> Result<Arc<DeviceBuffer<u32>>> {
    let id = (acc.base.len() as u64) << 8 | ceil_log2(acc.nt as u64);
    dev.cached("blas-fused-rns", "tables", id, || {
        let tabs: Vec<u64> = acc
            .levels
            .iter()
            .map(|b| device_tables(dev, b).map(|t| t.addr()))
            .collect::<Result<_>>()?;
        DeviceBuffer::from_host(dev, &pack_fused(acc, &tabs))
    })
}

/// Scratch kept by the device between calls, grown on demand.
#[derive(Default)]
struct Scratch {
    d: Option<DeviceMpArray>,
    dinfo: Option<DeviceBuffer<u8>>,
    dexp: Option<DeviceBuffer<i64>>,
    dq: Option<DeviceBuffer<f64>>,
    dv: Option<DeviceBuffer<u32>>,
    low_min: Option<DeviceBuffer<i64>>,
    low_max: Option<DeviceBuffer<i64>>,
    flags: Option<DeviceBuffer<u32>>,
    q: Option<DeviceBuffer<u64>>,
    alone_n: Option<DeviceBuffer<u64>>,
    alone_cols: Option<DeviceBuffer<u64>>,
    bsum: Option<DeviceBuffer<u64>>,
    bounds: Option<DeviceBuffer<u64>>,
    scalars: Option<DeviceMpArray>,
    /// The α and β in `scalars` (a call with the same ones skips the upload), and α's
    /// [`alpha_odd_significand`] (host time before the prep's launch, spent once per α).
    uploaded: Option<(MpFloat, MpFloat, u64)>,
}

/// `slot` holding at least `len` elements; its address.
fn grown<T: DevicePod>(
    dev: &Device,
    slot: &mut Option<DeviceBuffer<T>>,
    len: usize,
) -> Result<u64> {
    if slot.as_ref().is_none_or(|b| b.len() < len) {
        *slot = None;
        *slot = Some(DeviceBuffer::zeros(dev, len.max(1))?);
    }
    Ok(slot.as_ref().expect("just made").addr())
}

/// Columns per chunk for groups of `g` lanes: at most one unit per resident warp (`warps`:
/// [`sums_warps_per_sm`] times the SMs; `MPBLAS_FUSED_WARPS` overrides, for tuning). A unit
/// ends with its atomics (and, for a row per warp, the join of its lanes), so fewer and longer
/// units cost less, while a few units past a whole wave leave the SMs idle for a second one.
/// H100, 1000 × 1000 (ms): 848 bits N, 0.308 with 2000 units against 0.414 with 2125 (one wave
/// and a few); T, alternated, 0.317 with 2000 units against 0.380 with 3000 (at 1696 bits 0.521
/// against 0.605).
fn chunk_columns(g: usize, m: usize, n: usize, rows_in_lanes: bool, warps: usize) -> usize {
    let warps = std::env::var("MPBLAS_FUSED_WARPS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(warps);
    let row_units = if rows_in_lanes { m.div_ceil(32 / g) } else { m };
    let chunks = (warps / row_units.max(1)).clamp(1, n.max(1));
    n.div_ceil(chunks)
}

/// Most terms of one lane's bucket in the deferred sums (the kernel's `FUSED_BUCKET_TERMS`):
/// a chunk holds at most that many columns.
const BUCKET_TERMS: usize = 2048;

/// Base moduli a lane holds in the sums (the kernel's `FUSED_SLOTS`): their constants stay in
/// registers. H100, 1000 × 1000 (N / T, ms): 106 bits 0.083 / 0.086 against 0.089 / 0.093
/// with 16 slots read from shared memory; 848 bits 0.301 / 0.302 against 0.313 / 0.319; at 1696
/// bits, where 8 slots take 16 lanes a term, each repeating the term's loads and shuffles,
/// 0.551 / 0.557 against 0.511 / 0.521 (and both in one kernel slowed every precision).
const SLOTS: usize = 8;

/// Steps in a warp's ring (the kernel's `FUSED_RING`; g >= 8, and g = 4 with the groups on rows:
/// [`defer_shape`]) and the sums' block size with it (the kernels' launch bounds: 128 threads,
/// 3 or 4 blocks an SM, [`sums_warps_per_sm`]): 4 warps' rings are 32 KiB.
const RING: usize = 4;
const RING_BLOCK: usize = 128;

/// Columns of a row's kept terms below its bucket that the sums list for the finish (the
/// kernel's `FUSED_ALONE_LIST`; a row with more is scanned by the finish).
const ALONE_LIST: usize = 8;

/// Resident warps an SM in the sums kernels for groups of `g` lanes (their launch bounds): 16
/// below g = 8, as 2 blocks of 8 warps (no ring) or, at g = 4 through the ring, 4 blocks of 4
/// (128 registers and no spills); 12 from g = 8, 3 blocks of 4 (`__launch_bounds__(128, 3)`: 166
/// registers and no spills, where 4 blocks capped them at 128 and ptxas spilled 132 bytes in the
/// loop). H200, 1000 × 1000, N / T ms, two runs alternated with 4 blocks: 848 bits 0.200-0.203
/// / 0.218-0.221 -> 0.190-0.191 / 0.217-0.220, 1696 bits 0.370-0.374 / 0.393-0.395 ->
/// 0.352-0.354 / 0.382-0.383.
fn sums_warps_per_sm(g: usize) -> usize {
    if g >= 8 { 12 } else { 16 }
}

/// The sums' decomposition: `g` lanes a term with at most `SLOTS` base moduli a lane
/// (`MPBLAS_FUSED_G` may take more lanes), `per` columns a chunk, and whether the warp's groups
/// take consecutive rows of one column (`rows`) or consecutive columns of one row.
struct DeferShape {
    g: u32,
    per: usize,
    rows: bool,
    /// The residues through each warp's ring.
    ring: bool,
    /// The sums kernel ([`sums_kernel`]).
    kernel: &'static str,
}

/// The sums' shape for `nb` base moduli and an `m × n` `op(A)`, `rows_in_lanes` when `op(A)`'s
/// columns are contiguous. The kernels take any layout either way (each group reads its own
/// term's residues, and a unit's rows and columns come from `A`'s strides): rows when `op(A)` is
/// stored by columns, and from g = 8 (at g = 4 with 7 slots, below) also for `Aᵀx`, where the
/// warp's groups then share `d_j`'s words in the ring (`…n` kernels) and a warp's units are
/// `32/g` rows. H200, 1000 × 1000, T ms, two runs alternated: 848 bits 0.216-0.222 →
/// 0.190-0.195, 1696 bits 0.381-0.387 → 0.350-0.353 (N unchanged); at g = 1 and 2 rows made T
/// slower (106 bits 0.075 → 0.083-0.088, 212 bits 0.096-0.097 → 0.100-0.102). With few rows a
/// unit's last groups would idle (`m mod 32/g` of its `32/g`), so `Aᵀx` keeps columns below
/// `16·32/g` rows, where they would waste more than 1/16 of the lanes (not measured).
/// `MPBLAS_FUSED_ROWS=0` or `1` forces either, for tuning.
/// The residues come through each warp's ring from g = 8, and at g = 4 with the groups on rows,
/// where they share `d_j`'s words (`blas_fused_defer_g4n`): H200, 1000 × 1000, 424 bits N,
/// three rounds alternated, 0.112-0.113 → 0.104-0.106 ms (sums 62.3-63.7 → 56.1-57.5 µs, ncu);
/// T through rows and the ring (8 slots, `g4n`) read the same as without (0.118-0.120 against
/// 0.118-0.119), so T keeps columns there; with 7 slots (nb ≤ 28: `g4n7`) rows won, T ms, three
/// rounds alternated (session 39 call 2): 300 bits 0.112-0.116 → 0.107-0.108, 424 bits
/// 0.123-0.126 → 0.119-0.121 (sums 72.3-73.2 → 69.0-70.4 µs; a 7-slot kernel on columns,
/// `g4s7`, gave 0.110-0.112 and 0.120-0.121). `MPBLAS_FUSED_RING4=0` turns the ring off at g = 4,
/// for tuning.
fn defer_shape(nb: usize, m: usize, n: usize, rows_in_lanes: bool, sms: usize) -> DeferShape {
    let g_min = nb.div_ceil(SLOTS).next_power_of_two();
    let g = std::env::var("MPBLAS_FUSED_G")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&g| g.is_power_of_two() && (g_min..=32).contains(&g))
        .unwrap_or(g_min);
    let slots7 = nb <= 7 * g && std::env::var("MPBLAS_FUSED_SLOTS7").as_deref() != Ok("0");
    let rows = match std::env::var("MPBLAS_FUSED_ROWS").as_deref() {
        Ok("0") => false,
        Ok("1") => true,
        _ => rows_in_lanes || ((g >= 8 || (g == 4 && slots7)) && m >= 16 * (32 / g)),
    };
    let ring =
        g >= 8 || (g == 4 && rows && std::env::var("MPBLAS_FUSED_RING4").as_deref() != Ok("0"));
    let per = chunk_columns(g, m, n, rows, sums_warps_per_sm(g) * sms).min(BUCKET_TERMS);
    DeferShape {
        g: g as u32,
        per,
        rows,
        ring,
        kernel: sums_kernel(g, rows, ring, slots7),
    }
}

/// The sums kernel for groups of `g` lanes, the warp's groups on rows (`rows`: the `…n`
/// kernels, whose groups share `d_j`'s words in the ring) or on columns, through the ring or
/// not, and with 7 base slots a lane instead of 8 (`slots7`: the basis leaves each lane's
/// eighth slot empty, nb ≤ 7g: at g ≥ 4 on rows only, as at 300-424, 848 and 1696 bits;
/// at g = 1 and 2 both layouts, below). The ring kernels' 7-slot step is 20-22% shorter: no eighth
/// slot, and when nb > 6g, as at 424, 848 and 1696 bits, the copies of the first six slots
/// into the ring share the step's predicate (`fused_ring_fill`'s FULL). H200, 1000 × 1000, N
/// ms, three rounds alternated (session 38 call 1), 8 slots → 7: 424 bits 0.105-0.106 →
/// 0.100-0.102, 848 bits 0.155-0.158 → 0.147-0.152, 1696 bits 0.286-0.291 → 0.275-0.279 (the
/// sums, ncu: 54.2-55.2 → 50.8-54.0, 96.9-98.0 → 88.3-89.0, 178.4-179.4 → 169.6-170.0 µs). At
/// g = 1 and 2 (106 and 212 bits: 7 and 14 moduli) both layouts take 7-slot kernels (`g1s7`,
/// `g2s7`), whose loads need no compare when nb = 7g: the loop 265 → 221 and 290 → 242 SASS
/// instructions a term; three rounds alternated (session 39 call 1), 8 slots → 7, N / T ms:
/// 212 bits 0.082-0.085 / 0.085-0.086 → 0.078-0.080 / 0.081-0.084 (the sums 39.0-39.6 →
/// 35.3-35.5 µs), 106 bits 0.064-0.066 / 0.065-0.067 → 0.063-0.066 / 0.064-0.067 (22.2-22.8 →
/// 21.8-22.3 µs). `MPBLAS_FUSED_SLOTS7=0` keeps 8, for tuning.
fn sums_kernel(g: usize, rows: bool, ring: bool, slots7: bool) -> &'static str {
    match (g, rows) {
        (1, _) if slots7 => "blas_fused_defer_g1s7",
        (1, _) => "blas_fused_defer_g1",
        (2, _) if slots7 => "blas_fused_defer_g2s7",
        (2, _) => "blas_fused_defer_g2",
        (4, true) if ring && slots7 => "blas_fused_defer_g4n7",
        (4, true) if ring => "blas_fused_defer_g4n",
        (4, _) => "blas_fused_defer_g4",
        (8, false) => "blas_fused_defer_g8",
        (8, true) if slots7 => "blas_fused_defer_g8n7",
        (8, true) => "blas_fused_defer_g8n",
        (16, false) => "blas_fused_defer_g16",
        (16, true) if slots7 => "blas_fused_defer_g16n7",
        (16, true) => "blas_fused_defer_g16n",
        _ => "blas_fused_defer_g32",
    }
}

/// Columns per chunk of the scan for an `m × n` `op(A)`: with the rows in lanes (a thread a row
/// and chunk) about `MPBLAS_FUSED_SCAN_THREADS` threads (262,144 by default; for tuning), else
/// about 8192 warps (a warp a row and chunk, its lanes every 32nd column). H200, 1000 × 1000
/// N, three rounds alternated (session 38 call 4): with the default, 4 columns a thread, the
/// scan took 13.9-14.6 µs at 106 bits and 12.1-12.4 at 424; with 65,536 (16 columns)
/// 12.7-13.2 and 12.6-13.0, the GEMV the same (0.065-0.069 / 0.067-0.068 ms at 106 bits); with
/// 16,384 (59 columns) 33-35 µs.
fn scan_columns(m: usize, n: usize, rows_in_lanes: bool) -> usize {
    if rows_in_lanes {
        let threads = std::env::var("MPBLAS_FUSED_SCAN_THREADS")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|&t| t > 0)
            .unwrap_or(262_144);
        n.div_ceil((threads.div_ceil(m.max(1))).clamp(1, n.max(1)))
    } else {
        n.div_ceil((8192usize.div_ceil(m.max(1))).clamp(1, n.div_ceil(32).max(1)))
            .next_multiple_of(32)
    }
}

/// Which of the scan (1), the sums (2) and the finish (4) overlap the kernel before them
/// ([`Device::launch_dependent`]; `MPBLAS_FUSED_OVERLAP` overrides, for tuning): the scan and
/// the sums, whose blocks then start while the prep and the scan end (the sums stage their
/// tables meanwhile). H200, 1000 × 1000, N ms, alternated in one process (session 30, call 5),
/// none → sums alone: 106 bits 0.074-0.076 → 0.070-0.073, 212 0.093-0.098 → 0.090-0.091, 424
/// 0.132-0.139 → 0.127-0.132, 848 0.173-0.174 → 0.169-0.174, 1696 0.306-0.309 → 0.304-0.312. The
/// scan too (alone, it had gained nothing), six rounds alternated (session 40, call 4), N / T
/// medians: 106 bits 0.0645 / 0.0655 → 0.0625 / 0.0630, 212 0.081 / 0.084 → 0.079 / 0.082, 424
/// 0.103 / 0.1165 → 0.101 / 0.1165, 848 0.147 / 0.152 → 0.146 / 0.150, 1696 0.2755 / 0.2705 →
/// 0.276 / 0.273. The finish overlapped cost 6-15% at every precision (not profiled; perhaps its
/// blocks pack onto the first SMs the sums leave instead of spreading over all).
fn overlap_mask() -> u32 {
    std::env::var("MPBLAS_FUSED_OVERLAP")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .map_or(3, |v| v & 7)
}

/// Whether the prep and finish kernels round in binary (`fused_round_warp`: one pass of
/// products gives the value's binary limbs) rather than by the warp's CRT passes: the same bits.
/// H100, 1000 × 1000 N, alternated: 0.103 against 0.115-0.117 ms at 106 bits, 0.150 against
/// 0.162 at 212, 0.345 against 0.357 at 424, equal at 848; at 1696 bits 1.07-1.08 against
/// 1.05-1.06, where the lane that carries about 110 limbs waits longer than the passes. H200 with
/// the sums of session 23 (N / T ms, two runs): 848 bits (k = 84) 0.243-0.248 / 0.247-0.248
/// against 0.255-0.257 / 0.257; 1696 bits (k = 166) 0.481-0.482 / 0.485-0.493 against
/// 0.466-0.468 / 0.471-0.473. So: for wide bases of up to 128 moduli (`MPBLAS_FUSED_BIN=0` or
/// `1` forces either, for comparison).
fn round_in_binary(k: usize) -> bool {
    match std::env::var("MPBLAS_FUSED_BIN").as_deref() {
        Ok("0") => false,
        Ok("1") => true,
        _ => k <= 128,
    }
}

/// `m` when `a = ±m·2^e` with `m` odd of at most 53 bits (any exponent: its significand is read
/// at `±[1, 2)`, so α need not be a double), else 0 (also for zero, NaN and ±∞): the fused prep
/// then forms `d_j = α·x_j` without its rounding where the product is exact in `p` bits
/// (`fused_exact_product_warp`: `x_j`'s significand a multiple of `2^bits(m)`, as a double's is;
/// the kernel needs `m` exact in a double). H200, 1000 × 1000: see BENCHMARKS.md (sessions 28-29).
fn alpha_odd_significand(a: &MpFloat) -> u64 {
    if !a.is_finite() || a.is_zero() {
        return 0;
    }
    // α moved into ±[1, 2) (mul_pow2 moves only the exponent), where it is a double exactly
    // when its significand has at most 53 bits: a conversion and a comparison (1696 bits, this
    // 2-core host: 8.6 µs, against 49 µs for to_limbs's ⌈p/63⌉ CRT passes; host time before the
    // prep's launch that the GPU waits through, so the launcher keeps it with α's upload)
    let unit = a.mul_pow2(-(a.exponent() + a.precision() as i64 - 1));
    let v = unit.to_f64();
    if MpFloat::from_f64(a.basis(), v) != unit {
        return 0;
    }
    let m = (v.to_bits() & ((1u64 << 52) - 1)) | (1u64 << 52);
    m >> m.trailing_zeros()
}

/// One warp per item, two warps per block (the kernels' `FUSED_WARPS_PER_BLOCK`).
fn warp_items(items: usize) -> LaunchConfig {
    LaunchConfig::new((items.div_ceil(2).clamp(1, 65_535) as u32, 1), 64)
}

/// A grid-stride launch of whole warps covering `threads` threads.
fn warps_grid(dev: &Device, threads: usize) -> LaunchConfig {
    dev.grid_for(threads)
}

/// BLAS `?gemv` in RNS on the GPU, each entry rounded once: the CPU's
/// [`rns::gemv_fused`](super::rns::gemv_fused) on the same values, bit for bit, with
/// [`gemv`](super::gpu::rns::gemv)'s arguments and conventions (`α = 0` gives `fl(β·y)`
/// without reading `A` or `x`, `β = 0` does not read `y`, reference BLAS's quick returns).
///
/// # Errors
/// As [`gemv`](super::gpu::rns::gemv); [`Error::OutOfRange`] when the wide basis would exceed
/// the kernels' 256 moduli (above about 2600 bits) or `op(A)` has more than `2^28` columns.
#[allow(clippy::too_many_arguments)]
pub fn gemv_fused(
    dev: &Device,
    trans: Trans,
    m: usize,
    n: usize,
    alpha: &MpFloat,
    a: &DeviceMpArray,
    lda: usize,
    x: &DeviceMpArray,
    incx: isize,
    beta: &MpFloat,
    y: &mut DeviceMpArray,
    incy: isize,
) -> Result<()> {
    let g = GemvArgs {
        trans,
        m,
        n,
        alpha,
        a,
        lda,
        x,
        incx,
        beta,
        incy,
        x_off: 0,
        y_off: 0,
    };
    fused_run(dev, &g, y, false).map(drop)
}

/// [`gemv_fused`] returning the CPU's bound of each entry
/// ([`rns::gemv_fused_bounded`](super::rns::gemv_fused_bounded)), computed on the device.
///
/// # Errors
/// As [`gemv_fused`].
#[allow(clippy::too_many_arguments)]
pub fn gemv_fused_bounded(
    dev: &Device,
    trans: Trans,
    m: usize,
    n: usize,
    alpha: &MpFloat,
    a: &DeviceMpArray,
    lda: usize,
    x: &DeviceMpArray,
    incx: isize,
    beta: &MpFloat,
    y: &mut DeviceMpArray,
    incy: isize,
) -> Result<Vec<Option<ExtF>>> {
    let g = GemvArgs {
        trans,
        m,
        n,
        alpha,
        a,
        lda,
        x,
        incx,
        beta,
        incy,
        x_off: 0,
        y_off: 0,
    };
    fused_run(dev, &g, y, true)
}

fn fused_run(
    dev: &Device,
    g: &GemvArgs<'_>,
    y: &mut DeviceMpArray,
    with_bounds: bool,
) -> Result<Vec<Option<ExtF>>> {
    dev.check_on("a", g.a.ordinal())?;
    dev.check_on("x", g.x.ordinal())?;
    dev.check_on("y", y.ordinal())?;
    let basis = g.alpha.basis();
    for other in [g.beta.basis(), g.a.basis(), g.x.basis(), y.basis()] {
        same_basis(basis, other)?;
    }
    let stored = MatLayout::blas_arg(("a", "lda"), Trans::No, g.m, g.n, g.lda, g.a.len())?;
    let (layout, lx, ly) = match g.trans {
        Trans::No => (stored, g.n, g.m),
        Trans::Yes => (stored.t(), g.m, g.n),
    };
    let (x0, y0) = g.starts(y.len(), lx, ly)?;
    let (alpha_zero, beta_zero) = (is_zero(g.alpha), is_zero(g.beta));
    let quick = ly == 0 || lx == 0 || (alpha_zero && *g.beta == MpFloat::from_f64(basis, 1.0));
    if quick || alpha_zero {
        // y unchanged, or y = fl(β·y): the paper's form does exactly that.
        if !quick {
            super::blas_level2_rns_gpu::gemv_args(dev, g, y)?;
        }
        if !with_bounds {
            return Ok(Vec::new());
        }
        let values = download_vector(y, y0, ly, g.incy)?;
        return Ok(values
            .iter()
            .map(|v| {
                if quick {
                    v.is_finite().then_some(ExtF::ZERO)
                } else {
                    one_rounding_bound(v)
                }
            })
            .collect());
    }
    let acc = Accumulator::new(basis, lx + (!beta_zero) as usize)?;
    let k = acc.max_len();
    if k > MAX_MODULI || acc.levels.len() > LEVELS {
        return Err(Error::OutOfRange {
            what: "moduli of the fused GEMV's wide basis on the GPU (precision too high)",
            got: k,
            min: basis.len(),
            max: MAX_MODULI,
        });
    }
    let ftab = fused_tables(dev, &acc)?;
    let tab = g.a.tables();
    let ws = dev.workspace("blas_fused_rns", || Ok(Mutex::new(Scratch::default())))?;
    let mut ws = ws.lock().unwrap_or_else(|e| e.into_inner());
    let s = &mut *ws;
    if s.d
        .as_ref()
        .is_none_or(|d| !d.basis().same(basis) || d.len() < lx)
    {
        s.d = None;
        s.d = Some(DeviceMpArray::zeros(dev, basis, lx)?);
    }
    let dinfo = grown(dev, &mut s.dinfo, lx)?;
    let dexp = grown(dev, &mut s.dexp, lx)?;
    let dq = grown(dev, &mut s.dq, lx)?;
    let dv = grown(dev, &mut s.dv, lx * basis.len())?;
    let low_min = grown(dev, &mut s.low_min, ly)?;
    let low_max = grown(dev, &mut s.low_max, ly)?;
    let flags = grown(dev, &mut s.flags, ly)?;
    let q = grown(dev, &mut s.q, ly)?;
    // each row's count and columns of the kept terms below its bucket (the kernel's
    // FUSED_ALONE_LIST columns a row), for the finish
    let alone_n = grown(dev, &mut s.alone_n, ly)?;
    let alone_cols = grown(dev, &mut s.alone_cols, ly * ALONE_LIST)?;
    let bucket_words = 2 * basis.len() + 2;
    let bsum = grown(dev, &mut s.bsum, ly * bucket_words)?;
    let bounds = grown(dev, &mut s.bounds, 2 * ly)?;
    if s.scalars.as_ref().is_none_or(|sc| !sc.basis().same(basis)) {
        s.scalars = None;
        s.uploaded = None;
        s.scalars = Some(DeviceMpArray::zeros(dev, basis, 2)?);
    }
    let scalars = s.scalars.as_mut().expect("just made");
    let alpha_odd = match &s.uploaded {
        Some((a, b, odd)) if a.identical(g.alpha) && b.identical(g.beta) => *odd,
        _ => {
            // a host-to-device copy waits for the device: skipped when α and β are unchanged
            s.uploaded = None;
            scalars.copy_from_host(&MpArray::from_mpfloats(
                basis,
                &[g.alpha.clone(), g.beta.clone()],
            )?)?;
            let odd = alpha_odd_significand(g.alpha);
            s.uploaded = Some((g.alpha.clone(), g.beta.clone(), odd));
            odd
        }
    };
    let alpha_arg = rns_arg(scalars, 0, 1, 0);
    let beta_arg = rns_arg(scalars, 1, 1, 0);
    let x_arg = rns_arg(g.x, x0, g.incx, 0);
    let y_arg = rns_arg(y, y0, g.incy, 0);
    let a_arg = rns_arg(
        g.a,
        layout.offset,
        layout.row_stride as isize,
        layout.col_stride as isize,
    );
    let d_arg = rns_arg(s.d.as_ref().expect("just made"), 0, 1, 0);
    let rows_in_lanes = layout.row_stride == 1;
    let sms = dev.info().multiprocessors.max(1) as usize;
    let DeferShape {
        g: lanes,
        per,
        rows: sums_rows,
        ring,
        kernel: sums_kernel,
    } = defer_shape(basis.len(), ly, lx, rows_in_lanes, sms);
    // the sums' shared memory (fused_defer): the moduli's three constants, padded to the
    // slots' kp = max(k, SLOTS g) entries, and, with the ring, each warp's ring of RING steps'
    // residues (fused_terms_batched), in blocks of RING_BLOCK threads
    let constants_bytes = 4 * 3 * k.max(SLOTS * lanes as usize);
    let (block, ring_bytes) = if ring {
        (RING_BLOCK, RING_BLOCK / 32 * RING * 2 * SLOTS * 32 * 4)
    } else {
        (256, 0)
    };
    let ftab = ftab.addr();
    // SAFETY (every launch below): the tables are the packed base basis and the fused tables
    // of this call's accumulator; α and β are elements 0 and 1 of `scalars`; x holds lx
    // elements from x0 at stride incx, y ly from y0 at stride incy (blas_vector); A's layout
    // was checked against its array; the scratch buffers hold lx (dinfo, dexp, dq), lx·n (dv), ly
    // (low_min, low_max, flags, q, alone_n), ly·ALONE_LIST (alone_cols), ly·(2n + 2) (bsum) and
    // 2·ly (bounds) elements.
    // The scan, the sums and the finish may overlap the kernel before them (launch_dependent,
    // overlap_mask): each reads that kernel's outputs, and writes what it reads, only after its
    // fused_wait_previous; the prep, a plain launch, waits for the previous call's finish.
    let overlap = overlap_mask();
    unsafe {
        // d = fl(α·x) and |d_i w_i R| (a warp per element, two per block), then the rows'
        // starting state and the zeroed bucket sums (init blocks, below)
        let prep_blocks = lx.div_ceil(2).clamp(1, 65_535);
        // a block per two rows (more than the thread per row the init part needs; the
        // grid-stride loops take any count) and enough threads to zero the bucket's words of
        // every row in a few steps
        let init_blocks = (ly + 1)
            .div_ceil(2)
            .max((ly * bucket_words).div_ceil(64 * 8))
            .clamp(1, 65_535);
        let binary = round_in_binary(k);
        // α = ±2^k (α = 1 above all): each d_j is x_j scaled, no rounding (fused_prep); α =
        // ±m·2^e with m odd of at most 53 bits: each α·x_j that is exact in p bits skips it
        let alpha_pow2 = g.alpha.power_of_two_exponent().is_some();
        dev.launch(
            &MODULE,
            if binary {
                "blas_fused_prep_bin"
            } else {
                "blas_fused_prep"
            },
            LaunchConfig::new(((prep_blocks + init_blocks) as u32, 1), 64),
            &[
                Arg::U64(tab),
                Arg::U64(ftab),
                Arg::U64(prep_blocks as u64),
                alpha_arg,
                Arg::I32(alpha_pow2 as i32),
                Arg::U64(alpha_odd),
                x_arg,
                Arg::U64(lx as u64),
                d_arg,
                Arg::U64(dinfo),
                Arg::U64(dexp),
                Arg::U64(dq),
                Arg::U64(dv),
                beta_arg.clone(),
                y_arg.clone(),
                Arg::U64(ly as u64),
                Arg::I32(beta_zero as i32),
                Arg::U64(low_min),
                Arg::U64(low_max),
                Arg::U64(flags),
                Arg::U64(q),
                Arg::U64(bsum),
                Arg::U64(alone_n),
            ],
        )?;
        let scan_per = scan_columns(ly, lx, rows_in_lanes);
        let scan_threads = ly * lx.div_ceil(scan_per) * if rows_in_lanes { 1 } else { 32 };
        dev.launch_dependent(
            &MODULE,
            "blas_fused_scan",
            warps_grid(dev, scan_threads),
            &[
                a_arg.clone(),
                Arg::U64(dinfo),
                Arg::U64(dexp),
                Arg::U64(ly as u64),
                Arg::U64(lx as u64),
                Arg::I32(rows_in_lanes as i32),
                Arg::U64(scan_per as u64),
                Arg::U64(low_min),
                Arg::U64(low_max),
                Arg::U64(flags),
            ],
            overlap & 1 != 0,
        )?;
        let gpw = 32 / lanes as usize;
        let units = if sums_rows { ly.div_ceil(gpw) } else { ly } * lx.div_ceil(per);
        let mut cfg = dev.grid_for_blocks_of(units * 32, block);
        cfg.shared_bytes = (constants_bytes + ring_bytes) as u32;
        dev.launch_dependent(
            &MODULE,
            sums_kernel,
            cfg,
            &[
                Arg::U64(ftab),
                a_arg.clone(),
                Arg::U64(dinfo),
                Arg::U64(dexp),
                Arg::U64(dq),
                Arg::U64(dv),
                Arg::U64(ly as u64),
                Arg::U64(lx as u64),
                Arg::I32(sums_rows as i32),
                Arg::U64(per as u64),
                Arg::U64(low_min),
                Arg::U64(low_max),
                Arg::U64(flags),
                Arg::U64(q),
                Arg::U64(bsum),
                Arg::U64(alone_n),
                Arg::U64(alone_cols),
            ],
            overlap & 2 != 0,
        )?;
        dev.launch_dependent(
            &MODULE,
            if binary {
                "blas_fused_finish_bin"
            } else {
                "blas_fused_finish"
            },
            warp_items(ly),
            &[
                Arg::U64(tab),
                Arg::U64(ftab),
                beta_arg,
                y_arg,
                Arg::U64(ly as u64),
                Arg::I32(beta_zero as i32),
                Arg::U64(low_min),
                Arg::U64(low_max),
                Arg::U64(flags),
                Arg::U64(q),
                Arg::U64(bsum),
                Arg::U64(bounds),
                // the rows' terms below their bucket (flagged by the sums): the finish adds them
                a_arg,
                Arg::U64(dinfo),
                Arg::U64(dexp),
                Arg::U64(dv),
                Arg::U64(lx as u64),
                Arg::U64(alone_n),
                Arg::U64(alone_cols),
            ],
            overlap & 4 != 0,
        )?;
    }
    if !with_bounds {
        return Ok(Vec::new());
    }
    let words = s.bounds.as_ref().expect("grown above").to_vec()?;
    Ok(words[..2 * ly]
        .chunks(2)
        .map(|w| {
            let f = f64::from_bits(w[0]);
            (!f.is_nan()).then_some(ExtF { f, e: w[1] as i64 })
        })
        .collect())
}

/// BLAS-style `gemm` in RNS on the GPU, each entry rounded once: `C ← α·op(A)·op(B) + β·C` with
/// `op(A)` `m × k`, `op(B)` `k × n`, `C` `m × n` (column-major arrays with leading dimensions,
/// as [`gemm_blas`](super::level3::gemm_blas)): the CPU's
/// [`rns::gemm_fused`](super::rns::gemm_fused) on device arrays, bit for bit. A first form, as
/// on the CPU: [`gemv_fused`] once per column of `op(B)` (the column read in place, no copy).
/// `α = 0` or `k = 0` gives `C ← fl(β·C)` (`+0` for `β = 0`) without reading `A` or `B`.
///
/// # Errors
/// [`Error::LeadingDim`] and [`Error::ArrayTooShort`] (`a`, `b`, `c`), then [`gemv_fused`]'s.
#[allow(clippy::too_many_arguments)]
pub fn gemm_fused(
    dev: &Device,
    transa: Trans,
    transb: Trans,
    (m, n, k): (usize, usize, usize),
    alpha: &MpFloat,
    (a, lda): (&DeviceMpArray, usize),
    (b, ldb): (&DeviceMpArray, usize),
    beta: &MpFloat,
    (c, ldc): (&mut DeviceMpArray, usize),
) -> Result<()> {
    let ops = (transa, transb, alpha, beta);
    gemm_fused_run(dev, ops, (m, n, k), (a, lda), (b, ldb), (c, ldc), false).map(drop)
}

/// [`gemm_fused`] and the CPU's bound of each entry
/// ([`rns::gemm_fused_bounded`](super::rns::gemm_fused_bounded), column-major).
///
/// # Errors
/// As [`gemm_fused`].
#[allow(clippy::too_many_arguments)]
pub fn gemm_fused_bounded(
    dev: &Device,
    transa: Trans,
    transb: Trans,
    (m, n, k): (usize, usize, usize),
    alpha: &MpFloat,
    (a, lda): (&DeviceMpArray, usize),
    (b, ldb): (&DeviceMpArray, usize),
    beta: &MpFloat,
    (c, ldc): (&mut DeviceMpArray, usize),
) -> Result<Vec<Option<ExtF>>> {
    let ops = (transa, transb, alpha, beta);
    gemm_fused_run(dev, ops, (m, n, k), (a, lda), (b, ldb), (c, ldc), true)
}

/// [`gemm_fused`] and its bounds: `ops` are the transposes of `A` and `B`, `α` and `β`.
fn gemm_fused_run(
    dev: &Device,
    (transa, transb, alpha, beta): (Trans, Trans, &MpFloat, &MpFloat),
    (m, n, k): (usize, usize, usize),
    (a, lda): (&DeviceMpArray, usize),
    (b, ldb): (&DeviceMpArray, usize),
    (c, ldc): (&mut DeviceMpArray, usize),
    with_bounds: bool,
) -> Result<Vec<Option<ExtF>>> {
    MatLayout::blas_arg(("a", "lda"), transa, m, k, lda, a.len())?;
    let lb = MatLayout::blas_arg(("b", "ldb"), transb, k, n, ldb, b.len())?;
    MatLayout::blas_arg(("c", "ldc"), Trans::No, m, n, ldc, c.len())?;
    if m == 0 || n == 0 {
        return Ok(Vec::new());
    }
    let basis = alpha.basis();
    // k = 0: C ← fl(β·C) through the α = 0 path of a GEMV on one column of zeros (not read).
    let zero = MpFloat::from_f64(basis, 0.0);
    let zeros = if k == 0 {
        Some((
            DeviceMpArray::zeros(dev, basis, m)?,
            DeviceMpArray::zeros(dev, basis, 1)?,
        ))
    } else {
        None
    };
    // op(A) as the GEMV's stored matrix: m × k, or k × m transposed.
    let (rows, cols) = match transa {
        Trans::No => (m, k),
        Trans::Yes => (k, m),
    };
    let mut bounds = Vec::with_capacity(if with_bounds { m * n } else { 0 });
    for j in 0..n {
        let gv = if let Some((za, zx)) = &zeros {
            GemvArgs {
                trans: Trans::No,
                m,
                n: 1,
                alpha: &zero,
                a: za,
                lda: m,
                x: zx,
                incx: 1,
                beta,
                incy: 1,
                x_off: 0,
                y_off: j * ldc,
            }
        } else {
            GemvArgs {
                trans: transa,
                m: rows,
                n: cols,
                alpha,
                a,
                lda,
                x: b,
                incx: lb.row_stride as isize,
                beta,
                incy: 1,
                x_off: lb.index(0, j),
                y_off: j * ldc,
            }
        };
        bounds.extend(fused_run(dev, &gv, c, with_bounds)?);
    }
    Ok(bounds)
}

/// BLAS-style `dot` in RNS on the GPU, rounded once: the CPU's
/// [`rns::dot_fused`](super::rns::dot_fused) of the `n` elements of `x` and `y` (increments as
/// level 1, negative ones walking down from the last element), bit for bit. It runs as
/// [`gemv_fused`] of one row (the dot's terms as a `1 × n` matrix; a sum of residues has no
/// order, so the pairing is all that matters); `n = 0` gives `+0`.
///
/// # Errors
/// [`Error::DeviceMismatch`], [`Error::BasisMismatch`], [`Error::ArrayTooShort`] and
/// [`Error::InvalidView`] (an increment of 0) as level 1; then [`gemv_fused`]'s.
pub fn dot_fused(
    dev: &Device,
    n: usize,
    x: &DeviceMpArray,
    incx: isize,
    y: &DeviceMpArray,
    incy: isize,
) -> Result<MpFloat> {
    dev.check_on("x", x.ordinal())?;
    dev.check_on("y", y.ordinal())?;
    same_basis(x.basis(), y.basis())?;
    blas_vector("x", x.len(), n, incx)?;
    blas_vector("y", y.len(), n, incy)?;
    let basis = x.basis();
    if n == 0 {
        return Ok(MpFloat::zero(basis, false));
    }
    // Both walking down pair the same elements as both walking up; otherwise the operand with
    // a positive increment is the matrix (a row with lda = its increment), the other the vector.
    let (incx, incy) = if incx < 0 && incy < 0 {
        (-incx, -incy)
    } else {
        (incx, incy)
    };
    let (mat, lda, vec, incv) = if incx > 0 {
        (x, incx as usize, y, incy)
    } else {
        (y, incy as usize, x, incx)
    };
    let mut out = DeviceMpArray::zeros(dev, basis, 1)?;
    let (one, zero) = (MpFloat::from_f64(basis, 1.0), MpFloat::zero(basis, false));
    gemv_fused(
        dev,
        Trans::No,
        1,
        n,
        &one,
        mat,
        lda,
        vec,
        incv,
        &zero,
        &mut out,
        1,
    )?;
    out.download()?.get(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sums' shape as the launcher picks it by default (the tuning variables unset).
    fn default_shape(nb: usize, m: usize, n: usize, rows_in_lanes: bool) -> Option<DeferShape> {
        let tuned = [
            "MPBLAS_FUSED_G",
            "MPBLAS_FUSED_ROWS",
            "MPBLAS_FUSED_WARPS",
            "MPBLAS_FUSED_RING4",
            "MPBLAS_FUSED_SLOTS7",
        ];
        if tuned.iter().any(|v| std::env::var_os(v).is_some()) {
            eprintln!("skipped: a MPBLAS_FUSED_* tuning variable is set");
            return None;
        }
        Some(defer_shape(nb, m, n, rows_in_lanes, 132))
    }

    #[test]
    fn transposed_sums_take_rows_from_eight_lanes_a_term_given_enough_rows() {
        // 848 bits (55 base moduli): 8 lanes a term, rows for both storages; 1000 x 1000 on
        // 132 SMs: 250 units of 4 rows, 6 chunks of 167 columns (1500 units, one wave of 1584)
        let Some(t) = default_shape(55, 1000, 1000, false) else {
            return;
        };
        assert_eq!((t.g, t.rows, t.per), (8, true, 167));
        let t = default_shape(55, 1000, 1000, true).unwrap();
        assert_eq!((t.g, t.rows, t.per), (8, true, 167));
        // Aᵀx with fewer than 16 units' worth of rows keeps columns
        assert!(!default_shape(55, 63, 1000, false).unwrap().rows);
        assert!(default_shape(55, 64, 1000, false).unwrap().rows);
        // 1696 bits (110): 16 lanes, rows from 32 rows
        let t = default_shape(110, 1000, 1000, false).unwrap();
        assert_eq!((t.g, t.rows), (16, true));
        assert!(!default_shape(110, 31, 1000, false).unwrap().rows);
        // 106 bits (7): one lane a term; Aᵀx keeps columns, A x rows
        let t = default_shape(7, 1000, 1000, false).unwrap();
        assert_eq!((t.g, t.rows), (1, false));
        assert!(default_shape(7, 1000, 1000, true).unwrap().rows);
    }

    #[test]
    fn each_sums_kernel_has_a_precision_that_takes_it() {
        // (base moduli, the precision in bits that has them, A x's and Aᵀx's kernels at
        // 1000 x 1000): the precisions gpu_blas_rns.rs runs, one a kernel
        let cases = [
            (4, 53, "g1s7", "g1s7"),
            (7, 106, "g1s7", "g1s7"),
            (8, 120, "g1", "g1"),
            (10, 150, "g2s7", "g2s7"),
            (14, 212, "g2s7", "g2s7"),
            (15, 230, "g2", "g2"),
            (20, 300, "g4n7", "g4n7"),
            (28, 424, "g4n7", "g4n7"),
            (30, 460, "g4n", "g4"),
            (42, 640, "g8n7", "g8n7"),
            (55, 848, "g8n7", "g8n7"),
            (59, 900, "g8n", "g8n"),
            (91, 1400, "g16n7", "g16n7"),
            (110, 1696, "g16n7", "g16n7"),
            (117, 1800, "g16n", "g16n"),
            (219, 3393, "g32", "g32"),
        ];
        for (nb, bits, n, t) in cases {
            assert_eq!(
                crate::rns::Basis::new(bits).unwrap().len(),
                nb,
                "{bits} bits"
            );
            let Some(sn) = default_shape(nb, 1000, 1000, true) else {
                return;
            };
            let st = default_shape(nb, 1000, 1000, false).unwrap();
            assert_eq!(
                sn.kernel,
                format!("blas_fused_defer_{n}"),
                "{bits} bits, A x"
            );
            assert_eq!(
                st.kernel,
                format!("blas_fused_defer_{t}"),
                "{bits} bits, Aᵀx"
            );
            assert!(KERNELS.contains(&sn.kernel) && KERNELS.contains(&st.kernel));
        }
        // Aᵀx with few rows keeps the columns at g = 8 (no 7-slot kernel there) and g = 4
        assert_eq!(
            default_shape(55, 63, 1000, false).unwrap().kernel,
            "blas_fused_defer_g8"
        );
        assert_eq!(
            default_shape(28, 127, 1000, false).unwrap().kernel,
            "blas_fused_defer_g4"
        );
    }

    #[test]
    fn alpha_takes_the_exact_product_path_when_its_odd_part_fits_a_double() {
        let b = crate::rns::Basis::new(106).unwrap();
        let f = |v: f64| MpFloat::from_f64(&b, v);
        assert_eq!(alpha_odd_significand(&f(1.5)), 3);
        assert_eq!(alpha_odd_significand(&f(-0.75)), 3);
        assert_eq!(alpha_odd_significand(&f(1.0)), 1);
        assert_eq!(alpha_odd_significand(&f(0.1)), 0x0019_9999_9999_999a >> 1);
        // beyond the double range, and a subnormal double (2^-1023: a power of two)
        assert_eq!(alpha_odd_significand(&f(1.5).mul_pow2(3000)), 3);
        assert_eq!(
            alpha_odd_significand(&f(-0.1).mul_pow2(-5000)),
            0x0019_9999_9999_999a >> 1
        );
        assert_eq!(alpha_odd_significand(&f(f64::MIN_POSITIVE / 2.0)), 1);
        // an odd part of 54 bits, at two exponents
        let long = MpFloat::from_limbs(&b, false, &[(1 << 53) + 1], -7);
        assert_eq!(alpha_odd_significand(&long), 0);
        assert_eq!(alpha_odd_significand(&long.mul_pow2(-3)), 0);
        let third = f(1.0).div(&f(3.0)).unwrap();
        assert_eq!(alpha_odd_significand(&third), 0);
        // 53 bits that straddle two limbs of the significand
        let odd = (1u64 << 52) | 12345;
        let wide = MpFloat::from_limbs(&b, true, &[odd << 40, odd >> 24], 0);
        assert_eq!(alpha_odd_significand(&wide), odd);
        for v in [0.0, -0.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(alpha_odd_significand(&f(v)), 0, "{v}");
        }
    }

    #[test]
    fn the_scan_takes_four_columns_a_thread_or_a_warps_share_at_1000_by_1000() {
        if std::env::var_os("MPBLAS_FUSED_SCAN_THREADS").is_some() {
            eprintln!("skipped: MPBLAS_FUSED_SCAN_THREADS is set");
            return;
        }
        // rows in lanes: 250 chunks of 4 columns (250,000 threads); else 8 chunks of 128
        // columns (8,000 warps, a lane every 32nd column)
        assert_eq!(scan_columns(1000, 1000, true), 4);
        assert_eq!(scan_columns(1000, 1000, false), 128);
        // one row, one column: one chunk
        assert_eq!(scan_columns(1, 1, true), 1);
        assert_eq!(scan_columns(1, 1, false), 32);
    }

    #[test]
    fn a_chunk_never_exceeds_a_buckets_terms() {
        let Some(t) = default_shape(55, 1, 1 << 20, false) else {
            return;
        };
        assert!(t.per <= BUCKET_TERMS);
    }
}
