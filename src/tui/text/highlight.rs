//! Syntax highlighting with syntect: syntaxes and theme loaded once, lazily; input capped.
//!
//! Nothing is loaded at startup: the first call (or [`warm_up`], which the app may run on a
//! background thread) builds the sets. Only foreground colours are used, so code sits on the
//! terminal's own background; the theme's plain-text colour maps to the terminal default.

use std::sync::OnceLock;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, Theme, ThemeSet};
use syntect::parsing::{SyntaxDefinition, SyntaxReference, SyntaxSet, SyntaxSetBuilder};
use syntect::util::LinesWithEndings;

use crate::sanitize::sanitize;

mod cache;

/// Above this many bytes the code is shown plain.
pub const MAX_BYTES: usize = 512 * 1024;
/// Above this many lines the code is shown plain.
pub const MAX_LINES: usize = 10_000;
/// A single line longer than this (in chars) makes the whole block plain: syntect's regexes
/// can take very long on one huge line.
pub const MAX_LINE_CHARS: usize = 2_000;

const TOML_SYNTAX: &str = include_str!("../../../assets/syntaxes/TOML.sublime-syntax");

struct Assets {
    /// syntect's bundled syntaxes.
    bundled: SyntaxSet,
    /// Syntaxes we ship ourselves (TOML); a separate set so the bundled one needs no rebuild.
    extra: SyntaxSet,
    theme: Theme,
}

static ASSETS: OnceLock<Option<Assets>> = OnceLock::new();

/// Loads the syntaxes and the theme if they are not loaded yet. Cheap after the first call.
pub fn warm_up() {
    let _ = assets();
}

/// Highlights `code` as `lang` (a fence info string such as `rust` or `rust,ignore`, a
/// language name, a file extension, or a file name like `src/main.rs`).
///
/// Returns one line per input line, without trailing newlines; the text is sanitized. Unknown
/// languages and inputs over the caps ([`MAX_BYTES`], [`MAX_LINES`], [`MAX_LINE_CHARS`])
/// come back as plain unstyled lines. Never panics.
pub fn highlight(code: &str, lang: &str) -> Vec<Line<'static>> {
    let code = sanitize(code);
    if too_big(&code) {
        return plain(&code);
    }
    let Some(assets) = assets() else {
        return plain(&code);
    };
    let Some((set, syntax)) = find_syntax(assets, lang) else {
        return plain(&code);
    };
    let resumed = cache::take(lang, &code);
    let (mut done_lines, mut highlighter, mut consumed) = match resumed {
        Some(entry) => (
            entry.lines,
            HighlightLines::from_state(&assets.theme, entry.state.0, entry.state.1),
            entry.done.len(),
        ),
        None => (Vec::new(), HighlightLines::new(syntax, &assets.theme), 0),
    };
    let default_fg = assets.theme.settings.foreground;
    let to_line = |ranges: Vec<(syntect::highlighting::Style, &str)>| {
        Line::from(
            ranges
                .into_iter()
                .filter_map(|(style, text)| {
                    let text = text.trim_end_matches('\n');
                    (!text.is_empty())
                        .then(|| Span::styled(text.to_string(), convert(style, default_fg)))
                })
                .collect::<Vec<_>>(),
        )
    };

    // Whole lines advance the cached state; a last line without `\n` (still streaming) is
    // highlighted from a copy so the cache stays at a line boundary.
    let mut partial = None;
    for line in LinesWithEndings::from(&code[consumed..]) {
        if !line.ends_with('\n') {
            partial = Some(line);
            break;
        }
        let Ok(ranges) = highlighter.highlight_line(line, set) else {
            // A grammar error mid-way: show the rest plain rather than nothing.
            tracing::debug!(lang, "syntect failed; rest of the block shown plain");
            done_lines.extend(plain(&code[consumed..]));
            return done_lines;
        };
        consumed += line.len();
        done_lines.push(to_line(ranges));
    }
    let (hs, ps) = highlighter.state();
    let mut out = done_lines.clone();
    if let Some(line) = partial {
        let mut tail = HighlightLines::from_state(&assets.theme, hs.clone(), ps.clone());
        match tail.highlight_line(line, set) {
            Ok(ranges) => out.push(to_line(ranges)),
            Err(_) => out.extend(plain(line)),
        }
    }
    cache::put(cache::Entry {
        lang: lang.to_string(),
        done: code[..consumed].to_string(),
        lines: done_lines,
        state: (hs, ps),
    });
    out
}

