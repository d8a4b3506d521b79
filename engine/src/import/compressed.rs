//! Compressed trace files: tells plain, gzip and zstd files apart by their
//! magic bytes (never by the extension) and decodes them as a stream, so
//! every importer entry point reads `x.json`, `x.json.gz` and `x.json.zst`
//! alike without holding the file in memory.
//!
//! Gzip is decoded by `flate2` (its pure-Rust backend; concatenated members
//! are read in turn), zstd by `ruzstd` (pure Rust; concatenated and
//! skippable frames are handled, and a frame's content checksum is
//! verified). A stream that ends early or does not decode is never mistaken
//! for the end of the file: the reader fails with a [`DecompressError`],
//! which the importers report as [`ImportErrorKind::CompressedTruncated`] or
//! [`ImportErrorKind::CompressedCorrupt`], and keeps failing on every later
//! read (no partial record can follow it). Checksums are checked at the end
//! of each gzip member or zstd frame, so damage that still decodes is
//! reported there, after the records before it were delivered.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};
use serde::Serialize;

use super::error::{ImportError, ImportErrorKind};

/// How a file's bytes are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// Not compressed.
    Plain,
    /// gzip (RFC 1952), magic `1f 8b`.
    Gzip,
    /// Zstandard, magic `28 b5 2f fd`.
    Zstd,
}

impl Compression {
    /// Tells the compression from a file's first bytes.
    pub fn from_magic(head: &[u8]) -> Compression {
        if head.starts_with(&GZIP_MAGIC) {
            Compression::Gzip
        } else if head.starts_with(&ZSTD_MAGIC) {
            Compression::Zstd
        } else {
            Compression::Plain
        }
    }

    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Plain => "plain",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
        }
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
/// Buffer between the file and the decoder.
const COMPRESSED_BUFFER: usize = 1 << 16;
/// Buffer between the decoder (or a plain file) and the JSON scanner.
const DECODED_BUFFER: usize = 1 << 18;

/// What went wrong in a compressed stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecompressProblem {
    /// The compressed data ends before the stream's end marker.
    Truncated,
    /// The compressed data does not decode (or fails its checksum).
    Corrupt(String),
}

/// A compressed stream that could not be decoded, with how many
/// decompressed bytes it delivered before the failure. Carried inside the
/// `io::Error` the decoding reader returns; the importers turn it into an
/// [`ImportErrorKind`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", describe(*.format, .problem, *.offset))]
pub struct DecompressError {
    /// The compression format being decoded.
    pub format: Compression,
    /// Whether the stream was cut short or is damaged.
    pub problem: DecompressProblem,
    /// Decompressed bytes delivered before the failure.
    pub offset: u64,
}

fn describe(format: Compression, problem: &DecompressProblem, offset: u64) -> String {
    match problem {
        DecompressProblem::Truncated => format!(
            "truncated {format} stream: the compressed data ends after {offset} decompressed bytes"
        ),
        DecompressProblem::Corrupt(message) => {
            format!("corrupt {format} stream after {offset} decompressed bytes: {message}")
        }
    }
}

impl DecompressError {
    fn to_io(&self) -> io::Error {
        let kind = match self.problem {
            DecompressProblem::Truncated => io::ErrorKind::UnexpectedEof,
            DecompressProblem::Corrupt(_) => io::ErrorKind::InvalidData,
        };
        io::Error::new(kind, self.clone())
    }

    /// The import error kind this failure is reported as.
    pub fn into_kind(self) -> ImportErrorKind {
        match self.problem {
            DecompressProblem::Truncated => ImportErrorKind::CompressedTruncated {
                format: self.format,
                offset: self.offset,
            },
            DecompressProblem::Corrupt(message) => ImportErrorKind::CompressedCorrupt {
                format: self.format,
                offset: self.offset,
                message,
            },
        }
    }
}

/// Reads the first bytes of `path` and tells its compression.
pub fn sniff(path: &Path) -> Result<Compression, ImportError> {
    let fail = |e: io::Error| ImportError::new(path, None, "", e.into());
    let mut file = File::open(path).map_err(fail)?;
    let mut head = [0u8; ZSTD_MAGIC.len()];
    let read = read_head(&mut file, &mut head).map_err(fail)?;
    Ok(Compression::from_magic(
        head.get(..read).unwrap_or_default(),
    ))
}

