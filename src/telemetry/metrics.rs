//! The instruments: the GenAI conventions' client metrics with their bucket boundaries,
//! and tooloop's own counters (`tooloop.*`).

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, Meter};

/// `gen_ai.client.token.usage` boundaries (the conventions' advice): powers of 4.
const TOKEN_BUCKETS: [f64; 14] = [
    1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0, 1048576.0, 4194304.0,
    16777216.0, 67108864.0,
];

/// `gen_ai.client.operation.duration` (and time to first chunk) boundaries, in seconds.
const DURATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

pub struct Instruments {
    pub token_usage: Histogram<u64>,
    pub duration: Histogram<f64>,
    pub time_to_first_chunk: Histogram<f64>,
    pub cost: Counter<f64>,
    pub tool_calls: Counter<u64>,
    pub approvals: Counter<u64>,
    pub compactions: Counter<u64>,
    pub lines_changed: Counter<u64>,
}

impl Instruments {
    pub fn new(meter: &Meter) -> Self {
        Instruments {
            token_usage: meter
                .u64_histogram("gen_ai.client.token.usage")
                .with_unit("{token}")
                .with_description("Number of input and output tokens used")
                .with_boundaries(TOKEN_BUCKETS.to_vec())
                .build(),
            duration: meter
                .f64_histogram("gen_ai.client.operation.duration")
                .with_unit("s")
                .with_description("GenAI operation duration")
                .with_boundaries(DURATION_BUCKETS.to_vec())
                .build(),
            time_to_first_chunk: meter
                .f64_histogram("gen_ai.client.operation.time_to_first_chunk")
                .with_unit("s")
                .with_description("Time to receive the first chunk of a streamed response")
                .with_boundaries(DURATION_BUCKETS.to_vec())
                .build(),
            cost: meter
                .f64_counter("tooloop.cost.usage")
                .with_unit("USD")
                .with_description("Cost of the model requests, from the model table's prices")
                .build(),
            tool_calls: meter
                .u64_counter("tooloop.tool.calls")
                .with_unit("{call}")
                .with_description("Tool calls by tool and outcome")
                .build(),
            approvals: meter
                .u64_counter("tooloop.tool.decisions")
                .with_unit("{decision}")
                .with_description("Consent decisions by decision and source")
                .build(),
            compactions: meter
                .u64_counter("tooloop.compactions")
                .with_unit("{compaction}")
                .with_description("Context compactions by trigger")
                .build(),
            lines_changed: meter
                .u64_counter("tooloop.lines_changed")
                .with_unit("{line}")
                .with_description("Lines added and removed by the file tools")
                .build(),
        }
    }
}

/// `(added, removed)` lines of a unified diff's hunks (headers not counted).
pub fn diff_lines(unified_diff: &str) -> (u64, u64) {
    let mut added = 0;
    let mut removed = 0;
    for line in unified_diff.lines() {
        if line.starts_with("+++") || line.starts_with("---") {
            continue;
        }
        if line.starts_with('+') {
            added += 1;
        } else if line.starts_with('-') {
            removed += 1;
        }
    }
    (added, removed)
}

/// Attributes every data point carries: who and what produced it.
pub fn common(session: &str, provider: &str, model: &str) -> Vec<KeyValue> {
    vec![
        KeyValue::new("session.id", session.to_string()),
        KeyValue::new("gen_ai.provider.name", provider.to_string()),
        KeyValue::new("gen_ai.request.model", model.to_string()),
        KeyValue::new("tooloop.version", env!("CARGO_PKG_VERSION")),
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn diff_lines_count_hunk_lines_only() {
        let diff = "--- a/x\n+++ b/x\n@@ -1,2 +1,3 @@\n a\n-b\n+c\n+d\n";
        assert_eq!(super::diff_lines(diff), (2, 1));
    }
}