/// The name of the syntax `lang` resolves to (`"Rust"`, `"TOML"`), or None when it would be
/// shown plain. Useful for a code block's label.
pub fn language_name(lang: &str) -> Option<&'static str> {
    let (_, syntax) = find_syntax(assets()?, lang)?;
    Some(syntax.name.as_str())
}

fn assets() -> Option<&'static Assets> {
    ASSETS.get_or_init(load).as_ref()
}

fn load() -> Option<Assets> {
    let bundled = SyntaxSet::load_defaults_newlines();
    let mut builder = SyntaxSetBuilder::new();
    match SyntaxDefinition::load_from_str(TOML_SYNTAX, true, Some("TOML")) {
        Ok(def) => builder.add(def),
        Err(e) => tracing::warn!("bundled TOML syntax failed to load: {e}"),
    }
    let extra = builder.build();
    // NO_COLOR: no syntax colours either.
    let name = crate::tui::theme::Theme::syntax_theme()?;
    let mut themes = ThemeSet::load_defaults();
    let Some(theme) = themes.themes.remove(name) else {
        tracing::warn!("syntect theme {name} missing; code shown plain");
        return None;
    };
    Some(Assets {
        bundled,
        extra,
        theme,
    })
}

fn too_big(code: &str) -> bool {
    code.len() > MAX_BYTES
        || code.lines().enumerate().any(|(i, line)| {
            i >= MAX_LINES || (line.len() > MAX_LINE_CHARS && line.chars().count() > MAX_LINE_CHARS)
        })
}

fn plain(code: &str) -> Vec<Line<'static>> {
    code.lines().map(|l| Line::from(l.to_string())).collect()
}

fn find_syntax<'a>(assets: &'a Assets, lang: &str) -> Option<(&'a SyntaxSet, &'a SyntaxReference)> {
    let token = lang_token(lang)?;
    let token = match token.as_str() {
        // No TypeScript grammar is bundled; JavaScript colours most of it well.
        "ts" | "tsx" | "typescript" | "jsx" | "mjs" | "cjs" | "javascript" | "node" => "js",
        "sh" | "bash" | "zsh" | "shell" | "console" | "shellsession" | "ksh" | "posix" => "bash",
        "py" | "python" | "python3" | "py3" | "pyi" => "py",
        "rs" | "rust" => "rs",
        "yml" | "yaml" => "yaml",
        "md" | "markdown" | "mdown" => "md",
        "json" | "jsonc" | "json5" | "jsonl" | "ndjson" => "json",
        "golang" => "go",
        "c++" | "hpp" | "cc" | "cxx" | "hh" => "cpp",
        "patch" => "diff",
        "text" | "txt" | "plain" | "plaintext" | "output" | "log" => return None,
        t => t,
    };
    if let Some(s) = assets.extra.find_syntax_by_token(token) {
        return Some((&assets.extra, s));
    }
    let syntax = assets.bundled.find_syntax_by_token(token)?;
    // Plain Text has no colours; skip the work.
    (syntax.name != "Plain Text").then_some((&assets.bundled, syntax))
}

/// The language token of a fence info string or file name, lowercased.
fn lang_token(lang: &str) -> Option<String> {
    let first = lang
        .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
        .find(|s| !s.is_empty())?;
    let first = first.trim_start_matches('.');
    // `src/main.rs` or `main.rs` → `rs`; but keep `c++` and `objective-c` whole.
    let token = match first.rsplit_once('.') {
        Some((_, ext)) if !ext.is_empty() => ext,
        _ => first.rsplit('/').next().unwrap_or(first),
    };
    (!token.is_empty()).then(|| token.to_ascii_lowercase())
}

