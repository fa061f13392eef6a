//! The kernel source line of the statement a role is running, as the `#[kernel]` macro knows
//! it. A DSL operation reports its caller's [`Location`] to the backend; inside a kernel
//! stamped by a `macro_rules!` macro that location is the macro's invocation, the same for
//! every operation. The macro therefore precedes each statement of a kernel function with
//! [`line_hint`]: the line of the statement's first operation where it is written, the line
//! the kernel's IR (and so the CUDA code and its op timestamps) gives it. The timing model
//! takes the hint for an operation from the same file, so its source view and timeline name
//! the written line; that includes the register arithmetic (`row_max`, `exp2`, ...), which
//! reports no location of its own and was counted at the operation before it.

use std::cell::Cell;
use std::panic::Location;

thread_local! {
    static HINT: Cell<Option<(&'static Location<'static>, u32)>> = const { Cell::new(None) };
}

/// Records that the statement about to run is written on `line` (called by code the
/// `#[kernel]` macro generates).
#[track_caller]
pub fn line_hint(line: u32) {
    let at = Location::caller();
    HINT.with(|h| h.set(Some((at, line))));
}

/// The written line of an operation whose caller (or, for arithmetic, whose last located
/// operation) is `at`: the last hint's line when the hint was given from the same file (the
/// kernel's statements), else `at`'s own line.
pub(crate) fn written_line(at: &'static Location<'static>) -> u32 {
    match HINT.with(Cell::get) {
        Some((hinted, line)) if hinted.file() == at.file() => line,
        _ => at.line(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hint_names_the_line_of_operations_from_its_file_only() {
        #[track_caller]
        fn here() -> &'static Location<'static> {
            Location::caller()
        }
        // A hint and an operation from the same line (as in a macro's expansion).
        #[rustfmt::skip]
        let at = { line_hint(7); here() };
        assert_eq!(written_line(at), 7);
        // Without a hint (a thread that ran no kernel statement), an operation keeps its own
        // line. (An operation from another file does too: tests/tests/source_lines.rs.)
        let plain = std::thread::spawn(|| {
            let at = here();
            (written_line(at), at.line())
        });
        let (written, own) = plain.join().unwrap();
        assert_eq!(written, own);
    }
}
