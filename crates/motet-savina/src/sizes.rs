//! `--size`: which parameter values a run uses.
//!
//! The flags accumulate left to right: `default` or `small` picks the base set (the last one wins;
//! `default` if neither is given), and each `PARAM=V` overrides one parameter, by SPEC.md's flag
//! name. An override applies to every selected benchmark that has the parameter; one that no
//! selected benchmark has is an error naming the valid parameters of each.

use crate::bench::Benchmark;
use crate::params::Params;

/// The base parameter set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Base {
    /// Savina's defaults.
    #[default]
    Default,
    /// The "small" sizes.
    Small,
}

/// The parsed `--size` flags.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sizes {
    /// The base set.
    pub base: Base,
    /// `PARAM=V` overrides, in command-line order.
    pub overrides: Vec<(String, f64)>,
}

impl Sizes {
    /// Parses the `--size` values, in command-line order.
    pub fn parse<S: AsRef<str>>(args: &[S]) -> Result<Sizes, String> {
        let mut sizes = Sizes::default();
        for arg in args {
            match arg.as_ref().trim() {
                "default" => sizes.base = Base::Default,
                "small" => sizes.base = Base::Small,
                other => sizes.overrides.push(parse_override(other)?),
            }
        }
        Ok(sizes)
    }

    /// The parameters of each benchmark in `benchmarks`, in the same order.
    pub fn resolve(&self, benchmarks: &[&Benchmark]) -> Result<Vec<Params>, String> {
        let mut all: Vec<Params> = benchmarks
            .iter()
            .map(|b| match self.base {
                Base::Default => Params::defaults(b.params),
                Base::Small => Params::small(b.params),
            })
            .collect();
        for (name, value) in &self.overrides {
            let mut applied = false;
            for params in all.iter_mut().filter(|p| p.has(name)) {
                params.set(name, *value)?;
                applied = true;
            }
            if !applied {
                return Err(unknown_param(name, benchmarks));
            }
        }
        Ok(all)
    }
}

/// Parses `PARAM=V`; `V` is a number, `_` separators allowed (`1_000_000`, `1e6`).
fn parse_override(arg: &str) -> Result<(String, f64), String> {
    let Some((name, value)) = arg.split_once('=') else {
        return Err(format!(
            "--size expects `default`, `small` or PARAM=VALUE, got `{arg}`"
        ));
    };
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("--size `{arg}`: the parameter name is empty"));
    }
    let value: f64 = value
        .trim()
        .replace('_', "")
        .parse()
        .map_err(|_| format!("--size `{arg}`: `{value}` is not a number"))?;
    if !value.is_finite() {
        return Err(format!("--size `{arg}`: the value must be finite"));
    }
    Ok((name.to_string(), value))
}

/// The error for a parameter that no selected benchmark has.
fn unknown_param(name: &str, benchmarks: &[&Benchmark]) -> String {
    let valid: Vec<String> = benchmarks
        .iter()
        .map(|b| {
            let names: Vec<&str> = b.params.iter().map(|p| p.name).collect();
            format!("{}: {}", b.name, names.join(", "))
        })
        .collect();
    format!(
        "unknown parameter `{name}` for the selected benchmarks; valid: {}",
        valid.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::{Base, Sizes};
    use crate::registry::find;

    #[test]
    fn flags_accumulate() {
        let s = Sizes::parse(&["small", "n=37", "r = 1_000", "default"]).unwrap();
        assert_eq!(s.base, Base::Default);
        assert_eq!(
            s.overrides,
            [("n".to_string(), 37.0), ("r".to_string(), 1000.0)]
        );
        assert_eq!(Sizes::parse::<&str>(&[]).unwrap(), Sizes::default());
    }

    #[test]
    fn malformed_flags_are_errors() {
        assert!(Sizes::parse(&["large"])
            .unwrap_err()
            .contains("PARAM=VALUE"));
        assert!(Sizes::parse(&["n=abc"])
            .unwrap_err()
            .contains("not a number"));
        assert!(Sizes::parse(&["=3"]).unwrap_err().contains("empty"));
        assert!(Sizes::parse(&["n=inf"]).unwrap_err().contains("finite"));
    }

    #[test]
    fn overrides_apply_to_the_benchmarks_that_have_them() {
        let ring = find("threadring").unwrap();
        let ping = find("pingpong").unwrap();
        let s = Sizes::parse(&["small", "r=1000", "n=37"]).unwrap();
        let p = s.resolve(&[ring, ping]).unwrap();
        assert_eq!(p[0].to_string(), "n=37 r=1000");
        assert_eq!(p[1].to_string(), "n=37 p=1");
        let d = Sizes::parse(&["default"])
            .unwrap()
            .resolve(&[ring])
            .unwrap();
        assert_eq!(d[0].to_string(), "n=100 r=100000");
    }

    #[test]
    fn unknown_params_name_the_valid_ones() {
        let ring = find("threadring").unwrap();
        let ping = find("pingpong").unwrap();
        let err = Sizes::parse(&["w=3"])
            .unwrap()
            .resolve(&[ring, ping])
            .unwrap_err();
        assert!(err.contains("unknown parameter `w`"), "{err}");
        assert!(err.contains("threadring: n, r"), "{err}");
        assert!(err.contains("pingpong: n"), "{err}");
        // `r` is valid for threadring only, so selecting pingpong alone rejects it.
        let err = Sizes::parse(&["r=3"])
            .unwrap()
            .resolve(&[ping])
            .unwrap_err();
        assert!(err.contains("unknown parameter `r`"), "{err}");
    }
}
