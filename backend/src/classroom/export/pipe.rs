//! An export's bytes from the blocking thread that writes them to the response body
//! that sends them: blocks of 64 KiB through a channel of a few, so a slow client
//! slows the writer instead of filling memory, and a client that goes away stops it.

use std::io::{self, Write};
use std::time::Duration;

use bytes::Bytes;
use futures_util::Stream;
use tokio::runtime::Handle;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::ExportError;

/// Bytes sent at a time.
const BLOCK_BYTES: usize = 64 * 1024;
/// Blocks written ahead of what the client has taken.
const BLOCKS_AHEAD: usize = 4;
/// The longest an export may take, start to end: one whose client reads too slowly to
/// finish within it is cut off, so it cannot hold one of the few export slots forever.
pub const EXPORT_TIME_LIMIT: Duration = Duration::from_secs(600);

/// The body of an export: its blocks, or an error that cuts it short.
pub type ExportStream = std::pin::Pin<Box<dyn Stream<Item = io::Result<Bytes>> + Send>>;

/// Runs `write` on a blocking thread (from within the server's runtime), its output
/// streamed out as it comes. An error once bytes have gone ends the stream with an
/// error, so the client sees a cut-off download rather than a short file.
pub fn stream<F>(write: F) -> ExportStream
where
    F: FnOnce(&mut Pipe) -> Result<(), ExportError> + Send + 'static,
{
    let (sender, receiver) = mpsc::channel(BLOCKS_AHEAD);
    let handle = Handle::current();
    tokio::task::spawn_blocking(move || {
        let mut pipe = Pipe {
            sender,
            handle,
            block: Vec::with_capacity(BLOCK_BYTES),
            deadline: Instant::now() + EXPORT_TIME_LIMIT,
        };
        let written = write(&mut pipe).and_then(|()| pipe.send_block().map_err(ExportError::Io));
        if let Err(error) = written {
            match &error {
                ExportError::Io(io) if io.kind() == io::ErrorKind::BrokenPipe => {
                    tracing::debug!("an export's client went away")
                }
                _ => tracing::warn!(%error, "an export stopped"),
            }
            let message = io::Error::other(error.to_string());
            // Nobody left to tell is fine.
            let _ = pipe.handle.block_on(pipe.sender.send(Err(message)));
        }
    });
    Box::pin(futures_util::stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|item| (item, receiver))
    }))
}

/// Where an export writes: blocks go to the response as they fill.
pub struct Pipe {
    sender: mpsc::Sender<io::Result<Bytes>>,
    handle: Handle,
    block: Vec<u8>,
    deadline: Instant,
}

impl Pipe {
    fn send_block(&mut self) -> io::Result<()> {
        if self.block.is_empty() {
            return Ok(());
        }
        let block = Bytes::from(std::mem::replace(&mut self.block, Vec::with_capacity(BLOCK_BYTES)));
        // This thread is a blocking one: waiting here for the client is what it is for.
        let sent = self.handle.block_on(tokio::time::timeout_at(self.deadline, self.sender.send(Ok(block))));
        match sent {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => Err(io::Error::new(io::ErrorKind::BrokenPipe, "the client went away")),
            Err(_) => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the export took longer than {} s", EXPORT_TIME_LIMIT.as_secs()),
            )),
        }
    }
}

impl Write for Pipe {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.block.extend_from_slice(bytes);
        if self.block.len() >= BLOCK_BYTES {
            self.send_block()?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        // Blocks go when full or at the end: a flush mid-way would only send small ones.
        Ok(())
    }
}
