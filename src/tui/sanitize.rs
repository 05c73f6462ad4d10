//! Neutralizes everything a model or a tool wrote before it reaches the terminal.

/// No escape sequence and no control character survives; tabs become spaces.
pub fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| if c == '\n' || !c.is_control() { c } else { ' ' })
        .collect()
}
