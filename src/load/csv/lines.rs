//! Physical lines of a CSV file, whatever ends them.

/// Where the physical lines of a file start. A line ends at `\n`, `\r\n` or a lone `\r`
/// (Unix, Windows and classic Mac exports), inside quoted cells too.
pub(super) struct Lines {
    pub(super) starts: Vec<usize>,
}

impl Lines {
    pub(super) fn new(bytes: &[u8]) -> Lines {
        let mut starts = vec![0];
        for i in memchr::memchr2_iter(b'\n', b'\r', bytes) {
            // The `\r` of a `\r\n` is not a line end of its own.
            if bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n') {
                starts.push(i + 1);
            }
        }
        Lines { starts }
    }

    /// The 1-based line of the record whose parse began at byte `at`: the first byte
    /// after any line ends there (the parser may begin a record on the `\n` of a `\r\n`).
    pub(super) fn of_record(&self, bytes: &[u8], at: u64) -> u64 {
        let mut at = usize::try_from(at).unwrap_or(usize::MAX).min(bytes.len());
        while at < bytes.len() && matches!(bytes[at], b'\r' | b'\n') {
            at += 1;
        }
        self.starts.partition_point(|&start| start <= at) as u64
    }
}