fn convert(
    style: syntect::highlighting::Style,
    default_fg: Option<syntect::highlighting::Color>,
) -> Style {
    let fg = style.foreground;
    let mut out = Style::default();
    if default_fg != Some(fg) {
        out = out.fg(Color::Rgb(fg.r, fg.g, fg.b));
    }
    if style.font_style.contains(FontStyle::BOLD) {
        out = out.add_modifier(Modifier::BOLD);
    }
    if style.font_style.contains(FontStyle::ITALIC) {
        out = out.add_modifier(Modifier::ITALIC);
    }
    if style.font_style.contains(FontStyle::UNDERLINE) {
        out = out.add_modifier(Modifier::UNDERLINED);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[Line<'static>]) -> String {
        lines
            .iter()
            .map(|l| l.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn coloured(lines: &[Line<'static>]) -> bool {
        lines
            .iter()
            .flat_map(|l| &l.spans)
            .any(|s| matches!(s.style.fg, Some(Color::Rgb(..))))
    }

    #[test]
    fn rust_is_coloured_and_text_is_kept() {
        let code = "fn main() {\n    let x = \"hi\";\n}\n";
        let lines = highlight(code, "rust");
        assert_eq!(lines.len(), 3);
        assert_eq!(text(&lines), code.trim_end());
        assert!(coloured(&lines));
        assert!(
            lines
                .iter()
                .flat_map(|l| &l.spans)
                .all(|s| s.style.bg.is_none())
        );
    }

    #[test]
    fn languages_resolve_by_fence_token_and_extension() {
        for (lang, name) in [
            ("rust", "Rust"),
            ("rs", "Rust"),
            ("rust,ignore", "Rust"),
            ("src/main.rs", "Rust"),
            ("py", "Python"),
            ("python", "Python"),
            ("js", "JavaScript"),
            ("ts", "JavaScript"),
            ("json", "JSON"),
            ("toml", "TOML"),
            ("Cargo.toml", "TOML"),
            ("sh", "Bourne Again Shell (bash)"),
            ("bash", "Bourne Again Shell (bash)"),
            ("md", "Markdown"),
            ("yaml", "YAML"),
            ("diff", "Diff"),
            ("go", "Go"),
        ] {
            assert_eq!(language_name(lang), Some(name), "{lang}");
        }
        assert_eq!(language_name("no-such-language"), None);
        assert_eq!(language_name(""), None);
        assert_eq!(language_name("text"), None);
    }

    #[test]
    fn toml_grammar_colours_keys_strings_and_tables() {
        let lines = highlight("[package]\nname = \"x\" # c\nn = 1\n", "toml");
        assert_eq!(text(&lines), "[package]\nname = \"x\" # c\nn = 1");
        assert!(lines.iter().all(|l| coloured(std::slice::from_ref(l))));
    }

    #[test]
    fn unknown_language_is_plain() {
        let lines = highlight("a\tb\n\nc", "klingon");
        assert_eq!(text(&lines), "a   b\n\nc");
        assert!(!coloured(&lines));
    }

    #[test]
    fn control_sequences_are_removed_before_highlighting() {
        let lines = highlight("let a = \"\x1b[2J\x1b]52;c;QUFB\x07\";\n", "rs");
        assert_eq!(text(&lines), "let a = \"\";");
    }

    #[test]
    fn caps_fall_back_to_plain() {
        let long_line = format!("let x = \"{}\";", "a".repeat(MAX_LINE_CHARS + 1));
        let lines = highlight(&long_line, "rust");
        assert_eq!(lines.len(), 1);
        assert!(!coloured(&lines));

        let many = "x = 1\n".repeat(MAX_LINES + 1);
        let lines = highlight(&many, "py");
        assert_eq!(lines.len(), MAX_LINES + 1);
        assert!(!coloured(&lines[..1]));

        let big = "y".repeat(MAX_BYTES + 1);
        assert!(!coloured(&highlight(&big, "rust")));
    }

    #[test]
    fn one_megabyte_single_line_returns() {
        let blob = "{\"k\":".repeat(200_000);
        let lines = highlight(&blob, "json");
        assert_eq!(lines.len(), 1);
    }

    #[test]
    fn resumed_highlighting_matches_a_fresh_run() {
        let code = "/// doc\nfn main() {\n    let s = \"multi\n line\";\n    /* open\n comment */ x += 1;\n}\n";
        for lang in ["rust", "toml", "py"] {
            // Grow the code one char at a time, as a streaming reply does.
            for end in (0..=code.len()).filter(|&i| code.is_char_boundary(i)) {
                let streamed = highlight(&code[..end], lang);
                cache::clear();
                let fresh = highlight(&code[..end], lang);
                assert_eq!(streamed, fresh, "{lang} at {end}");
                // Restore a warm cache for the next step.
                let _ = highlight(&code[..end], lang);
            }
            // And one uninterrupted stream, resuming from resumed entries each step.
            cache::clear();
            for end in 0..=code.len() {
                let _ = highlight(&code[..end], lang);
            }
            let streamed = highlight(code, lang);
            cache::clear();
            assert_eq!(streamed, highlight(code, lang), "{lang} streamed");
        }
    }

    #[test]
    fn cached_block_is_returned_again_unchanged() {
        let code = "let a = 1;\nlet b = 2;\n";
        let first = highlight(code, "rs");
        assert_eq!(highlight(code, "rs"), first);
        assert_eq!(highlight(code, "rust"), first);
        // A different block that shares no prefix still works.
        assert_eq!(text(&highlight("x = 1\n", "py")), "x = 1");
    }

    #[test]
    fn empty_code_is_no_lines() {
        assert!(highlight("", "rust").is_empty());
        warm_up();
    }
}
