//! Decimal conversion of `Dd` and `Qd`: parsing and printing with all significant digits.
//!
//! TEMPORARY STUB (foundation commit): replaced by exact big-integer conversion.

use crate::Dd;
use std::fmt;

impl fmt::Display for Dd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:e} + {:e}", self.hi, self.lo)
    }
}

impl fmt::Display for crate::Qd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:e} + {:e} + {:e} + {:e}",
            self.c[0], self.c[1], self.c[2], self.c[3]
        )
    }
}
