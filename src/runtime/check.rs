//! The buffer-length check every job's `validate()` makes.

use super::JobError;

/// Checks that a buffer has the expected length.
pub(crate) fn check_len(what: &'static str, got: usize, expected: usize) -> Result<(), JobError> {
    if got == expected {
        Ok(())
    } else {
        Err(JobError::Length {
            what,
            got,
            expected,
        })
    }
}