/// Reads up to `head.len()` bytes (fewer only at the end of the file).
fn read_head(file: &mut File, head: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while let Some(rest) = head.get_mut(filled..) {
        if rest.is_empty() {
            break;
        }
        match file.read(rest) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Opens `path` for streaming: its decompressed bytes, whatever its
/// compression, and which compression that was.
pub fn open(path: &Path) -> Result<(Compression, Box<dyn BufRead + Send>), ImportError> {
    let fail = |e: io::Error| ImportError::new(path, None, "", e.into());
    let mut file = File::open(path).map_err(fail)?;
    let mut head = [0u8; ZSTD_MAGIC.len()];
    let read = read_head(&mut file, &mut head).map_err(fail)?;
    let compression = Compression::from_magic(head.get(..read).unwrap_or_default());
    file.seek(SeekFrom::Start(0)).map_err(fail)?;
    let reader: Box<dyn BufRead + Send> = match compression {
        Compression::Plain => Box::new(BufReader::with_capacity(DECODED_BUFFER, file)),
        Compression::Gzip => {
            let (source, state) = Source::new(file);
            let decoder = flate2::bufread::MultiGzDecoder::new(source);
            Box::new(BufReader::with_capacity(
                DECODED_BUFFER,
                Decoded::new(decoder, compression, state),
            ))
        }
        Compression::Zstd => {
            let (source, state) = Source::new(file);
            Box::new(BufReader::with_capacity(
                DECODED_BUFFER,
                Decoded::new(ZstdFrames::new(source), compression, state),
            ))
        }
    };
    Ok((compression, reader))
}

/// The whole decompressed content of `path` (for small files and tests;
/// the importers stream).
pub fn read_all(path: &Path) -> Result<Vec<u8>, ImportError> {
    let (_, mut reader) = open(path)?;
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| ImportError::new(path, None, "", e.into()))?;
    Ok(bytes)
}

/// The name the file's content goes by: `x.jsonl.gz` is read as `x.jsonl`
/// (its trace ids and its JSON-vs-lines decision follow that name) when the
/// file really is compressed.
pub(crate) fn content_name(path: &Path, compression: Compression) -> PathBuf {
    let compressed_extension = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| ["gz", "gzip", "zst", "zstd"].contains(&e.to_ascii_lowercase().as_str()));
    if compression != Compression::Plain && compressed_extension {
        path.with_extension("")
    } else {
        path.to_path_buf()
    }
}

/// What the decoder's source saw, shared with [`Decoded`] to tell a
/// truncated stream (the file ran out) from a corrupt one, and both from a
/// genuine I/O error (passed on unchanged).
#[derive(Default)]
struct SourceState {
    reached_end: AtomicBool,
    io_failed: AtomicBool,
}

/// The compressed file, buffered, recording its end and its I/O errors.
struct Source {
    file: File,
    state: Arc<SourceState>,
}

impl Source {
    fn new(file: File) -> (BufReader<Source>, Arc<SourceState>) {
        let state = Arc::new(SourceState::default());
        let source = Source {
            file,
            state: Arc::clone(&state),
        };
        (BufReader::with_capacity(COMPRESSED_BUFFER, source), state)
    }
}

impl Read for Source {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.file.read(buf) {
            Ok(0) if !buf.is_empty() => {
                self.state.reached_end.store(true, Ordering::Relaxed);
                Ok(0)
            }
            Ok(n) => Ok(n),
            Err(e) => {
                if e.kind() != io::ErrorKind::Interrupted {
                    self.state.io_failed.store(true, Ordering::Relaxed);
                }
                Err(e)
            }
        }
    }
}

/// A decoder's output, counting the bytes delivered and turning its errors
/// into a sticky [`DecompressError`].
struct Decoded<D> {
    decoder: D,
    format: Compression,
    state: Arc<SourceState>,
    delivered: u64,
    failed: Option<DecompressError>,
}

impl<D: Read> Decoded<D> {
    fn new(decoder: D, format: Compression, state: Arc<SourceState>) -> Self {
        Decoded {
            decoder,
            format,
            state,
            delivered: 0,
            failed: None,
        }
    }
}

