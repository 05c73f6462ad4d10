//! Cutting text for display without splitting a character.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_at_char_boundaries() {
        assert_eq!(floor_boundary("aé", 2), 1);
        assert_eq!(floor_boundary("aé", 9), 3);
        assert_eq!(ellipsize("ééé", 2), "éé…");
        assert_eq!(ellipsize("éé", 2), "éé");
    }
}
