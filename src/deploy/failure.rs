//! What a store's error comes down to, in one line ([`store_says`]): the words every
//! failure of a store or of AWS's credential chain repeats.

/// What a store error comes down to, in one line: object_store's errors repeat their
/// sources in their messages, so the chain is read once here. An S3-style error body gives
/// its status, code and message (`403 Forbidden: InvalidAccessKeyId: The AWS Access Key
/// Id you provided does not exist in our records.`); a transport error its root cause and
/// the retries made. What the store says is [`cut`](crate::diag::cut) to a bound (it
/// may say anything, a page of it, escapes and line breaks too: those the writer escapes).
pub fn store_says(e: &(dyn std::error::Error + 'static)) -> String {
    let mut chain = vec![e.to_string()];
    let mut source = e.source();
    while let Some(s) = source {
        chain.push(s.to_string());
        source = s.source();
    }
    let between = |text: &str, open: &str, close: &str| -> Option<String> {
        let start = text.find(open)? + open.len();
        let end = text[start..].find(close)? + start;
        Some(text[start..end].trim().to_string())
    };
    let all = chain.join("\n");
    let status = between(&all, "status code: ", ":");
    match (between(&all, "<Code>", "</Code>"), between(&all, "<Message>", "</Message>")) {
        (Some(code), message) => {
            let mut out = status.map(|s| format!("{s}: ")).unwrap_or_default();
            out.push_str(&code);
            if let Some(m) = message {
                out.push_str(": ");
                out.push_str(&crate::diag::cut(&m));
            }
            out
        }
        (None, _) => {
            let root = chain.last().cloned().unwrap_or_default();
            let retries =
                between(&all, "after ", " retries").map(|n| format!(" (after {n} retries)"));
            let root = crate::diag::cut(&root);
            match status {
                Some(s) => format!("{s}: {root}"),
                None => format!("{root}{}", retries.unwrap_or_default()),
            }
        }
    }
}
