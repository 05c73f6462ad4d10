//! A shell command line split the way the shell splits it, for permission rules: simple
//! commands (separated by `&&`, `||`, `;`, `|`, `|&`, `&`, newlines and parentheses), each as
//! its words with quotes removed; where output is redirected to; and whether anything runs a
//! command the words do not show (`$( )`, backticks, `<( )`, `>( )`).
//!
//! It is a tokenizer, not an interpreter: nothing is expanded. What it cannot be sure of it
//! reports (`complete: false`, `substitution: true`) so callers refuse to match an allow rule
//! rather than guess. POSIX quoting: '…' is literal, "…" keeps `\"`, `\\`, `\$`, `` \` ``
//! escapes and still substitutes, a backslash outside quotes escapes the next character and
//! `\<newline>` joins lines; `#` at the start of a word starts a comment; here-documents'
//! bodies are skipped.

/// One command line, split.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    /// The simple commands in order, each as its words (quotes removed, redirections and
    /// their targets left out). A command of only redirections has no words.
    pub commands: Vec<Vec<String>>,
    /// Where output goes (`>`, `>>`, `>|`, `&>`, `&>>`, `n>`; `>&word` with a word that is
    /// not a file descriptor), as written with quotes removed.
    pub output_targets: Vec<String>,
    /// A command substitution or process substitution appears somewhere.
    pub substitution: bool,
    /// False when a quote, substitution or here-document is left open.
    pub complete: bool,
}

/// Splits `src`. Never fails: what it cannot read marks the result incomplete.
pub fn parse(src: &str) -> Parsed {
    let mut p = Parser {
        chars: src.chars().collect(),
        pos: 0,
        out: Parsed {
            complete: true,
            ..Parsed::default()
        },
        words: Vec::new(),
        word: None,
        redirect: None,
        heredocs: Vec::new(),
    };
    p.run();
    // Raw text decides too: a `$(` or a backtick anywhere, even quoted, is never trusted.
    if src.contains("$(") || src.contains('`') || src.contains("<(") || src.contains(">(") {
        p.out.substitution = true;
    }
    p.out
}

/// What the next complete word is for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pending {
    /// An output file.
    Output,
    /// An input file, a here-string or an fd duplication target: not a command word.
    Skip,
    /// A here-document's delimiter.
    Heredoc,
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    out: Parsed,
    words: Vec<String>,
    word: Option<String>,
    redirect: Option<Pending>,
    heredocs: Vec<String>,
}

impl Parser {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn push_char(&mut self, c: char) {
        self.word.get_or_insert_with(String::new).push(c);
    }

    fn end_word(&mut self) {
        let Some(w) = self.word.take() else { return };
        match self.redirect.take() {
            Some(Pending::Output) => self.out.output_targets.push(w),
            Some(Pending::Skip) => {}
            Some(Pending::Heredoc) => self.heredocs.push(w),
            None => self.words.push(w),
        }
    }

    fn end_command(&mut self) {
        self.end_word();
        if self.redirect.take().is_some() {
            // `cmd >` with no target: the shell refuses it; so do we.
            self.out.complete = false;
        }
        let words = std::mem::take(&mut self.words);
        if !words.is_empty() {
            self.out.commands.push(words);
        }
    }

