//! Diagnostics with `file:line:col`, the offending source line and a caret.

use std::fmt;

/// A position in a source file (1-based line and column, byte offset).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    /// 1-based line.
    pub line: u32,
    /// 1-based column (in bytes).
    pub col: u32,
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    /// The input is rejected.
    Error,
    /// Suspicious but accepted.
    Warning,
    /// Extra information attached to another diagnostic.
    Note,
}

/// One diagnostic about a source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Severity.
    pub severity: Severity,
    /// Where it points.
    pub loc: Loc,
    /// How many bytes the caret underlines (at least 1).
    pub len: u32,
    /// What is wrong and what was expected.
    pub message: String,
    /// Further notes (`note: ...` lines).
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error at `loc`.
    pub fn error(loc: Loc, len: u32, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            loc,
            len: len.max(1),
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// A warning at `loc`.
    pub fn warning(loc: Loc, len: u32, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(loc, len, message)
        }
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Renders like rustc: `file:line:col: error: msg`, the line, a caret.
    pub fn render(&self, file: &str, source: &str) -> String {
        let line = source.lines().nth(self.loc.line.saturating_sub(1) as usize);
        self.render_line(file, line)
    }

    /// [`Self::render`] given the text of the diagnostic's line.
    fn render_line(&self, file: &str, line: Option<&str>) -> String {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        let mut out = format!(
            "{file}:{}:{}: {sev}: {}\n",
            self.loc.line, self.loc.col, self.message
        );
        if let Some(text) = line {
            let lno = self.loc.line.to_string();
            let pad = " ".repeat(lno.len());
            let text = text.replace('\t', " ");
            out.push_str(&format!("{pad} |\n{lno} | {text}\n"));
            let col = (self.loc.col.max(1) - 1) as usize;
            let avail = text.len().saturating_sub(col).max(1);
            let len = (self.len as usize).clamp(1, avail);
            out.push_str(&format!(
                "{pad} | {}{}\n",
                " ".repeat(col.min(text.len())),
                "^".repeat(len)
            ));
        }
        for n in &self.notes {
            out.push_str(&format!("  = note: {n}\n"));
        }
        out
    }
}

/// Most diagnostics [`Diagnostics::render`] prints.
pub const MAX_RENDERED: usize = 100;

/// A list of diagnostics, rendered one after the other.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// True if any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(|d| d.severity == Severity::Error)
    }

    /// Number of errors.
    pub fn error_count(&self) -> usize {
        self.0
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    /// Renders all diagnostics, at most [`MAX_RENDERED`] of them (then a
    /// line saying how many more there are). The source's lines are indexed
    /// once, so a file with thousands of errors renders in linear time.
    pub fn render(&self, file: &str, source: &str) -> String {
        let lines: Vec<&str> = source.lines().collect();
        let mut out: String = self
            .0
            .iter()
            .take(MAX_RENDERED)
            .map(|d| {
                let l = lines.get(d.loc.line.saturating_sub(1) as usize).copied();
                d.render_line(file, l)
            })
            .collect();
        if self.0.len() > MAX_RENDERED {
            out.push_str(&format!(
                "{file}: {} more diagnostic(s) not shown\n",
                self.0.len() - MAX_RENDERED
            ));
        }
        out
    }
}
