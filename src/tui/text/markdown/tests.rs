use super::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use ratatui::widgets::Paragraph;

fn text(lines: &[Line<'static>]) -> String {
    lines
        .iter()
        .map(|l| l.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Lines with every styled span shown as `<style>text</>`, for snapshots that check styles.
fn styled(lines: &[Line<'static>]) -> String {
    let mut out = String::new();
    for line in lines {
        for span in &line.spans {
            let tag = style_tag(span.style);
            if tag.is_empty() {
                out.push_str(&span.content);
            } else {
                out.push_str(&format!("<{tag}>{}</>", span.content));
            }
        }
        out.push('\n');
    }
    out
}

fn style_tag(style: Style) -> String {
    let mut parts = Vec::new();
    match style.fg {
        Some(Color::Rgb(r, g, b)) => parts.push(format!("#{r:02x}{g:02x}{b:02x}")),
        Some(c) => parts.push(format!("{c:?}").to_lowercase()),
        None => {}
    }
    for (m, name) in [
        (Modifier::BOLD, "b"),
        (Modifier::DIM, "dim"),
        (Modifier::ITALIC, "i"),
        (Modifier::UNDERLINED, "u"),
        (Modifier::CROSSED_OUT, "s"),
    ] {
        if style.add_modifier.contains(m) {
            parts.push(name.to_string());
        }
    }
    parts.join(" ")
}

fn no_controls(lines: &[Line<'static>]) -> bool {
    lines
        .iter()
        .flat_map(|l| &l.spans)
        .all(|s| s.content.chars().all(|c| !c.is_control()))
}

const SAMPLE: &str = r#"# Plan

Read `src/main.rs`, then see [the docs](https://docs.rs/ratatui) or <https://example.com>.
This is *emphasis*, **strong** and ~~gone~~.

## Steps

1. Parse the input
2. Run tools
   - `read_file` first
   - then **bash**
3. Answer

> Quoted advice
> spans lines.
>
> Second paragraph.

| Tool | Time | Result |
|:-----|-----:|:------:|
| read_file | 0.2s | ok |
| bash | 12.5s | error |

```rust
fn main() {
    println!("hi");
}
```

---
Done.  
Next line after a hard break.
"#;

#[test]
fn snapshot_sample_text() {
    insta::assert_snapshot!("markdown_sample", text(&render(SAMPLE)));
}

#[test]
fn snapshot_sample_styles() {
    let lines = render(SAMPLE);
    // The code block's syntax colours are checked separately; keep the snapshot readable.
    let end = lines
        .iter()
        .position(|l| l.to_string().starts_with("  fn main"))
        .expect("code block rendered");
    insta::assert_snapshot!("markdown_sample_styles", styled(&lines[..end]));
}

#[test]
fn snapshot_sample_wrapped_in_test_backend() {
    let lines = crate::tui::text::wrap::wrap(&render(SAMPLE), 40);
    let height = u16::try_from(lines.len()).expect("fits");
    let mut terminal = Terminal::new(TestBackend::new(40, height)).expect("terminal");
    terminal
        .draw(|f| f.render_widget(Paragraph::new(lines), f.area()))
        .expect("draw");
    insta::assert_snapshot!("markdown_sample_40_cols", terminal.backend());
}

#[test]
fn code_fence_is_highlighted_and_indented() {
    let lines = render(SAMPLE);
    let code: Vec<_> = lines
        .iter()
        .filter(|l| l.to_string().starts_with(CODE_INDENT))
        .collect();
    assert!(code.iter().any(|l| l.to_string() == "  fn main() {"));
    assert!(
        code.iter()
            .flat_map(|l| &l.spans)
            .any(|s| matches!(s.style.fg, Some(Color::Rgb(..))))
    );
}

#[test]
fn injection_renders_inert() {
    let evil = "# Title\x1b[2J\n\nclip\x1b]52;c;ZXZpbA==\x07board \u{9b}31mred\u{7} \
                &#27;[2J entity &#x9b;1m\n\n```sh\necho \x1b]0;title\x07 \x1b[1;31mhi\x1b[0m\n```\n\n\
                [link\x1b[5m](http://x\x1b[2J.test) and `code\x07`";
    let lines = render(evil);
    assert!(no_controls(&lines), "{lines:?}");
    insta::assert_snapshot!("markdown_injection", text(&lines));
}

#[test]
fn unclosed_fence_renders_as_code_so_far() {
    let lines = render("Here:\n\n```python\ndef f(x):\n    return x");
    assert_eq!(text(&lines), "Here:\n\n  def f(x):\n      return x");
    assert!(
        lines[2]
            .spans
            .iter()
            .any(|s| matches!(s.style.fg, Some(Color::Rgb(..))))
    );
}

#[test]
fn blocks_are_separated_by_one_blank_line() {
    assert_eq!(text(&render("a\n\n\n\nb\n# H\nc")), "a\n\nb\n\n# H\n\nc");
}

#[test]
fn soft_breaks_become_spaces_and_hard_breaks_new_lines() {
    assert_eq!(text(&render("one\ntwo\\\nthree")), "one two\nthree");
}

#[test]
fn nested_lists_indent_and_number() {
    let md = "- a\n  - b\n    - c\n- d\n\n3. x\n4. y\n   more\n";
    assert_eq!(
        text(&render(md)),
        "• a\n  ◦ b\n    ▪ c\n• d\n\n3. x\n4. y more"
    );
}

#[test]
fn loose_list_paragraphs_keep_indent() {
    let md = "- first\n\n  second para\n- next\n";
    assert_eq!(text(&render(md)), "• first\n\n  second para\n• next");
}

#[test]
fn task_lists_show_boxes() {
    assert_eq!(
        text(&render("- [x] done\n- [ ] todo")),
        "• ☑ done\n• ☐ todo"
    );
}

#[test]
fn quotes_nest_and_keep_bars_on_blank_lines() {
    let md = "> a\n>\n> > b\n\n- > in item";
    assert_eq!(text(&render(md)), "│ a\n│\n│ │ b\n\n• │ in item");
}

#[test]
fn links_show_url_unless_redundant() {
    assert_eq!(text(&render("[docs](https://d.rs)")), "docs (https://d.rs)");
    assert_eq!(text(&render("<https://d.rs>")), "https://d.rs");
    assert_eq!(text(&render("<me@x.org>")), "me@x.org");
    assert_eq!(text(&render("![logo](a.png)")), "[image: logo] (a.png)");
}

#[test]
fn heading_has_marker_and_style() {
    let theme = Theme::default();
    let lines = render("### Three");
    assert_eq!(text(&lines), "### Three");
    assert_eq!(lines[0].spans[0].style, theme.heading_marker);
    assert_eq!(lines[0].spans[1].style, theme.heading);
}

#[test]
fn table_columns_align() {
    let md = "| a | long header |\n|---|:-:|\n| wide cell | x |\n| y |";
    assert_eq!(
        text(&render(md)),
        "a         │ long header\n──────────┼────────────\nwide cell │      x\ny         │"
    );
}

/// At a narrow width each row stays one line (cut with "…"), so the columns still line up;
/// text around the table still wraps.
#[test]
fn narrow_table_rows_are_cut_not_broken() {
    let md = "| name | what it does |\n|---|---|\n| read_file | reads a file from the workspace |\n\
              | 中文 | 读取工作区中的一个文件并返回内容 |\n\nA paragraph after the table wraps as usual.";
    let lines = crate::tui::text::wrap::wrap(&render(md), 24);
    let out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    assert_eq!(out[0], "name      │ what it does");
    assert_eq!(out[1], "──────────┼────────────…");
    assert_eq!(out[2], "read_file │ reads a fil…");
    assert_eq!(out[3], "中文      │ 读取工作区…");
    assert!(
        out.iter()
            .all(|l| unicode_width::UnicodeWidthStr::width(l.as_str()) <= 24)
    );
    assert!(
        out[5..]
            .join(" ")
            .contains("A paragraph after the table wraps as usual.")
    );
    assert!(out.len() > 6, "{out:?}");
}

#[test]
fn partial_table_while_streaming() {
    let md = "| a | b |\n|---|---|\n| 1 |";
    assert_eq!(text(&render(md)), "a │ b\n──┼──\n1 │");
}

#[test]
fn tabs_and_raw_html_are_safe() {
    let lines = render("<b>bold</b>\tx\n\n<div>\n\x1b[2Jblock\n</div>");
    assert!(no_controls(&lines));
    assert_eq!(text(&lines), "<b>bold</b> x\n\n<div>\nblock\n</div>");
}

#[test]
fn empty_input_is_no_lines() {
    assert!(render("").is_empty());
    assert!(render("```").is_empty());
}

#[test]
fn one_megabyte_single_line_returns() {
    let line = "word ".repeat(1 << 18);
    let lines = render(&line);
    assert_eq!(lines.len(), 1);

    let fenced = format!("```json\n{}\n```", "[1,".repeat(1 << 18));
    let lines = render(&fenced);
    assert_eq!(lines.len(), 1);
}

#[test]
fn pathological_inputs_return() {
    for input in [
        "[".repeat(100_000),
        "*a ".repeat(100_000),
        "`a".repeat(100_000),
        "> ".repeat(20_000) + "deep",
        "- ".repeat(20_000) + "deep",
        "| a ".repeat(20_000) + "|\n" + &"|-".repeat(20_000) + "|",
        "<".repeat(100_000),
    ] {
        let lines = render(&input);
        assert!(text(&lines).len() > 10, "{input:.20}");
        assert!(lines.len() < 10, "{input:.20}");
        assert!(no_controls(&lines));
    }
}

#[test]
fn code_inside_list_and_quote_keeps_prefixes() {
    let md = "- step:\n\n  ```sh\n  ls -la\n  ```\n\n> ```\n> quoted code\n> ```";
    assert_eq!(
        text(&render(md)),
        "• step:\n\n    ls -la\n\n│   quoted code"
    );
}
