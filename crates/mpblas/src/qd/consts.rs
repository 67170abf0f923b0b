//! Mathematical constants as quad-doubles.
