//! The tools pane's timeline of the whole session (`t`).

use super::*;
use std::time::Duration;

#[test]
fn t_switches_to_every_stream_of_the_session() {
    let mut p = ToolsPane::default();
    let t0 = Instant::now();
    p.prompt_started(t0);
    p.stream_started(t0);
    p.stream_ended(t0 + Duration::from_millis(100));
    p.prompt_started(t0 + Duration::from_secs(1));
    p.stream_started(t0 + Duration::from_secs(1));
    assert_eq!(p.streams.len(), 1, "this prompt's streams only");
    assert_eq!(p.session_streams.len(), 2, "the session keeps every stream");
    assert_eq!(p.session_start, Some(t0));
    assert_eq!(p.handle(Action::ToggleTimeline), EventState::Consumed);
    assert!(p.whole_session);
    p.handle(Action::ToggleTimeline);
    assert!(!p.whole_session);
    p.reset();
    assert!(p.session_streams.is_empty() && p.session_start.is_none());
}
