//! The TUI's config keys, each read back through its effect: `theme` paints the screen,
//! `[keyboard] enhancement` decides whether the terminal is asked for the kitty protocol
//! (and so which new-line key the status bar offers).

use std::path::Path;

use clap::Parser;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use tokio::time::Instant;
use tooloop::cli::Cli;
use tooloop::config::{Config, Env};
use tooloop::config_file::FileConfig;
use tooloop::tui::app::{App, RunInfo};
use tooloop::tui::terminal::keyboard_enhancement;
use tooloop::tui::theme::Theme;
use tooloop::tui::view;

struct NoEnv;

impl Env for NoEnv {
    fn var(&self, _key: &str) -> Option<String> {
        None
    }
}

fn config(toml: &str) -> Config {
    let file = FileConfig::parse(toml, Path::new("config.toml")).expect("valid file");
    let cli = Cli::try_parse_from(["tooloop"]).expect("parses");
    Config::resolve_with(&cli, &NoEnv, &file).expect("resolves")
}

fn screen(app: &mut App) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(100, 24)).expect("terminal");
    t.draw(|f| view::draw(app, f, Instant::now()))
        .expect("draw");
    t
}

fn app_for(config: &Config, shift_enter: bool) -> App {
    let mut app = App::new(RunInfo {
        provider: "demo".into(),
        model: config.provider.model.clone(),
        shift_enter,
        ..Default::default()
    });
    app.theme = Theme::named(&config.tui.theme, false).expect("known theme");
    app
}

#[tokio::test(start_paused = true)]
async fn theme_light_paints_a_light_screen_and_dark_keeps_the_terminal_background() {
    let light = config("theme = \"light\"\n");
    assert_eq!(light.tui.theme, "light");
    let mut app = app_for(&light, false);
    app.overlays.help_open = true;
    let t = screen(&mut app);
    let cells = t.backend().buffer().content();
    assert!(
        cells.iter().all(|c| c.bg == Color::White),
        "every cell of the light theme has the light background"
    );
    assert!(
        cells
            .iter()
            .all(|c| c.fg != Color::White && c.fg != Color::Yellow),
        "no light ink on the light background"
    );

    let dark = config("");
    assert_eq!(dark.tui.theme, "dark");
    let mut app = app_for(&dark, false);
    let t = screen(&mut app);
    assert!(
        t.backend()
            .buffer()
            .content()
            .iter()
            .all(|c| c.bg == Color::Reset),
        "dark keeps the terminal's own background"
    );
    assert!(Theme::named("solarized", false).is_err());
}

#[test]
fn no_color_strips_every_colour_but_keeps_the_modifiers() {
    for name in ["dark", "light"] {
        let t = Theme::named(name, true).expect("known");
        assert!(!t.colors);
        let styles = [
            t.base,
            t.text,
            t.accent,
            t.error,
            t.ok,
            t.tool_name,
            t.code,
            t.json_key,
        ];
        assert!(
            styles.iter().all(|s| s.fg.is_none() && s.bg.is_none()),
            "{name}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn keyboard_enhancement_off_never_asks_the_terminal() {
    let off = config("[keyboard]\nenhancement = false\n");
    assert!(!off.tui.keyboard_enhancement);
    let enhanced = keyboard_enhancement(off.tui.keyboard_enhancement, || {
        panic!("the terminal must not be queried when the config turns the protocol off")
    });
    assert!(!enhanced);
    // Without the protocol the status bar offers the new-line key that works everywhere.
    let mut app = app_for(&off, enhanced);
    let s = screen(&mut app).backend().to_string();
    assert!(
        s.contains("Alt+Enter newline") && !s.contains("Shift+Enter"),
        "{s}"
    );

    let on = config("");
    assert!(on.tui.keyboard_enhancement);
    let enhanced = keyboard_enhancement(on.tui.keyboard_enhancement, || true);
    assert!(enhanced);
    let mut app = app_for(&on, enhanced);
    let s = screen(&mut app).backend().to_string();
    assert!(s.contains("Shift+Enter newline"), "{s}");
    assert!(
        !keyboard_enhancement(true, || false),
        "a terminal without it stays off"
    );
}
