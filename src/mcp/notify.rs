//! The client side of a server's notifications (rmcp's `ClientHandler`):
//! `notifications/tools/list_changed` flags the server, and its tools are listed again
//! before the next request; `prompts/list_changed` and `resources/list_changed` wake the
//! server's watcher, which lists both again at once (the `/` menu and `@` completion follow
//! mid-session, with no request needed) (issue 39).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient};

#[derive(Clone, Debug, Default)]
pub struct Handler {
    /// Set by the server's notification, taken by [`Handler::take_tools_changed`].
    tools_changed: Arc<AtomicBool>,
    /// Woken by a prompts or resources notification (a permit is kept if none waits).
    catalog_changed: Arc<tokio::sync::Notify>,
}

impl Handler {
    /// Whether the tools changed since the last call.
    pub fn take_tools_changed(&self) -> bool {
        self.tools_changed.swap(false, Ordering::SeqCst)
    }

    /// Waits for the server's next prompts or resources change.
    pub async fn catalog_changed(&self) {
        self.catalog_changed.notified().await;
    }
}

impl ClientHandler for Handler {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        tracing::info!(target: "tooloop::mcp", "a server's tool list changed");
        self.tools_changed.store(true, Ordering::SeqCst);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        tracing::info!(target: "tooloop::mcp", "a server's prompt list changed");
        self.catalog_changed.notify_one();
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        tracing::info!(target: "tooloop::mcp", "a server's resource list changed");
        self.catalog_changed.notify_one();
    }
}
