//! The config examples README gives for MCP servers and hooks are copied by users as they
//! are: each must parse and resolve (matchers compile, servers are well-formed).

use std::path::Path;

use tooloop::config_file::FileConfig;

fn toml_blocks_under(readme: &str, heading: &str) -> Vec<String> {
    let section = readme
        .split("\n## ")
        .find(|s| s.starts_with(heading))
        .unwrap_or_else(|| panic!("README has no section {heading:?}"));
    section
        .split("```toml\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn readme_mcp_and_hook_examples_parse_and_resolve() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let mut seen = 0;
    for heading in ["MCP servers", "Hooks"] {
        for block in toml_blocks_under(&readme, heading) {
            let file = FileConfig::parse(&block, Path::new("README.md"))
                .unwrap_or_else(|e| panic!("README example does not parse: {e}\n{block}"));
            let servers = file.parts.mcp.resolve().expect("servers resolve");
            let hooks = tooloop::hooks::Hooks::new(&file.parts.hooks, std::env::temp_dir());
            assert!(hooks.is_ok(), "{block}");
            seen += servers.len() + usize::from(!file.parts.hooks.is_empty());
        }
    }
    assert_eq!(
        seen, 4,
        "two servers, the deferral example's one and one hooks block"
    );
}
