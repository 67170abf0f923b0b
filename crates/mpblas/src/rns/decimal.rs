//! Decimal strings (later).
