//! A TCP proxy in front of the NATS server that a test can sever (every connection
//! through it closed, new ones refused) and restore: a server cut off from NATS.

use std::sync::{Arc, Mutex};

use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// Whether connections go through, and the ones that do; one lock, so no connection
/// slips through while the proxy is being severed.
#[derive(Default)]
struct Links {
    severed: bool,
    open: Vec<JoinHandle<()>>,
}

pub struct Proxy {
    port: u16,
    links: Arc<Mutex<Links>>,
    acceptor: JoinHandle<()>,
}

impl Proxy {
    /// Forwards a new loopback port to `upstream`'s.
    pub async fn start(upstream: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let links: Arc<Mutex<Links>> = Arc::default();
        let acceptor = tokio::spawn({
            let links = links.clone();
            async move {
                while let Ok((mut inbound, _)) = listener.accept().await {
                    let mut links = links.lock().unwrap();
                    if links.severed {
                        continue; // `inbound` dropped: refused
                    }
                    links.open.push(tokio::spawn(async move {
                        if let Ok(mut outbound) = TcpStream::connect(("127.0.0.1", upstream)).await {
                            let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                        }
                    }));
                }
            }
        });
        Proxy { port, links, acceptor }
    }

    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// Closes every connection through the proxy and refuses new ones.
    pub fn sever(&self) {
        let mut links = self.links.lock().unwrap();
        links.severed = true;
        for link in links.open.drain(..) {
            link.abort();
        }
    }

    /// Lets connections through again.
    pub fn restore(&self) {
        self.links.lock().unwrap().severed = false;
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.acceptor.abort();
        self.sever();
    }
}
