//! Cutting text for display without splitting a character, and aligning it in columns.

/// A header and rows as left-aligned columns two spaces apart (the last column unpadded),
/// one line each: what the `tooloop agents` / `skills` tables print.
pub fn columns(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: &[&str]| {
        let mut out = String::new();
        for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
            if i + 1 == cells.len() {
                out.push_str(c);
            } else {
                out.push_str(&format!("{c:<w$}  "));
            }
        }
        out.trim_end().to_string() + "\n"
    };
    let mut out = line(header);
    for row in rows {
        out.push_str(&line(&row.iter().map(String::as_str).collect::<Vec<_>>()));
    }
    out
}

/// 12345 → "12,345": token counts in messages, as the TUI's /context and /cost show them.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The largest index <= `at` that is a char boundary of `s`.
pub fn floor_boundary(s: &str, at: usize) -> usize {
    if at >= s.len() {
        return s.len();
    }
    let mut end = at;
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// `s` cut to `max` characters, with "…" when something was cut.
pub fn ellipsize(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((end, _)) => format!("{}…", &s[..end]),
    }
}

/// The words of a prompt (paths, `@` mentions, command arguments): whitespace-separated,
/// except inside quotes or after a backslash (how shells and terminals quote a pasted path).
/// A quote opens at the start of a word, after `@` or after `name=`.
pub fn words(prompt: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut chars = prompt.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, '\\') => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            (None, '\'' | '"') if word.is_empty() || word == "@" || word.ends_with('=') => {
                quote = Some(c)
            }
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
            }
            (_, c) => word.push(c),
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_are_grouped() {
        assert_eq!(super::grouped(0), "0");
        assert_eq!(super::grouped(999), "999");
        assert_eq!(super::grouped(12_345), "12,345");
        assert_eq!(super::grouped(1_000_000), "1,000,000");
    }

    use super::*;

    #[test]
    fn cuts_at_char_boundaries() {
        assert_eq!(floor_boundary("aé", 2), 1);
        assert_eq!(floor_boundary("aé", 9), 3);
        assert_eq!(ellipsize("ééé", 2), "éé…");
        assert_eq!(ellipsize("éé", 2), "éé");
    }
}
