//! Public API guard (in progress).
