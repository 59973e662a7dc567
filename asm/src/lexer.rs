//! The lexer for PTO kernel text (the MLIR subset PTOAS reads).

use crate::diag::Loc;

/// Token kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    /// End of input.
    Eof,
    /// Bare identifier or keyword, may contain dots (`pto.tadd`, `ins`, `f32`).
    Ident,
    /// `%name` or `%name#3`.
    Value,
    /// `^bb0`.
    Label,
    /// `@name` or `@"name"`.
    Symbol,
    /// `#dialect.attr` or `#alias`.
    HashIdent,
    /// `!dialect.type`.
    BangIdent,
    /// Integer literal (decimal or `0x` hex), without sign.
    Int,
    /// Float literal, without sign.
    Float,
    /// `"..."`.
    Str,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `<`
    Less,
    /// `>`
    Greater,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `=`
    Equal,
    /// `->`
    Arrow,
    /// `?`
    Question,
    /// `*`
    Star,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `|`
    Pipe,
    /// `...`
    Ellipsis,
    /// A character that starts no token.
    Bad,
}

/// A token: kind and byte span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// Kind.
    pub kind: Tok,
    /// Start byte offset.
    pub start: u32,
    /// End byte offset (exclusive).
    pub end: u32,
}

/// An on-demand lexer over one source text.
pub struct Lexer<'a> {
    text: &'a str,
    src: &'a [u8],
    pos: usize,
    /// byte offset of the start of each line
    line_starts: Vec<u32>,
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'.'
}

fn is_suffix_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-')
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `src`.
    pub fn new(src: &'a str) -> Self {
        let mut line_starts = vec![0u32];
        for (i, b) in src.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i as u32 + 1);
            }
        }
        Lexer {
            text: src,
            src: src.as_bytes(),
            pos: 0,
            line_starts,
        }
    }

    /// The source text.
    pub fn source(&self) -> &'a str {
        self.text
    }

    /// Text of a token.
    pub fn text(&self, t: Token) -> &'a str {
        let s = self.source();
        s.get(t.start as usize..t.end as usize).unwrap_or("")
    }

    /// Current byte position.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Moves to a byte position.
    pub fn reset(&mut self, pos: usize) {
        self.pos = pos.min(self.src.len());
    }

    /// Line/column of a byte offset.
    pub fn loc(&self, off: u32) -> Loc {
        let line = match self.line_starts.binary_search(&off) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        Loc {
            line: line as u32 + 1,
            col: off - self.line_starts[line] + 1,
        }
    }

    fn skip_trivia(&mut self) {
        loop {
            while self.pos < self.src.len() && self.src[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            if self.src[self.pos..].starts_with(b"//") {
                while self.pos < self.src.len() && self.src[self.pos] != b'\n' {
                    self.pos += 1;
                }
                continue;
            }
            break;
        }
    }

    /// Skips whitespace/comments and returns the next byte without consuming it.
    pub fn peek_byte(&mut self) -> Option<u8> {
        self.skip_trivia();
        self.src.get(self.pos).copied()
    }

    /// Consumes `n` raw bytes (used by the dimension-list scanner).
    pub fn bump(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.src.len());
    }

    /// Raw bytes from the current position (no trivia skipping).
    pub fn rest(&self) -> &'a [u8] {
        &self.src[self.pos..]
    }

    /// Lexes the next token.
    pub fn next_token(&mut self) -> Token {
        self.skip_trivia();
        let start = self.pos;
        let kind = self.lex_kind();
        Token {
            kind,
            start: start as u32,
            end: self.pos as u32,
        }
    }

    fn lex_kind(&mut self) -> Tok {
        let src = self.src;
        let Some(&c) = src.get(self.pos) else {
            return Tok::Eof;
        };
        let at = |i: usize| src.get(i).copied().unwrap_or(0);
        self.pos += 1;
        match c {
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b'[' => Tok::LBracket,
            b']' => Tok::RBracket,
            b'{' => Tok::LBrace,
            b'}' => Tok::RBrace,
            b'<' => Tok::Less,
            b'>' => Tok::Greater,
            b',' => Tok::Comma,
            b':' => Tok::Colon,
            b'=' => Tok::Equal,
            b'?' => Tok::Question,
            b'*' => Tok::Star,
            b'+' => Tok::Plus,
            b'|' => Tok::Pipe,
            b'-' => {
                if at(self.pos) == b'>' {
                    self.pos += 1;
                    Tok::Arrow
                } else {
                    Tok::Minus
                }
            }
            b'.' if at(self.pos) == b'.' && at(self.pos + 1) == b'.' => {
                self.pos += 2;
                Tok::Ellipsis
            }
            b'"' => {
                while self.pos < src.len() {
                    match src[self.pos] {
                        b'\\' => self.pos += 2,
                        b'"' => {
                            self.pos += 1;
                            return Tok::Str;
                        }
                        b'\n' => return Tok::Bad,
                        _ => self.pos += 1,
                    }
                }
                self.pos = src.len();
                Tok::Bad
            }
            b'%' | b'^' => {
                let kind = if c == b'%' { Tok::Value } else { Tok::Label };
                let s = self.pos;
                while self.pos < src.len() && is_suffix_char(src[self.pos]) {
                    self.pos += 1;
                }
                if self.pos == s {
                    return Tok::Bad;
                }
                if kind == Tok::Value && at(self.pos) == b'#' && at(self.pos + 1).is_ascii_digit() {
                    self.pos += 1;
                    while at(self.pos).is_ascii_digit() {
                        self.pos += 1;
                    }
                }
                kind
            }
            b'@' => {
                if at(self.pos) == b'"' {
                    self.pos += 1;
                    while self.pos < src.len() && src[self.pos] != b'"' && src[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                    if at(self.pos) != b'"' {
                        return Tok::Bad;
                    }
                    self.pos += 1;
                    return Tok::Symbol;
                }
                let s = self.pos;
                while self.pos < src.len() && is_suffix_char(src[self.pos]) {
                    self.pos += 1;
                }
                if self.pos == s {
                    Tok::Bad
                } else {
                    Tok::Symbol
                }
            }
            b'#' | b'!' => {
                let s = self.pos;
                while self.pos < src.len() && is_ident_char(src[self.pos]) {
                    self.pos += 1;
                }
                if self.pos == s {
                    return Tok::Bad;
                }
                if c == b'#' {
                    Tok::HashIdent
                } else {
                    Tok::BangIdent
                }
            }
            b'0'..=b'9' => {
                if c == b'0'
                    && (at(self.pos) == b'x' || at(self.pos) == b'X')
                    && at(self.pos + 1).is_ascii_hexdigit()
                {
                    self.pos += 1;
                    while at(self.pos).is_ascii_hexdigit() {
                        self.pos += 1;
                    }
                    return Tok::Int;
                }
                while at(self.pos).is_ascii_digit() {
                    self.pos += 1;
                }
                let mut float = false;
                if at(self.pos) == b'.' && at(self.pos + 1) != b'.' {
                    float = true;
                    self.pos += 1;
                    while at(self.pos).is_ascii_digit() {
                        self.pos += 1;
                    }
                }
                if (at(self.pos) == b'e' || at(self.pos) == b'E')
                    && (at(self.pos + 1).is_ascii_digit()
                        || ((at(self.pos + 1) == b'-' || at(self.pos + 1) == b'+')
                            && at(self.pos + 2).is_ascii_digit()))
                {
                    float = true;
                    self.pos += 2;
                    while at(self.pos).is_ascii_digit() {
                        self.pos += 1;
                    }
                }
                if float {
                    Tok::Float
                } else {
                    Tok::Int
                }
            }
            c if is_ident_start(c) => {
                while self.pos < src.len() && is_ident_char(src[self.pos]) {
                    self.pos += 1;
                }
                Tok::Ident
            }
            _ => {
                // consume a whole UTF-8 character so spans stay on char boundaries
                while self.pos < src.len() && (src[self.pos] & 0xC0) == 0x80 {
                    self.pos += 1;
                }
                Tok::Bad
            }
        }
    }
}

