//! Integration tests of warpspec live in tests/.
