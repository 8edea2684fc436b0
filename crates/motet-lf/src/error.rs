//! Errors that point into an LF file: the file, line and column, the source line and a caret.

use std::fmt;
use std::path::{Path, PathBuf};

/// An error at a position of a source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LfError {
    /// The file.
    pub file: PathBuf,
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1 (in characters).
    pub col: usize,
    /// What is wrong.
    pub message: String,
    /// The source line.
    pub source_line: String,
}

impl LfError {
    /// An error at byte offset `offset` of `src`, the text of `file`.
    pub fn at(file: &Path, src: &str, offset: usize, message: impl Into<String>) -> LfError {
        let offset = offset.min(src.len());
        let before = &src[..offset];
        let line = before.matches('\n').count() + 1;
        let start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = src[start..offset].chars().count() + 1;
        let end = src[offset..].find('\n').map_or(src.len(), |i| offset + i);
        LfError {
            file: file.to_path_buf(),
            line,
            col,
            message: message.into(),
            source_line: src[start..end].trim_end_matches('\r').to_string(),
        }
    }

    /// An error about a file as a whole (one that cannot be read, for instance).
    pub fn file(file: &Path, message: impl Into<String>) -> LfError {
        LfError {
            file: file.to_path_buf(),
            line: 0,
            col: 0,
            message: message.into(),
            source_line: String::new(),
        }
    }
}

impl fmt::Display for LfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            return write!(f, "{}: error: {}", self.file.display(), self.message);
        }
        writeln!(
            f,
            "{}:{}:{}: error: {}",
            self.file.display(),
            self.line,
            self.col,
            self.message
        )?;
        let gutter = self.line.to_string().len();
        writeln!(f, "{:gutter$} |", "")?;
        writeln!(f, "{} | {}", self.line, self.source_line)?;
        let pad: String = self
            .source_line
            .chars()
            .take(self.col - 1)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        write!(f, "{:gutter$} | {pad}^", "")
    }
}

impl std::error::Error for LfError {}
