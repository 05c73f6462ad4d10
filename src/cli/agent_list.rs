//! The agent definitions as text: what `tooloop agents` prints and `/agents` shows in the TUI.

use std::path::Path;

use crate::agent::subagent::{AgentDefinition, ToolChoice};

/// One row per agent: name, where it comes from, its tools, its model. Paths inside the
/// workspace or the home directory are shortened.
pub fn format_table(defs: &[AgentDefinition], workspace: &Path) -> String {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let rows: Vec<[String; 4]> = defs
        .iter()
        .map(|d| {
            let source = match &d.source {
                None => "built-in".to_string(),
                Some(p) => match (p.strip_prefix(workspace), &home) {
                    (Ok(rel), _) => rel.display().to_string(),
                    (Err(_), Some(h)) if p.starts_with(h) => {
                        format!("~/{}", p.strip_prefix(h).unwrap_or(p).display())
                    }
                    _ => p.display().to_string(),
                },
            };
            let tools = match &d.tools {
                ToolChoice::All => "all but task".to_string(),
                ToolChoice::ReadOnly => "read-only".to_string(),
                ToolChoice::Named(n) => n.join(", "),
            };
            let model = d.model.clone().unwrap_or_else(|| "(parent's)".into());
            [d.name.clone(), source, tools, model]
        })
        .collect();
    let rows: Vec<Vec<String>> = rows.into_iter().map(Vec::from).collect();
    crate::text::columns(&["NAME", "SOURCE", "TOOLS", "MODEL"], &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_ins_are_listed_with_their_tools() {
        let defs = crate::agent::subagent::definitions::builtin();
        let t = format_table(&defs, Path::new("/w"));
        assert_eq!(
            t,
            "NAME     SOURCE    TOOLS         MODEL\n\
             general  built-in  all but task  (parent's)\n\
             explore  built-in  read-only     (parent's)\n"
        );
    }
}
