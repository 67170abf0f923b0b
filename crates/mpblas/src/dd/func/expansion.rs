//! Exact floating-point expansions (Shewchuk, "Adaptive precision floating-point arithmetic
//! and fast robust geometric predicates", DCG 18, 1997): a value is the exact sum of a few
//! non-overlapping `f64` components, kept in increasing magnitude. Sums and products of `f64`s
//! are accumulated without any rounding; only the final conversion to a double-double (or
//! triple-double) rounds. The elementary functions use this where a double-double
//! intermediate would lose the last bits: argument reductions by a multiple of ln 2, the
//! assembly of a logarithm from its table value and series, and `y·ln x` in `pow`.

use crate::eft::{fast_two_sum, two_prod, two_sum};

/// Capacity: far more than any function here needs (at most about 30 non-zero components).
const CAP: usize = 48;

/// An exact sum of non-overlapping `f64` components, smallest first.
#[derive(Clone, Copy)]
pub(super) struct Expansion {
    c: [f64; CAP],
    n: usize,
}

impl Expansion {
    /// The empty sum (zero).
    pub(super) fn new() -> Self {
        Expansion {
            c: [0.0; CAP],
            n: 0,
        }
    }

    /// Adds `b` exactly (Shewchuk's GROW-EXPANSION with zero elimination). If the capacity
    /// were ever reached, the two smallest components are merged with one rounding instead
    /// of panicking (unreachable for the sizes used here).
    pub(super) fn add(&mut self, b: f64) {
        if b == 0.0 {
            return;
        }
        if self.n == CAP {
            self.c[1] += self.c[0];
            self.c.copy_within(1..CAP, 0);
            self.n -= 1;
        }
        let mut q = b;
        let mut m = 0;
        for i in 0..self.n {
            let (s, h) = two_sum(q, self.c[i]);
            q = s;
            if h != 0.0 {
                self.c[m] = h;
                m += 1;
            }
        }
        if q != 0.0 || m == 0 {
            self.c[m] = q;
            m += 1;
        }
        self.n = m;
    }

    /// Adds every word of `w`.
    pub(super) fn add_all(&mut self, w: &[f64]) {
        for &x in w {
            self.add(x);
        }
    }

    /// Adds the exact product `a·b` (TwoProd: exact unless it underflows).
    pub(super) fn add_prod(&mut self, a: f64, b: f64) {
        let (p, e) = two_prod(a, b);
        self.add(p);
        self.add(e);
    }

    /// Adds `a·b` for two short expansions given most significant first (`a` of 2 words,
    /// `b` of up to 3), keeping every product whose weight is above `2^-150` relative:
    /// the leading cross products exactly, the last ones rounded.
    pub(super) fn add_mul(&mut self, a: &[f64], b: &[f64]) {
        for (i, &ai) in a.iter().enumerate() {
            for (j, &bj) in b.iter().enumerate() {
                if i + j <= 1 {
                    self.add_prod(ai, bj);
                } else if i + j == 2 {
                    self.add(ai * bj);
                }
            }
        }
    }

    /// The components' leading approximation (the sum in floating point, largest first).
    pub(super) fn approx(&self) -> f64 {
        self.c[..self.n].iter().rev().fold(0.0, |s, &x| s + x)
    }

    /// The sum split as `s + t`, `s` the floating-point sum of the components from the
    /// smallest up (so `s` is within an ulp or so of the value) and `t` the exact sum of the
    /// rounding errors, itself accumulated as a double-double `(t0, t1)`.
    fn split(&self) -> (f64, f64, f64) {
        let mut s = 0.0;
        let (mut t0, mut t1) = (0.0, 0.0);
        for &x in &self.c[..self.n] {
            let (s2, e) = two_sum(x, s);
            s = s2;
            // (t0, t1) += e, with t0 + t1 tiny compared with s: errors here are below 2^-150·s.
            let (a, b) = two_sum(t0, e);
            t0 = a;
            t1 += b;
        }
        (s, t0, t1)
    }

    /// Rounds to a normalised double-double: relative error at most about `1.01·2^-106`
    /// (`s` and `t0` are combined exactly; only `t1` and the last addition round).
    pub(super) fn to_dd(self) -> (f64, f64) {
        let (s, t0, t1) = self.split();
        let (h, l) = fast_two_sum(s, t0);
        let l = l + t1;
        fast_two_sum(h, l)
    }

    /// Rounds to three words, most significant first (relative error about `2^-155`).
    pub(super) fn to_td(self) -> [f64; 3] {
        let (s, t0, t1) = self.split();
        let (h, l) = fast_two_sum(s, t0);
        let (l, m) = two_sum(l, t1);
        let (h, l) = fast_two_sum(h, l);
        [h, l, m]
    }
}

impl Expansion {
    /// Adds `sign·o` exactly (`sign` is ±1).
    pub(super) fn add_expansion(&mut self, o: &Expansion, sign: f64) {
        for &x in &o.c[..o.n] {
            self.add(sign * x);
        }
    }
}
