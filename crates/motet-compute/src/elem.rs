//! The element types a kernel's buffers and scalars may have, and their OpenCL C names.

use std::fmt;

/// An element type of a kernel buffer or scalar: a plain number type with an OpenCL C
/// counterpart. Sealed: implemented for `i8`..`u64`, `f32` and `f64`.
pub trait Elem: bytemuck::Pod + Send + Sync + 'static + sealed::Sealed {
    /// The OpenCL C type this Rust type stands for.
    const TYPE: ElemType;
}

mod sealed {
    pub trait Sealed {}
}

/// The OpenCL C element types motet-compute can pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum ElemType {
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    Float,
    Double,
}

impl ElemType {
    /// The type's OpenCL C name (`float`, `uint`, ...).
    pub fn c_name(self) -> &'static str {
        match self {
            ElemType::Char => "char",
            ElemType::UChar => "uchar",
            ElemType::Short => "short",
            ElemType::UShort => "ushort",
            ElemType::Int => "int",
            ElemType::UInt => "uint",
            ElemType::Long => "long",
            ElemType::ULong => "ulong",
            ElemType::Float => "float",
            ElemType::Double => "double",
        }
    }

    /// The size of one element in bytes.
    pub fn size(self) -> usize {
        match self {
            ElemType::Char | ElemType::UChar => 1,
            ElemType::Short | ElemType::UShort => 2,
            ElemType::Int | ElemType::UInt | ElemType::Float => 4,
            ElemType::Long | ElemType::ULong | ElemType::Double => 8,
        }
    }

    /// Reads a type name as a kernel's argument info reports it (`float*`, `const uint`,
    /// `unsigned int`, `float4`...): the element type and whether it is a pointer. `None` for
    /// names that are not one of these types (vectors, structs, images).
    pub(crate) fn parse_c(name: &str) -> Option<(ElemType, bool)> {
        let pointer = name.contains('*');
        let base: String = name
            .replace('*', " ")
            .split_whitespace()
            .filter(|w| {
                !matches!(
                    *w,
                    "const" | "volatile" | "restrict" | "__global" | "global"
                )
            })
            .collect::<Vec<_>>()
            .join(" ");
        let t = match base.as_str() {
            "char" | "signed char" => ElemType::Char,
            "uchar" | "unsigned char" => ElemType::UChar,
            "short" => ElemType::Short,
            "ushort" | "unsigned short" => ElemType::UShort,
            "int" => ElemType::Int,
            "uint" | "unsigned int" | "unsigned" => ElemType::UInt,
            "long" => ElemType::Long,
            "ulong" | "unsigned long" => ElemType::ULong,
            "float" => ElemType::Float,
            "double" => ElemType::Double,
            _ => return None,
        };
        Some((t, pointer))
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.c_name())
    }
}

macro_rules! elem {
    ($($t:ty => $e:ident),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Elem for $t {
            const TYPE: ElemType = ElemType::$e;
        }
    )*};
}

elem!(
    i8 => Char, u8 => UChar, i16 => Short, u16 => UShort, i32 => Int, u32 => UInt,
    i64 => Long, u64 => ULong, f32 => Float, f64 => Double,
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_names_argument_info_reports() {
        assert_eq!(ElemType::parse_c("float*"), Some((ElemType::Float, true)));
        assert_eq!(
            ElemType::parse_c("const float*"),
            Some((ElemType::Float, true))
        );
        assert_eq!(ElemType::parse_c("uint"), Some((ElemType::UInt, false)));
        assert_eq!(
            ElemType::parse_c("unsigned int"),
            Some((ElemType::UInt, false))
        );
        assert_eq!(ElemType::parse_c("float4*"), None);
        assert_eq!(ElemType::parse_c("my_struct*"), None);
    }
}
