//! The client side of a server's notifications (rmcp's `ClientHandler`):
//! `notifications/tools/list_changed` flags the server, and its tools are listed again
//! before the next request (issue 39).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient};

#[derive(Clone, Debug, Default)]
pub struct Handler {
    /// Set by the server's notification, taken by [`Handler::take_tools_changed`].
    tools_changed: Arc<AtomicBool>,
}

impl Handler {
    /// Whether the tools changed since the last call.
    pub fn take_tools_changed(&self) -> bool {
        self.tools_changed.swap(false, Ordering::SeqCst)
    }
}

impl ClientHandler for Handler {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        tracing::info!(target: "tooloop::mcp", "a server's tool list changed");
        self.tools_changed.store(true, Ordering::SeqCst);
    }
}
