//! One backend session as the front sees it: its link (a connection up,
//! one being made, or none and why), kept by the task that (re)starts the
//! backend (`supervise`), and the front's state its backends serve.

use std::sync::{Arc, Mutex, PoisonError, Weak};

use mcp_era_server::{ServerDeclaration, ServerEvents};
use tokio::sync::watch;

use crate::backend::{Backend, Era};
use crate::calls::CallRoutes;
use crate::notes::Notes;
use crate::resources::Wanted;
use crate::rounds::Rounds;
use crate::tool_headers::ToolHeaders;

/// One connection to the backend, as the front uses it.
pub(crate) struct Connection {
    pub(crate) backend: Arc<Backend>,
    /// The calls waiting for their client's input, when a legacy backend
    /// may ask (a modern one's rounds pass through).
    pub(crate) rounds: Option<Rounds>,
}

/// The backend as the front sees it now.
#[derive(Clone)]
pub(crate) enum Link {
    /// Connected: requests go to it.
    Up(Arc<Connection>),
    /// A connection is being made: requests wait for it.
    Connecting,
    /// No backend until the next attempt: requests are refused, saying why.
    Down(Arc<str>),
}

/// What the front and the task that (re)connects the backend share.
#[derive(Clone)]
pub(crate) struct Shared {
    pub(crate) link: Arc<watch::Sender<Link>>,
    pub(crate) declaration: Arc<Mutex<Arc<ServerDeclaration>>>,
    /// Where every backend's notifications go.
    pub(crate) notes: Notes,
    /// The resources the clients of this backend session follow.
    pub(crate) wanted: Wanted,
}

impl Shared {
    pub(crate) fn new(declaration: ServerDeclaration, link: Link) -> Self {
        Self {
            link: Arc::new(watch::Sender::new(link)),
            declaration: Arc::new(Mutex::new(Arc::new(declaration))),
            notes: Notes {
                events: ServerEvents::new(),
                calls: CallRoutes::default(),
                tool_headers: ToolHeaders::default(),
                losses: Arc::new(watch::Sender::new(0)),
            },
            wanted: Wanted::default(),
        }
    }

    /// Serves `backend` from now on: its declaration, its notifications.
    pub(crate) async fn attach(&self, backend: Backend) {
        backend.serve_notes(self.notes.clone()).await;
        *self
            .declaration
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Arc::new(backend.declaration());
        self.notes.tool_headers.forget();
        let rounds = backend
            .bridge()
            .filter(|_| backend.era() == Era::Legacy)
            .map(|bridge| {
                let instances = backend.instances().clone();
                Rounds::new(
                    bridge,
                    backend.input_timeout(),
                    backend.names_calls(),
                    instances,
                )
            });
        let backend = Arc::new(backend);
        let connection = Connection {
            backend: Arc::clone(&backend),
            rounds,
        };
        self.link.send_replace(Link::Up(Arc::new(connection)));
        let subscribed = self
            .wanted
            .clone()
            .keep_subscribed(Arc::downgrade(&backend), self.notes.clone());
        let (mut link, backend) = (self.link.subscribe(), Arc::downgrade(&backend));
        tokio::spawn(async move {
            tokio::select! {
                () = subscribed => {}
                _ = link.wait_for(|link| !serves(link, &backend)) => {}
            }
        });
    }

    /// The same front state for another backend session, whose link is
    /// `link`.
    pub(crate) fn with_link(&self, link: Link) -> Self {
        Self {
            link: Arc::new(watch::Sender::new(link)),
            wanted: Wanted::default(),
            ..self.clone()
        }
    }

    /// After a restart the lists may differ: every listener is told.
    pub(crate) fn lists_may_have_changed(&self) {
        let events = &self.notes.events;
        events.tools_list_changed();
        events.prompts_list_changed();
        events.resources_list_changed();
    }
}

/// Whether `link` holds `backend` (not a newer one, nor none).
fn serves(link: &Link, backend: &Weak<Backend>) -> bool {
    match link {
        Link::Up(connection) => std::ptr::eq(Arc::as_ptr(&connection.backend), backend.as_ptr()),
        Link::Connecting | Link::Down(_) => false,
    }
}
