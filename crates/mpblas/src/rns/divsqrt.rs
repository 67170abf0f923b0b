//! Division and square root (later).
