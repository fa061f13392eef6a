//! Integration tests of warpspec live in tests/. This library holds what several of them
//! share: [`sanitizer`], for the sanitizer's test files.

pub mod sanitizer;