/// Unescapes the body of a string token (without the quotes).
pub fn unescape(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut it = body.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('"') => out.push('"'),
            Some('\\') => out.push('\\'),
            Some(h1) if h1.is_ascii_hexdigit() => {
                let h2 = it.next_if(|c| c.is_ascii_hexdigit());
                let s: String = std::iter::once(h1).chain(h2).collect();
                if let Ok(v) = u8::from_str_radix(&s, 16) {
                    out.push(v as char);
                }
            }
            Some(o) => {
                out.push('\\');
                out.push(o);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Escapes a string for printing inside quotes.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\{:02X}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Tok> {
        let mut l = Lexer::new(s);
        let mut v = Vec::new();
        loop {
            let t = l.next_token();
            if t.kind == Tok::Eof {
                return v;
            }
            v.push(t.kind);
        }
    }

    #[test]
    fn lexes_mlir_tokens() {
        use Tok::*;
        assert_eq!(
            kinds(
                "%r#1 = pto.tadd ins(%a : !pto.tile_buf<vec>) -> 0x3F800000 1.5e-3 // c\n@f ^bb0"
            ),
            vec![
                Value, Equal, Ident, Ident, LParen, Value, Colon, BangIdent, Less, Ident, Greater,
                RParen, Arrow, Int, Float, Symbol, Label
            ]
        );
        assert_eq!(kinds("\"a\\\"b\" -7"), vec![Str, Minus, Int]);
        assert_eq!(kinds("\"open"), vec![Bad]);
        assert_eq!(kinds("é"), vec![Bad]);
    }

    #[test]
    fn locations_are_one_based() {
        let mut l = Lexer::new("a\n  b");
        let _ = l.next_token();
        let t = l.next_token();
        assert_eq!(l.loc(t.start), Loc { line: 2, col: 3 });
    }

    #[test]
    fn escape_roundtrip() {
        for s in ["plain", "q\"uote", "back\\slash", "nl\nx", "\u{1}"] {
            assert_eq!(unescape(&escape(s)), s);
        }
    }
}
