//! MpArray (later).
/// Placeholder.
pub struct MpArray;
