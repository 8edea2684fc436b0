//! [`params!`](crate::params!): a benchmark's parameters, declared once.

/// Declares a benchmark's parameters once, as clap's derive does for a command line: from one
/// entry per parameter it makes the [`ParamSpec`](crate::params::ParamSpec) table that `list` and
/// `--size` read, the struct the variants read (one documented field per parameter), and that
/// struct's `from_params`, which decodes a [`Params`](crate::params::Params) into it.
///
/// # Shape
///
/// ```text
/// params! {
///     /// What the table is; what "small" is.
///     const PARAMS: &[ParamSpec];
///
///     /// The struct's doc and attributes.
///     #[derive(Clone, Copy, Debug)]
///     pub(crate) struct Config {
///         /// What the program relies on beyond the help text (optional).
///         #[param("n", default = 300.0, small = 198.0, min = 1, help = "graph nodes")]
///         n: usize,
///         ...
///     }
///     derived {                       // optional: fields computed from the parameters
///         /// Documented as usual.
///         expected: u64 = 0,          // the value `finish` starts from
///     }
///     finish = Config::finish;        // optional: `fn(&mut Config) -> Result<(), String>`
/// }
/// ```
///
/// A `#[param(...)]` entry gives the flag name (SPEC.md's, as `--size` takes it), Savina's
/// `default`, the `small` size and the `help` that `list --verbose` prints, with the keys below in
/// between, in the order `min`, `fits`, `parse`; the help also opens the field's doc, after which
/// the field's own doc comment, if any, adds what the program relies on.
/// In place of the name, default, small size and help it can name a
/// [`ParamSpec`](crate::params::ParamSpec) that several benchmarks share
/// (`#[param(super::WORKERS, parse = super::workers)]`), followed by the keys below.
///
/// How a value is decoded follows from the entry and the field's type:
/// - `min = N` declares a whole number of at least `N` that fits the field's integer type
///   ([`Params::integer_as`](crate::params::Params::integer_as)); with `fits = T` as well it must
///   fit `T` (the `int` Savina holds it in) and is stored widened into the field's type.
/// - `parse = f` decodes with `f(&Params, name) -> Result<T, String>`, for a bound or a conversion
///   that belongs to this one parameter (an index into a table of sizes, a range narrower than the
///   type's), checked where the parameter stands in the order.
/// - With neither, the type decodes itself through [`FromParam`](crate::params::FromParam): `f64`
///   takes the value as it stands, and a benchmark's own type (a choice among numbered modes)
///   checks it.
///
/// `from_params` decodes the fields in declaration order, and the first value that does not decode
/// is the error; then the derived fields take their starting values and `finish`, if given, runs:
/// the benchmark's own checks (bounds that depend on the program, values that must agree), in the
/// order it writes them, and whatever it derives. A field that Savina accepts and does not use is
/// declared with a leading underscore, so that it is still checked.
///
/// The table lists the parameters in declaration order too, unless it names its own order,
/// `const PARAMS: &[ParamSpec] = [n, w];`: then a benchmark whose checks have always run in another
/// order than its listing keeps both, and so reports the same error for a command line with several
/// bad values. The listing must name every parameter once (it does not compile otherwise).
///
/// # Example
///
/// ```
/// use motet_savina::params::Params;
///
/// motet_savina::params! {
///     /// `-n` actors and `-r` passes; "small" passes the token a tenth as often.
///     const PARAMS: &[ParamSpec];
///
///     /// The decoded parameters.
///     #[derive(Clone, Copy, Debug)]
///     pub(crate) struct Config {
///         /// At most 1,000, so that the ring fits a small machine.
///         #[param("n", default = 100.0, small = 100.0, min = 1, help = "actors in the ring")]
///         n: usize,
///         #[param("r", default = 100_000.0, small = 10_000.0, min = 0,
///             help = "passes of the token")]
///         r: u64,
///     }
///     derived {
///         /// Messages in all.
///         messages: u64 = 0,
///     }
///     finish = Config::finish;
/// }
///
/// impl Config {
///     /// Checks the ring's size and counts the messages.
///     fn finish(&mut self) -> Result<(), String> {
///         if self.n > 1_000 {
///             return Err(format!("parameter `n` must be at most 1000, got {}", self.n));
///         }
///         self.messages = self.r + 1;
///         Ok(())
///     }
/// }
///
/// assert_eq!(PARAMS[1].name, "r");
/// let mut params = Params::small(PARAMS);
/// assert_eq!(Config::from_params(&params).unwrap().messages, 10_001);
/// params.set("n", 2_000.0).unwrap();
/// params.set("r", 0.5).unwrap();
/// // `r` is declared after `n`, but `finish` runs only once every field has decoded.
/// let err = Config::from_params(&params).unwrap_err();
/// assert_eq!(err, "parameter `r` must be a whole number of at least 0, got 0.5");
/// ```
#[macro_export]
macro_rules! params {
    (
        $(#[$table_attr:meta])*
        const $table:ident: &[ParamSpec] $(= [$($listed:ident),+ $(,)?])?;

        $(#[$attr:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[doc = $doc:literal])*
                #[param($($spec:tt)*)]
                $field:ident: $ty:ty
            ),* $(,)?
        }
        $(derived {
            $(
                $(#[doc = $derived_doc:literal])*
                $derived:ident: $derived_ty:ty = $init:expr
            ),* $(,)?
        })?
        $(finish = $finish:path;)?
    ) => {
        $(#[$table_attr])*
        const $table: &[$crate::params::ParamSpec] = $crate::params!(
            @table $name [$($($listed),+)?] [$($($derived),*)?] $($field [$($spec)*])*
        );

        $(#[$attr])*
        $vis struct $name {
            $(
                #[doc = $crate::params!(@doc $($spec)*)]
                $(#[doc = $doc])*
                $vis $field: $ty,
            )*
            $($(
                $(#[doc = $derived_doc])*
                $vis $derived: $derived_ty,
            )*)?
        }

        impl $name {
            /// Decodes `params`: each parameter in declaration order (the first that does not
            /// decode is the error), then the benchmark's own checks and derived values.
            $vis fn from_params(params: &$crate::params::Params) -> Result<$name, String> {
                #[allow(unused_mut)]
                let mut decoded = $name {
                    $($field: $crate::params!(@decode params, $ty; $($spec)*),)*
                    $($($derived: $init,)*)?
                };
                $($finish(&mut decoded)?;)?
                Ok(decoded)
            }
        }
    };

    // The table, in field order or in the order listed.
    (@table $name:ident [] [$($derived:ident),*] $($field:ident [$($spec:tt)*])*) => {
        &[$($crate::params!(@spec $($spec)*)),*]
    };
    (@table $name:ident [$($listed:ident),+] [$($derived:ident),*]
        $($field:ident [$($spec:tt)*])*) => {{
        $(
            #[allow(non_upper_case_globals)]
            const $field: $crate::params::ParamSpec = $crate::params!(@spec $($spec)*);
        )*
        // Compiles only if the listing names every parameter once: the pattern must name every
        // field of the struct, and no field twice.
        #[allow(dead_code)]
        fn lists_every_parameter_once(decoded: &$name) {
            let $name { $($listed: _,)+ $($derived: _,)* } = decoded;
        }
        &[$($listed),+]
    }};

    // The table entry.
    (@spec $flag:literal, default = $default:expr, small = $small:expr, $(min = $min:expr,)?
        $(fits = $fits:ty,)? $(parse = $parse:expr,)? help = $help:literal $(,)?) => {
        $crate::params::ParamSpec { name: $flag, default: $default, small: $small, help: $help }
    };
    (@spec $shared:expr $(, min = $min:expr)? $(, fits = $fits:ty)? $(, parse = $parse:expr)?
        $(,)?) => {
        $shared
    };

    // The first line of the field's doc.
    (@doc $flag:literal, default = $default:expr, small = $small:expr, $(min = $min:expr,)?
        $(fits = $fits:ty,)? $(parse = $parse:expr,)? help = $help:literal $(,)?) => {
        concat!("`", $flag, "`: ", $help, ".")
    };
    (@doc $shared:expr $(, min = $min:expr)? $(, fits = $fits:ty)? $(, parse = $parse:expr)?
        $(,)?) => {
        concat!("Declared by `", stringify!($shared), "`.")
    };

    // The decoding, by the parameter's name and the field's type.
    (@decode $params:ident, $ty:ty; $flag:literal, default = $default:expr, small = $small:expr,
        $(min = $min:expr,)? $(fits = $fits:ty,)? $(parse = $parse:expr,)?
        help = $help:literal $(,)?) => {
        $crate::params!(
            @read $params, $ty, $flag; $(min = $min,)? $(fits = $fits,)? $(parse = $parse,)?
        )
    };
    (@decode $params:ident, $ty:ty;
        $shared:expr $(, min = $min:expr)? $(, fits = $fits:ty)? $(, parse = $parse:expr)?
        $(,)?) => {
        $crate::params!(
            @read $params, $ty, $shared.name; $(min = $min,)? $(fits = $fits,)? $(parse = $parse,)?
        )
    };
    (@read $params:ident, $ty:ty, $name:expr; min = $min:expr, fits = $fits:ty,) => {
        $params.integer_as::<$fits>($name, $min)? as $ty
    };
    (@read $params:ident, $ty:ty, $name:expr; min = $min:expr,) => {
        $params.integer_as::<$ty>($name, $min)?
    };
    (@read $params:ident, $ty:ty, $name:expr; parse = $parse:expr,) => {
        ($parse)($params, $name)?
    };
    (@read $params:ident, $ty:ty, $name:expr;) => {
        <$ty as $crate::params::FromParam>::from_param($params, $name)?
    };
}

#[cfg(test)]
mod tests {
    use crate::params::{ParamSpec, Params};

    /// A parameter shared the way `benchmarks::WORKERS` is.
    const SHARED: ParamSpec = ParamSpec {
        name: "w",
        default: 4.0,
        small: 2.0,
        help: "workers",
    };

    /// An even number, for `parse`.
    fn even(params: &Params, name: &str) -> Result<u32, String> {
        match params.integer_as::<u32>(name, 0)? {
            v if v % 2 == 0 => Ok(v),
            v => Err(format!("parameter `{name}` must be even, got {v}")),
        }
    }

    crate::params! {
        /// Listed in another order than the fields'.
        const PARAMS: &[ParamSpec] = [b, w, a];

        #[derive(Debug, PartialEq)]
        struct Config {
            #[param("a", default = 1.0, small = 3.0, min = 1, fits = i32, help = "an int")]
            a: usize,
            #[param(SHARED, min = 1)]
            w: usize,
            #[param("b", default = 2.0, small = 4.0, parse = even, help = "an even number")]
            b: u32,
        }
        derived {
            sum: usize = 0,
        }
        finish = Config::finish;
    }

    impl Config {
        fn finish(&mut self) -> Result<(), String> {
            self.sum = self.a + self.w + self.b as usize;
            Ok(())
        }
    }

    #[test]
    fn the_table_follows_the_listing_and_the_entries() {
        let names: Vec<&str> = PARAMS.iter().map(|p| p.name).collect();
        assert_eq!(names, ["b", "w", "a"]);
        assert_eq!((PARAMS[0].default, PARAMS[0].small), (2.0, 4.0));
        assert_eq!(PARAMS[1].help, "workers");
        assert_eq!(PARAMS[2].help, "an int");
    }

    #[test]
    fn fields_decode_by_their_entries_then_finish_runs() {
        let small = Config::from_params(&Params::small(PARAMS)).unwrap();
        let want = Config {
            a: 3,
            w: 2,
            b: 4,
            sum: 9,
        };
        assert_eq!(small, want);
        let mut params = Params::defaults(PARAMS);
        params.set("a", 3e9).unwrap();
        let err = Config::from_params(&params).unwrap_err();
        assert_eq!(err, "parameter `a` must be at most 2147483647");
        params.set("b", 3.0).unwrap();
        params.set("w", 0.0).unwrap();
        params.set("a", 1.0).unwrap();
        let err = Config::from_params(&params).unwrap_err();
        assert!(
            err.starts_with("parameter `w` must be a whole number"),
            "{err}"
        );
        params.set("w", 1.0).unwrap();
        let err = Config::from_params(&params).unwrap_err();
        assert_eq!(err, "parameter `b` must be even, got 3");
    }

    #[test]
    fn the_first_field_that_does_not_decode_is_the_error() {
        let mut params = Params::defaults(PARAMS);
        params.set("b", 1.0).unwrap();
        params.set("a", 0.5).unwrap();
        let err = Config::from_params(&params).unwrap_err();
        assert!(err.starts_with("parameter `a`"), "{err}");
    }
}
