//! The work meter: how one long operation honours the run's wall-clock
//! deadline (`--timeout`).
//!
//! The machine checks the deadline between steps, but a single operation can
//! do work sized by the kernel (a DMA of millions of bursts, a matmul with
//! huge m/n/k, a collective over a large view, a SIMT launch of many
//! threads). Such loops [`charge`] the meter with a rough count of the work
//! they are about to do (elements or bytes of a row plus one per row): a
//! subtraction from a thread-local budget. Only when the budget runs out does
//! the meter read the clock, so a run pays one `Instant::now()` per
//! [`CHUNK`] units. Past the deadline the charge fails with
//! [`Fault::Timeout`], which the machine reports as `RunError::Timeout`.
//!
//! The meter is per host thread: every block (and rank) runs its whole
//! cluster on one thread, and [`arm`] sets the deadline for the time the
//! cluster runs. Unarmed (no deadline) a charge never fails.

use std::cell::Cell;
use std::time::Instant;

use crate::exec::Fault;

/// Units of work between two reads of the clock. A unit is about one element
/// or byte moved or computed, so this is well under a millisecond of work.
pub const CHUNK: u64 = 1 << 18;

thread_local! {
    /// Units left before the next clock read.
    static LEFT: Cell<u64> = const { Cell::new(u64::MAX) };
    /// The deadline of the cluster running on this thread.
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
    /// Whether a charge found the deadline passed.
    static TRIPPED: Cell<bool> = const { Cell::new(false) };
}

/// Restores the previous meter state when the armed run ends.
#[must_use = "the meter is disarmed when the guard drops"]
pub struct Armed {
    prev: Option<Instant>,
}

/// Arms the meter of this thread with `deadline` until the guard drops.
pub fn arm(deadline: Option<Instant>) -> Armed {
    let prev = DEADLINE.with(|d| d.replace(deadline));
    LEFT.with(|l| l.set(if deadline.is_some() { CHUNK } else { u64::MAX }));
    TRIPPED.with(|t| t.set(false));
    Armed { prev }
}

impl Drop for Armed {
    fn drop(&mut self) {
        DEADLINE.with(|d| d.set(self.prev));
        LEFT.with(|l| l.set(if self.prev.is_some() { CHUNK } else { u64::MAX }));
        TRIPPED.with(|t| t.set(false));
    }
}

/// Charges `units` of work; fails with [`Fault::Timeout`] once the armed
/// deadline has passed.
#[inline]
pub fn charge(units: u64) -> Result<(), Fault> {
    let left = LEFT.with(|l| l.get());
    if left > units {
        LEFT.with(|l| l.set(left - units));
        Ok(())
    } else {
        refill()
    }
}

/// [`charge`] for a `usize` count.
#[inline]
pub fn charge_n(units: usize) -> Result<(), Fault> {
    charge(units as u64)
}

#[cold]
#[inline(never)]
fn refill() -> Result<(), Fault> {
    match DEADLINE.with(|d| d.get()) {
        None => {
            LEFT.with(|l| l.set(u64::MAX));
            Ok(())
        }
        Some(d) => {
            if Instant::now() >= d {
                TRIPPED.with(|t| t.set(true));
                // stay tripped: every later charge reads the clock again
                LEFT.with(|l| l.set(0));
                Err(Fault::Timeout)
            } else {
                LEFT.with(|l| l.set(CHUNK));
                Ok(())
            }
        }
    }
}

/// Whether a charge on this thread found the deadline passed since [`arm`]
/// (a fault built from a timed-out operation may have lost its kind on the
/// way up; the machine still reports a timeout).
pub fn tripped() -> bool {
    TRIPPED.with(|t| t.get())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn unarmed_never_fails_and_a_passed_deadline_stops_within_a_chunk() {
        for _ in 0..4 {
            assert_eq!(charge(CHUNK), Ok(()));
        }
        {
            let _g = arm(Some(Instant::now() - Duration::from_millis(1)));
            let mut charged = 0u64;
            let r = loop {
                if let Err(f) = charge(1000) {
                    break f;
                }
                charged += 1000;
            };
            assert_eq!(r, Fault::Timeout);
            assert!(charged <= CHUNK, "{charged}");
            assert!(tripped());
            // stays tripped
            assert_eq!(charge(1), Err(Fault::Timeout));
        }
        // the guard disarmed the meter
        assert!(!tripped());
        assert_eq!(charge(u64::MAX), Ok(()));
        assert_eq!(charge(5), Ok(()));
    }

    #[test]
    fn a_future_deadline_lets_work_through() {
        let _g = arm(Some(Instant::now() + Duration::from_secs(3600)));
        for _ in 0..(4 * CHUNK / 1000) {
            assert_eq!(charge(1000), Ok(()));
        }
        assert!(!tripped());
    }
}
