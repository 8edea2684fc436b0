//! Actor facade (in progress).
