//! Text cut to a number of terminal columns, and durations as the screen writes them: used by
//! panes, overlays and the status line alike.

use unicode_width::UnicodeWidthStr;

/// Cuts `s` to `room` columns with an ellipsis.
pub fn fit(s: &str, room: usize) -> String {
    if s.width() <= room {
        return s.to_string();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if w + cw + 1 > room {
            break;
        }
        out.push(c);
        w += cw;
    }
    if room > 0 {
        out.push('…');
    }
    out
}

/// Tenths of a second under a minute, then minutes and seconds.
pub fn format_duration(ms: u64) -> String {
    if ms < 60_000 {
        format!("{}.{}s", ms / 1000, (ms % 1000) / 100)
    } else {
        format!("{}m{:02}s", ms / 60_000, (ms % 60_000) / 1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_tenths() {
        assert_eq!(format_duration(0), "0.0s");
        assert_eq!(format_duration(1349), "1.3s");
        assert_eq!(format_duration(61_000), "1m01s");
    }

    #[test]
    fn fit_cuts_with_ellipsis() {
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("ab", 4), "ab");
        assert_eq!(fit("ab", 0), "");
    }
}