    fn run(&mut self) {
        while let Some(c) = self.peek(0) {
            self.pos += 1;
            match c {
                ' ' | '\t' | '\r' => self.end_word(),
                '\n' => {
                    self.end_command();
                    self.skip_heredoc_bodies();
                }
                '\\' => match self.peek(0) {
                    Some('\n') => self.pos += 1,
                    Some(next) => {
                        self.pos += 1;
                        self.push_char(next);
                    }
                    None => self.push_char('\\'),
                },
                '\'' => self.single_quoted(),
                '"' => self.double_quoted(),
                '`' => {
                    self.out.substitution = true;
                    let inner = self.until_backtick();
                    self.word.get_or_insert_with(String::new).push_str(&inner);
                }
                '$' if self.peek(0) == Some('(') => {
                    self.out.substitution = true;
                    self.pos += 1;
                    let inner = self.balanced_parens();
                    self.word
                        .get_or_insert_with(String::new)
                        .push_str(&format!("$({inner})"));
                }
                '#' if self.word.is_none() => {
                    while let Some(c) = self.peek(0) {
                        if c == '\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                ';' => {
                    if self.peek(0) == Some(';') {
                        self.pos += 1;
                    }
                    self.end_command();
                }
                '&' => match self.peek(0) {
                    Some('&') => {
                        self.pos += 1;
                        self.end_command();
                    }
                    Some('>') => {
                        self.end_word();
                        self.pos += 1;
                        if self.peek(0) == Some('>') {
                            self.pos += 1;
                        }
                        self.redirect = Some(Pending::Output);
                    }
                    _ => self.end_command(),
                },
                '|' => {
                    if matches!(self.peek(0), Some('|' | '&')) {
                        self.pos += 1;
                    }
                    self.end_command();
                }
                '(' | ')' => self.end_command(),
                '<' | '>' => self.redirection(c),
                other => self.push_char(other),
            }
        }
        self.end_command();
        if !self.heredocs.is_empty() {
            self.out.complete = false;
        }
    }

    /// At a `<` or `>` (already consumed).
    fn redirection(&mut self, c: char) {
        // `2>file`: the digits before are the descriptor, not a word.
        if self
            .word
            .as_deref()
            .is_some_and(|w| !w.is_empty() && w.chars().all(|d| d.is_ascii_digit()))
        {
            self.word = None;
        }
        self.end_word();
        if self.peek(0) == Some('(') {
            // Process substitution <( ) / >( ).
            self.pos += 1;
            self.out.substitution = true;
            let inner = self.balanced_parens();
            self.word
                .get_or_insert_with(String::new)
                .push_str(&format!("{c}({inner})"));
            return;
        }
        let pending = if c == '>' {
            match self.peek(0) {
                Some('>' | '|') => {
                    self.pos += 1;
                    Pending::Output
                }
                Some('&') => {
                    self.pos += 1;
                    // `>&2`, `>&-` duplicate a descriptor; `>&file` writes a file.
                    if self.peek(0).is_some_and(|d| d.is_ascii_digit() || d == '-') {
                        Pending::Skip
                    } else {
                        Pending::Output
                    }
                }
                _ => Pending::Output,
            }
        } else {
            match self.peek(0) {
                Some('<') => {
                    self.pos += 1;
                    match self.peek(0) {
                        Some('<') => {
                            self.pos += 1;
                            Pending::Skip
                        }
                        Some('-') => {
                            self.pos += 1;
                            Pending::Heredoc
                        }
                        _ => Pending::Heredoc,
                    }
                }
                Some('&') => {
                    self.pos += 1;
                    Pending::Skip
                }
                Some('>') => {
                    // `<>file` opens it for writing too.
                    self.pos += 1;
                    Pending::Output
                }
                _ => Pending::Skip,
            }
        };
        self.redirect = Some(pending);
    }

    fn single_quoted(&mut self) {
        let word = self.word.get_or_insert_with(String::new);
        loop {
            match self.chars.get(self.pos).copied() {
                Some('\'') => {
                    self.pos += 1;
                    return;
                }
                Some(c) => {
                    word.push(c);
                    self.pos += 1;
                }
                None => {
                    self.out.complete = false;
                    return;
                }
            }
        }
    }

    fn double_quoted(&mut self) {
        self.word.get_or_insert_with(String::new);
        loop {
            let Some(c) = self.peek(0) else {
                self.out.complete = false;
                return;
            };
            self.pos += 1;
            match c {
                '"' => return,
                '\\' => match self.peek(0) {
                    Some(n @ ('"' | '\\' | '$' | '`')) => {
                        self.pos += 1;
                        self.push_char(n);
                    }
                    Some('\n') => self.pos += 1,
                    _ => self.push_char('\\'),
                },
                '`' => {
                    self.out.substitution = true;
                    let inner = self.until_backtick();
                    self.word.get_or_insert_with(String::new).push_str(&inner);
                }
                '$' if self.peek(0) == Some('(') => {
                    self.out.substitution = true;
                    self.pos += 1;
                    let inner = self.balanced_parens();
                    self.word
                        .get_or_insert_with(String::new)
                        .push_str(&format!("$({inner})"));
                }
                other => self.push_char(other),
            }
        }
    }

    fn until_backtick(&mut self) -> String {
        let mut inner = String::new();
        loop {
            match self.peek(0) {
                Some('`') => {
                    self.pos += 1;
                    return inner;
                }
                Some('\\') => {
                    self.pos += 1;
                    if let Some(n) = self.peek(0) {
                        self.pos += 1;
                        inner.push(n);
                    }
                }
                Some(c) => {
                    self.pos += 1;
                    inner.push(c);
                }
                None => {
                    self.out.complete = false;
                    return inner;
                }
            }
        }
    }

    /// After `$(` or `<(`: up to the matching `)`, quotes respected.
    fn balanced_parens(&mut self) -> String {
        let mut depth = 1usize;
        let mut inner = String::new();
        let mut quote: Option<char> = None;
        while let Some(c) = self.peek(0) {
            self.pos += 1;
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some('"'), '\\') => {
                    inner.push(c);
                    if let Some(n) = self.peek(0) {
                        self.pos += 1;
                        inner.push(n);
                    }
                    continue;
                }
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(c),
                (None, '\\') => {
                    inner.push(c);
                    if let Some(n) = self.peek(0) {
                        self.pos += 1;
                        inner.push(n);
                    }
                    continue;
                }
                (None, '(') => depth += 1,
                (None, ')') => {
                    depth -= 1;
                    if depth == 0 {
                        return inner;
                    }
                }
                _ => {}
            }
            inner.push(c);
        }
        self.out.complete = false;
        inner
    }

    /// After a newline: the bodies of the here-documents opened on the line just ended.
    fn skip_heredoc_bodies(&mut self) {
        for delimiter in std::mem::take(&mut self.heredocs) {
            let mut found = false;
            while self.pos < self.chars.len() {
                let start = self.pos;
                while self.pos < self.chars.len() && self.chars[self.pos] != '\n' {
                    self.pos += 1;
                }
                let line: String = self.chars[start..self.pos].iter().collect();
                if self.pos < self.chars.len() {
                    self.pos += 1;
                }
                if line.trim_start_matches('\t') == delimiter {
                    found = true;
                    break;
                }
            }
            if !found {
                self.out.complete = false;
            }
        }
    }
}

/// Words that open or close a compound command: left out before matching a rule, so `if
/// cargo test; then …` is judged by `cargo test`.
const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time",
];

/// A simple command's words without the reserved words in front and a `}` or `fi`-like word
/// at the end.
pub fn command_words(words: &[String]) -> &[String] {
    let start = words
        .iter()
        .position(|w| !RESERVED.contains(&w.as_str()))
        .unwrap_or(words.len());
    let rest = &words[start..];
    let end = rest
        .iter()
        .rposition(|w| !matches!(w.as_str(), "}" | "fi" | "done"))
        .map_or(0, |i| i + 1);
    &rest[..end]
}

#[cfg(test)]
#[path = "shell_tests.rs"]
mod tests;
