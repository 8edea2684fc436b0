//! How a floor variant becomes a benchmark program: an [`Iteration`] that runs the variant's
//! sequential system, with its validation in the timed run or after it.

use crate::bench::{Iteration, Outcome, Prepared};

/// Builds a floor variant's program: an [`Iteration`] whose timed `run` calls `run` with
/// `prepared`, what the variant's `prepare` made once, untimed (the decoded parameters and any
/// data every iteration reads). The floor is sequential, so no runtime is built.
///
/// `run` is a type parameter rather than a function pointer, so that each program calls its
/// iteration directly.
pub(crate) fn program<P, F>(prepared: P, run: F) -> Prepared
where
    P: 'static,
    F: Fn(&P) -> Outcome + 'static,
{
    Ok(Box::new(Program { prepared, run }))
}

/// A floor variant's program (see [`program`]).
struct Program<P, F> {
    prepared: P,
    run: F,
}

impl<P, F: Fn(&P) -> Outcome> Iteration for Program<P, F> {
    fn run(&mut self) -> Outcome {
        (self.run)(&self.prepared)
    }
}

/// Builds a floor variant's program whose validation is untimed (see
/// [`motet_support::prepare_validated`](crate::motet_support::prepare_validated)): the timed `run`
/// returns what the program ended with, `validate` checks it in [`Iteration::validate`].
pub(crate) fn program_validated<P, R, F, V>(prepared: P, run: F, validate: V) -> Prepared
where
    P: 'static,
    R: 'static,
    F: Fn(&P) -> R + 'static,
    V: Fn(&P, R) -> Outcome + 'static,
{
    Ok(Box::new(Validated {
        prepared,
        run,
        validate,
        last: None,
    }))
}

/// A floor variant's program with an untimed validation (see [`program_validated`]).
struct Validated<P, R, F, V> {
    prepared: P,
    run: F,
    validate: V,
    last: Option<R>,
}

impl<P, R, F: Fn(&P) -> R, V: Fn(&P, R) -> Outcome> Iteration for Validated<P, R, F, V> {
    fn run(&mut self) -> Outcome {
        self.last = Some((self.run)(&self.prepared));
        Outcome::failed(crate::motet_support::NOT_VALIDATED)
    }

    fn validate(&mut self, outcome: Outcome) -> Outcome {
        match self.last.take() {
            Some(last) => (self.validate)(&self.prepared, last),
            None => outcome,
        }
    }
}
