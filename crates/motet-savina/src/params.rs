//! Benchmark parameters, named by SPEC.md's flags (`n`, `r`, `w`, …).
//!
//! A benchmark declares its parameters once with [`params!`](crate::params!), which makes its
//! [`ParamSpec`] table, the struct its variants read and the decoding of [`Params`] into it.

use std::fmt;

mod declare;

/// One parameter of a benchmark: its flag name, Savina's default and the "small" size.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    /// SPEC.md's flag name, e.g. `n`.
    pub name: &'static str,
    /// Savina's default value.
    pub default: f64,
    /// The value used by `--size small` (LF's small size where SPEC.md gives one, else about a
    /// tenth of the default work).
    pub small: f64,
    /// What the parameter means.
    pub help: &'static str,
}

/// An integer type a parameter can be decoded into with [`Params::integer_as`].
pub trait ParamInt: TryFrom<u64> {
    /// The largest value, named in the error for a larger one.
    const MAX: u64;
}

impl ParamInt for i32 {
    const MAX: u64 = i32::MAX as u64;
}

impl ParamInt for u32 {
    const MAX: u64 = u32::MAX as u64;
}

impl ParamInt for i64 {
    const MAX: u64 = i64::MAX as u64;
}

impl ParamInt for u64 {
    const MAX: u64 = u64::MAX;
}

impl ParamInt for usize {
    const MAX: u64 = usize::MAX as u64;
}

/// A `parse` function for [`params!`](crate::params!): a whole number of at least `min`, held as
/// Savina holds it in a `long`, a larger one saturating at `i64::MAX`.
pub fn saturating_long(min: u64) -> impl Fn(&Params, &str) -> Result<i64, String> {
    move |params, name| Ok(params.integer(name, min)?.min(i64::MAX as u64) as i64)
}

/// A type a parameter declared without a minimum decodes into (see [`params!`](crate::params!)):
/// a float, or a type of the benchmark's own, such as a choice among a few numbered modes.
pub trait FromParam: Sized {
    /// The value of parameter `name`, or an error a user can act on.
    fn from_param(params: &Params, name: &str) -> Result<Self, String>;
}

impl FromParam for f64 {
    fn from_param(params: &Params, name: &str) -> Result<f64, String> {
        Ok(params.f64(name))
    }
}

/// Concrete parameter values for one run, in the benchmark's declaration order.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    values: Vec<(&'static str, f64)>,
}

impl Params {
    /// Savina's defaults for `specs`.
    pub fn defaults(specs: &[ParamSpec]) -> Params {
        Params {
            values: specs.iter().map(|s| (s.name, s.default)).collect(),
        }
    }

    /// The "small" sizes for `specs`.
    pub fn small(specs: &[ParamSpec]) -> Params {
        Params {
            values: specs.iter().map(|s| (s.name, s.small)).collect(),
        }
    }

    /// Sets `name` to `value`; an unknown name is an error naming the valid ones.
    pub fn set(&mut self, name: &str, value: f64) -> Result<(), String> {
        match self.values.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => {
                slot.1 = value;
                Ok(())
            }
            None => Err(format!(
                "unknown parameter `{name}`; valid: {}",
                self.names().collect::<Vec<_>>().join(", ")
            )),
        }
    }

    /// Whether the benchmark has a parameter `name`.
    pub fn has(&self, name: &str) -> bool {
        self.values.iter().any(|(n, _)| *n == name)
    }

    /// The value of `name` as a float.
    ///
    /// # Panics
    /// If the benchmark declared no such parameter (a bug in the benchmark, not a user error).
    pub fn f64(&self, name: &str) -> f64 {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .unwrap_or_else(|| panic!("benchmark reads undeclared parameter `{name}`"))
    }

    /// The value of `name` as an unsigned integer (truncated).
    pub fn usize(&self, name: &str) -> usize {
        self.f64(name) as usize
    }

    /// The value of `name` as a `u64` (truncated).
    pub fn u64(&self, name: &str) -> u64 {
        self.f64(name) as u64
    }

    /// The value of `name` as a whole number of at least `min`, or an error a user can act on.
    ///
    /// `prepare` functions use this to reject sizes such as `n=0` or `n=2.5` before they run.
    pub fn integer(&self, name: &str, min: u64) -> Result<u64, String> {
        let v = self.f64(name);
        if v.fract() != 0.0 || v < min as f64 || v > u64::MAX as f64 {
            return Err(format!(
                "parameter `{name}` must be a whole number of at least {min}, got {v}"
            ));
        }
        Ok(v as u64)
    }

    /// The value of `name` as a whole number of at least `min` that fits in `T` (the `int` or
    /// unsigned `int` Savina's programs hold it in), or an error a user can act on.
    pub fn integer_as<T: ParamInt>(&self, name: &str, min: u64) -> Result<T, String> {
        let v = self.integer(name, min)?;
        T::try_from(v).map_err(|_| format!("parameter `{name}` must be at most {}", T::MAX))
    }

    /// The parameter names, in declaration order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.values.iter().map(|(n, _)| *n)
    }

    /// The values as a JSON object, for reports.
    pub fn to_json(&self) -> serde_json::Value {
        let mut map = serde_json::Map::new();
        for (n, v) in &self.values {
            let value = if v.fract() == 0.0 && v.abs() < 9.0e15 {
                serde_json::Value::from(*v as i64)
            } else {
                serde_json::Value::from(*v)
            };
            map.insert((*n).to_string(), value);
        }
        serde_json::Value::Object(map)
    }
}

impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (n, v) in &self.values {
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            if v.fract() == 0.0 && v.abs() < 9.0e15 {
                write!(f, "{n}={}", *v as i64)?;
            } else {
                write!(f, "{n}={v}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{ParamSpec, Params};

    const SPECS: &[ParamSpec] = &[ParamSpec {
        name: "n",
        default: 5.0,
        small: 1.0,
        help: "",
    }];

    #[test]
    fn integer_as_checks_the_minimum_and_the_type_range() {
        let mut p = Params::defaults(SPECS);
        assert_eq!(p.integer_as::<i32>("n", 1), Ok(5));
        assert!(p
            .integer_as::<i32>("n", 6)
            .unwrap_err()
            .contains("at least 6"));
        p.set("n", 3e9).unwrap();
        assert_eq!(p.integer_as::<u32>("n", 0), Ok(3_000_000_000));
        let err = p.integer_as::<i32>("n", 0).unwrap_err();
        assert_eq!(err, "parameter `n` must be at most 2147483647");
    }
}
