//! Elementary functions of quad-doubles.