impl<D: Read> Read for Decoded<D> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(failed) = &self.failed {
            return Err(failed.to_io());
        }
        match self.decoder.read(buf) {
            Ok(n) => {
                self.delivered += n as u64;
                Ok(n)
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Err(e),
            Err(e) if self.state.io_failed.load(Ordering::Relaxed) => Err(e),
            Err(e) => {
                let problem = if e.kind() == io::ErrorKind::UnexpectedEof
                    || self.state.reached_end.load(Ordering::Relaxed)
                {
                    DecompressProblem::Truncated
                } else {
                    DecompressProblem::Corrupt(e.to_string())
                };
                let failed = DecompressError {
                    format: self.format,
                    problem,
                    offset: self.delivered,
                };
                let error = failed.to_io();
                self.failed = Some(failed);
                Err(error)
            }
        }
    }
}

/// Where a [`ZstdFrames`] reader is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ZstdPosition {
    /// Before a frame header (or at the end of the file).
    BetweenFrames,
    /// Inside a frame.
    InFrame,
    /// Past the last frame.
    Done,
}

/// Every frame of a zstd file in turn (`zstd` writes one; concatenated
/// files have several, and skippable frames carry no content).
struct ZstdFrames<R> {
    source: R,
    decoder: FrameDecoder,
    position: ZstdPosition,
}

impl<R: BufRead> ZstdFrames<R> {
    fn new(source: R) -> Self {
        ZstdFrames {
            source,
            decoder: FrameDecoder::new(),
            position: ZstdPosition::BetweenFrames,
        }
    }

    /// Reads the next frame header, skipping skippable frames; `false` at a
    /// clean end of the file.
    fn start_frame(&mut self) -> io::Result<bool> {
        loop {
            if self.source.fill_buf()?.is_empty() {
                return Ok(false);
            }
            match self.decoder.reset(&mut self.source) {
                Ok(()) => return Ok(true),
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                    length,
                    ..
                })) => {
                    let skipped =
                        io::copy(&mut (&mut self.source).take(length.into()), &mut io::sink())?;
                    if skipped < u64::from(length) {
                        return Err(io::ErrorKind::UnexpectedEof.into());
                    }
                }
                Err(e) => return Err(io::Error::new(io::ErrorKind::InvalidData, e.to_string())),
            }
        }
    }

    /// Fails when the frame carried a content checksum that does not match
    /// what was decoded.
    fn verify_checksum(&self) -> io::Result<()> {
        let expected = self.decoder.get_checksum_from_data();
        let computed = self.decoder.get_calculated_checksum();
        match (expected, computed) {
            (Some(expected), Some(computed)) if expected != computed => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "content checksum mismatch (stored {expected:#010x}, computed {computed:#010x})"
                ),
            )),
            _ => Ok(()),
        }
    }
}

impl<R: BufRead> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            match self.position {
                ZstdPosition::Done => return Ok(0),
                ZstdPosition::BetweenFrames => {
                    self.position = if self.start_frame()? {
                        ZstdPosition::InFrame
                    } else {
                        ZstdPosition::Done
                    };
                }
                ZstdPosition::InFrame => {
                    while self.decoder.can_collect() < buf.len() && !self.decoder.is_finished() {
                        let wanted = buf.len() - self.decoder.can_collect();
                        self.decoder
                            .decode_blocks(
                                &mut self.source,
                                BlockDecodingStrategy::UptoBytes(wanted),
                            )
                            .map_err(|e| {
                                let kind = match &e {
                                    FrameDecoderError::FailedToReadChecksum(inner)
                                        if inner.kind() == io::ErrorKind::UnexpectedEof =>
                                    {
                                        io::ErrorKind::UnexpectedEof
                                    }
                                    _ => io::ErrorKind::InvalidData,
                                };
                                io::Error::new(kind, e.to_string())
                            })?;
                    }
                    let n = self.decoder.read(buf)?;
                    if n > 0 {
                        return Ok(n);
                    }
                    self.verify_checksum()?;
                    self.position = ZstdPosition::BetweenFrames;
                }
            }
        }
    }
}
