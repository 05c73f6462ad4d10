//! Recorded-like streams for the parsing bench, generated deterministically: the event
//! shapes and delta sizes of real responses (a few tokens per text delta, tool input in
//! 8–40 character JSON fragments), repeated to the size asked for.

#![allow(dead_code)]

use serde_json::{Value, json};

const WORDS: &[&str] = &[
    "the",
    "function",
    "returns",
    "a",
    "value",
    "of",
    "type",
    "`Result<T, E>`",
    "when",
    "called",
    "with",
    "an",
    "invalid",
    "path",
    "—",
    "see",
    "`src/main.rs`",
    "line",
    "42",
    "naïve",
    "café",
    "→",
    "世界",
    "\"quoted\"",
    "back\\slash",
    "and",
    "then",
    "we",
    "check",
    "whether",
    "it",
    "compiles.\n\n",
    "```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n",
    "- item",
    "**bold**",
    "tokens",
    "stream",
    "events",
    "are",
    "small",
];

struct Rng(fastrand::Rng);

impl Rng {
    fn words(&mut self, n: usize) -> String {
        let mut s = String::new();
        for _ in 0..n {
            s.push_str(WORDS[self.0.usize(..WORDS.len())]);
            s.push(' ');
        }
        s
    }
}

fn event(out: &mut Vec<u8>, name: &str, data: &Value) {
    out.extend_from_slice(format!("event: {name}\ndata: {data}\n\n").as_bytes());
}

/// Splits `s` into pieces of `min..max` chars (at char boundaries).
fn fragments(rng: &mut Rng, s: &str, min: usize, max: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let n = rng.0.usize(min..max).min(chars.len() - i);
        out.push(chars[i..i + n].iter().collect());
        i += n;
    }
    out
}

fn tool_input(rng: &mut Rng) -> Value {
    match rng.0.u8(..3) {
        0 => {
            json!({"path": format!("src/module_{}.rs", rng.0.u32(..1000)), "offset": 1, "limit": 200})
        }
        1 => {
            json!({"command": format!("cargo test --lib {} 2>&1 | tail -n 40", rng.words(2).trim())})
        }
        _ => {
            json!({"path": "src/lib.rs", "old_string": rng.words(30), "new_string": rng.words(40)})
        }
    }
}

/// An Anthropic Messages stream of at least `size` bytes.
pub fn anthropic(size: usize) -> Vec<u8> {
    let mut rng = Rng(fastrand::Rng::with_seed(7));
    let mut out = Vec::with_capacity(size + 4096);
    event(
        &mut out,
        "message_start",
        &json!({"type": "message_start", "message": {"id": "msg_01XFDUDYJgAACzvnptvVoYEL",
            "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [],
            "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 2095, "output_tokens": 1}}}),
    );
    event(&mut out, "ping", &json!({"type": "ping"}));
    let mut index = 0usize;
    while out.len() < size {
        // thinking, then text, then a few tool calls: the shape of an agent turn.
        event(
            &mut out,
            "content_block_start",
            &json!({"type": "content_block_start",
            "index": index, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
        );
        for _ in 0..40 {
            let n = rng.0.usize(3..12);
            let t = rng.words(n);
            event(
                &mut out,
                "content_block_delta",
                &json!({"type": "content_block_delta",
                "index": index, "delta": {"type": "thinking_delta", "thinking": t}}),
            );
        }
        event(
            &mut out,
            "content_block_delta",
            &json!({"type": "content_block_delta",
            "index": index, "delta": {"type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}}),
        );
        event(
            &mut out,
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        );
        index += 1;

        event(
            &mut out,
            "content_block_start",
            &json!({"type": "content_block_start",
            "index": index, "content_block": {"type": "text", "text": ""}}),
        );
        for _ in 0..300 {
            let n = rng.0.usize(1..5);
            let t = rng.words(n);
            event(
                &mut out,
                "content_block_delta",
                &json!({"type": "content_block_delta",
                "index": index, "delta": {"type": "text_delta", "text": t}}),
            );
            if rng.0.u8(..100) == 0 {
                event(&mut out, "ping", &json!({"type": "ping"}));
            }
        }
        event(
            &mut out,
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        );
        index += 1;

        for _ in 0..3 {
            let id = format!("toolu_01{:022}", index);
            event(
                &mut out,
                "content_block_start",
                &json!({"type": "content_block_start",
                "index": index, "content_block": {"type": "tool_use", "id": id, "name": "edit_file", "input": {}}}),
            );
            let input = tool_input(&mut rng).to_string();
            for f in fragments(&mut rng, &input, 8, 40) {
                event(
                    &mut out,
                    "content_block_delta",
                    &json!({"type": "content_block_delta",
                    "index": index, "delta": {"type": "input_json_delta", "partial_json": f}}),
                );
            }
            event(
                &mut out,
                "content_block_stop",
                &json!({"type": "content_block_stop", "index": index}),
            );
            index += 1;
        }
    }
    event(
        &mut out,
        "message_delta",
        &json!({"type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 150000}}),
    );
    event(&mut out, "message_stop", &json!({"type": "message_stop"}));
    out
}

fn chunk(out: &mut Vec<u8>, delta: Value, finish: Option<&str>) {
    let data = json!({"id": "chatcmpl-AbC123xyz", "object": "chat.completion.chunk",
        "created": 1764547200, "model": "gpt-4o-2024-08-06", "system_fingerprint": "fp_7f6be3efb0",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]});
    out.extend_from_slice(format!("data: {data}\n\n").as_bytes());
}

/// An OpenAI Chat Completions stream of at least `size` bytes: text deltas and tool calls
/// whose arguments come in fragments, a usage chunk and `[DONE]`.
pub fn openai(size: usize) -> Vec<u8> {
    let mut rng = Rng(fastrand::Rng::with_seed(11));
    let mut out = Vec::with_capacity(size + 4096);
    let mut call = 0u64;
    chunk(
        &mut out,
        json!({"role": "assistant", "content": "", "refusal": null}),
        None,
    );
    while out.len() < size {
        for _ in 0..300 {
            let n = rng.0.usize(1..5);
            let t = rng.words(n);
            chunk(&mut out, json!({"content": t}), None);
        }
        // Tool calls only come after the text in one reply; many replies' worth are
        // concatenated here, so text keeps going after them (the decoder accepts it).
        for _ in 0..3 {
            let k = call;
            call += 1;
            let id = format!("call_{:024}", out.len());
            chunk(
                &mut out,
                json!({"tool_calls": [{"index": k, "id": id, "type": "function",
                "function": {"name": "edit_file", "arguments": ""}}]}),
                None,
            );
            let input = tool_input(&mut rng).to_string();
            for f in fragments(&mut rng, &input, 8, 40) {
                chunk(
                    &mut out,
                    json!({"tool_calls": [{"index": k, "function": {"arguments": f}}]}),
                    None,
                );
            }
        }
    }
    chunk(&mut out, json!({}), Some("tool_calls"));
    let usage = json!({"id": "chatcmpl-AbC123xyz", "object": "chat.completion.chunk",
        "created": 1764547200, "model": "gpt-4o-2024-08-06", "choices": [],
        "usage": {"prompt_tokens": 2095, "completion_tokens": 150000, "total_tokens": 152095}});
    out.extend_from_slice(format!("data: {usage}\n\ndata: [DONE]\n\n").as_bytes());
    out
}
