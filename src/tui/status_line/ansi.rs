//! A status-line script's output as styled text: SGR colour and weight sequences become
//! ratatui styles, every other escape sequence and control character is dropped (the
//! script is the user's, but what it prints may come from anywhere: a branch name, a path).

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

/// One line of output as spans (at most `max_chars` characters kept).
pub fn line(text: &str, max_chars: usize) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut style = Style::default();
    let mut cur = String::new();
    let mut kept = 0;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            match chars.peek() {
                Some('[') => {
                    chars.next();
                    let mut params = String::new();
                    let mut fin = None;
                    for p in chars.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&p) {
                            fin = Some(p);
                            break;
                        }
                        params.push(p);
                    }
                    if fin == Some('m') {
                        if !cur.is_empty() {
                            spans.push(Span::styled(std::mem::take(&mut cur), style));
                        }
                        style = sgr(style, &params);
                    }
                }
                // OSC … BEL / ST: dropped whole (titles, hyperlinks, clipboard).
                Some(']') => {
                    let mut prev = '\0';
                    for p in chars.by_ref() {
                        if p == '\u{7}' || (prev == '\u{1b}' && p == '\\') {
                            break;
                        }
                        prev = p;
                    }
                }
                _ => {
                    chars.next();
                }
            }
            continue;
        }
        if c.is_control() {
            if c == '\t' {
                cur.push(' ');
            }
            continue;
        }
        if kept >= max_chars {
            break;
        }
        cur.push(c);
        kept += 1;
    }
    if !cur.is_empty() {
        spans.push(Span::styled(cur, style));
    }
    Line::from(spans)
}

/// Applies one `ESC [ … m` to `style`.
fn sgr(mut style: Style, params: &str) -> Style {
    let nums: Vec<u16> = if params.is_empty() {
        vec![0]
    } else {
        params
            .split([';', ':'])
            .map(|p| p.parse().unwrap_or(0))
            .collect()
    };
    let mut i = 0;
    while i < nums.len() {
        let n = nums[i];
        match n {
            0 => style = Style::default(),
            1 => style = style.add_modifier(Modifier::BOLD),
            2 => style = style.add_modifier(Modifier::DIM),
            3 => style = style.add_modifier(Modifier::ITALIC),
            4 => style = style.add_modifier(Modifier::UNDERLINED),
            7 => style = style.add_modifier(Modifier::REVERSED),
            22 => style = style.remove_modifier(Modifier::BOLD | Modifier::DIM),
            23 => style = style.remove_modifier(Modifier::ITALIC),
            24 => style = style.remove_modifier(Modifier::UNDERLINED),
            27 => style = style.remove_modifier(Modifier::REVERSED),
            30..=37 => style = style.fg(Color::Indexed((n - 30) as u8)),
            39 => style.fg = None,
            40..=47 => style = style.bg(Color::Indexed((n - 40) as u8)),
            49 => style.bg = None,
            90..=97 => style = style.fg(Color::Indexed((n - 90 + 8) as u8)),
            100..=107 => style = style.bg(Color::Indexed((n - 100 + 8) as u8)),
            38 | 48 => {
                let color = match nums.get(i + 1) {
                    Some(5) => {
                        let c = nums.get(i + 2).map(|v| Color::Indexed(*v as u8));
                        i += 2;
                        c
                    }
                    Some(2) => {
                        let rgb = (nums.get(i + 2), nums.get(i + 3), nums.get(i + 4));
                        i += 4;
                        match rgb {
                            (Some(r), Some(g), Some(b)) => {
                                Some(Color::Rgb(*r as u8, *g as u8, *b as u8))
                            }
                            _ => None,
                        }
                    }
                    _ => None,
                };
                if let Some(c) = color {
                    style = if n == 38 { style.fg(c) } else { style.bg(c) };
                }
            }
            _ => {}
        }
        i += 1;
    }
    style
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_are_kept_and_everything_else_dropped() {
        let l = line(
            "\u{1b}[1;32mmain\u{1b}[0m \u{1b}]0;title\u{7}\u{1b}[2J$0.42\u{7}\u{1b}[38;5;208m!",
            80,
        );
        let text: String = l.spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, "main $0.42!");
        assert_eq!(l.spans[0].style.fg, Some(Color::Indexed(2)));
        assert!(l.spans[0].style.add_modifier.contains(Modifier::BOLD));
        assert_eq!(l.spans.last().unwrap().style.fg, Some(Color::Indexed(208)));
        let l = line("\u{1b}[38;2;10;20;30mrgb\u{1b}[", 80);
        assert_eq!(l.spans[0].style.fg, Some(Color::Rgb(10, 20, 30)));
        assert_eq!(line("abcdef", 3).spans[0].content, "abc");
    }
}
