//! An export's bytes from the blocking thread that writes them to the response body
//! that sends them: blocks of 64 KiB through a channel of a few, so a slow client
//! slows the writer instead of filling memory, a client that goes away stops it, and
//! one that stops reading (no block taken within the read window) loses its export.

use std::io::{self, Write};
use std::time::Duration;

use bytes::Bytes;
use futures_util::Stream;
use tokio::runtime::Handle;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::ExportError;

/// Bytes sent at a time.
pub const BLOCK_BYTES: usize = 64 * 1024;
/// Blocks written ahead of what the client has taken.
const BLOCKS_AHEAD: usize = 4;
/// The longest an export may take, start to end: one whose client reads too slowly to
/// finish within it is cut off, so it cannot hold one of the few export slots forever.
pub const EXPORT_TIME_LIMIT: Duration = Duration::from_secs(600);

/// The body of an export: its blocks, or an error that cuts it short.
pub type ExportStream = std::pin::Pin<Box<dyn Stream<Item = io::Result<Bytes>> + Send>>;

/// Runs `write` on a blocking thread (from within the server's runtime), its output
/// streamed out as it comes; a client that takes no block within `read_window` (while
/// the writer waits to hand it one) ends the export. An error once bytes have gone ends
/// the stream with an error, so the client sees a cut-off download rather than a short
/// file.
pub fn stream<F>(read_window: Duration, write: F) -> ExportStream
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
            read_window,
        };
        let written = write(&mut pipe).and_then(|()| pipe.send_block().map_err(ExportError::Io));
        if let Err(error) = written {
            match &error {
                ExportError::Io(io) if io.kind() == io::ErrorKind::BrokenPipe => {
                    tracing::debug!("an export's client went away")
                }
                // The client's own doing: it loses its export, nobody else anything.
                ExportError::Io(io) if io.kind() == io::ErrorKind::TimedOut => {
                    tracing::info!(%error, "an export was ended")
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
    read_window: Duration,
}

impl Pipe {
    fn send_block(&mut self) -> io::Result<()> {
        if self.block.is_empty() {
            return Ok(());
        }
        let block = Bytes::from(std::mem::replace(&mut self.block, Vec::with_capacity(BLOCK_BYTES)));
        // The writer waits here only while the blocks ahead are all unread: a wait
        // past the read window means the client took less than a block in that time.
        let slow = Instant::now() + self.read_window;
        let until = slow.min(self.deadline);
        // This thread is a blocking one: waiting here for the client is what it is for.
        let sent = self.handle.block_on(tokio::time::timeout_at(until, self.sender.send(Ok(block))));
        match sent {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => Err(io::Error::new(io::ErrorKind::BrokenPipe, "the client went away")),
            Err(_) if until == slow => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the client read less than {} KiB in {} s, so its export was ended: download it again \
                     over a faster link, or ask for a shorter span",
                    BLOCK_BYTES / 1024,
                    self.read_window.as_secs_f64()
                ),
            )),
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

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;

    /// An export of `blocks` blocks, written as fast as the pipe takes them.
    fn export(blocks: usize, window: Duration) -> ExportStream {
        stream(window, move |out| {
            for _ in 0..blocks {
                out.write_all(&[b'x'; BLOCK_BYTES])?;
            }
            Ok(())
        })
    }

    #[tokio::test]
    async fn a_client_that_reads_a_block_within_each_window_gets_the_whole_export() {
        let window = Duration::from_millis(800);
        let mut body = export(2 * BLOCKS_AHEAD + 2, window);
        let mut bytes = 0;
        while let Some(block) = body.next().await {
            bytes += block.expect("no block refused").len();
            // Well within the window: reading slowly is not stopping.
            tokio::time::sleep(window / 8).await;
        }
        assert_eq!(bytes, (2 * BLOCKS_AHEAD + 2) * BLOCK_BYTES);
    }

    #[tokio::test]
    async fn a_client_that_stops_reading_loses_its_export() {
        let window = Duration::from_millis(200);
        let mut body = export(4 * BLOCKS_AHEAD, window);
        let first = body.next().await.unwrap().unwrap();
        assert_eq!(first.len(), BLOCK_BYTES);
        // Nothing read for a while: the writer waited a window for room and gave up.
        tokio::time::sleep(window * 5).await;
        let mut ended = None;
        while let Some(item) = body.next().await {
            if let Err(error) = item {
                ended = Some(error.to_string());
            }
        }
        let ended = ended.expect("the export ends with an error, not as a short file");
        assert!(ended.contains("read less than 64 KiB in 0.2 s"), "{ended}");
    }
}
